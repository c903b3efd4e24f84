"""`qflow solve` end to end, as a user runs it: a real subprocess, a script model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import MBPP11, qflow

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"
SCRIPT = ROOT / "tests" / "scripts" / "mbpp11.py"


def test_solve_json_follows_the_papers_control_flow(tmp_path):
    out = qflow(
        "solve",
        "--problem",
        str(DATA / "problem.txt"),
        "--tests",
        str(DATA / "tests.py"),
        "--model",
        f"script/{SCRIPT}",
        "--prompts",
        "2",
        "--session-dir",
        str(tmp_path),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) >= {"final_program", "outcome", "accepted_at", "progression", "llm_calls", "tokens", "session"}
    assert (result["outcome"], result["accepted_at"], result["progression"]) == ("accepted", "self_debug:1", 0)
    assert "rfind" in result["final_program"]
    assert result["llm_calls"] == sum(t["calls"] for t in result["tokens"].values())
    assert set(result["tokens"]) == {
        "program_generator",
        "code_quality_checker",
        "test_designer",
        "test_quality_checker",
        "self_debugger",
    }
    # A script model's counts are estimates, and say so; nothing was cached or cut.
    assert all(t.keys() == {"input", "output", "calls", "estimated"} for t in result["tokens"].values())
    assert all(t["estimated"] == t["calls"] for t in result["tokens"].values())
    session = Path(result["session"])
    assert session.parent == tmp_path and session.read_text().count("\n") > 20


def test_solve_relative_script_path_and_plain_progress(tmp_path):
    out = qflow(
        "solve",
        *MBPP11,
        "--prompts",
        "1",
        "--session-dir",
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    assert "ACCEPTED at self_debug:1" in out.stdout
    assert "[p0] self_debug:1: ACCEPT" in out.stderr
    # The check's verdict first, then what follows from it: never "CONTINUE - rejected".
    assert "[p0] program_generator: rejected, so CONTINUE: on to self-debugging" in out.stderr, out.stderr
    assert "CONTINUE - rejected" not in out.stderr


def test_solve_piped_prints_the_whole_program_and_the_session_path_last(tmp_path):
    """Piped, nothing is wrapped or cropped at 80 columns: the program is the
    session's to the letter and ``| tail -1`` gives the whole session path."""
    deep = tmp_path / ("a-folder-with-a-long-name-" * 4)
    out = qflow(
        "solve",
        "--problem",
        "mbpp/11",
        "--model",
        "script/tests/scripts/mbpp11.py",
        "--prompts",
        "1",
        "--session-dir",
        str(deep),
    )
    assert out.returncode == 0, out.stderr
    last = out.stdout.rstrip("\n").splitlines()[-1]
    assert last.startswith("session: ")
    session = Path(last.removeprefix("session: "))
    assert session.parent == deep and session.exists()
    from qflow_tui.core.session import read_session

    program = read_session(session).summary()["final_program"]
    assert max(len(line) for line in program.splitlines()) > 0
    assert program.strip() in out.stdout
    assert "\x1b" not in out.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--problem", "nope.txt"], "problem file nope.txt: no such file"),
        (["--model", "gpt4"], "unknown model 'gpt4'"),
        (["--model", "anthropic/claude-sonnet-5-5"], "ANTHROPIC_API_KEY"),
        (["--model", "script/missing.py"], "no such file"),
        (["--checker", "imagined", "--prompts", "9"], "choose 1 to 6"),
        (["--tests", "tests/data/mbpp11/problem.txt"], "tests, line 1"),
        (["--problem", "mbpp/99999"], "mbpp/99999: no such problem"),
    ],
)
def test_solve_bad_input_is_one_line_never_a_traceback(tmp_path, args, message):
    base = {
        "--problem": "tests/data/mbpp11/problem.txt",
        "--tests": "tests/data/mbpp11/tests.py",
        "--model": "script/tests/scripts/mbpp11.py",
    }
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    if "/" in base["--problem"] and not base["--problem"].startswith("tests/"):
        del base["--tests"]  # a benchmark id brings its own tests
    argv = ["solve", "--session-dir", str(tmp_path)] + [x for kv in base.items() for x in kv]
    out = qflow(*argv)
    assert out.returncode != 0
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_failure_of_every_step_is_said_once(tmp_path):
    # The mbpp11 script model knows nothing of HumanEval/0: every check of its
    # visible tests fails alike. (HumanEval/38 has no visible test any more.)
    argv = ["solve", "--session-dir", str(tmp_path), "--problem", "humaneval/0"]
    out = qflow(*argv, "--model", "script/tests/scripts/mbpp11.py")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert "has no answer for this" in lines[0] and "more failed for the same reason" in lines[1]
    assert len(lines) == 4 and lines[2].startswith("qflow: ")
    assert lines[3].startswith("qflow: session: ") and "qflow solve --resume" in lines[3]


