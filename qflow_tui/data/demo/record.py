"""Record the bundled demo session (``qflow demo``) with the real runner.

The model is the scripted responder next to this file (``responder.py``), so
the recording needs no API key and anyone can make it again::

    python -m qflow_tui.data.demo.record            # rewrites demo-session.jsonl
    python -m qflow_tui.data.demo.record --check    # records to a temp file and
                                                    # checks the story it tells

Run it from the top of the checkout: the model is recorded by its path
relative to there (``script/qflow_tui/data/demo/responder.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

from qflow_tui.core.config import make_config
from qflow_tui.core.events import (
    Decision,
    ImaginedCheck,
    ProgramCandidate,
    RunFinished,
    SandboxRun,
    TestsDesigned,
    TQCVerdict,
)
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import Problem, make_problem
from qflow_tui.core.session import read_session
from qflow_tui.core.workflow_run import RunOutcome, run_workflow

from . import responder

HERE = Path(__file__).resolve().parent
SESSION = HERE / "demo-session.jsonl"
RESPONDER = HERE / "responder.py"

#: Two progressions and two test-design rounds keep the demo short enough to
#: step through, while showing parallel progressions, de-duplication and every
#: agent of the standard workflow; the rest are the paper's defaults.
DEMO_SETTINGS: dict[str, int] = {"prompts": 2, "test_rounds": 2}


def demo_problem() -> Problem:
    return make_problem(
        responder.STATEMENT,
        "\n".join(responder.VISIBLE_TESTS),
        title="MBPP 11: remove the first and last occurrence of a character",
        task_id="Mbpp/11",
    )


async def record(dest: Path) -> RunOutcome:
    root = HERE.parents[2]
    model_path = RESPONDER.relative_to(root).as_posix()
    cwd = os.getcwd()
    os.chdir(root)  # the model is named by its path from the checkout's top
    try:
        client = ScriptClient(model_path)
        config = make_config({"model": f"script/{model_path}", **DEMO_SETTINGS})
        dest.unlink(missing_ok=True)  # noqa: ASYNC240 (a one-off script, before the run starts)
        return await run_workflow(demo_problem(), config, client=client, session_path=dest)
    finally:
        os.chdir(cwd)


def check(path: Path) -> list[str]:
    """What the demo must show; returns the missing parts (empty when all is there)."""
    data = read_session(path)
    ev = data.events
    problems = []
    if data.warnings:
        problems.append(f"read warnings: {data.warnings}")
    if not any(isinstance(e, ProgramCandidate) for e in ev):
        problems.append("no generated program")
    if not any(isinstance(e, Decision) and e.step == "program_generator" and e.decision == "continue" for e in ev):
        problems.append("no rejected quality check after generation")
    if not any(isinstance(e, ImaginedCheck) and e.verdict == "fail" for e in ev):
        problems.append("no failing imagined execution")
    if not any(isinstance(e, TestsDesigned) for e in ev):
        problems.append("no test design")
    if not any(isinstance(e, TQCVerdict) and e.verdict == "rejected" for e in ev):
        problems.append("no test rejected by the TQC")
    if not any(isinstance(e, SandboxRun) and e.step == "self_debug:1" for e in ev):
        problems.append("no self-debug epoch")
    end = data.finished
    if not isinstance(end, RunFinished) or end.outcome != "accepted" or end.accepted_at != "self_debug:1":
        problems.append(f"not accepted at self_debug:1 ({end and end.to_dict()})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--check", action="store_true", help="record to a temporary file and check it; leave the bundled one"
    )
    parser.add_argument("--out", help="write the session here instead")
    args = parser.parse_args(argv)
    for var in list(os.environ):
        if var.endswith(("_API_KEY", "_AUTH_TOKEN")):
            del os.environ[var]  # no key is needed; none can leak into the file
    dest = Path(tempfile.mkdtemp()) / "demo-session.jsonl" if args.check else Path(args.out) if args.out else SESSION
    outcome = asyncio.run(record(dest))
    missing = check(dest)
    print(f"{dest}: {outcome.outcome} at {outcome.accepted_at}, {outcome.llm_calls} model calls")
    for m in missing:
        print(f"missing from the demo: {m}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
