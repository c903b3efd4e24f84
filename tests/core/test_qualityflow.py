"""One test per path of Algorithm 1, with a scripted model and the real sandbox."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from qflow_tui.core.config import RunConfig, make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_problem
from qflow_tui.core.session import read_session
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.core.workflows.qualityflow import CLARIFY
from tests.helpers import CORRECT, WRONG_SYNTH, Recorder, Story, buggy

PROBLEM = make_problem(
    "Write a function add_one that returns x plus one.", "assert add_one(1) == 2\nassert add_one(5) == 6"
)


async def solve(story: Story, tmp_path, respond=None, **cfg):
    """Run PROBLEM with ``story`` answering (or ``respond``, which may wrap it)."""
    config = make_config({"model": "script/story", **cfg})
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM, config, client=ScriptClient.from_function(respond or story), sinks=[rec], session_dir=tmp_path
    )
    return outcome, rec


def decisions(rec: Recorder) -> list[tuple[str, int, str]]:
    return [(e.step, e.progression, e.decision) for e in rec.of("decision")]


async def test_accepted_right_after_generation(tmp_path):
    story = Story(generate=lambda p: CORRECT)
    outcome, rec = await solve(story, tmp_path, prompts=1)
    assert (outcome.outcome, outcome.accepted_at, outcome.progression) == ("accepted", "program_generator", 0)
    assert outcome.final_program.strip() == CORRECT.strip()
    assert story.of("test_designer") == [] and story.of("self_debugger") == []
    # Appendix G: two turns per visible test.
    assert [c["turn"] for c in story.of("code_quality_checker")] == [1, 2, 1, 2] or sorted(
        c["turn"] for c in story.of("code_quality_checker")
    ) == [1, 1, 2, 2]
    assert decisions(rec) == [("program_generator", 0, "accept")]


@pytest.mark.parametrize("k", [1, 2, 3])
async def test_accepted_after_self_debug_epoch_k(tmp_path, k):
    story = Story(debug=lambda p, e: CORRECT if e == k else buggy(f"debug {e}"))
    outcome, rec = await solve(story, tmp_path, prompts=1)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", f"self_debug:{k}")
    assert [c["epoch"] for c in story.of("self_debugger")] == list(range(1, k + 1))
    # Each epoch uses a different debug prompt variant.
    assert len({c["messages"][0]["content"].strip().splitlines()[-1] for c in story.of("self_debugger")}) == k
    assert story.of("clarifier") == []
    assert decisions(rec)[-1] == (f"self_debug:{k}", 0, "accept")


async def test_tqc_rejects_a_wrong_synthesized_test_and_the_debugger_never_sees_it(tmp_path):
    story = Story(debug=lambda p, e: CORRECT)
    _outcome, rec = await solve(story, tmp_path, prompts=1)
    verdicts = {e.test: e.verdict for e in rec.of("tqc_verdict")}
    assert verdicts[WRONG_SYNTH] == "rejected"
    assert sum(v == "kept" for v in verdicts.values()) == 3
    debugger_prompts = " ".join(c["messages"][-1]["content"] for c in story.of("self_debugger"))
    assert "add_one(3)" not in debugger_prompts
    assert "add_one(10)" in debugger_prompts  # a kept test that fails the buggy program
    # The visible tests are never run for feedback in the standard setting.
    runs = rec.of("sandbox_run")
    assert runs and all("add_one(1) == 2" not in json.dumps(r.results) for r in runs)


@pytest.mark.parametrize("told", [False, True])
async def test_the_debugger_is_told_the_tests_may_be_wrong_only_when_the_setting_says_so(tmp_path, told):
    """The paper's Self-Debugger is not told to doubt the tests (the Test Quality
    Checker does that); ``tests_may_be_wrong`` adds the instruction, off by default."""
    story = Story(debug=lambda p, e: CORRECT)
    cfg = {"tests_may_be_wrong": True} if told else {}
    await solve(story, tmp_path, prompts=1, **cfg)
    prompts = [c["messages"][-1]["content"] for c in story.of("self_debugger")]
    assert prompts and all(("may be wrong" in p) is told for p in prompts)
    assert all("follow the statement" not in p for p in prompts) is not told


@pytest.mark.parametrize("diversified", [True, False])
async def test_without_diversified_prompting_every_agent_sends_one_prompt(tmp_path, diversified):
    """Table 12's ablation: one prompt for every agent, the self-debugger and the
    clarifier included, so one progression runs. The programs and the clarified
    statement are the same at every step, so only the prompt variant can make two
    prompts of one agent differ."""
    story = Story(generate=lambda p: buggy("same"), debug=lambda p, e: buggy("same"))
    clarifier_answer = "<clarified_problem>Return x plus one.</clarified_problem>"

    def respond(request: dict) -> str:
        answer = story(request)
        return clarifier_answer if request["agent"] == "clarifier" else answer

    config = RunConfig(model="script/story").replace(diversified_prompting=diversified, clarify=2)
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM, config, client=ScriptClient.from_function(respond), sinks=[rec], session_dir=tmp_path
    )
    assert outcome.outcome == "reverted"
    progressions = 6 if diversified else 1
    assert rec.of("run_started")[0].progressions == progressions
    generated = [c for c in story.of("program_generator") if not c["attempt"]]
    assert sorted(c["progression"] for c in generated) == list(range(progressions))

    def sent(agent: str) -> set[tuple[str, str]]:
        calls = [c for c in story.of(agent) if c["progression"] == 0]
        assert len(calls) == {"self_debugger": 3, "clarifier": 2, "program_generator": 3}[agent]
        if agent == "program_generator":
            calls = [c for c in calls if c["attempt"]]
        return {(c["system"], c["messages"][-1]["content"]) for c in calls}

    debug_prompts, clarifier_prompts, regenerate_prompts = (
        sent("self_debugger"),
        sent("clarifier"),
        sent("program_generator"),
    )
    assert (len(debug_prompts), len(clarifier_prompts), len(regenerate_prompts)) == (
        (3, 2, 2) if diversified else (1, 1, 1)
    )
    notices = [n.message for n in rec.of("notice") if "Diversified Prompting" in n.message]
    assert bool(notices) is not diversified


async def test_without_tqc_the_debugger_sees_the_wrong_test(tmp_path):
    story = Story(debug=lambda p, e: CORRECT)
    _, rec = await solve(story, tmp_path, prompts=1, tqc=False)
    assert rec.of("tqc_verdict") == []
    assert "add_one(3)" in " ".join(c["messages"][-1]["content"] for c in story.of("self_debugger"))


async def test_clarifier_path_accepted(tmp_path):
    story = Story(clarified=lambda p, a: CORRECT)
    outcome, rec = await solve(story, tmp_path, prompts=1)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "clarifier:1")
    assert len(story.of("self_debugger")) == 3
    clar = story.of("clarifier")[0]["messages"][-1]["content"]
    assert WRONG_SYNTH in clar  # the clarifier sees the TQC's rejections
    assert decisions(rec)[-2:] == [("self_debug:3", 0, "clarify"), ("clarifier:1", 0, "accept")]


async def test_revert_returns_the_first_generated_program(tmp_path):
    story = Story()
    outcome, rec = await solve(story, tmp_path, prompts=2, clarify=2)
    assert outcome.outcome == "reverted" and outcome.accepted_at is None
    assert outcome.final_program.strip() == buggy("gen 0").strip()
    assert len(story.of("clarifier")) == 4  # 2 attempts x 2 progressions
    assert rec.of("decision")[-1].decision == "revert"
    assert rec.of("run_finished")[0].outcome == "reverted"


async def test_without_revert_the_last_program_stands(tmp_path):
    """Table 10's "Remove Revert" (``--no-revert``, as ``qflow bench paper`` gives it):
    when no check accepts, the first progression's last program is the answer, not its
    first, and no revert step runs."""
    story = Story()
    outcome, rec = await solve(story, tmp_path, prompts=2, clarify=2, revert=False)
    assert (outcome.outcome, outcome.accepted_at, outcome.progression) == ("rejected", None, 0)
    assert outcome.final_program.strip() == buggy("clarified 0.2").strip()
    assert "revert" not in [e.decision for e in rec.of("decision")]
    assert "revert" not in [e.step for e in rec.of("step_started")]
    assert rec.of("run_finished")[0].outcome == "rejected"


async def test_python_checker_runs_the_visible_tests_and_makes_no_check_calls(tmp_path):
    story = Story(generate=lambda p: CORRECT)
    outcome, rec = await solve(story, tmp_path, prompts=1, checker="python")
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "program_generator")
    assert story.of("code_quality_checker") == []
    run = next(r for r in rec.of("sandbox_run") if r.purpose == "python_checker")
    assert (run.passed, run.total) == (2, 2)
    assert [r["test"] for r in run.results] == PROBLEM.test_sources


async def test_python_checker_rejects_a_wrong_program(tmp_path):
    story = Story(debug=lambda p, e: CORRECT)
    outcome, _ = await solve(story, tmp_path, prompts=1, checker="python")
    assert outcome.accepted_at == "self_debug:1"


async def test_with_six_progressions_the_lowest_accepted_index_wins(tmp_path):
    story = Story(generate=lambda p: CORRECT + f"# p{p}\n" if p in (2, 4) else buggy(f"gen {p}"))
    outcome, _rec = await solve(story, tmp_path)
    assert (outcome.outcome, outcome.accepted_at, outcome.progression) == ("accepted", "program_generator", 2)
    assert "# p2" in outcome.final_program
    # Six different generator prompts, one per progression.
    gens = story.of("program_generator")
    assert sorted(c["progression"] for c in gens) == list(range(6))
    assert len({c["messages"][0]["content"] for c in gens}) == 6


def _stage_index(step: str, epochs: int = 3) -> int:
    name, _, k = step.partition(":")
    return {"program_generator": 0, "self_debug": int(k or 0), "clarifier": epochs + int(k or 0)}[name]


async def test_after_acceptance_only_work_that_could_still_win_is_paid_for(tmp_path):
    story = Story(debug=lambda p, e: CORRECT if (p, e) == (1, 1) else buggy(f"d{p}{e}"))
    outcome, rec = await solve(story, tmp_path, prompts=3)
    _only_winnable_work_after_the_acceptance(outcome, rec, story)


async def test_work_done_before_the_acceptance_was_known_is_not_counted_against_it(tmp_path):
    """Progressions run side by side, so on a busy machine progression 0 may reach
    its clarifier before progression 1's acceptance at self_debug:1 is known (a CI
    run saw it). Forced here: progression 1's checker answers only once progression
    0 has asked its clarifier. The rule still picks progression 1, and nothing is
    asked after the acceptance that could not win."""
    story = Story(debug=lambda p, e: CORRECT if (p, e) == (1, 1) else buggy(f"d{p}{e}"))
    clarifier_asked = asyncio.Event()

    async def respond(request: dict) -> str:
        if request["agent"] == "clarifier" and request["progression"] == 0:
            clarifier_asked.set()
        elif request["agent"] == "code_quality_checker" and request["progression"] == 1:
            await asyncio.wait_for(clarifier_asked.wait(), 60)
        return story(request)

    outcome, rec = await solve(story, tmp_path, respond=respond, prompts=3)
    assert any(c["progression"] == 0 for c in story.of("clarifier"))
    _only_winnable_work_after_the_acceptance(outcome, rec, story)


def _only_winnable_work_after_the_acceptance(outcome, rec: Recorder, story: Story) -> None:
    """Progression 1 accepted at self_debug:1; after that, a call is made only where
    the rule could still report its result."""
    assert (outcome.accepted_at, outcome.progression) == ("self_debug:1", 1)
    accept = next(e for e in rec.of("decision") if e.decision == "accept")
    # A progression may have reached its clarifier before the acceptance was known
    # (a busy machine); nobody works at that stage after it.
    asked = [e for e in rec.of("llm_call_started") if e.step.startswith("clarifier")]
    assert all(e.seq < accept.seq for e in asked), [(e.step, e.progression) for e in asked if e.seq > accept.seq]
    # After progression 1's acceptance at self_debug:1, a call is made only where the
    # rule could still report its result: a lower progression at that stage or before.
    later = [e for e in rec.of("llm_call_started") if e.seq > accept.seq]
    assert all(e.progression == 0 and _stage_index(e.step) <= 1 for e in later), [
        (e.step, e.progression) for e in later
    ]
    # Work that ran ahead (progression 0 may have started epoch 2) and was still
    # running when the rule had its result was stopped, and says so. On a busy
    # machine progression 0 may instead run to its own end first: nothing to stop.
    ran_ahead = max(c["epoch"] or 0 for c in story.calls if c["progression"] == 0) > 1
    clarify = CLARIFY.default
    last = f"clarifier:{clarify}" if clarify else "self_debug:3"
    ended = any(e.progression == 0 and e.step == last for e in rec.of("decision"))
    said = [n.message.split("would not report their result: progression ", 1) for n in rec.of("notice")]
    stopped = [m for m in said if len(m) == 2 and any(p.startswith("0 (") for p in m[1].split(", "))]
    if ran_ahead and not ended:
        assert stopped, (
            [(e.step, e.progression, e.decision) for e in rec.of("decision")],
            [(c["agent"], c["epoch"]) for c in story.calls if c["progression"] == 0],
            [n.message for n in rec.of("notice")],
        )
    if ended:
        assert not stopped, stopped
    assert outcome.llm_calls == len(rec.of("llm_call_finished"))


async def test_token_accounting_sums_match_the_calls(tmp_path):
    story = Story(clarified=lambda p, a: CORRECT)
    outcome, rec = await solve(story, tmp_path, prompts=2)
    finished = rec.of("llm_call_finished")
    # A call of a progression the rule stopped (its result could no longer be
    # reported) may be cut mid-stream: made, not finished, its tokens counted.
    cut = [e for e in rec.of("llm_call_failed") if e.stop_reason == "cancelled"]
    assert len(finished) == outcome.llm_calls == len(story.calls) - len(cut)
    per_agent: dict[str, list[int]] = {}
    for e in finished + [c for c in cut if isinstance(c.input_tokens, int)]:
        s = per_agent.setdefault(e.agent, [0, 0, 0, 0, 0])
        s[0] += e.input_tokens or 0
        s[1] += e.output_tokens or 0
        s[2 if e in finished else 4] += 1
        s[3] += e.tokens_estimated  # a script model's counts are estimates
    expected = {
        a: {"input": v[0], "output": v[1], "calls": v[2], "estimated": v[3], **({"cut": v[4]} if v[4] else {})}
        for a, v in per_agent.items()
    }
    assert expected == outcome.tokens
    assert rec.of("run_finished")[0].tokens == outcome.tokens
    assert all(e.input_tokens > 0 and e.output_tokens > 0 for e in finished)


async def test_checker_none_runs_every_step(tmp_path):
    story = Story(generate=lambda p: CORRECT)
    outcome, _ = await solve(story, tmp_path, prompts=1, checker="none", clarify=1)
    assert outcome.outcome == "unchecked"
    assert story.of("code_quality_checker") == []
    assert len(story.of("clarifier")) == 1


async def test_yesno_checker_is_the_papers_baseline_critic(tmp_path):
    story = Story(generate=lambda p: CORRECT)
    outcome, _ = await solve(story, tmp_path, prompts=1, checker="yesno")
    assert outcome.accepted_at == "program_generator"
    assert len(story.of("yesno_checker")) == 1 and story.of("code_quality_checker") == []


async def test_test_designer_rounds_temperature_and_dedup(tmp_path):
    story = Story(synthesized=["assert add_one(10) == 11"] * 3 + ["assert add_one(1) == 2"], debug=lambda p, e: CORRECT)
    _, rec = await solve(story, tmp_path, prompts=1)
    rounds = story.of("test_designer")
    assert len(rounds) == 5 and all(c["temperature"] == 0.1 for c in rounds)
    assert all(c["temperature"] == 0.0 for c in story.calls if c["agent"] != "test_designer")
    designed = rec.of("tests_designed")
    # Duplicates and the visible test are dropped.
    assert designed[0].tests == ["assert add_one(10) == 11"] and designed[-1].total == 1


async def test_each_test_design_round_is_told_the_tests_it_has_and_so_yields_new_ones(tmp_path):
    """A low-temperature model answers the same prompt the same way: five
    identical rounds would yield one round's tests. Told the tests it has, a
    model whose answer depends only on its prompt yields 50 distinct."""

    def designer(request: dict) -> str:
        text = request["messages"][-1]["content"]
        if request["agent"] != "test_designer":
            return story(request)
        shown = {int(x) for x in re.findall(r"add_one\((-?\d+)\)", text)}
        fresh = [x for x in range(100, 200) if x not in shown][:10]
        return "```python\n" + "\n".join(f"assert add_one({x}) == {x + 1}" for x in fresh) + "\n```"

    story = Story(debug=lambda p, e: CORRECT)
    config = RunConfig(model="script/story").replace(prompts=1, tqc=False)
    rec = Recorder()
    await run_workflow(PROBLEM, config, client=ScriptClient.from_function(designer), sinks=[rec], session_dir=tmp_path)
    designed = rec.of("tests_designed")
    assert [e.total for e in designed] == [10, 20, 30, 40, 50]


async def test_independent_test_rounds_send_the_same_query_and_repeat_its_tests(tmp_path):
    """Appendix A's other reading: five copies of the first query, told nothing
    of each other. The model above, whose answer depends only on its prompt,
    then gives one round's ten tests five times, and de-duplication keeps ten."""
    asked: list[str] = []

    def designer(request: dict) -> str:
        if request["agent"] != "test_designer":
            return story(request)
        asked.append(request["messages"][-1]["content"])
        shown = {int(x) for x in re.findall(r"add_one\((-?\d+)\)", asked[-1])}
        fresh = [x for x in range(100, 200) if x not in shown][:10]
        return "```python\n" + "\n".join(f"assert add_one({x}) == {x + 1}" for x in fresh) + "\n```"

    story = Story(debug=lambda p, e: CORRECT)
    config = RunConfig(model="script/story").replace(prompts=1, tqc=False, independent_test_rounds=True)
    rec = Recorder()
    await run_workflow(PROBLEM, config, client=ScriptClient.from_function(designer), sinks=[rec], session_dir=tmp_path)
    assert len(asked) == 5 and len(set(asked)) == 1 and "already designed" not in asked[0]
    designed = rec.of("tests_designed")
    assert [e.round for e in designed] == [1, 2, 3, 4, 5]
    assert [e.total for e in designed] == [10, 10, 10, 10, 10]


