"""Test helpers: scripted responders and a ready RunContext."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qflow_tui.core.config import RunConfig
from qflow_tui.core.context import RunContext
from qflow_tui.core.events import Emitter, Event
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import Problem

ROOT = Path(__file__).resolve().parents[1]


def qflow(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user does (``python -m qflow_tui.cli ARGS``), in a child
    process with this environment plus ``env``; its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "qflow_tui.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
    )


def loaded_after(code: str, modules: Iterable[str]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has loaded once it has run
    ``code``: this one has every module loaded by other tests."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {sorted(modules)!r} if m in sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found: list[str] = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    return found


def install_distribution(
    site: Path, distribution: str, group: str, entries: dict[str, str], modules: dict[str, str]
) -> None:
    """What pip leaves for a distribution in ``site``: its modules and a
    dist-info naming its entry points in ``group`` (``qflow.workflows``...)."""
    site.mkdir(parents=True, exist_ok=True)
    info = site / f"{distribution}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n", encoding="utf-8")
    text = f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
    (info / "entry_points.txt").write_text(text, encoding="utf-8")
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source, encoding="utf-8")


def plugin_env(*sites: Path, plugin_timeout: str, **extra: str) -> dict[str, str]:
    """The environment of a qflow that sees the distributions in ``sites`` (and
    this checkout), with its own config and data folders beside the first, and
    none of this machine's qflow settings or model keys."""
    home = sites[0].parent
    mine = {k: v for k, v in os.environ.items() if not k.startswith(("QFLOW_", "ANTHROPIC_", "OPENAI_", "ECHO_"))}
    return {
        **mine,
        "PYTHONPATH": os.pathsep.join([*(str(s) for s in sites), str(ROOT)]),
        "QFLOW_CONFIG_DIR": str(home / "config"),
        "QFLOW_DATA_DIR": str(home / "data"),
        "QFLOW_PLUGIN_TIMEOUT": plugin_timeout,
        **extra,
    }