def test_bare_qflow_takes_the_apps_options_and_subcommands_keep_theirs():
    from qflow_tui.cli import build_parser

    args = build_parser().parse_args(["--model", "script/x.py", "--checker", "python", "--step", "--problem", "p.txt"])
    assert (args.command, args.model, args.checker, args.step, args.problem) == (
        None,
        "script/x.py",
        "python",
        True,
        "p.txt",
    )
    args = build_parser().parse_args(["solve", "--problem", "a", "--tests", "b", "--model", "script/y.py"])
    assert (args.command, args.model, args.problem) == ("solve", "script/y.py", "a")


def test_solve_a_benchmark_problem_by_id(tmp_path):
    out = qflow(
        "solve",
        "--problem",
        "mbpp/11",
        "--model",
        f"script/{SCRIPT}",
        "--prompts",
        "1",
        "--session-dir",
        str(tmp_path),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["accepted_at"] == "self_debug:1"
    header = json.loads(Path(result["session"]).read_text().splitlines()[0])
    assert header["problem"]["task_id"] == "mbpp/11"


def test_solve_without_tests_for_a_file_problem_says_what_to_give(tmp_path):
    out = qflow(
        "solve", "--problem", str(DATA / "problem.txt"), "--model", f"script/{SCRIPT}", "--session-dir", str(tmp_path)
    )
    assert out.returncode == 2 and "--tests FILE" in out.stderr


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):

    # `qflow workflows | head -1`: the pipe closes while qflow still writes.
    proc = subprocess.Popen(
        [sys.executable, "-m", "qflow_tui.cli", "workflows"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    proc.stdout.read(10)
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err


def test_calls_retrying_alike_are_said_once_per_round():
    # A server that is down: six progressions' calls retry with the same error.
    from qflow_tui.commands.solve import OnceEach
    from qflow_tui.core import events as ev

    lines = OnceEach()
    error = "could not reach http://127.0.0.1:9/v1: is the server running?"
    said = []
    for attempt in (2, 3):
        for p in range(6):
            retry = ev.LLMCallRetry(
                agent="program_generator",
                step="program_generator",
                progression=p,
                call_id=f"c{p}",
                retry_attempt=attempt,
                retry_attempts=5,
                wait=1.0,
                error=error,
            )
            said += lines(retry)
    other = ev.LLMCallRetry(
        agent="test_designer",
        step="test_designer",
        call_id="c9",
        retry_attempt=2,
        retry_attempts=5,
        wait=1.0,
        error="busy",
    )
    said += lines(other)
    assert [line.split("retrying ")[1] for line in said] == [
        "(attempt 2 of 5) in 1.0 s",
        "(attempt 3 of 5) in 1.0 s",
        "(attempt 2 of 5) in 1.0 s",
    ]
    assert said[0].startswith("[p0] program_generator program_generator: could not reach") and "busy" in said[2]


def test_a_long_program_line_is_not_cropped_when_piped(capsys):
    from types import SimpleNamespace

    from qflow_tui.commands.solve import print_result
    from qflow_tui.core.summary import TokenTally

    program = "def f():\n    return '" + "x" * 150 + "'  # the end\n"
    outcome = SimpleNamespace(
        outcome="accepted",
        accepted_at="program_generator",
        progression=0,
        detail="",
        final_program=program,
        total_tokens=TokenTally(),
        stops={},
        llm_calls=1,
        duration=0.1,
        cost={},
        session="/s.jsonl",
    )
    print_result(outcome)
    out = capsys.readouterr().out
    assert program in out
    assert out.splitlines()[-1] == "session: /s.jsonl"


def test_solve_says_which_progression_wins_and_why(tmp_path):
    """Six progressions accept at one stage and the log may say another's
    ACCEPT first: the closing line names the winner, the rule, the others that
    accepted too and those stopped, each outcome said once."""
    out = qflow(
        "solve",
        "--problem",
        "mbpp/11",
        "--model",
        "script/tests/scripts/mbpp11.py",
        "--session-dir",
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    (line,) = [x for x in out.stderr.splitlines() if x.startswith("info: progression")]
    winner = out.stdout.split("progression ")[-1].split()[0]
    assert line.startswith(f"info: progression {winner} wins, accepted at self_debug:1"), line
    assert "the lowest progression first" in line, line
    accepted = {
        x.split("]")[0][2:]
        for x in out.stderr.splitlines()
        if x.endswith("ACCEPT - all visible tests pass the quality check")
    }
    others = accepted - {winner}
    if others:
        assert "also accepted: progression" in line and all(f"{p} at self_debug:1" in line for p in others), line
    assert "stopped (stopped" not in out.stderr
