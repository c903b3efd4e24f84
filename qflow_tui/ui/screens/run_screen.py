"""The run screen: one workflow run, live, in one cancellable worker, with a
step gate the user opens one step at a time or lets run free. While the gate
holds the run, a person may edit what it carries on with (a program, the next
quality verdict, the synthesized tests, the statement the clarifier reads): the
edits go into the run's :class:`Steering` and the run takes them as it goes on.
Breakpoints are set from the timeline (b at a step, B at its agent)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.widgets import DataTable, Header, TabbedContent
from textual.worker import Worker, WorkerState

from ...core.config import RunConfig
from ...core.events import Event, Notice, NoticeLevel, RunStarted, Steered
from ...core.llm import LLMClient
from ...core.llm.base import close_quietly
from ...core.llm.retry import RetryWaits
from ...core.problem import Problem
from ...core.safe_text import clean, one_line
from ...core.sandbox import Sandbox
from ...core.session import SessionError, new_session_path, read_session
from ...core.steer.desk import SteeringDesk, stop_words
from ...core.steer.edits import SteerError, Steering, check_program
from ...core.steer.gate import Breakpoint, StepGate, Stop
from ...core.workflow_run import RunError, RunOutcome, run_workflow
from ...core.workflows import Edit
from ...locations import sessions_dir
from ..access import qflow_app
from ..editor import NO_EDITOR, EditorError, edit_text, editor_command
from ..messages import GateWaiting, RunEvents
from ..state import SynthTest, SynthTests
from ..widgets.agent_pane import AgentPane
from ..widgets.footer import AppFooter
from ..widgets.program_view import selected_program
from ..widgets.run_view import RunView
from ..widgets.timeline import Timeline
from .base import AppScreen, displayed
from .confirm import Confirm
from .fork_dialog import ForkDialog, start_fork
from .model_prompt import ModelPrompt
from .pane_search import search_pane
from .steer_edit import SteerEditScreen
from .try_run import TRY_KEY, open_try

_NOTICE_SEVERITY: dict[NoticeLevel, SeverityLevel] = {"info": "information", "warning": "warning", "error": "error"}


#: What a person loses by cancelling a live run, and how to get it back.
KEPT = (
    "The run stops; its session is kept with every call it finished. Resume it later with R in the "
    "sessions browser (F2), or qflow solve --resume SESSION: the finished calls come from the recording."
)


class RunScreen(AppScreen[None]):
    """Watch (and step through) one run; the session file is written as it goes."""

    BINDINGS = [
        Binding("n", "step", "Step", tooltip="Let the run take the next workflow step"),
        Binding("c", "continue", "Continue", tooltip="Run free to the end"),
        Binding("p", "pause", "Pause", tooltip="Pause before the next workflow step"),
        Binding("x", "cancel", "Cancel", tooltip="Cancel the run; the session is kept"),
        Binding("f", "fork", "Fork", tooltip="Fork the run where it stopped: a new run from here, with edits"),
        # Edits at a stop (shown only while the gate holds the run).
        Binding("e", "edit_program", "Edit", tooltip="Edit the program the stopped progression carries on with"),
        Binding(
            "a",
            "override_verdict(True)",
            "Verdict",
            key_display="a/r",
            tooltip="The stopped progression's next quality check: a accept, r reject (the same key again: undo)",
        ),
        Binding("r", "override_verdict(False)", "Reject", show=False),
        Binding(
            "space",
            "toggle_test_verdict",
            "Keep/drop",
            tooltip="Keep or drop the highlighted test over the TQC",
        ),
        Binding("t", "edit_test", "Edit", tooltip="Edit the highlighted synthesized test"),
        Binding("plus", "add_test", "Add", key_display="+", tooltip="Add a test to the kept synthesized tests"),
        Binding("d", "delete_test", "Delete", tooltip="Delete the highlighted synthesized test"),
        Binding(
            "E",
            "open_in_editor",
            "$EDITOR",
            show=False,
            tooltip="Open the program in $EDITOR: taken back as the edit at a stop that allows one, else read-only",
        ),
        Binding("w", "edit_statement", "Statement", tooltip="Edit the problem statement the clarifier path reads"),
        # Breakpoints from the timeline (shown while a timeline has the focus).
        Binding("b", "toggle_breakpoint('step')", "Break", tooltip="Stop before the highlighted step (again: remove)"),
        Binding("B", "toggle_breakpoint('agent')", "Break at agent", show=False, tooltip="Stop before its agent"),
        # After the edits: at a stop, at 80 columns, they come first in the footer.
        TRY_KEY,
        Binding("escape", "back", "Back", tooltip="Back to the problem (after the run)"),
        Binding("m", "another_model", "Model", show=False, tooltip="Run this problem again on another model"),
        Binding("ctrl+n", "new_problem", "New problem", show=False, tooltip="Back to an empty problem form"),
        Binding("q", "quit_app", "Quit", show=False, tooltip="Quit qflow (asks while a run is going)"),
        Binding("ctrl+g", "give_up_retry", "Give up retry", tooltip="Give up the retries the run is waiting to make"),
    ]

    def __init__(
        self,
        problem: Problem,
        config: RunConfig,
        *,
        client: LLMClient | None = None,
        stepping: bool = False,
        own_client: bool = False,
        breakpoints: Sequence[Breakpoint] = (),
        sandbox: Sandbox | None = None,
        steering: Steering | None = None,
        header: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__()
        self.problem = problem
        self.config = config
        self.client = client
        self.own_client = own_client
        self.sandbox = sandbox
        self.steering: Steering = steering if steering is not None else Steering()
        """A person's edits the run takes: a fork's, and those put in while the gate holds the run."""
        self.header = header
        """Fields the session header adds (a fork names its parent)."""
        self.gate = StepGate(stepping=stepping, on_wait=self._gate_waiting, breakpoints=breakpoints)
        self.desk = SteeringDesk(self.gate, self.steering, config, problem)
        """The rules of steering this run (the core's): the screen asks it and shows the answer."""
        self.retry_waits = RetryWaits()
        """The retries the run waits to make; ``g`` gives them up."""
        self._drafts: dict[str, str] = {}
        """What a person wrote in an editor they left without taking it, by what it edits."""
        self._gate_text = ""
        """Where the gate holds the run (the status line adds the pending edits)."""
        self._toasted: set[str] = set()
        """Notices toasted, their progression left out: the same notice from another
        progression (a server down stops all six alike) adds no toast."""
        self.session_path: Path | None = None
        self.running = False
        self._shown: Stop | None = None
        """The stop at the gate the screen shows: what ``n`` lets through."""
        self._batch: list[Event] | None = None
        self.outcome: RunOutcome | None = None
        self.sub_title = one_line(problem.title or problem.entry_point, 200)

    def compose(self) -> ComposeResult:
        yield Header()
        yield RunView(live=True, clock=qflow_app(self).clock, id="run-view")
        yield AppFooter()

    def on_mount(self) -> None:

        self.session_path = new_session_path(sessions_dir(), self.problem.title or self.problem.entry_point)
        self.running = True
        self.refresh_bindings()
        self.query_one(RunView).query_one("#run-tabs").focus()
        self.call_after_refresh(self._focus_shown)
        for timeline in self.query(Timeline):
            timeline.cursor = 0
        self._mark_breakpoints()
        self.run_chosen_workflow()

    def focus_fallback(self) -> None:
        self.query_one(RunView).focus_shown_tab()

    def _focus_shown(self) -> None:
        """After the first layout: a pane this screen size hides (the timeline band
        at 80x24) must not keep the focus, or the view's keys act on nothing seen."""
        if self.focused is None or not displayed(self.focused):
            self.focus_fallback()

    # -- the worker ------------------------------------------------------------------------

    @work(exclusive=True, group="run", exit_on_error=False, name="workflow run")
    async def run_chosen_workflow(self) -> RunOutcome:
        sandbox = self.sandbox if self.sandbox is not None else qflow_app(self).sandbox
        try:
            return await run_workflow(
                self.problem,
                self.config,
                sinks=[self._sink],
                gate=self.gate,
                client=self.client,
                sandbox=sandbox,
                session_path=self.session_path,
                retry_waits=self.retry_waits,
                steering=self.steering,
                header=self.header,
                visible_run=True,
            )
        finally:
            if self.own_client:
                await close_quietly(self.client)

    def _sink(self, event: Event) -> None:
        """The runner's event sink: gather events, post one message per batch."""
        if self._batch is None:
            self._batch = []
            self.post_message(RunEvents(self._batch))
        self._batch.append(event)

    def _gate_waiting(self, _stop: Stop) -> None:
        self.post_message(GateWaiting())

    @on(RunEvents)
    def _show_events(self, message: RunEvents) -> None:
        if message.events is self._batch:
            self._batch = None
        view = self.query_one(RunView)
        steered = False
        started = False
        for event in message.events:
            view.apply(event)
            match event:
                case Steered():
                    steered = True
                case RunStarted():
                    started = True
                case Notice() if self._first_time(event):
                    self.notify(clean(event.message), severity=_NOTICE_SEVERITY[event.level], markup=False)
        if steered:  # an edit was taken: the status line stops calling it pending
            self._paint_gate()
        if started:
            self._mark_breakpoints()  # the plan is known now: mark the breakpoints given at the start

    def _first_time(self, notice: Notice) -> bool:
        """False for a notice toasted already, from this progression or another:
        notices that report one error (their ``cause``) are said once."""
        said = f"cause: {notice.cause}" if notice.cause else notice.message
        if said in self._toasted:
            return False
        self._toasted.add(said)
        return True

    @property
    def shown_stop(self) -> Stop | None:
        """The stop the run is shown held at, if any: what ``n`` lets through."""
        return self._shown

    @property
    def waiting_at(self) -> str | None:
        """The step the run is shown stopped before at the gate, if any."""
        return self._shown.step if self._shown is not None else None

    @on(GateWaiting)
    def _show_gate(self, message: GateWaiting) -> None:
        # What the gate holds now, not when the message was posted: a stop let
        # through since must not show as waiting (a key pressed on it would step
        # a stop the person never saw).
        self._show_stop()

    def _show_stop(self) -> None:
        """Show the stop the gate holds now (nothing, if it holds none)."""
        stop = self.gate.waiting
        if stop is None:
            return
        self._shown = stop
        view = self.query_one(RunView)
        why = f"breakpoint {self.gate.stopped_by}: " if self.gate.stopped_by else ""
        self._paint_gate(f"⏸ {why}{stop_words(stop, view.state)}")
        view.flush()
        self.refresh_bindings()

    def _paint_gate(self, text: str | None = None) -> None:
        """The status line: where the gate holds the run, and the edits not taken yet."""
        if text is not None:
            self._gate_text = text
        line = self._gate_text
        if self.running and self.steering:
            # First: on a small screen the end of the line is cut, and this is what the next key acts on.
            goes_on = " — continues on n/c" if self.stopped else " — taken where it applies"
            line = f"✎ edit pending: {self.steering.brief()}{goes_on}" + (f" · {line}" if line else "")
        view = self.query_one(RunView)
        view.gate_status = line
        view.show_pending_tests(self.desk.pending_tests())

    @on(Worker.StateChanged)
    def _run_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a run's end (success, error, cancel) is handled."""
        if event.worker.group != "run":
            return
        state = event.state
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        self.running = self.desk.running = False
        self._shown = None
        self._gate_text = ""
        view = self.query_one(RunView)
        if self._batch is not None:  # events the message loop has not shown yet
            batch, self._batch = self._batch, None
            for e in batch:
                view.apply(e)
        view.gate_status = ""
        view.show_pending_tests({})  # never taken now: the notice below names them
        view.flush()
        session = f" Session: {self.session_path}" if self.session_path else ""
        if state == WorkerState.SUCCESS:
            self.outcome = event.worker.result
            outcome = self.outcome
            where = f" at {outcome.accepted_at}" if outcome and outcome.accepted_at else ""
            what = outcome.outcome.upper() if outcome else "FINISHED"
            self.notify(
                clean(f"{what}{where}.{session}"),
                title="Run finished",
                severity="information" if outcome and outcome.outcome == "accepted" else "warning",
                markup=False,
            )
            view.action_show_tab("tab-program")
        elif state == WorkerState.CANCELLED:
            self.notify(
                clean(f"Run cancelled; the session is kept.{session}"),
                title="Cancelled",
                severity="warning",
                markup=False,
            )
        else:
            error = event.worker.error
            text = str(error) if isinstance(error, RunError) else f"internal error: {type(error).__name__}: {error}"
            # Short: the program banner keeps saying what went wrong after the toast goes.
            self.notify(
                clean(f"{text}\nThe session is kept.{session}"),
                title="Run failed",
                severity="error",
                timeout=8,
                markup=False,
            )
        if self.steering:
            self.notify(
                clean(f"Not taken (the run never reached where it applies): {'; '.join(self.steering.pending())}"),
                title="Edit not taken",
                severity="warning",
                timeout=8,
                markup=False,
            )
        self.refresh_bindings()

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _EDITS:
            return self._can_edit(action)
        if action == "toggle_breakpoint":
            # A timeline the person sees (the band is hidden on a small screen, yet may hold the focus).
            return self.running and isinstance(self.focused, Timeline) and self.focused.display
        if action == "step":
            return self.running and self.gate.stepping
        if action == "continue":
            return self.running and self.gate.stepping
        if action == "pause":
            return self.running and not self.gate.stepping
        if action == "cancel":
            return self.running
        if action == "give_up_retry":
            return self.running and bool(self.retry_waits.waiting)  # shown only while a retry waits
        if action == "fork":
            return self.running and self.waiting_at is not None
        return True

    async def action_step(self) -> None:
        if not self.running or self.gate.waiting is None:
            return  # between stops: nothing to step (the gate keeps no step for later)
        if self.gate.waiting != self._shown:
            # An earlier stop arrived since the one shown (a shared step a check
            # asked for): the gate would let it through unseen. Show it instead.
            self._show_stop()
            return
        text = "▶ " + stop_words(self.gate.waiting, self.query_one(RunView).state).removeprefix("before ")
        self._shown = None
        self._paint_gate(text)
        await self.gate.step()
        self.refresh_bindings()

    async def action_continue(self) -> None:
        if not self.running:
            return
        self._shown = None
        self._paint_gate("")
        await self.gate.resume()
        self.refresh_bindings()

    async def action_pause(self) -> None:
        if not self.running:
            return
        await self.gate.pause()
        self._paint_gate("⏸ pausing at the next step…")
        self.refresh_bindings()

    def action_give_up_retry(self) -> None:
        """Give up every retry the run is waiting to make: each call ends as failed
        (that agent's failed answer), and the session says the user gave it up."""
        given = self.retry_waits.give_up() if self.running else 0
        if given:
            self.notify(f"Gave up {given} waiting retr{'y' if given == 1 else 'ies'}.", severity="warning")
        self.refresh_bindings()

    def action_fork(self) -> None:
        """Fork this run at its stop: the session written so far is the parent;
        the fork's run takes it as the recording up to here and goes on live."""

        if not self.running or self._shown is None or self.session_path is None:
            return
        step, progression = self._shown.step, self._shown.progression
        try:
            data = read_session(self.session_path)
        except SessionError as exc:
            self.notify(clean(str(exc)), title="Cannot fork", severity="error", markup=False)
            return
        model = self.config.fallback_model if self.config.model.startswith("replay/") else self.config.model
        dialog = ForkDialog(
            data,
            step=step,
            progression=progression,
            live=True,
            fallback_model=model,
        )
        self.app.push_screen(dialog, lambda plan: start_fork(self, plan) if plan is not None else None)

    @on(AgentPane.SearchRequested)
    def _search_pane(self, message: AgentPane.SearchRequested) -> None:
        search_pane(self, message.pane)

    def action_try_program(self) -> None:
        """The shown progression's program on the samples or on typed input, in the sandbox."""
        open_try(self, self.problem)

    def action_cancel(self) -> None:
        """Ask first: a run costs time and tokens, and x is one key away from n."""
        if not self.running:
            return

        def answered(yes: bool | None) -> None:
            if yes and self.running:
                self.workers.cancel_group(self, "run")

        self.app.push_screen(Confirm("Cancel the run?", KEPT, yes="Cancel run", no="Keep running"), answered)

    def action_back(self) -> None:
        if self.running:
            self.notify("The run is still going: press x to cancel it first.", severity="warning")
            return
        self.dismiss()

    def action_another_model(self) -> None:
        """After the run: the same problem and settings again, on a model the user names."""
        if self.running:
            self.notify("The run is still going: press x to cancel it first.", severity="warning")
            return

        def chosen(picked: tuple[RunConfig, LLMClient] | None) -> None:
            if picked is None:
                return
            config, client = picked
            self.dismiss()
            qflow_app(self).open_run(self.problem, config, client=client, own_client=True)

        what = one_line(self.problem.title or self.problem.entry_point, 40) or "this problem"
        self.app.push_screen(ModelPrompt(self.config, what), chosen)

    def action_new_problem(self) -> None:
        if self.running:
            self.notify("The run is still going: press x to cancel it first.", severity="warning")
            return
        self.dismiss()
        qflow_app(self).open_compose()

    def action_quit_app(self) -> None:
        if not self.running:
            self.app.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.workers.cancel_group(self, "run")
                self.app.exit()

        self.app.push_screen(Confirm("Quit while the run is going?", KEPT, yes="Quit"), answered)

    # -- steering at a stop (the desk holds the rules; the screen opens editors) ------------

    @property
    def stopped(self) -> bool:
        """The gate holds the run (step mode or a breakpoint) before a step."""
        return self.desk.stop is not None

    def _tests_shown(self) -> bool:
        return self.query_one(RunView).query_one("#run-tabs", TabbedContent).active == "tab-tests"

    def _highlighted_test(self) -> SynthTest | None:
        state = self.query_one(RunView).state
        row = self.query_one(RunView).query_one("#tests-grid", DataTable).cursor_row
        tests = state.piece(SynthTests).tests
        return tests[row] if 0 <= row < len(tests) else None

    def _can_edit(self, action: str) -> bool:
        """Edit keys are offered where the desk offers the edit; the test keys
        only on the Tests tab (with a row for the ones about a row), the others
        everywhere else (80 columns hold no more)."""
        edit = _EDITS[action]
        if not self.desk.offers(edit):
            return False
        if edit == "tests":
            return self._tests_shown() and (action == "add_test" or self._highlighted_test() is not None)
        return not self._tests_shown()

    def _said(self, message: str) -> None:
        self.notify(clean(message), markup=False)
        self._paint_gate()

    def _refused(self, exc: SteerError) -> None:
        text = str(exc)
        self.notify(clean(text[:1].upper() + text[1:] + "."), severity="warning", markup=False)

    def _steer(self, change: Callable[[], str]) -> None:
        """Make one edit through the desk: its words as a notice, or why not."""
        try:
            message = change()
        except SteerError as exc:
            self._refused(exc)
            return
        self._said(message)

    def _edit(
        self,
        key: str,
        title: str,
        text: str,
        check: Callable[[str], str],
        take: Callable[[str], str],
        language: str | None = "python",
        placeholder: str = "",
    ) -> None:
        """Open the editor on ``text`` (or the draft left for ``key``); the text
        taken goes to ``take`` (a desk method), whose words are the notice."""

        def done(result: tuple[bool, str] | None) -> None:
            if result is None:
                return
            taken, text = result
            if not taken:
                self._drafts[key] = text
                return
            self._drafts.pop(key, None)
            if not self.stopped:  # the run went on (or ended) while the editor was open
                self.notify("The run is no longer stopped: the edit was not taken.", severity="warning")
                self._drafts[key] = text
                return
            self._steer(lambda: take(text))

        editor = SteerEditScreen(title, self._drafts.get(key, text), check, language=language, placeholder=placeholder)
        self.app.push_screen(editor, done)

    def action_edit_program(self) -> None:
        if not self._can_edit("edit_program"):
            return
        edit = self.desk.program_edit(self.query_one(RunView).state)
        title = f"Program of p{edit.progression}, {edit.how}"
        self._edit(f"program:{edit.step}:{edit.progression}", title, edit.text, check_program, self.desk.edit_program)

    def action_open_in_editor(self) -> None:
        """The program in the user's own editor (the app suspended). At a stop
        where the program may be edited, what the editor leaves is taken as
        that edit (checked as ``e``'s is); anywhere else the file is read-only."""
        command = editor_command()
        if command is None:
            self.notify(NO_EDITOR, severity="warning", markup=False)
            return
        editable = self._can_edit("edit_program")
        if editable:
            edit = self.desk.program_edit(self.query_one(RunView).state)
            key = f"program:{edit.step}:{edit.progression}"
            text, name = self._drafts.get(key, edit.text), f"program_p{edit.progression}.py"
        else:
            view = self.query_one(RunView)
            text, which = selected_program(view.state, view.progression)
            if not text:
                self.notify(f"Nothing to open: {which}.", severity="warning", markup=False)
                return
            name = "program_read_only.py"
        try:
            edited = edit_text(self.app, command, text, name, read_only=not editable)
        except EditorError as exc:
            self.notify(clean(str(exc)), severity="error", markup=False)
            return
        if not editable:
            if edited != text:
                self.notify("Read-only: the run is not stopped where its program may be edited; not taken.")
            return
        if edited == text:
            return
        if not self.stopped:
            self._drafts[key] = edited
            self.notify("The run is no longer stopped: the edit was not taken (kept for e).", severity="warning")
            return
        try:
            checked = check_program(edited)
        except SteerError as exc:
            self._drafts[key] = edited  # press e to fix it in the app's editor
            self._refused(exc)
            return
        self._drafts.pop(key, None)
        self._steer(lambda: self.desk.edit_program(checked))

    def action_override_verdict(self, accept: bool) -> None:
        if self._can_edit("override_verdict"):
            self._steer(lambda: self.desk.override_verdict(accept))

    def action_toggle_test_verdict(self) -> None:
        test = self._highlighted_test()
        if test is not None and self._can_edit("toggle_test_verdict"):
            self._steer(lambda: self.desk.toggle_test_verdict(test))

    def action_edit_test(self) -> None:
        test = self._highlighted_test()
        if test is None or not self._can_edit("edit_test"):
            return
        try:
            text = self.desk.test_text(test)
        except SteerError as exc:
            self._refused(exc)
            return
        self._edit(
            f"test:{test.test}",
            "A synthesized test (an edited test is kept: you are its judge)",
            text,
            self.desk.check_test,
            lambda new: self.desk.edit_test(test, new),
        )

    def action_delete_test(self) -> None:
        test = self._highlighted_test()
        if test is not None and self._can_edit("delete_test"):
            self._steer(lambda: self.desk.delete_test(test))

    def action_add_test(self) -> None:
        if not self._can_edit("add_test"):
            return
        self._edit(
            "test:new",
            "A test to add to the kept synthesized tests",
            "",
            self.desk.check_test,
            self.desk.add_test,
            placeholder=f"assert {self.problem.entry_point}(...) == ...",
        )

    def action_edit_statement(self) -> None:
        if not self._can_edit("edit_statement"):
            return
        readers = self.desk.steerable.statement_readers
        self._edit(
            "statement",
            f"The problem statement{f' {readers} read' if readers else ''}",
            self.desk.statement_text(),
            _nonempty_statement,
            self.desk.edit_statement,
            language=None,
        )

    # -- breakpoints from the timeline -----------------------------------------------------

    def on_descendant_focus(self, _event: events.DescendantFocus) -> None:
        self.refresh_bindings()

    @on(TabbedContent.TabActivated)
    def _tab_shown(self, _event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()

    @on(DataTable.RowHighlighted, "#tests-grid")
    def _test_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()

    @on(Timeline.Highlighted)
    def _step_highlighted(self, event: Timeline.Highlighted) -> None:
        for timeline in self.query(Timeline):
            if timeline is not event.timeline:
                timeline.cursor = event.timeline.cursor

    def action_toggle_breakpoint(self, kind: str) -> None:
        timeline = self.focused
        if not self.check_action("toggle_breakpoint", ()) or not isinstance(timeline, Timeline):
            return
        if timeline.highlighted is None:
            return
        self._steer(
            lambda: self.desk.toggle_breakpoint(kind, timeline.highlighted or "", self.query_one(RunView).state)
        )
        self._mark_breakpoints()

    def _mark_breakpoints(self) -> None:
        """Mark the timeline rows a breakpoint stops before (● at the step)."""
        view = self.query_one(RunView)
        marks = self.desk.marked_steps(view.state)
        for timeline in self.query(Timeline):
            timeline.marks = marks
            timeline.update_from(view.state, view.progression)


def _nonempty_statement(text: str) -> str:
    if not text.strip():
        raise SteerError("the statement is empty: write the statement the run should read")
    return text.strip()


#: The actions that edit what a stopped run carries on with, and the kind of edit each is.
_EDITS: dict[str, Edit] = {
    "edit_program": "program",
    "override_verdict": "verdict",
    "toggle_test_verdict": "tests",
    "edit_test": "tests",
    "delete_test": "tests",
    "add_test": "tests",
    "edit_statement": "statement",
}
