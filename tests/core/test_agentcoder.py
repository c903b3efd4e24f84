"""AgentCoder, the peer workflow: programmer -> test designer -> test executor,
refining until the designed tests pass or the iteration budget is spent."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.workflow_run import run_workflow
from tests.core.test_qualityflow import PROBLEM
from tests.helpers import CORRECT, Recorder, buggy

TESTS = ["assert add_one(10) == 11", "assert add_one(0) == 1", "assert add_one(10**6) == 10**6 + 1"]


def responder(fixed_at: int | None, calls: list[dict]):
    def respond(request: dict) -> str:
        calls.append(request)
        if request["agent"] == "programmer" and len(request["messages"]) > 1:  # the single agent's tests
            return "```python\n" + "\n".join(TESTS) + "\n```"
        if request["agent"] == "programmer":
            iteration = request["epoch"] or 0
            program = CORRECT if fixed_at is not None and iteration >= fixed_at else buggy(f"iteration {iteration}")
            return f"1. ...\n2. ...\n3. ...\n4.\n```python\n{program}```"
        if request["agent"] == "test_designer":
            return "```python\n" + "\n".join(TESTS) + "\n```"
        raise AssertionError(request["agent"])

    return respond


async def run(tmp_path, fixed_at, **cfg):
    calls: list[dict] = []
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/ac", "workflow": "agentcoder", **cfg}),
        client=ScriptClient.from_function(responder(fixed_at, calls)),
        sinks=[rec],
        session_dir=tmp_path,
    )
    return outcome, rec, calls


@pytest.mark.parametrize(
    "fixed_at,accepted_at,programmer_calls", [(0, "test_executor:1", 1), (2, "test_executor:3", 3)]
)
async def test_refines_until_the_designed_tests_pass(tmp_path, fixed_at, accepted_at, programmer_calls):
    outcome, rec, calls = await run(tmp_path, fixed_at)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", accepted_at)
    assert outcome.final_program.strip() == CORRECT.strip()
    assert sum(c["agent"] == "programmer" for c in calls) == programmer_calls
    # A fresh set of tests for each refinement (regenerate_tests, on by default).
    assert sum(c["agent"] == "test_designer" for c in calls) == programmer_calls
    # The programmer's refinements are fed the failures of the designed tests.
    refines = [c for c in calls if c["agent"] == "programmer" and c["epoch"]]
    assert all("add_one(10)" in c["messages"][-1]["content"] for c in refines)
    runs = rec.of("sandbox_run")
    assert [r.purpose for r in runs] == ["agentcoder"] * len(runs) and runs[-1].passed == runs[-1].total == 3


@pytest.mark.parametrize("iterations", [1, 3, 5])
async def test_iterations_n_means_n_refinements_and_the_last_program_is_reported(tmp_path, iterations):
    """AgentCoder's Table 3 counts a refinement in every iteration."""
    outcome, rec, calls = await run(tmp_path, None, iterations=iterations)
    assert (outcome.outcome, outcome.accepted_at) == ("rejected", None)
    assert f"iteration {iterations}" in outcome.final_program
    refinements = [c["epoch"] for c in calls if c["agent"] == "programmer" and c["epoch"]]
    assert refinements == list(range(1, iterations + 1))
    # The tests ran on the first program and on each refinement.
    assert len(rec.of("sandbox_run")) == iterations + 1


async def test_a_fix_in_the_last_refinement_is_accepted(tmp_path):
    outcome, _, calls = await run(tmp_path, 5, iterations=5)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "test_executor:6")
    assert sum(c["agent"] == "programmer" for c in calls) == 6


async def test_the_app_state_follows_an_agentcoder_run(tmp_path):
    """The UI folds every event kind; a peer workflow's agents and steps must not trip it."""
    from qflow_tui.ui.state import RunState

    outcome, rec, _ = await run(tmp_path, 1)
    state = RunState()
    for event in rec.events:
        state.apply(event)
    assert state.llm_calls == outcome.llm_calls


async def test_tests_are_redesigned_for_each_refinement_and_a_bad_first_set_is_replaced(tmp_path):
    """Section 5 (and its authors' code): the test designer is called again each
    round. A first set with a wrong expected value no program can pass is
    replaced by the next round's; designed once, it fails every round."""
    sets = [["assert add_one(3) == 7", *TESTS], TESTS]

    def respond(request: dict) -> str:
        if request["agent"] == "programmer":
            return f"```python\n{CORRECT}```"
        round_ = request["epoch"] or 1
        return "```python\n" + "\n".join(sets[min(round_, 2) - 1]) + "\n```"

    async def go(**cfg):
        rec = Recorder()
        outcome = await run_workflow(
            PROBLEM,
            make_config({"model": "script/ac", "workflow": "agentcoder", "iterations": 2, **cfg}),
            client=ScriptClient.from_function(respond),
            sinks=[rec],
            session_dir=tmp_path,
        )
        return outcome, rec

    outcome, rec = await go()
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "test_executor:2")
    assert [e.round for e in rec.of("tests_designed")] == [1, 2]
    assert [e.step for e in rec.of("tests_designed")] == ["test_designer", "test_designer:2"]
    outcome, rec = await go(regenerate_tests=False)
    assert (outcome.outcome, outcome.accepted_at) == ("rejected", None)
    assert [e.round for e in rec.of("tests_designed")] == [1]