def pip_install_example(example: Path, folder: Path) -> Path:
    """``pip install`` the example package at ``example`` into a site under
    ``folder`` (offline, no dependencies), as a user installs a plugin beside
    qflow; the site. pip builds in the source folder (build/, *.egg-info), so
    it builds a copy."""
    source = folder / "src" / example.name
    shutil.copytree(example, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    site = folder / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    out = subprocess.run(
        [*pip, "--target", str(site), str(source)], capture_output=True, text=True, timeout=300, cwd=source
    )
    assert out.returncode == 0, out.stderr
    return site


def run_with(
    env: dict[str, str], *args: str, code: str | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -m qflow_tui.cli ARGS`` (or ``python -c CODE``) in exactly ``env``."""
    argv = [sys.executable, "-c", code] if code else [sys.executable, "-m", "qflow_tui.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)


#: ``qflow solve``'s arguments for MBPP 11 with its tests and the script model that answers it.
MBPP11 = (
    "--problem",
    "tests/data/mbpp11/problem.txt",
    "--tests",
    "tests/data/mbpp11/tests.py",
    "--model",
    "script/tests/scripts/mbpp11.py",
)


def solved(env: dict[str, str], out: Path, *args: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``qflow solve ARGS --json`` in exactly ``env``, its session under ``out``:
    the run's --json summary and the events of the session it recorded."""
    done = run_with(env, "solve", *args, "--json", "--session-dir", str(out))
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary, session_events(summary)


def session_events(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The events (as JSON objects) of the session a --json summary names."""
    lines = Path(str(summary["session"])).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def of_kind(kind: str, recorded: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in recorded if e.get("kind") == kind]


def assert_terminal_safe(*texts: str) -> None:
    """No escape, bell, C1 control, bidi override or traceback in what a user sees."""
    for text in texts:
        for bad in ("\x1b", "\x07", "\u202e", "\x9b", "\x9d", "Traceback"):
            assert bad not in text, (bad, text[:2000])


class TestSandbox:
    """The real sandbox at its portable level (rlimits: every machine has it, and
    it is the fastest), reporting a fixed isolation label so that screens which
    show the label look the same on every machine. Generated code in tests runs
    where it runs in the app: in a child process, never in the test process."""

    __test__ = False  # not a test class, whatever its name
    isolation = "rlimits (tests)"

    def __init__(self, timeout: float = 3.0) -> None:
        import asyncio

        from qflow_tui.core.sandbox import Sandbox, SandboxConfig

        self._real = Sandbox(SandboxConfig(timeout=timeout, isolation="rlimits"))
        # One run at a time, first come first served: results then arrive in the
        # order the workflow asked for them, so event order (and call numbering
        # in snapshots) does not depend on which child process finished first.
        self._turn = asyncio.Lock()

    @property
    def config(self):
        """The real sandbox's settings: an I/O problem's judge makes its own
        sandbox from them, with the problem's time and memory limits."""
        return self._real.config

    @property
    def interpreter(self):
        return self._real.interpreter

    def protects(self):
        return self._real.protects()

    async def run_tests(self, program, tests, entry_point=None, setup="", *, trusted_tests=False):
        async with self._turn:
            report = await self._real.run_tests(
                program, tests, entry_point=entry_point, setup=setup, trusted_tests=trusted_tests
            )
        report.isolation = self.isolation
        return report

    async def check_values(self, items, entry_point=None, setup=""):
        async with self._turn:
            report = await self._real.check_values(items, entry_point=entry_point, setup=setup)
        report.isolation = self.isolation
        return report

    async def run_check(self, program, check, entry_point, setup="", **kw):
        async with self._turn:
            report = await self._real.run_check(program, check, entry_point, setup, **kw)
        report.isolation = self.isolation
        return report


class Recorder:
    """An event sink that keeps every event."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.kind == kind]


def make_ctx(problem: Problem, respond: Callable[[dict], str], config: RunConfig | None = None, sandbox=None):
    from qflow_tui.core.sandbox import Sandbox, SandboxConfig

    rec = Recorder()
    ctx = RunContext(
        problem=problem,
        config=config or RunConfig(model="script/inline"),
        client=ScriptClient.from_function(respond),
        sandbox=sandbox or Sandbox(SandboxConfig(timeout=3.0)),
        emit=Emitter(rec),
    )
    return ctx, rec


CORRECT = "def add_one(x):\n    return x + 1\n"


def buggy(tag: str) -> str:
    return f"def add_one(x):\n    # {tag}\n    return x + 2\n"


GOOD_SYNTH = ["assert add_one(10) == 11", "assert add_one(0) == 1", "assert add_one(-4) == -3"]
WRONG_SYNTH = "assert add_one(3) == 7"


def imagine(program: str, x: int) -> str:
    """What a perfect imagined execution of ``add_one(x)`` answers for one of the
    stories' programs (written by the tests themselves, never by a model)."""
    scope: dict = {}
    exec(program, scope)
    try:
        return repr(scope["add_one"](x))
    except Exception as exc:
        return f"'{type(exc).__name__}'"


@dataclass
class Story:
    """A scripted model for the add_one problem whose every agent can be told what
    to do: which program the generator writes per progression, which the
    debugger writes per (progression, epoch), which the clarified generator
    writes per (progression, attempt). The quality checkers answer honestly
    (they "imagine" the real value of the program they are shown)."""

    generate: Callable[[int], str] = lambda p: buggy(f"gen {p}")
    debug: Callable[[int, int], str] = lambda p, e: buggy(f"debug {p}.{e}")
    clarified: Callable[[int, int], str] = lambda p, a: buggy(f"clarified {p}.{a}")
    synthesized: list[str] = field(default_factory=lambda: [*GOOD_SYNTH, WRONG_SYNTH])
    calls: list[dict] = field(default_factory=list)

    def __call__(self, request: dict) -> str:
        self.calls.append(request)
        agent, text = request["agent"], request["messages"][-1]["content"]
        p = request["progression"]
        if agent == "program_generator":
            program = self.clarified(p, request["attempt"]) if request["attempt"] else self.generate(p)
            return f"```python\n{program}```"
        if agent == "self_debugger":
            return f"The bug is... fixed:\n```python\n{self.debug(p, request['epoch'])}```"
        if agent == "test_designer":
            return (
                "```python\n" + "\n".join(self.synthesized) + "\n```" if request["attempt"] == 1 else "```python\n```"
            )
        if agent == "clarifier":
            return f"<clarified_problem>Return x plus one. (clarified p{p} a{request['attempt']})</clarified_problem>"
        if agent == "yesno_checker":
            return "Yes" if "x + 1" in text else "No"
        x = int(re.search(r"add_one\((-?\d+)\)", request["test"]).group(1))
        if agent == "test_quality_checker":
            return f"x + 1 = {x + 1}\n<test_case>assert add_one({x}) == {x + 1}</test_case>"
        if agent == "code_quality_checker":
            program = re.search(r"```python\n(.*?)```", request["messages"][0]["content"], re.S).group(1)
            value = imagine(program, x)
            if request["turn"] == 1:
                return f"The function returns {value}."
            return f"<test_case>assert add_one({x}) == {value}</test_case>"
        raise AssertionError(agent)

    def of(self, agent: str) -> list[dict]:
        return [c for c in self.calls if c["agent"] == agent]


#: The story of tests/scripts/mbpp11.py as a script model written into a test's
#: own folder (``write_logging_mbpp11``): every call answered live is logged to
#: ``live.log`` beside it, and while a file ``down`` is there the provider is down
#: for good at the self-debugger.
_LOGGING_MBPP11 = """
import importlib.util
from pathlib import Path

from qflow_tui.core.llm import LLMError

HERE = Path(__file__).parent
spec = importlib.util.spec_from_file_location("mbpp11_story", {story!r})
story = importlib.util.module_from_spec(spec)
spec.loader.exec_module(story)


def respond(request):
    if request["agent"] == "self_debugger" and (HERE / "down").exists():
        raise LLMError("the provider is down for good", fatal=True)
    with open(HERE / "live.log", "a") as log:
        log.write(request["agent"] + "\\n")
    return story.respond(request)
"""


def write_logging_mbpp11(path: Path) -> Path:
    """Write the logging MBPP 11 script model to ``path``; returns ``path``."""
    story = Path(__file__).resolve().parent / "scripts" / "mbpp11.py"
    path.write_text(_LOGGING_MBPP11.format(story=str(story)))
    return path
