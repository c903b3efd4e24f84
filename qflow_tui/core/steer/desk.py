"""The rules of steering a live run, without a screen: where the step gate
holds the run, which edits the workflow takes there (its spec says), and the
edits themselves, put into the run's :class:`~qflow_tui.core.steer.edits.Steering`
for the workflow to take as it goes on. The run screen asks the desk and shows
what it answers; a test drives the desk alone.

Every method that changes something returns what happened in words (the
screen's notice) or raises :class:`SteerError` with why not, in one line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..config import RunConfig
from ..pieces import SynthTest
from ..problem import Problem
from ..run_state import RunState
from ..safe_text import one_line
from ..workflows import WORKFLOWS, Edit, Steerable
from .edits import SteerError, Steering, check_program, check_test
from .gate import Breakpoint, StepGate, Stop

#: What a test's row says of the edit waiting for it (the Tests tab marks it).
PendingTest = str


@dataclass(frozen=True)
class ProgramEdit:
    """Where a program edit at the stop applies, and what the editor starts from."""

    step: str
    progression: int
    text: str
    """The program to edit: the one waiting already, else the progression's current one."""
    how: str
    """In words: ``checked in place of self_debug:1's answer``."""


class SteeringDesk:
    """Steer one live run: the gate that holds it, the edits it takes."""

    def __init__(self, gate: StepGate, steering: Steering, config: RunConfig, problem: Problem) -> None:
        self.gate = gate
        self.steering = steering
        self.config = config
        self.problem = problem
        self.running = True
        """False once the run has ended: nothing is held, nothing can be taken."""

    # -- where the run is held ---------------------------------------------------------

    @property
    def stop(self) -> Stop | None:
        """The stop the gate holds the run before (step mode or a breakpoint), if any."""
        if not self.running or not self.gate.stepping:
            return None
        return self.gate.waiting

    @property
    def steerable(self) -> Steerable:
        spec = WORKFLOWS.get(self.config.workflow)
        return spec.steering if spec is not None else Steerable()

    def offers(self, edit: Edit) -> bool:
        """Whether an edit of this kind can be made now: the run is held, the
        workflow takes it with these settings, and (a program or a verdict) the
        stop is a progression's step at one of the workflow's program stages."""
        stop = self.stop
        if stop is None or not self.steerable.takes(edit, self.config):
            return False
        if edit in ("program", "verdict"):
            return stop.progression is not None and stop.step.partition(":")[0] in self.steerable.program_stages
        return True

    def _held(self, edit: Edit) -> Stop:
        stop = self.stop
        if stop is None:
            raise SteerError("the run is not stopped: press n in step mode, or set a breakpoint, then edit")
        if not self.offers(edit):
            raise SteerError(f"{self.config.workflow} takes no {edit} edit at {stop.step}")
        return stop

    def stop_words(self, state: RunState) -> str:
        """The stop in words for the status line: ``before the check of self-debug 1 (p0)``."""
        stop = self.stop
        if stop is None:
            return ""
        return stop_words(stop, state)

    # -- programs and verdicts ---------------------------------------------------------

    def program_edit(self, state: RunState) -> ProgramEdit:
        """What a program edit at the stop starts from and where it applies."""
        stop = self._held("program")
        p = stop.progression if stop.progression is not None else 0
        current = state.current_program(p)
        text = self.steering.programs.get((stop.step, p)) or (current[1] if current else "")
        how = (
            f"checked in place of {stop.step}'s answer"
            if stop.check
            else f"in place of the agent's answer at {stop.step}"
        )
        if not stop.check and stop.step == self.steerable.first_stage:
            label = state.agent(stop.agent).label if stop.agent else stop.step
            how = f"in place of the {label.lower()}'s answer"
        return ProgramEdit(stop.step, p, text, how)

    def edit_program(self, program: str) -> str:
        stop = self._held("program")
        p = stop.progression if stop.progression is not None else 0
        self.steering.programs[(stop.step, p)] = check_program(program)
        return f"Program of p{p} edited: the run carries on with it from {stop.step}."

    def override_verdict(self, accept: bool) -> str:
        """The stopped progression's next check decides ``accept``, not the
        checker (the same override again: undone)."""
        stop = self._held("verdict")
        p = stop.progression if stop.progression is not None else 0
        if self.steering.next_verdicts.get(p) is accept:
            del self.steering.next_verdicts[p]
            return f"Override undone: the checker decides p{p}'s next check."
        self.steering.next_verdicts[p] = accept
        return f"p{p}'s next check: {'accept' if accept else 'reject'} (a person decides; the checker is not asked)."

    # -- the synthesized tests ---------------------------------------------------------

    def _refuse_deleted(self, test: SynthTest, what: str) -> None:
        if self.steering.test_edits.get(test.test) == "":
            raise SteerError(f"this test is deleted (not yet taken): press d to undo that, then {what}")
        if test.steered == "deleted":
            raise SteerError("this test was deleted: the run no longer has it")

    def toggle_test_verdict(self, test: SynthTest) -> str:
        """Keep a rejected test or drop a kept one, over the judge's verdict (again: undone)."""
        self._held("tests")
        self._refuse_deleted(test, "space keeps or drops it")
        if test.test in self.steering.test_verdicts:
            del self.steering.test_verdicts[test.test]
            return "Undone: the judge's verdict on the test stands."
        if test.verdict not in ("kept", "rejected"):
            raise SteerError("the test has not been judged yet")
        keep = test.verdict == "rejected"
        self.steering.test_verdicts[test.test] = keep
        return f"Test {'kept' if keep else 'dropped'} over its judge: {one_line(test.test, 60)}"

    def check_test(self, text: str) -> str:
        """``text`` as a test of this problem (one assert calling its entry point), or SteerError."""
        return check_test(text, self.problem.entry_point)

    def test_text(self, test: SynthTest) -> str:
        """What an edit of ``test`` starts from: the edit waiting for it, else the test."""
        self._held("tests")
        self._refuse_deleted(test, "t edits it")
        return self.steering.test_edits.get(test.test) or test.test

    def edit_test(self, test: SynthTest, new: str) -> str:
        self._held("tests")
        self._refuse_deleted(test, "t edits it")
        if new.strip() == test.test.strip():
            self.steering.test_edits.pop(test.test, None)
            return "The test is as it was: no edit."
        self.steering.test_edits[test.test] = self.check_test(new)
        return f"Test edited (kept): {one_line(new, 60)}"

    def delete_test(self, test: SynthTest) -> str:
        """Delete a synthesized test (again: undone)."""
        self._held("tests")
        if self.steering.test_edits.get(test.test) == "":
            del self.steering.test_edits[test.test]
            return "Undone: the test is not deleted."
        self.steering.test_edits[test.test] = ""
        return f"Test deleted: {one_line(test.test, 60)}"

    def add_test(self, new: str) -> str:
        self._held("tests")
        self.steering.added_tests.append(self.check_test(new))
        return f"Test added (kept): {one_line(new, 60)}"

    def pending_tests(self) -> dict[str, PendingTest]:
        """The synthesized tests' edits the run has not taken yet, by test:
        ``keep``, ``drop``, ``edit`` or ``delete`` (the Tests tab marks their rows)."""
        if not self.running:
            return {}
        marks = {test: "keep" if keep else "drop" for test, keep in self.steering.test_verdicts.items()}
        marks.update({test: "edit" if new else "delete" for test, new in self.steering.test_edits.items()})
        return marks

    # -- the statement -----------------------------------------------------------------

    def statement_text(self) -> str:
        self._held("statement")
        return self.steering.statement or self.problem.statement

    def edit_statement(self, new: str) -> str:
        self._held("statement")
        if not new.strip():
            raise SteerError("the statement is empty: write the statement the run should read")
        if new.strip() == self.problem.statement.strip():
            self.steering.statement = None
            return "The statement is as it was: no edit."
        self.steering.statement = new.strip()
        readers = self.steerable.statement_readers or "the steps that read the statement from here"
        return f"Statement edited: {readers} read it."

    # -- breakpoints -------------------------------------------------------------------

    def toggle_breakpoint(self, kind: str, step: str, state: RunState) -> str:
        """Set or remove a breakpoint before ``step`` (``kind`` ``step``) or
        before its first agent (``agent``); raises SteerError when it has none."""
        value = step
        if kind == "agent":
            agents = state.plan_step(step).agents
            if not agents:
                raise SteerError(f"no agent works in {step}: press b to stop before the step")
            value = agents[0]
        point = Breakpoint(kind, value)
        if point in self.gate.breakpoints:
            self.gate.breakpoints.remove(point)
            return f"Breakpoint removed: {point}."
        self.gate.breakpoints.append(point)
        where = f"each {value} step" if kind == "agent" else value
        return f"Breakpoint set: {point}. The run stops before {where}."

    def marked_steps(self, state: RunState) -> frozenset[str]:
        """The planned steps a breakpoint stops before (the timeline marks them)."""
        points = self.gate.breakpoints
        steps = {b.value for b in points if b.kind == "step"}
        agents = {b.value for b in points if b.kind == "agent"}
        return frozenset(
            s
            for s in state.planned_stages()
            if s in steps or s.partition(":")[0] in steps or bool(agents & set(state.plan_step(s).agents[:1]))
        )


def stop_words(stop: Stop, state: RunState, label: Callable[[str], str] | None = None) -> str:
    """A stop in words: ``before self-debug 1 (p0)``, or before the checker
    checks a step's program, ``before checking generate (p2)``."""
    step = (label or state.step_label)(stop.step)
    where = f" (p{stop.progression})" if stop.progression is not None else ""
    return f"before {'checking ' if stop.check else ''}{step}{where}"
