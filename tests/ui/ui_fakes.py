"""Test doubles for the UI suite: an in-process stand-in for the sandbox and
script models that can be frozen mid-run.

The UI tests exercise the app, not isolation; running the (trusted) programs of
our own script models in-process keeps each run to a few milliseconds and makes
the suite independent of the machine's bwrap/seccomp set-up. The sandbox has its
own tests under tests/sandbox/.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any, Callable

from qflow_tui.core.asserts import find_call
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.sandbox.report import SandboxReport, TestOutcome

ROOT = Path(__file__).resolve().parents[2]
MBPP11 = ROOT / "tests" / "scripts" / "mbpp11.py"


def _run_one(namespace: dict[str, Any], test: str, entry_point: str | None) -> TestOutcome:
    try:
        exec(test, dict(namespace))
        return TestOutcome(test, "pass")
    except AssertionError:
        site = find_call(test, entry_point)
        actual = None
        if site is not None:
            try:
                actual = repr(eval(site.source, dict(namespace)))
            except Exception as exc:  # noqa: BLE001
                return TestOutcome(test, "error", error=f"{type(exc).__name__}: {exc}")
        return TestOutcome(test, "fail", actual=actual)
    except Exception as exc:  # noqa: BLE001
        return TestOutcome(test, "error", error=f"{type(exc).__name__}: {exc}")


class InProcessSandbox:
    """Implements the two calls the workflow makes on a Sandbox, in-process."""

    isolation = "in-process (tests)"

    async def run_tests(self, program: str, tests: list[str], entry_point: str | None = None, setup: str = "") -> SandboxReport:
        await asyncio.sleep(0)
        namespace: dict[str, Any] = {}
        try:
            exec(setup + "\n" + program, namespace)
        except Exception as exc:  # noqa: BLE001
            error = f"{type(exc).__name__}: {exc}"
            return SandboxReport([TestOutcome(t, "error", error=error) for t in tests], load_error=error, isolation=self.isolation)
        return SandboxReport([_run_one(namespace, t, entry_point) for t in tests], isolation=self.isolation)

    async def check_values(self, items: list[tuple[str, str]], entry_point: str | None = None, setup: str = "") -> SandboxReport:
        await asyncio.sleep(0)
        results = []
        for test, value in items:
            site = find_call(test, entry_point)
            if site is None:
                results.append(TestOutcome(test, "error", error="no call to the entry point"))
                continue
            judged = test[: site.start] + "(" + value + ")" + test[site.end :]
            namespace: dict[str, Any] = {}
            exec(setup, namespace)
            outcome = _run_one(namespace, judged, None)
            results.append(TestOutcome(test, outcome.status, actual=value if outcome.status != "pass" else None, error=outcome.error))
        return SandboxReport(results, isolation=self.isolation)


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


_BUGGY = '''def remove_Occ(s, ch):
    # Remove the first occurrence of ch.
    i = s.find(ch)
    if i == -1:
        return s
    return s[:i] + s[i + 1:]
'''


class FreezingClient:
    """A script model whose calls of one agent stream their first ``partial``
    characters, then block until ``release`` is set: a run frozen mid-stream,
    deterministically (no sleeps). ``reached`` counts the calls now blocked."""

    def __init__(self, respond: Callable[[dict], str], agent: str, *, partial: int = 200, name: str = "tests/scripts/mbpp11.py") -> None:
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
