"""APPS's own harness and real programs on APPS's problems, for the benches
that compare qflow's judge with the references (``io_judge.py``,
``reference_agreement.py``).

**APPS's harness, as it is.** hendrycks/apps's ``eval/testing_util.py`` runs
from a copy given by path (fetched, never committed here), as its
``eval/test_one_solution.py`` runs it: ``run_test(problem, test=program)`` in
a process of its own per program, under a global limit of 11 s (its
``TIMEOUT + 1``; past it, 21 results of -1, as it records). Here one process
loads the harness once (numpy and all) and forks per program, which is what
its ``multiprocessing.Process`` does on Linux. APPS imports ``pyext`` only for
``RuntimeModule.from_string`` (a module made from a string): the few lines
below stand in for it, so pyext need not install. The harness runs on the
same interpreter as qflow's sandbox (``/usr/bin/python3``, with numpy).

**CodeContests's rules, replayed.** google-deepmind/code_contests judges a
Python program by ``py_compile`` first (a failure fails every test), then
``python3 code.pyc`` per test with RLIMIT_CPU = max(1, whole seconds of the
limit), RLIMIT_AS = memory + 32 MiB, RLIMIT_FSIZE 64 MiB, a wall-clock guard
of 30 x the limit, and ``OutputsMatch`` (written again below, apart from
qflow's ``codecontests_match``, from FACTS.md's reading of
``tester_sandboxer.cc``); exit status and timeouts do not enter a verdict.

**Real programs.** Md-Ashraful-Pramanik/MapCoder (MIT) keeps, for 150 APPS
problems (``data/APPS/selected150.jsonl``; 52 read stdin), the programs
ChatGPT and GPT-4 wrote under five prompting methods
(``final-results/*/APPS/*.jsonl``, field ``source_codes``): real model
programs, right and wrong. Read from a fetched copy of that repository (its
git directory), never committed here.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

#: The interpreter APPS's harness and CodeContests's tester run on here: the
#: system's, with numpy, as the sandbox's judged programs.
PYTHON = "/usr/bin/python3"
#: APPS's eval: ``TIMEOUT = 10`` and ``p.join(timeout=timeout + 1)``.
APPS_GLOBAL_TIMEOUT = 11.0
#: What APPS records when a program's process outlives that limit.
APPS_GLOBAL_TIMEOUT_RESULTS = [-1] * 21
#: APPS's per-test limit (``timeout = 4`` in testing_util).
APPS_TEST_TIMEOUT = 4.0

MAPCODER_FILES = (
    "final-results/GPT4/APPS/GPT4-Turbo-MapCoder-3-5-APPS-Python3-0-1.jsonl",
    "final-results/ChatGPT/APPS/ChatGPT-MapCoder-3-5-APPS-Python3-0-1.jsonl",
)


@dataclass
class Program:
    """One program on one APPS stdin problem, with the problem's tests."""

    problem: str
    source: str
    program: str
    inputs: list[str]
    outputs: list[str]
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def tests(self) -> list[tuple[str, str]]:
        return list(zip(self.inputs, self.outputs, strict=True))


def _text(value: object) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)


def mapcoder_programs(git_dir: Path, files: tuple[str, ...] = MAPCODER_FILES) -> list[Program]:
    """The programs of ``files`` on the stdin problems (no starter code), in
    file order then problem order; a problem's tests are its ``test_list``."""
    out: list[Program] = []
    for name in files:
        text = subprocess.run(
            ["git", "--git-dir", str(git_dir), "show", f"HEAD:{name}"], capture_output=True, text=True, check=True
        ).stdout
        for line in text.splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if str(row.get("starter_code") or "").strip() or not row.get("source_codes"):
                continue
            tests = row["test_list"]
            out.append(
                Program(
                    problem=str(row["name"]),
                    source=Path(name).stem,
                    program=str(row["source_codes"][-1]),
                    inputs=[_text(t["input"]) for t in tests],
                    outputs=[_text(t["output"]) for t in tests],
                )
            )
    return out


# ------------------------------------------------------------ APPS's harness

_WORKER = r"""
import json, os, select, signal, sys, time, types

shim = types.ModuleType("pyext")


class RuntimeModule:
    @staticmethod
    def from_string(name, doc, src):
        module = types.ModuleType(name, doc)
        exec(src, module.__dict__)
        return module


shim.RuntimeModule = RuntimeModule
sys.modules["pyext"] = shim
sys.path.insert(0, sys.argv[1])
import testing_util as tu  # noqa: E402

limit = float(sys.argv[2])
out = os.fdopen(int(sys.argv[3]), "w")
devnull = os.open(os.devnull, os.O_WRONLY)
for line in sys.stdin:
    job = json.loads(line)
    r, w = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            res = tu.run_test(problem={"input_output": job["io"]}, test=job["program"])
            data = json.dumps([x if isinstance(x, int) else bool(x) for x in res])
        except BaseException:
            data = "null"
        os.write(w, data.encode())
        os._exit(0)
    os.close(w)
    chunks, until = [], t0 + limit
    while True:
        left = until - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            break
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    took = time.monotonic() - t0
    text = b"".join(chunks).decode() or "null"
    out.write(json.dumps({"results": json.loads(text), "seconds": took}) + "\n")
    out.flush()
"""