async def test_session_file_holds_every_event(tmp_path):
    story = Story(generate=lambda p: CORRECT)
    outcome, rec = await solve(story, tmp_path, prompts=1)
    lines = Path(outcome.session).read_text(encoding="utf-8").splitlines()  # noqa: ASYNC240
    header = json.loads(lines[0])
    assert header["format"] == "qflow-session" and header["problem"]["entry_point"] == "add_one"
    # Streamed chunks are stored compactly; reading the file gives every event back.
    back = read_session(outcome.session)
    assert [e.seq for e in back.events] == [e.seq for e in rec.events]
    assert [e.kind for e in back.events] == [e.kind for e in rec.events]


async def test_each_fix_is_run_against_the_kept_tests_once(tmp_path):
    story = Story(debug=lambda p, e: CORRECT if e == 2 else buggy(f"debug {e}"))
    outcome, rec = await solve(story, tmp_path, prompts=1)
    assert outcome.accepted_at == "self_debug:2"
    runs = [(r.step, r.purpose, r.passed, r.total) for r in rec.of("sandbox_run")]
    # Epoch 2 starts from epoch 1's after-fix report instead of running the same program again.
    assert runs == [
        ("self_debug:1", "self_debug", 0, 3),
        ("self_debug:1", "after_debug", 0, 3),
        ("self_debug:2", "after_debug", 3, 3),
    ]
    # The debugger of epoch 2 is fed the failures of epoch 1's fix.
    assert "# debug 1" in story.of("self_debugger")[1]["messages"][-1]["content"]