async def test_the_programmer_alone_is_table_2s_first_row(tmp_path):
    outcome, rec, calls = await run(tmp_path, 0, agents="programmer")
    assert [c["agent"] for c in calls] == ["programmer"]
    assert outcome.outcome == "unchecked" and not rec.of("sandbox_run")


async def test_programmer_and_test_designer_review_the_tests_without_running_them(tmp_path):
    """Section 4.3: the function and the designed tests go back to the programmer; nothing runs."""
    outcome, rec, calls = await run(tmp_path, 1, agents="programmer+test_designer")
    assert [c["agent"] for c in calls] == ["programmer", "test_designer", "programmer"]
    review = calls[-1]["messages"][-1]["content"]
    assert all(t in review for t in TESTS) and "add_one(x)" in review
    assert not rec.of("sandbox_run")
    assert outcome.outcome == "unchecked" and outcome.final_program.strip() == CORRECT.strip()


async def test_programmer_and_test_executor_run_the_visible_tests(tmp_path):
    """Section 4.3: "we directly run the generated code with the tests provided in the prompt"."""
    outcome, rec, calls = await run(tmp_path, 2, agents="programmer+test_executor")
    assert not any(c["agent"] == "test_designer" for c in calls)
    runs = rec.of("sandbox_run")
    assert runs and all(r.total == len(PROBLEM.test_sources) for r in runs)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "test_executor:3")


async def test_a_single_agent_writes_its_tests_in_the_conversation_that_wrote_the_program(tmp_path):
    """Table 6: one agent, one conversation: the program, then its tests."""
    outcome, rec, calls = await run(tmp_path, 1, agents="single_agent", regenerate_tests=False)
    assert not any(c["agent"] == "test_designer" for c in calls)
    own = [c for c in calls if len(c["messages"]) > 1]
    assert len(own) == 1
    first, answer, ask = own[0]["messages"]
    assert first == calls[0]["messages"][0] and answer["role"] == "assistant" and "iteration 0" in answer["content"]
    assert "test cases" in ask["content"]
    assert [e.agent for e in rec.of("tests_designed")] == ["programmer"]
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "test_executor:2")


def test_the_papers_ablation_rows_name_the_setting_that_reproduces_them():
    from qflow_tui.core.bench import papers

    commands = {}
    for table in papers.paper("agentcoder").tables:
        for row in table.rows:
            for _figure, command in papers.reproduce(row):
                commands.setdefault(row.id, command)
    assert "--agents programmer " in commands["t2-programmer-agent-only"]
    assert "--agents programmer+test_designer" in commands["t2-programmer-plus-test-designer"]
    assert "--agents programmer+test_executor" in commands["t2-programmer-plus-test-executor"]
    assert "--agents single_agent" in commands["t6-single-agent"]
    assert "--agents" not in commands["t2-agentcoder"]


@pytest.mark.parametrize(
    "agents,named",
    [("all", "the test designer's tests"), ("programmer+test_executor", "the tests given with the problem")],
)
async def test_the_refine_prompt_names_whose_tests_ran(tmp_path, agents, named):
    """Table 2's programmer + test executor runs the prompt's own tests: its
    refinement must not be told they came from a test designer."""
    _, _, calls = await run(tmp_path, 1, agents=agents)
    refine = next(c for c in calls if c["agent"] == "programmer" and c["epoch"])["messages"][-1]["content"]
    assert named in refine
    assert ("test designer" in refine) is (agents == "all")


async def test_a_redesign_is_fed_the_failures_and_never_the_program(tmp_path):
    """Section 5: the executor's errors go to the test designer too, so a
    redesign differs from the last set even at temperature 0; it is written
    from the requirements and the failures, and never sees the program."""
    _, _, calls = await run(tmp_path, 2, iterations=2)
    designs = [c["messages"][-1]["content"] for c in calls if c["agent"] == "test_designer"]
    assert len(designs) == 3 and designs[0] not in designs[1:]
    first, *redesigns = designs
    assert "you designed these tests" not in first.lower()
    for round_, text in enumerate(redesigns):
        # The program of that round is buggy(f"iteration {round_}"); its failures are shown, it is not.
        assert f"# iteration {round_}" not in text and "return x + 2" not in text
        assert "assert add_one(0) == 1\n    -> failed: the function returned 2" in text
        assert all(t in text for t in TESTS)
