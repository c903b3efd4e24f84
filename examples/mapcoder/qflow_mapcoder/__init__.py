"""MapCoder (Islam et al., ACL 2024), described: the spec qflow reads when it
starts. It is light on purpose: the run function and the agents are in
``run.py`` and ``agents.py``, imported only when a run asks for them.

Four agents in the paper's words: the *retrieval* agent recalls k problems
like the one given, each with its code and its plan; the *planning* agent
makes a plan for the problem from each recalled one and scores its own
confidence in it; the *coding* agent writes a program from the most confident
plan; the program runs on the problem's sample tests (qflow's sandbox, the
*sample tester* here) and, while some fail, the *debugging* agent fixes it,
at most t rounds, before the next plan is tried."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qflow_tui.core.workflows import Agent, Column, Edit, Pane, PlannedStep, Setting, Steerable, WorkflowSpec

if TYPE_CHECKING:
    from qflow_tui.core.config import RunConfig
    from qflow_tui.core.events import DecisionWord

EXEMPLARS = Setting(
    "exemplars",
    "k, the number of problems the retrieval agent recalls, each with its code and plan; the planning agent makes "
    "one plan from each (MapCoder's k: 3 in its code, its runs named MapCoder-3-5)",
    default=3,
    minimum=1,
    maximum=9,
    why="the retrieval agent is asked for them in one answer",
    label="k: recalled problems",
)
DEBUG_ROUNDS = Setting(
    "debug_rounds",
    "t, the debugging rounds against the sample tests before the next plan is tried (MapCoder's t: 5 in its code; "
    "0: each plan's program is tested once)",
    default=5,
    minimum=0,
    maximum=20,
    label="t: debugging rounds",
)

AGENTS = (
    Agent("retrieval", "Retrieval agent", "RE"),
    Agent("planning", "Planning agent", "PL"),
    Agent("coding", "Coding agent", "CO"),
    Agent("sample_tester", "Sample tester", "ST"),
    Agent("debugging", "Debugging agent", "DB"),
)


#: The run screen's tab of MapCoder's own: a row per recalled problem and the
#: plan made from it, updated as the plan is scored and tried (``plan`` records,
#: keyed by the plan's number). ``qflow solve`` prints each record with these
#: columns, and a replay shows the tab without the plugin installed.
PLANS = Pane(
    "plans",
    "Plans",
    record="plan",
    # Widths that fit an 80-column screen: the recalled problem is cut, the rest is short.
    columns=(
        Column("plan", "#", width=2),
        Column("recalled", "recalled problem", width=30),
        Column("confidence", "conf", width=4),
        Column("tried", "tried", width=5),
        Column("outcome", "outcome", width=27),
    ),
    empty="No plan yet: the retrieval agent has not recalled a problem.",
)

#: The sample tester's decisions in MapCoder's words, each mapped onto the
#: core's: the core acts on ``continue``, the timeline, the log and the
#: session say which way the run went on.
DECISION_WORDS: dict[str, DecisionWord] = {"debug": "continue", "next plan": "continue", "plans spent": "continue"}


def debugging_round(tried: int, round: int, config: RunConfig) -> int:
    """The number of the ``debugging`` step for the ``round``-th fix of the
    ``tried``-th plan tried (both from 1): one number per step, counted over
    the whole run (with t = 5, plan 2's first round is ``debugging:6``)."""
    return (tried - 1) * DEBUG_ROUNDS.of(config) + round


def _nth(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` ... (k is at most 9)."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


def plan(config: RunConfig) -> list[PlannedStep]:
    """``retrieval``; ``planning:1`` ... ``planning:k`` (a plan and its
    confidence from each recalled problem); then for the plans in order of
    confidence, ``coding:N`` (the N-th plan tried) and its ``debugging`` rounds;
    the sample tester checks the program of each."""
    k, t = EXEMPLARS.of(config), DEBUG_ROUNDS.of(config)
    steps = [PlannedStep("retrieval", f"recall {k} problems", ("retrieval",), short="recall")]
    steps += [
        PlannedStep(f"planning:{n}", f"plan {n} and its confidence", ("planning",), short=f"plan {n}")
        for n in range(1, k + 1)
    ]
    for tried in range(1, k + 1):
        steps.append(
            PlannedStep(
                f"coding:{tried}", f"code the {_nth(tried)} plan", ("coding", "sample_tester"), short=f"code {tried}"
            )
        )
        for round in range(1, t + 1):
            number = debugging_round(tried, round, config)
            steps.append(
                PlannedStep(
                    f"debugging:{number}",
                    f"debug {round} of the {_nth(tried)} plan",
                    ("debugging", "sample_tester"),
                    short=f"debug {number}",
                )
            )
    return steps


def edits(config: RunConfig) -> frozenset[Edit]:
    """A program where the coding or debugging agent answers, a verdict where
    the sample tester checks one."""
    return frozenset({"program", "verdict"})


SPEC = WorkflowSpec(
    name="mapcoder",
    summary="MapCoder: recall k problems with plans, plan with confidence, code the best plan, "
    "debug t rounds on the samples, then the next plan",
    agents=AGENTS,
    settings=(EXEMPLARS, DEBUG_ROUNDS),
    plan=plan,
    visible_tests=lambda config: "shown to every agent; executed in the sandbox after each program (sample I/O)",
    runner="qflow_mapcoder.run:run_mapcoder",
    executes_visible=lambda config: True,
    tabs=lambda config: ("tests",),
    stage_words={"retrieval": "recall", "planning": "plan", "coding": "code", "debugging": "debug"},
    steering=Steerable(edits=edits, program_stages=("coding", "debugging"), first_stage="coding"),
    checker="sample_tester",
    debugger="debugging",
    decided=("sample_tester",),
    decision_words=DECISION_WORDS,
    panes=(PLANS,),
    paper="Islam et al., MapCoder: Multi-Agent Code Generation for Competitive Problem Solving "
    "(ACL 2024, arXiv:2405.11403), section 3",
)