class Failing(Story):
    """A Story whose model fails for some calls, as a provider would."""

    def __init__(self, fail_when, **kw):
        super().__init__(**kw)
        self.fail_when = fail_when

    def __call__(self, request):
        if self.fail_when(request):
            self.calls.append(request)
            raise RuntimeError("provider busy, try again")
        return super().__call__(request)


async def test_a_failed_call_stops_its_progression_only(tmp_path):
    story = Failing(
        lambda r: r["agent"] == "program_generator" and r["progression"] == 0,
        generate=lambda p: CORRECT if p == 1 else buggy("gen"),
    )
    outcome, rec = await solve(story, tmp_path, prompts=3)
    assert (outcome.outcome, outcome.accepted_at, outcome.progression) == ("accepted", "program_generator", 1)
    failed = [e for e in rec.of("step_finished") if e.outcome == "failed"]
    assert [(e.step, e.progression) for e in failed] == [("program_generator", 0)]
    assert "provider busy" in failed[0].detail
    assert any("progression 0 stopped" in n.message for n in rec.of("notice"))
    # No check is spent on the stopped progression.
    assert all(c["progression"] != 0 for c in story.of("code_quality_checker"))


async def test_revert_goes_to_the_lowest_progression_that_produced_a_program(tmp_path):
    story = Failing(lambda r: r["agent"] == "program_generator" and r["progression"] == 0 and not r["attempt"])
    outcome, _ = await solve(story, tmp_path, prompts=2, epochs=1, clarify=1)
    assert outcome.outcome == "reverted" and outcome.progression == 1
    assert outcome.final_program.strip() == buggy("gen 1").strip()


