"""Test doubles for the UI suite: script models that can be frozen mid-run, and
the shared test sandbox (the real one at its portable level, with a fixed label)."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qflow_tui.core.llm.script import ScriptClient
from tests.helpers import TestSandbox

ROOT = Path(__file__).resolve().parents[2]
MBPP11 = ROOT / "tests" / "scripts" / "mbpp11.py"


InProcessSandbox = TestSandbox  # kept name: the UI suite's sandbox is the real one, see tests/helpers.py


def load_responder(path: Path = MBPP11) -> Callable[[dict], str]:
    spec = importlib.util.spec_from_file_location(f"ui_script_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.respond


def mbpp11_client(**kwargs: Any) -> ScriptClient:
    return ScriptClient.from_function(load_responder(), name="tests/scripts/mbpp11.py", **kwargs)


def always_wrong_client() -> ScriptClient:
    """MBPP 11, but the self-debugger and clarifier never fix the program: every
    check rejects and the run reverts to the first program."""
    respond = load_responder()
    import re

    def wrong(request: dict) -> str:
        text = respond(request)
        if request["agent"] in ("self_debugger", "program_generator"):
            # Keep the buggy program (the script's FIXED one uses rfind).
            return re.sub(r"```python\n.*?```", lambda m: "```python\n" + _BUGGY + "```", text, flags=re.S)
        return text

    return ScriptClient.from_function(wrong, name="tests/scripts/mbpp11-wrong.py")


_BUGGY = """def remove_Occ(s, ch):
    # Remove the first occurrence of ch.
    i = s.find(ch)
    if i == -1:
        return s
    return s[:i] + s[i + 1:]
"""


class FreezingClient:
    """A script model whose calls of one agent stream their first ``partial``
    characters, then block until ``release`` is set: a run frozen mid-stream,
    deterministically (no sleeps). ``reached`` counts the calls now blocked."""

    def __init__(
        self, respond: Callable[[dict], str], agent: str, *, partial: int = 200, name: str = "tests/scripts/mbpp11.py"
    ) -> None:
        self.inner = ScriptClient.from_function(respond, name=name)
        self.name = self.inner.name
        self.respond = respond
        self.agent = agent
        self.partial = partial
        self.release = asyncio.Event()
        self.blocked = 0
        self.reached = asyncio.Event()

    async def complete(self, request: Any, on_delta: Callable[[str], None]) -> Any:
        if request.agent != self.agent:
            return await self.inner.complete(request, on_delta)
        from qflow_tui.core.llm.base import Completion

        text = self.respond(request.as_script_request())
        # One piece of at least 160 characters is handed on at once by the core.
        head, tail = text[: self.partial], text[self.partial :]
        on_delta(head)
        self.blocked += 1
        self.reached.set()
        await self.release.wait()
        if tail:
            on_delta(tail)
        return Completion(text=text, input_tokens=100, output_tokens=len(text) // 4, tokens_estimated=True)

    async def aclose(self) -> None:
        return None
