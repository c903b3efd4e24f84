"""Stdin/stdout problems get the I/O prompts (prompts/<workflow>/<agent>/io/):
a run's context picks them by the problem's kind; agents without one fall
back to their function prompt. Every I/O prompt renders with the values its
agent gives the function prompt of the same name."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from qflow_tui.core.prompts import PromptError, PromptLibrary

PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def test_io_prompts_come_first_for_io_problems() -> None:
    lib = PromptLibrary()
    io = lib.for_kind("io")
    assert lib.for_kind("function") is lib
    assert "standard input" in io.get("zeroshot/program_generator", "direct").user
    assert "standard input" not in lib.get("zeroshot/program_generator", "direct").user
    assert all("standard input" in p.user for p in io.variants("qualityflow/program_generator"))
    # No I/O file: the function prompt.
    assert io.get("qualityflow/self_debugger", "tests_may_be_wrong") == lib.get(
        "qualityflow/self_debugger", "tests_may_be_wrong"
    )
    # Every agent of every workflow has its I/O prompts.
    for agent, name in [
        ("agentcoder/test_designer", "agentcoder"),
        ("agentcoder/test_designer", "redesign"),
        ("zeroshot/program_generator", "agentcoder"),
        ("zeroshot/program_generator", "codetree"),
        ("zeroshot/program_generator", "adacoder"),
        ("agentcoder/programmer", "own_tests"),
        ("agentcoder/programmer", "review"),
        ("codetree/thinker", "strategies"),
        ("codetree/thinker", "reflect_bounded"),
        ("codetree/critic", "score"),
        ("codetree/critic", "score_tests"),
        ("codetree/critic", "score_solution"),
        ("codetree/critic", "verify"),
        ("adacoder/prompt_engineer", "plan"),
        ("qualityflow/yesno_checker", "default"),
    ]:
        assert io.get(agent, name) != lib.get(agent, name), (agent, name)


def test_io_prompts_need_no_value_their_function_prompt_lacks() -> None:
    lib = PromptLibrary()
    io_files = sorted(lib.root.glob("*/*/io/*.txt"))
    assert len(io_files) >= 15
    for path in io_files:
        agent = f"{path.parent.parent.parent.name}/{path.parent.parent.name}"
        base = path.parent.parent / path.name
        family = path.name.split("-", 1)[0] + "-" if "-" in path.name else None
        # A variant renders with the values every variant of its family gets.
        peers = [base] if base.is_file() else sorted(path.parent.parent.glob(f"{family}*.txt")) if family else []
        assert peers, f"{path} has no function prompt of its name or family"
        need = set(PLACEHOLDER.findall(path.read_text()))
        given = set(PLACEHOLDER.findall(peers[0].read_text())) | {"tests_may_be_wrong"}
        assert need <= given, (agent, path.name, need - given)
        assert "entry_point" not in need, path


def test_a_run_context_picks_them(tmp_path) -> None:
    from qflow_tui.core.config import RunConfig
    from qflow_tui.core.context import RunContext
    from qflow_tui.core.problem import make_io_problem

    p = make_io_problem("Add.", [("1 2\n", "3\n")])
    ctx = RunContext(p, RunConfig(), client=None, sandbox=None, emit=lambda e: None)  # type: ignore[arg-type]
    assert ctx.prompts.kind == "io"
    from qflow_tui.core.agents.shown import tests_text

    assert tests_text(ctx) == "Input 1\n1 2\nOutput 1\n3"


def test_every_progression_epoch_and_attempt_has_its_own_io_prompt() -> None:
    """Diversified Prompting (section 3.6) on a stdin/stdout problem: six
    generator prompts, three self-debug and three clarifier prompts, three
    clarified-generator prompts, as the function path has, none repeated."""
    from qflow_tui.core.config import make_config
    from qflow_tui.core.problem import make_io_problem
    from qflow_tui.core.workflows.qualityflow.clarifier import clarifier_prompt
    from qflow_tui.core.workflows.qualityflow.program_generator import clarified_prompt, generator_prompt
    from qflow_tui.core.workflows.qualityflow.self_debugger import debug_prompt
    from tests.helpers import make_ctx

    ctx, _ = make_ctx(make_io_problem("Add.", [("1 2\n", "3\n")]), lambda r: "", make_config({"model": "script/x"}))
    program = "print(0)\n"
    told = {"kept_tests": [], "rejected_tests": [], "trajectory": "", "check_feedback": "no", "debugged": False}
    kinds = {
        "program_generator": [generator_prompt(ctx, p) for p in range(6)],
        "self_debugger": [debug_prompt(ctx, e, program, "Input:\n1 2\n") for e in (1, 2, 3)],
        "clarifier": [clarifier_prompt(ctx, a, program=program, **told) for a in (1, 2, 3)],
        "clarified generator": [clarified_prompt(ctx, a, "Print a + b.", program) for a in (1, 2, 3)],
    }
    for kind, prompts in kinds.items():
        assert len(set(prompts)) == len(prompts), kind
        assert all("standard input" in system + user or "Sample tests" in user for system, user in prompts), kind


def test_a_package_replaced_under_a_running_app_leaves_its_prompts(tmp_path: Path) -> None:
    """Issue 57: installing an extra while the app was open made the next run end
    with "internal error: PromptError". The files a process first read stay its
    prompts, whatever happens to the folder afterwards."""
    root = tmp_path / "prompts"
    (root / "writer" / "io").mkdir(parents=True)
    (root / "writer" / "generate.txt").write_text("system\n---\nWrite {{what}}.\n")
    (root / "writer" / "variant-1.txt").write_text("one {{what}}")
    (root / "writer" / "variant-2.txt").write_text("two {{what}}")
    (root / "writer" / "io" / "generate.txt").write_text("Read stdin for {{what}}.")
    first = PromptLibrary(root)
    assert first.get("writer", "generate").render(what="x") == ("system", "Write x.")
    # pip removes the old files, then writes the new version's (or none yet).
    shutil.rmtree(root)
    later = PromptLibrary(root)
    assert later.get("writer", "generate").render(what="y") == ("system", "Write y.")
    assert [p.render(what="z")[1] for p in later.variants("writer")] == ["one z", "two z"]
    assert later.for_kind("io").get("writer", "generate").user == "Read stdin for {{what}}."
    with pytest.raises(PromptError, match="missing prompt file"):
        later.get("writer", "absent")