async def test_when_every_progression_fails_the_run_fails_with_the_reason(tmp_path):
    from qflow_tui.core.workflow_run import RunError

    story = Failing(lambda r: r["agent"] == "program_generator")
    with pytest.raises(RunError, match="provider busy"):
        await solve(story, tmp_path, prompts=2)


async def test_a_failed_tqc_check_leaves_that_test_out_and_a_failed_design_round_keeps_the_rest(tmp_path):
    story = Failing(
        lambda r: (
            (r["agent"] == "test_quality_checker" and "add_one(0)" in (r["test"] or ""))
            or (r["agent"] == "test_designer" and r["attempt"] == 2)
        ),
        debug=lambda p, e: CORRECT,
    )
    outcome, rec = await solve(story, tmp_path, prompts=1)
    assert outcome.accepted_at == "self_debug:1"
    verdicts = {e.test: (e.verdict, e.detail) for e in rec.of("tqc_verdict")}
    assert (
        verdicts["assert add_one(0) == 1"][0] == "rejected" and "not checked" in verdicts["assert add_one(0) == 1"][1]
    )
    # Round 2's failure costs only its own tests: the later rounds still run.
    assert len(story.of("test_designer")) == 5
    assert any("test design round 2 failed" in n.message for n in rec.of("notice"))
    assert "add_one(0)" not in " ".join(c["messages"][-1]["content"] for c in story.of("self_debugger"))


