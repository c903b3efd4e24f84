"""Providers are found through one registry, as inspect_ai's ``@modelapi``: a new
one is a factory registered under its prefix, its client imported only when a
run asks for it, and its errors worded by the one status ladder in the base."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from qflow_tui.core.llm import LLMError, LLMRequest, _http, client_module, make_client, modelapi, providers
from qflow_tui.core.llm._http import ProviderErrors
from qflow_tui.core.llm.base import Completion
from qflow_tui.core.llm.prices import price_of
from qflow_tui.core.llm.registry import PROVIDERS


class EchoClient:
    """A provider a contributor might add: answers with the prompt."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def complete(self, request: LLMRequest, on_delta) -> Completion:  # type: ignore[no-untyped-def]
        text = request.messages[-1]["content"]
        on_delta(text)
        return Completion(text=text)

    async def aclose(self) -> None:
        pass


@pytest.fixture
def echo_provider() -> Iterator[None]:
    @modelapi("echo", example="echo/any", free=True)
    def echo(rest, options):  # type: ignore[no-untyped-def]
        return EchoClient(f"echo/{rest}")

    try:
        yield
    finally:
        del PROVIDERS.extra["echo"]


def test_the_built_in_providers_are_registered():
    # Found through the qflow.providers group, replay/ and reference included, with nothing imported first.
    assert list(providers()) == ["anthropic", "openai", "local", "script", "replay", "reference"]


async def test_a_registered_provider_builds_runs_and_is_named_in_messages(echo_provider):
    client = make_client("echo/x")
    answer = await client.complete(LLMRequest(agent="a", messages=[{"role": "user", "content": "hi"}]), lambda _: None)
    assert answer.text == "hi"
    assert price_of("echo/x", {}) is not None  # free, as it registered
    with pytest.raises(LLMError) as info:
        make_client("nosuch/x")
    assert "echo" in str(info.value) and "echo/any" in str(info.value)


def test_naming_a_provider_does_not_import_its_sdk_until_asked():
    # The factories import their client inside: the registry itself is light.
    code = (
        "import sys; from qflow_tui.core.llm import providers, split_model_name; "
        "assert providers()['anthropic'].module == 'qflow_tui.core.llm.anthropic_client'; "
        "split_model_name('anthropic/x'); "
        "print(sorted(m for m in ('anthropic', 'openai', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_an_sdk_less_provider_has_no_module_to_warm_up(echo_provider):
    assert client_module("echo/x") is None


class _Tiny(ProviderErrors):
    """A new HTTP client inherits the whole ladder; it only says its variable."""

    provider = "tiny"
    key_var = "TINY_API_KEY"

    def __init__(self) -> None:
        self.name, self.model, self.base_url = "tiny/m", "m", "https://tiny.example"
        self.max_retries, self._secret, self._timeout = 0, "", None


@pytest.mark.parametrize(
    "status, needle, retryable, fatal",
    [
        (400, "rejected the request (400)", False, False),
        (401, "rejected the API key (401): check TINY_API_KEY", False, True),
        (404, "unknown model 'm' (404", False, True),
        (413, "does not fit the model's context window", False, False),
        (429, "rate limited (429)", True, False),
        (529, "overloaded", True, False),
        (503, "server error 503", True, False),
        (418, "HTTP 418", False, False),
    ],
)
def test_the_status_ladder_lives_in_the_base(status, needle, retryable, fatal):
    detail = "context length exceeded" if status == 413 else ""
    err = _Tiny()._status_error(status, detail, {"retry-after": "3"})
    assert needle in str(err)
    assert (err.retryable, err.fatal, err.status) == (retryable, fatal, status)
    assert err.retry_after == (3.0 if retryable else None)


def test_each_client_maps_only_its_own_sdk():
    # No status ladder is written out in a client module any more.
    folder = Path(_http.__file__).parent
    for mod in ("anthropic_client", "openai_client"):
        text = (folder / f"{mod}.py").read_text(encoding="utf-8")
        assert "rate limited" not in text and "status == 429" not in text