def apps_harness(
    testing_util: Path, programs: list[Program], seconds: list[float] | None = None
) -> tuple[list[list[int | bool]], float]:
    """Each program's ``run_test`` results by APPS's harness (True, False, -1
    runtime error or timeout, -2 compile error), and the wall-clock seconds of
    it all (the harness's start included); ``seconds`` gets each program's."""
    with tempfile.TemporaryDirectory(prefix="qflow-apps-ref-") as tmp:
        worker = Path(tmp) / "worker.py"
        worker.write_text(_WORKER)
        r, w = os.pipe()
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [PYTHON, str(worker), str(testing_util.parent), str(APPS_GLOBAL_TIMEOUT), str(w)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            pass_fds=(w,),
            cwd=tmp,
            text=True,
        )
        os.close(w)
        results: list[list[int | bool]] = []
        with os.fdopen(r) as answers:
            assert proc.stdin is not None
            for p in programs:
                proc.stdin.write(json.dumps({"io": {"inputs": p.inputs, "outputs": p.outputs}, "program": p.program}))
                proc.stdin.write("\n")
                proc.stdin.flush()
                got = json.loads(answers.readline())
                res = got["results"]
                if seconds is not None:
                    seconds.append(float(got["seconds"]))
                results.append(APPS_GLOBAL_TIMEOUT_RESULTS if res is None else res)
            proc.stdin.close()
            proc.wait()
        return results, time.monotonic() - t0


def apps_passed(results: list[int | bool], n_tests: int) -> list[bool]:
    """Per test, whether APPS passed it (a -2 or a short list fails the rest)."""
    got = [r is True for r in results]
    return (got + [False] * n_tests)[:n_tests]


# ----------------------------------------------------- CodeContests's rules

_CC_WS = " \n\t\r\v"


def _cc_split(text: str) -> list[str]:
    tokens, cur = [], []
    for ch in text:
        if ch in _CC_WS:
            if cur:
                tokens.append("".join(cur))
                cur = []
        else:
            cur.append(ch.lower() if "A" <= ch <= "Z" else ch)
    if cur:
        tokens.append("".join(cur))
    return tokens


def _cc_double(token: str) -> float | None:
    """absl's SimpleAtod, as far as a judge's output goes: ASCII decimal
    numbers (with an exponent), inf, infinity, nan."""
    body = token[1:] if token[:1] in "+-" else token
    if body.lower() in ("inf", "infinity", "nan"):
        return float(token)
    mantissa, _, exponent = body.lower().partition("e")
    if "e" in body.lower() and not (exponent.lstrip("+-").isascii() and exponent.lstrip("+-").isdigit()):
        return None
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    if not digits or not (digits.isascii() and digits.isdigit()):
        return None
    try:
        return float(token)
    except ValueError:
        return None


def outputs_match(output: str, expected: str) -> bool:
    """CodeContests's ``OutputsMatch`` (tester_sandboxer.cc), replayed."""
    a, b = _cc_split(output), _cc_split(expected)
    if a == b:
        return True
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x == y:
            continue
        dx, dy = _cc_double(x), _cc_double(y)
        if dx is None or dy is None or not abs(dx - dy) < 1e-5:
            return False
    return True


def _cc_limits(seconds: float, memory_bytes: int) -> None:
    cpu = max(1, int(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes + (32 << 20),) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20,) * 2)


def codecontests_tester(p: Program, seconds: float, memory_bytes: int = 1 << 30) -> list[bool]:
    """Per test, whether CodeContests's Python tester passes ``p`` (run as an
    ordinary process here: no sandbox; for real programs only)."""
    with tempfile.TemporaryDirectory(prefix="qflow-cc-ref-") as tmp:
        code = Path(tmp) / "code.py"
        code.write_text(p.program)
        compiled = subprocess.run(
            [
                PYTHON,
                "-c",
                "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
                str(code),
                str(Path(tmp) / "code.pyc"),
            ],
            capture_output=True,
        )
        if compiled.returncode != 0:
            return [False] * len(p.inputs)
        out = []
        for stdin, want in p.tests:
            proc = subprocess.Popen(
                [PYTHON, str(Path(tmp) / "code.pyc")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=tmp,
                preexec_fn=lambda: _cc_limits(seconds, memory_bytes),
                start_new_session=True,
            )
            try:
                printed, _ = proc.communicate(stdin.encode(), timeout=30 * seconds)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                printed, _ = proc.communicate()
            out.append(outputs_match(printed.decode("utf-8", "replace"), want))
        return out


# ------------------------------------------------------------------- load


class Hogs:
    """``n`` CPU hogs started here and ended here, by their PIDs."""

    def __init__(self, n: int) -> None:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]

    def __enter__(self) -> Hogs:
        return self

    def __exit__(self, *exc: object) -> None:
        for hog in self.procs:
            hog.kill()
        for hog in self.procs:
            hog.wait()