async def test_a_fatal_failure_ends_the_run_at_once(tmp_path):
    from qflow_tui.core.llm import LLMError
    from qflow_tui.core.workflow_run import RunError

    story = Story()

    def respond(request):
        if request["progression"] == 1:
            raise LLMError("anthropic/x: the API key was rejected (401): check ANTHROPIC_API_KEY", fatal=True)
        return story(request)

    config = RunConfig(model="script/story").replace(prompts=3)
    rec = Recorder()
    with pytest.raises(RunError, match="key was rejected"):
        await run_workflow(
            PROBLEM, config, client=ScriptClient.from_function(respond), sinks=[rec], session_dir=tmp_path
        )
    assert rec.events[-1].kind == "run_failed"
    assert story.of("code_quality_checker") == []  # nothing after the failing stage


async def test_a_check_failing_for_the_only_changed_progression_does_not_end_the_run(tmp_path):
    # Epoch 1: p0's program passes every kept test (nothing to debug), p1 is
    # debugged and its check's model call fails. p0 is still alive: the run goes
    # on to the clarifier, which fixes p0.
    story = Failing(
        lambda r: (
            r["agent"] == "code_quality_checker"
            and r["progression"] == 1
            and "debug 1.1" in r["messages"][0]["content"]
        ),
        generate=lambda p: (
            "def add_one(x):\n    # gen 0\n    return x - (-1) if x > 2 else x + 2\n" if p == 0 else buggy(f"gen {p}")
        ),
        clarified=lambda p, a: CORRECT,
        synthesized=["assert add_one(10) == 11", "assert add_one(5) == 6"],
    )
    outcome, rec = await solve(story, tmp_path, prompts=2, epochs=1, clarify=1)
    assert (outcome.outcome, outcome.accepted_at, outcome.progression) == ("accepted", "clarifier:1", 0)
    failed = [(e.step, e.agent, e.progression) for e in rec.of("step_finished") if e.outcome == "failed"]
    assert failed == [("self_debug:1", "code_quality_checker", 1)]


