"""``qflow solve`` offers a resume only for a failure a resume can fix (issue
54): one the recorded problem decides (the reference model's problem without
a reference) would fail the same way, so its session is said without the hint."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from qflow_tui.core.bench.datasets import load_bench_problem
from qflow_tui.core.config import RunConfig
from qflow_tui.core.workflow_run import RunError, run_workflow
from tests.helpers import qflow


def test_a_problem_without_a_reference_is_not_offered_a_resume(tmp_path: Path) -> None:
    copy = tmp_path / "mine.jsonl"
    copy.write_text(
        json.dumps({"task_id": "one", "statement": "Print 1.", "hidden": [{"input": "", "output": "1\n"}]}) + "\n"
    )
    sessions = tmp_path / "s"
    done = qflow(
        "solve",
        "--problem",
        "jsonl/one",
        "--dataset-file",
        str(copy),
        "--model",
        "reference",
        "--workflow",
        "zeroshot",
        "--session-dir",
        str(sessions),
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    (session,) = sessions.glob("*.jsonl")
    lines = done.stderr.strip().splitlines()
    assert lines[-2].startswith("qflow: jsonl/one: its dataset declares no reference"), done.stderr
    assert lines[-1] == f"qflow: session: {session}", done.stderr
    assert "resume" not in done.stderr and "Traceback" not in done.stderr


def test_a_bug_of_ours_is_not_offered_a_resume(tmp_path: Path, monkeypatch, capsys) -> None:
    """A resume would run the same code on the recorded answers: the bug again."""
    from qflow_tui.commands.solve import run_failed
    from qflow_tui.core.workflows.zeroshot import program_generator

    def broken(*args: object, **kwargs: object) -> str:
        raise KeyError("oops")

    monkeypatch.setattr(program_generator, "extract_program", broken)
    problem = load_bench_problem("mbpp/11").problem
    config = RunConfig(model="reference", workflow="zeroshot")
    with pytest.raises(RunError) as caught:
        asyncio.run(run_workflow(problem, config, session_dir=tmp_path))
    assert "internal error: KeyError" in str(caught.value) and not caught.value.resumable
    assert run_failed(caught.value, json_out=False) == 1
    err = capsys.readouterr().err
    assert f"qflow: session: {caught.value.session}\n" in err and "resume" not in err
    # A failure a resume can fix (the provider, the network) keeps the hint.
    retry = RunError("the provider is busy")
    retry.session = caught.value.session
    run_failed(retry, json_out=False)
    assert f"(resume it with: qflow solve --resume {retry.session})" in capsys.readouterr().err
