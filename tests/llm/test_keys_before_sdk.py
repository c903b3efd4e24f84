"""A missing key is said before the provider's SDK is imported: importing
anthropic or openai takes about a second, which the app spent frozen on the
first Run before saying "set ANTHROPIC_API_KEY"."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from qflow_tui.core.llm import LLMError, make_client
try:
    make_client(sys.argv[1], base_url=sys.argv[2] or None, env={})
except LLMError as exc:
    print(exc)
print("sdk imported" if {"anthropic", "openai"} & set(sys.modules) else "no sdk")
"""


def said(model: str, base_url: str = "") -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, model, base_url], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def test_a_missing_anthropic_key_is_said_without_importing_the_sdk():
    message, sdk = said("anthropic/claude-sonnet-5-5")
    assert message.startswith("set ANTHROPIC_API_KEY to use anthropic/claude-sonnet-5-5")
    assert sdk == "no sdk"


def test_a_missing_openai_key_is_said_without_importing_the_sdk():
    message, sdk = said("openai/gpt-4o")
    assert message.startswith("set OPENAI_API_KEY to use openai/gpt-4o")
    assert sdk == "no sdk"
    message, sdk = said("openai/qwen", "https://llm.example.com/v1")
    assert message.startswith("set OPENAI_API_KEY to use openai/qwen at https://llm.example.com/v1")


def test_a_local_server_needs_no_key_and_gets_its_client():
    (sdk,) = said("openai/qwen", "http://127.0.0.1:8080/v1")
    assert sdk == "sdk imported"


def test_the_client_module_to_warm_up_is_the_one_a_run_would_import_now():
    from qflow_tui.core.llm import client_module

    key = {"ANTHROPIC_API_KEY": "sk-test", "OPENAI_API_KEY": "sk-test"}
    assert client_module("anthropic/claude-sonnet-5-5", env=key) == "qflow_tui.core.llm.anthropic_client"
    assert client_module("openai/gpt-4o", env=key) == "qflow_tui.core.llm.openai_client"
    assert client_module("openai/qwen", base_url="llamacpp", env={}) == "qflow_tui.core.llm.openai_client"
    # No key: the Run will say so, and needs no SDK for that.
    assert client_module("anthropic/claude-sonnet-5-5", env={}) is None
    assert client_module("openai/gpt-4o", env={}) is None
    assert client_module("script/tests/scripts/mbpp11.py", env=key) is None
    assert client_module("nonsense", env=key) is None
    assert client_module("openai/qwen", base_url="not a url", env=key) is None