@pytest.mark.parametrize(
    "cfg,expected",
    [
        ({"epochs": 0, "clarify": 1}, [("program_generator", "clarify"), ("clarifier:1", "revert")]),
        ({"epochs": 1, "clarify": 0}, [("program_generator", "continue"), ("self_debug:1", "revert")]),
        ({"epochs": 0, "clarify": 0}, [("program_generator", "revert")]),
    ],
)
async def test_each_decision_names_the_step_that_really_follows(tmp_path, cfg, expected):
    outcome, rec = await solve(Story(), tmp_path, prompts=1, **cfg)
    assert outcome.outcome == "reverted"
    assert [(s, d) for s, _, d in decisions(rec)][:-1] == expected  # the last is the revert itself


async def test_a_bug_of_ours_is_one_line_for_the_user_and_a_traceback_in_the_session(tmp_path, monkeypatch):
    import qflow_tui.core.workflows.qualityflow.quality_flow as qf
    from qflow_tui.core.workflow_run import RunError

    def broken(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(qf, "design_tests", broken)
    with pytest.raises(RunError) as err:
        await solve(Story(), tmp_path, prompts=1)
    assert "internal error: KeyError" in str(err.value) and "please report" in str(err.value)
    session = next(tmp_path.glob("*.jsonl")).read_text()
    assert "Traceback (most recent call last)" in session and '"kind": "run_failed"' in session


async def test_verdicts_of_a_check_are_judged_in_one_sandbox_run(tmp_path):
    from qflow_tui.core.sandbox import Sandbox, SandboxConfig

    real = Sandbox(SandboxConfig())
    batches: list[int] = []

    class Counting:
        isolation = real.isolation
        config = real.config

        async def run_tests(self, *args, **kwargs):
            return await real.run_tests(*args, **kwargs)

        async def check_values(self, items, **kwargs):
            batches.append(len(items))
            return await real.check_values(items, **kwargs)

    story = Story(debug=lambda p, e: CORRECT)
    outcome = await run_workflow(
        PROBLEM,
        RunConfig(model="script/story").replace(prompts=1),
        client=ScriptClient.from_function(story),
        sandbox=Counting(),
        session_dir=tmp_path,
    )
    assert outcome.accepted_at == "self_debug:1"
    # Generation check (2 visible tests), TQC (4 synthesized tests), epoch-1 check (2).
    assert batches == [2, 4, 2]


# -- Each path pinned: these tests fail when the named fault is re-introduced. --

PARTIAL = "def add_one(x):\n    # right for small x only\n    return x + 1 if x < 3 else x + 2\n"


@pytest.mark.parametrize("checker", ["imagined", "python"])
async def test_the_checker_needs_every_visible_test_to_pass(tmp_path, checker):
    story = Story(generate=lambda p: PARTIAL)
    outcome, rec = await solve(story, tmp_path, prompts=1, epochs=0, clarify=0, checker=checker)
    assert outcome.outcome == "reverted" and outcome.accepted_at is None
    if checker == "imagined":
        assert sorted(c.verdict for c in rec.of("imagined_check")) == ["fail", "pass"]
    else:
        run = next(r for r in rec.of("sandbox_run") if r.purpose == "python_checker")
        assert (run.passed, run.total) == (1, 2)


async def test_the_clarified_statement_reaches_the_regenerating_generator(tmp_path):
    story = Story()
    await solve(story, tmp_path, prompts=2, epochs=1, clarify=2)
    regenerations = [c for c in story.of("program_generator") if c["attempt"]]
    assert len(regenerations) == 4
    for call in regenerations:
        marker = f"(clarified p{call['progression']} a{call['attempt']})"
        assert marker in call["messages"][-1]["content"]


async def test_the_test_quality_checker_is_never_shown_a_program(tmp_path):
    story = Story(generate=lambda p: buggy(f"gen {p}") + "    # unique-program-marker\n")
    await solve(story, tmp_path, prompts=2, epochs=1, clarify=0)
    tqc = story.of("test_quality_checker")
    assert len(tqc) == 4
    for call in tqc:
        text = call["system"] + "".join(m["content"] for m in call["messages"])
        assert "unique-program-marker" not in text and "def add_one" not in text


async def test_the_code_quality_checker_turn_one_shows_the_call_only(tmp_path):
    story = Story()
    await solve(story, tmp_path, prompts=1, epochs=0, clarify=0)
    firsts = [c for c in story.of("code_quality_checker") if c["turn"] == 1]
    assert len(firsts) == 2
    for call in firsts:
        text = call["messages"][0]["content"]
        test = call["test"]
        call_src = test.removeprefix("assert ").split(" == ")[0]
        expected = test.split(" == ")[1]
        assert f"<function_call>\n{call_src}\n</function_call>" in text
        assert test not in text and f"== {expected}" not in text


async def test_the_debugger_is_told_the_actual_values_and_the_error_messages(tmp_path):
    raising = 'def add_one(x):\n    if x == 0:\n        raise ValueError("zero is not allowed")\n    return x + 2\n'
    story = Story(generate=lambda p: raising, debug=lambda p, e: CORRECT)
    outcome, _ = await solve(story, tmp_path, prompts=1)
    assert outcome.accepted_at == "self_debug:1"
    prompt = story.of("self_debugger")[0]["messages"][-1]["content"]
    assert "assert add_one(10) == 11" in prompt and "returned 12" in prompt
    assert "assert add_one(-4) == -3" in prompt and "returned -2" in prompt
    # The error as raised (the program's own text also names ValueError: look for the report).
    assert "assert add_one(0) == 1\n    -> raised ValueError: zero is not allowed" in prompt


async def test_no_debugging_when_every_kept_test_passes(tmp_path):
    # Right on every synthesized test, wrong on the visible add_one(5).
    program = "def add_one(x):\n    return 0 if x == 5 else x + 1\n"
    story = Story(generate=lambda p: program)
    outcome, rec = await solve(story, tmp_path, prompts=1, epochs=3, clarify=1)
    assert story.of("self_debugger") == []
    assert outcome.outcome == "reverted"
    skipped = [e for e in rec.of("step_finished") if e.agent == "self_debugger"]
    assert skipped and all(e.outcome == "skipped" for e in skipped)
    assert "already passes every synthesized unit test" in story.of("clarifier")[0]["messages"][-1]["content"]


async def test_checker_none_runs_every_step_of_progression_0_only_and_reports_its_last_program(tmp_path):
    story = Story(generate=lambda p: CORRECT)
    outcome, rec = await solve(story, tmp_path, prompts=3, checker="none", epochs=1, clarify=2)
    assert (outcome.outcome, outcome.progression) == ("unchecked", 0)
    # Every step ran (the program passes every kept test, so there was nothing to debug) ...
    assert [c["attempt"] for c in story.of("clarifier")] == [1, 2]
    # ... and the result is progression 0's last program: the second clarifier attempt's.
    assert outcome.final_program.strip() == buggy("clarified 0.2").strip()
    # No call for a progression whose result the rule would throw away, and no check.
    assert {c["progression"] for c in story.calls} <= {0, None}
    assert story.of("code_quality_checker") == [] and story.of("yesno_checker") == []
    assert any("runs progression 0 only" in n.message for n in rec.of("notice"))


async def test_each_clarifier_attempt_starts_from_the_self_debugging_result(tmp_path):
    story = Story(
        debug=lambda p, e: buggy(f"debug {p}.{e}"),
        clarified=lambda p, a: f"def add_one(x):\n    # clarified {p}.{a}\n    return x + 3\n",
    )
    outcome, _ = await solve(story, tmp_path, prompts=1, epochs=2, clarify=3)
    assert outcome.outcome == "reverted"
    clarifiers = story.of("clarifier")
    assert [c["attempt"] for c in clarifiers] == [1, 2, 3]
    for call in clarifiers:
        text = call["messages"][-1]["content"]
        # The debugged program (epoch 2's), never an earlier attempt's clarified program.
        assert "# debug 0.2" in text and "# clarified" not in text
        # The check feedback of the debugged program (x + 2 answers 3 for add_one(1)), not of an attempt's (4).
        assert "assert add_one(1) == 3" in text and "assert add_one(1) == 4" not in text
        assert "clarifier attempt" not in text  # the trajectory is the self-debugging one
    regenerations = [c for c in story.of("program_generator") if c["attempt"]]
    for call in regenerations:
        text = call["messages"][-1]["content"]
        assert "# debug 0.2" in text and "# clarified" not in text
    # Diversified Prompting: each attempt has its own clarifier and generator prompt.
    assert len({c["messages"][-1]["content"].strip().splitlines()[-1] for c in clarifiers}) == 3
    assert len({c["messages"][-1]["content"].strip().splitlines()[-1] for c in regenerations}) == 3


@pytest.mark.parametrize(
    "synthesized,tqc,why",
    [
        ([], True, "the test designer produced no usable test"),
        ([], False, "the test designer produced no usable test"),
        ([WRONG_SYNTH], True, "no synthesized test survived the test quality checker"),
    ],
)
async def test_when_no_test_is_left_to_debug_against_the_timeline_says_why(tmp_path, synthesized, tqc, why):
    story = Story(synthesized=synthesized)
    _, rec = await solve(story, tmp_path, prompts=1, epochs=1, clarify=0, tqc=tqc)
    skipped = [e for e in rec.of("step_finished") if e.agent == "self_debugger"]
    assert [(e.outcome, e.detail) for e in skipped] == [("skipped", why)]
    assert bool(story.of("test_quality_checker")) == bool(synthesized and tqc)


# -- Orchestration: no barrier the rule does not need. The model holds chosen calls
# until an event of the run has happened (no timing involved).


class Held(Story):
    """A Story whose calls for some places wait until a decision has been emitted."""

    def __init__(self, hold, **kw):
        super().__init__(**kw)
        self.hold = hold  # request -> (progression, decision) to wait for, or None
        self.seen: dict[tuple[int, str], asyncio.Event] = {}

    def event(self, key):
        return self.seen.setdefault(key, asyncio.Event())

    def sink(self, e):
        if e.kind == "decision":
            self.event((e.progression, e.decision)).set()

    async def respond(self, request):
        key = self.hold(request)
        if key is not None:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for drops a
            # cancellation that arrives as the event is set (the run's stop).
            async with asyncio.timeout(30):
                await self.event(key).wait()
        return self(request)


async def solve_held(story: Held, tmp_path, **cfg):
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/held", **cfg}),
        client=ScriptClient.from_function(story.respond),
        sinks=[story.sink, rec],
        session_dir=tmp_path,
    )
    return outcome, rec


