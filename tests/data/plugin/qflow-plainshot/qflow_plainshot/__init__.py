"""Plain-shot, described: one writer writes one program, unchecked, optionally
without seeing the visible tests. qflow reads this spec at launch; the run
function (``.run``) is imported only when a run asks for this workflow."""

from qflow_tui.core.workflows import Agent, PlannedStep, Setting, WorkflowSpec

SHOW_TESTS = Setting("show_tests", "show the writer the visible tests (off: the statement alone)", default=True)

SPEC = WorkflowSpec(
    name="plainshot",
    summary="Plain-shot: one program from one writer call, unchecked",
    agents=(Agent("writer", "Writer", "WR"),),
    settings=(SHOW_TESTS,),
    plan=lambda config: [PlannedStep("writer", "write", ("writer",))],
    visible_tests=lambda config: "shown to the writer" if SHOW_TESTS.of(config) else "not shown",
    runner="qflow_plainshot.run:run_plainshot",
    paper="Hu et al., QualityFlow (arXiv:2501.17167), the zero-shot baseline",
)
