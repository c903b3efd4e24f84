"""Which environment values a session never holds (``secret_values``)."""

import pytest

from qflow_tui.core.session.redaction import redact, secret_values


def test_secret_names_choose_the_values_longest_first() -> None:
    env = {
        "OPENAI_API_KEY": "sk-short-but-long-enough",
        "MY_SERVICE_TOKEN": "a-much-longer-token-value-here",
        "DB_PASSWORD": "hunter22",
        "SHORT_SECRET": "1234567",  # under 8 characters: too common a string to cut from text
        "HOME": "/root/not-a-secret-at-all",
        "TOKENIZER": "not-a-secret-either",
    }
    assert secret_values(env) == ["a-much-longer-token-value-here", "sk-short-but-long-enough", "hunter22"]


def test_the_process_environment_is_read_by_default_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QFLOW_TEST_API_KEY", "value-of-the-test-key")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    found = secret_values()
    assert "value-of-the-test-key" in found
    assert redact("said value-of-the-test-key here", found) == "said [redacted] here"
    monkeypatch.delenv("QFLOW_TEST_API_KEY")
    assert "value-of-the-test-key" not in secret_values()