def generation_of(p):
    return lambda r: r["agent"] == "program_generator" and r["progression"] == p and not r["attempt"]


async def test_an_acceptance_is_reported_without_waiting_for_a_slower_progression_s_stage(tmp_path):
    # Progression 0's generator answers only after progression 1 has been accepted.
    story = Held(
        lambda r: (1, "accept") if generation_of(0)(r) else None,
        generate=lambda p: CORRECT if p == 1 else buggy(f"gen {p}"),
    )
    outcome, rec = await solve_held(story, tmp_path, prompts=2)
    # The rule: progression 1 wins once progression 0 is rejected at the same stage.
    assert (outcome.outcome, outcome.accepted_at, outcome.progression) == ("accepted", "program_generator", 1)
    accept = next(e for e in rec.of("decision") if e.decision == "accept")
    p0_generated = next(e for e in rec.of("step_finished") if e.progression == 0 and e.agent == "program_generator")
    assert accept.seq < p0_generated.seq
    # Progression 0 could no longer win at a later stage: no test design, no debugging.
    assert story.of("test_designer") == [] and story.of("self_debugger") == []


async def test_a_lower_index_accepted_later_at_the_same_stage_still_wins(tmp_path):
    story = Held(lambda r: (1, "accept") if generation_of(0)(r) else None, generate=lambda p: CORRECT + f"# p{p}\n")
    outcome, _ = await solve_held(story, tmp_path, prompts=2)
    assert (outcome.accepted_at, outcome.progression) == ("program_generator", 0)
    assert "# p0" in outcome.final_program


