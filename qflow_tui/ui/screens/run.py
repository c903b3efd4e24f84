"""The run screen: one workflow run, live, in one cancellable worker, with a
step gate the user opens one step at a time or lets run free."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import Worker, WorkerState

from ...core.config import RunConfig
from ...core.events import Event
from ...core.gate import StepGate
from ...core.llm.retry import RetryWaits
from ...core.problem import Problem
from ...core.runner import RunError, RunOutcome, run_workflow
from ...core.safe_text import clean, one_line
from ..access import qflow_app
from ..messages import GateWaiting, RunEvents
from ..widgets.footer import AppFooter
from ..widgets.run_view import RunView

_NOTICE_SEVERITY = {"info": "information", "warning": "warning", "error": "error"}


class RunScreen(Screen):
    """Watch (and step through) one run; the session file is written as it goes."""

    BINDINGS = [
        Binding("n", "step", "Step", tooltip="Let the run take the next workflow step"),
        Binding("c", "continue", "Continue", tooltip="Run free to the end"),
        Binding("p", "pause", "Pause", tooltip="Pause before the next workflow step"),
        Binding("x", "cancel", "Cancel", tooltip="Cancel the run; the session is kept"),
        Binding("f", "fork", "Fork", tooltip="Fork the run where it stopped: a new run from here, with edits"),
        Binding("escape", "back", "Back", tooltip="Back to the problem (after the run)"),
        Binding("ctrl+n", "new_problem", "New problem", show=False, tooltip="Back to an empty problem form"),
        Binding("q", "quit_app", "Quit", show=False, tooltip="Quit qflow (asks while a run is going)"),
        Binding("g", "give_up_retry", "Give up retry", tooltip="Give up the retries the run is waiting to make"),
    ]

    def __init__(
        self,
        problem: Problem,
        config: RunConfig,
        *,
        client: Any = None,
        stepping: bool = False,
        own_client: bool = False,
        breakpoints: Any = (),
        sandbox: Any = None,
        steering: Any = None,
        header: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.problem = problem
        self.config = config
        self.client = client
        self.own_client = own_client
        self.sandbox = sandbox
        self.steering = steering
        """A person's edits the run takes (a fork's, see core/steer)."""
        self.header = header
        """Fields the session header adds (a fork names its parent)."""
        self.gate = StepGate(stepping=stepping, on_wait=self._gate_waiting, breakpoints=breakpoints)
        self.retry_waits = RetryWaits()
        """The retries the run waits to make; ``g`` gives them up."""
        self.session_path: Path | None = None
        self.running = False
        self.waiting_at: str | None = None
        self._batch: list[Event] | None = None
        self.outcome: RunOutcome | None = None
        self.sub_title = one_line(problem.title or problem.entry_point, 200)

    def compose(self) -> ComposeResult:
        yield Header()
        yield RunView(live=True, clock=qflow_app(self).clock, id="run-view")
        yield AppFooter()

    def on_mount(self) -> None:
        from ...core.session import new_session_path
        from ...locations import sessions_dir

        self.session_path = new_session_path(sessions_dir(), self.problem.title or self.problem.entry_point)
        self.running = True
        self.refresh_bindings()
        self.query_one(RunView).query_one("#run-tabs").focus()
        self.run_chosen_workflow()

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
            )
        finally:
            if self.own_client and self.client is not None:
                try:
                    await self.client.aclose()
                except Exception:
                    pass

    def _sink(self, event: Event) -> None:
        """The runner's event sink: gather events, post one message per batch."""
        if self._batch is None:
            self._batch = []
            self.post_message(RunEvents(self._batch))
        self._batch.append(event)

    def _gate_waiting(self, step: str) -> None:
        self.post_message(GateWaiting(step, self.gate.waiting_progression))

    @on(RunEvents)
    def _show_events(self, message: RunEvents) -> None:
        if message.events is self._batch:
            self._batch = None
        view = self.query_one(RunView)
        for event in message.events:
            view.apply(event)
            if event.kind == "notice":
                self.notify(
                    clean(event.message),  # type: ignore[attr-defined]
                    severity=_NOTICE_SEVERITY.get(event.level, "information"),  # type: ignore[attr-defined, arg-type]
                    markup=False,
                )

    @on(GateWaiting)
    def _show_gate(self, message: GateWaiting) -> None:
        self.waiting_at = message.step
        view = self.query_one(RunView)
        where = f" (p{message.progression})" if message.progression is not None else ""
        why = f"breakpoint {self.gate.stopped_by}: " if self.gate.stopped_by else ""
        view.gate_status = f"⏸ {why}before {message.step}{where}"
        view.flush()
        self.refresh_bindings()

    @on(Worker.StateChanged)
    def _run_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a run's end (success, error, cancel) is handled."""
        if event.worker.group != "run":
            return
        state = event.state
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        self.running = False
        self.waiting_at = None
        view = self.query_one(RunView)
        if self._batch is not None:  # events the message loop has not shown yet
            batch, self._batch = self._batch, None
            for e in batch:
                view.apply(e)
        view.gate_status = ""
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
        self.refresh_bindings()

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
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
        if not self.running:
            return
        view = self.query_one(RunView)
        view.gate_status = f"▶ {self.waiting_at}" if self.waiting_at else "▶ stepping"
        self.waiting_at = None
        await self.gate.step()
        self.refresh_bindings()

    async def action_continue(self) -> None:
        if not self.running:
            return
        self.waiting_at = None
        self.query_one(RunView).gate_status = ""
        await self.gate.resume()
        self.refresh_bindings()

    async def action_pause(self) -> None:
        if not self.running:
            return
        await self.gate.pause()
        self.query_one(RunView).gate_status = "⏸ pausing at the next step…"
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
        from ...core.session import SessionError, read_session
        from ...core.steer.fork import gate_step
        from .fork_dialog import ForkDialog, start_fork

        if not self.running or self.waiting_at is None or self.session_path is None:
            return
        try:
            data = read_session(self.session_path)
        except SessionError as exc:
            self.notify(clean(str(exc)), title="Cannot fork", severity="error", markup=False)
            return
        model = self.config.fallback_model if self.config.model.startswith("replay/") else self.config.model
        dialog = ForkDialog(
            data,
            step=gate_step(self.waiting_at),
            progression=self.gate.waiting_progression,
            live=True,
            fallback_model=model,
        )
        self.app.push_screen(dialog, lambda plan: start_fork(self.app, plan) if plan is not None else None)

    def action_cancel(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "run")

    def action_back(self) -> None:
        if self.running:
            self.notify("The run is still going: press x to cancel it first.", severity="warning")
            return
        self.dismiss()

    def action_new_problem(self) -> None:
        if self.running:
            self.notify("The run is still going: press x to cancel it first.", severity="warning")
            return
        self.dismiss()
        from .compose import ComposeScreen

        if isinstance(self.app.screen, ComposeScreen):
            self.app.screen.action_new_problem()

    def action_quit_app(self) -> None:
        if not self.running:
            self.app.exit()
            return
        from .confirm import Confirm

        def answered(yes: bool | None) -> None:
            if yes:
                self.workers.cancel_group(self, "run")
                self.app.exit()

        self.app.push_screen(
            Confirm("Quit while the run is going?", "The run is cancelled; its session is kept.", yes="Quit"),
            answered,
        )