async def test_an_earlier_stage_beats_a_lower_index_that_ran_ahead(tmp_path):
    # Progression 1 is slow to generate (a right program); progression 0 runs ahead
    # and is accepted at self_debug:1 first. The earlier stage wins.
    story = Held(
        lambda r: (0, "accept") if generation_of(1)(r) else None,
        generate=lambda p: CORRECT if p == 1 else buggy(f"gen {p}"),
        debug=lambda p, e: CORRECT,
    )
    outcome, rec = await solve_held(story, tmp_path, prompts=2)
    assert (outcome.accepted_at, outcome.progression) == ("program_generator", 1)
    accepts = [(e.step, e.progression) for e in rec.of("decision") if e.decision == "accept"]
    assert accepts == [("self_debug:1", 0), ("program_generator", 1)]


async def test_an_acceptance_stops_a_beaten_progression_before_it_goes_on(tmp_path):
    # Progression 2's generator answers at the moment progression 1 is accepted at
    # the same stage: beaten (a higher index), it must not go on to a check. The
    # rule still waits for progression 0, held the same way.
    held = {0, 2}
    story = Held(
        lambda r: (1, "accept") if r["agent"] == "program_generator" and r["progression"] in held else None,
        generate=lambda p: CORRECT if p == 1 else buggy(f"gen {p}"),
    )
    outcome, rec = await solve_held(story, tmp_path, prompts=3)
    assert (outcome.accepted_at, outcome.progression) == ("program_generator", 1)
    accept = next(e for e in rec.of("decision") if e.decision == "accept")
    after = [(e.agent, e.progression) for e in rec.of("llm_call_started") if e.seq > accept.seq]
    assert all(p != 2 for _, p in after), after
    assert not [e for e in rec.of("decision") if e.progression == 2]


async def test_a_stopped_progression_starts_no_call_not_even_from_tasks_it_just_made():
    """The race behind a flaky acceptance: a progression makes the concurrent
    checks of its tests (child tasks), then another's acceptance stops it before
    it runs again. The loop runs the children first; they must not start calls."""
    from qflow_tui.core.context import gather_all
    from qflow_tui.core.workflows.qualityflow.quality_flow import _Run
    from tests.helpers import make_ctx

    ctx, rec = make_ctx(PROBLEM, lambda c: "x", RunConfig(model="script/inline").replace(prompts=3))
    run = _Run(ctx)

    def request(p: int):
        return ctx.request("code_quality_checker", messages=[{"role": "user", "content": "q"}], progression=p)

    async def checks(p: int) -> list[str]:
        return await gather_all(ctx.call(request(p), step="self_debug:2") for _ in range(2))

    beaten = asyncio.create_task(checks(2))
    await asyncio.sleep(0)  # it runs: its two checks are now queued ahead of anything else
    run._stop(run.progs[2], beaten)
    with pytest.raises(asyncio.CancelledError):
        await beaten
    assert rec.of("llm_call_started") == []
    # A progression still in the race calls as before.
    assert await checks(0) == ["x", "x"]
    assert [e.progression for e in rec.of("llm_call_started")] == [0, 0]
