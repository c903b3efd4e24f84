"""The fork dialog: where a recorded (or stopped live) run branches, with which
model, and with which edits: the program the progression ends the step with
(a code editor, syntax-checked), and the Code Quality Checker's verdict on it.
It checks the fork with the same core as ``qflow fork``
(:func:`qflow_tui.core.steer.fork.plan_fork`) and dismisses with the plan, or
says in one line why the core refuses it."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from ...core.events import Event, ProgramCandidate, StepStarted
from ...core.llm import LLMError
from ...core.safe_text import clean, one_line
from ...core.steer.fork import ForkError, ForkPlan, plan_fork, program_stages, refusal, session_steps
from ...core.workflows import Edit
from ...core.workflows.values import config_from_record
from ..access import qflow_app
from ..palette import palette
from .base import AppModal

if TYPE_CHECKING:  # types only: the session reader loads with the screens that read one
    from ...core.session import SessionData

_Result = TypeVar("_Result")
"""What a screen hands back when dismissed; nothing here reads it."""

#: The verdict choices (Select values are strings): what the checker's verdict becomes.
VERDICTS: list[tuple[str, str]] = [("the checker decides", "checker"), ("accept", "accept"), ("reject", "reject")]
#: The progression choice that leaves it to the first progression to reach the step.
ANY = -1


def recorded_program(events: list[Event], step: str, progression: int | None) -> str:
    """The program the recording's progression ended ``step`` with (the first
    progression's when None), or empty."""
    for e in events:
        if isinstance(e, ProgramCandidate) and e.step == step and progression in (None, e.progression):
            return e.program
    return ""


def step_progressions(events: list[Event], step: str) -> list[int]:
    """The progressions that started ``step`` in the recording, in order."""
    seen: dict[int, None] = {}
    for e in events:
        if isinstance(e, StepStarted) and e.step == step and e.progression is not None:
            seen.setdefault(e.progression, None)
    return list(seen)


class ForkDialog(AppModal[ForkPlan | None]):
    """Ask where and how to fork ``data`` (a read session); see the module docstring."""

    BINDINGS = [
        # Priority: the dialog opens in the code editor, which would otherwise take
        # Escape to move the focus, and Escape must leave the dialog.
        Binding("escape", "cancel", "Cancel", priority=True, tooltip="Close the dialog; nothing starts"),
        Binding(
            "ctrl+s", "fork", "Fork", priority=True, tooltip="Check the fork and run it live (Enter starts nothing)"
        ),
    ]

    DEFAULT_CSS = """
    ForkDialog { align: center middle; }
    ForkDialog #fork-box {
        width: 100; max-width: 100%; height: auto; max-height: 100%;
        padding: 0 1; border: thick $primary; background: $surface;
    }
    ForkDialog #fork-title { text-style: bold; }
    ForkDialog .fork-row { height: 1; margin-top: 1; }
    ForkDialog .fork-row Label { width: 12; }
    ForkDialog .fork-row Select { width: 24; margin-right: 2; }
    ForkDialog .fork-row Input { width: 1fr; }
    ForkDialog #fork-program-label { margin-top: 1; }
    ForkDialog #fork-program { height: 1fr; min-height: 4; max-height: 24; }
    ForkDialog #fork-error { color: $text-muted; }
    ForkDialog #fork-error.-error { color: $error; }
    ForkDialog #fork-buttons { height: 1; margin-top: 1; }
    ForkDialog #fork-buttons Button { margin-right: 2; }
    """

    def __init__(
        self,
        data: SessionData,
        *,
        step: str | None = None,
        progression: int | None = None,
        live: bool = False,
        fallback_model: str | None = None,
    ) -> None:
        super().__init__()
        self.data = data
        """The parent session, read (:class:`~qflow_tui.core.session.SessionData`)."""
        self.live = live
        """The parent is a run stopped at its gate: the branch is where it stands."""
        self.steps = [step] if live and step else session_steps(data.events)
        self.step = step if step in self.steps else (self.steps[0] if self.steps else "")
        self.progression = progression
        model = str(data.header.get("model") or "")
        if model.startswith("replay/"):
            raw = data.header.get("config")
            model = str((raw if isinstance(raw, dict) else {}).get("fallback_model") or "")
        self.model = fallback_model or model
        self._original = ""
        self._checked = False
        """An error was said at ctrl+s: the fields are checked again as they change."""

    def compose(self) -> ComposeResult:
        where = "the stopped run, from where it stands" if self.live else one_line(self.data.path.name)
        with Vertical(id="fork-box"):
            yield Label(f"Fork {where}", id="fork-title", markup=False)
            with Horizontal(classes="fork-row"):
                yield Label("Branch at")
                yield Select(
                    [(s, s) for s in self.steps],
                    value=self.step if self.step else Select.BLANK,
                    allow_blank=not self.steps,
                    compact=True,
                    id="fork-step",
                    disabled=self.live,
                )
                yield Label("Progression")
                yield Select([], compact=True, id="fork-progression", disabled=self.live)
            with Horizontal(classes="fork-row"):
                yield Label("Verdict", id="fork-verdict-label")
                yield Select(VERDICTS, value="checker", allow_blank=False, compact=True, id="fork-verdict")
                yield Label("Model")
                yield Input(self.model, compact=True, id="fork-model", placeholder="provider/model for the live calls")
            yield Static(id="fork-program-label", markup=False)
            yield TextArea.code_editor("", language="python", id="fork-program", soft_wrap=False)
            yield Static(self._where_from(), id="fork-error", markup=False)
            with Horizontal(id="fork-buttons"):
                yield Button("Fork (ctrl+s)", variant="primary", id="fork-yes", compact=True)
                yield Button("Cancel (esc)", id="fork-no", compact=True)

    def _where_from(self) -> str:
        """The line under the editor while nothing is wrong."""
        if self.live:
            return "Everything the run did so far comes from its session; from its stop on, the fork runs live."
        return "Everything before the step comes from the recording; the step and after run live."

    def on_mount(self) -> None:

        editor = self.query_one("#fork-program", TextArea)
        theme = palette(self.app).editor_theme
        if theme in editor.available_themes:
            editor.theme = theme
        self._step_chosen()
        self.focus_first_field()

    def focus_first_field(self) -> None:
        """Start where the user edits: the program when the step takes one, else
        the model. Never the Fork button: an Enter typed next must not start a
        live run (and spend) before the person has read the dialog; ctrl+s does."""
        editor = self.query_one("#fork-program", TextArea)
        (editor if editor.display else self.query_one("#fork-model", Input)).focus()

    # -- the step and progression ---------------------------------------------------------------

    def _progressions(self) -> list[tuple[str, int]]:
        found = step_progressions(self.data.events, self.step)
        if self.live:
            return [(f"p{self.progression}", self.progression)] if self.progression is not None else [("all", ANY)]
        if not found:
            return [("the whole run", ANY)]
        return [("the first to reach it", ANY)] + [(f"p{p}", p) for p in found]

    @on(Select.Changed, "#fork-step")
    def _step_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.step:
            self.step = event.value
            self.progression = None
            self._step_chosen()

    @on(Select.Changed, "#fork-progression")
    def _progression_changed(self, event: Select.Changed) -> None:
        value = event.value
        progression = value if isinstance(value, int) and value != ANY else None
        if progression != self.progression:
            self.progression = progression
            self._show_program()

    def _step_chosen(self) -> None:
        options = self._progressions()
        select = self.query_one("#fork-progression", Select)
        select.set_options(options)
        values = [v for _, v in options]
        select.value = self.progression if self.progression in values else values[0]
        self._show_program()

    def _offers(self, edit: Edit) -> bool:
        """Whether the workflow takes ``edit`` at the chosen step (its spec says):
        the dialog offers only the edits the fork would take."""
        workflow = str(self.data.header.get("workflow") or "")
        raw = self.data.header.get("config")
        settings = config_from_record(raw if isinstance(raw, dict) else {}, workflow, strict=False)
        at_program_step = self.step.partition(":")[0] in program_stages(workflow)
        return at_program_step and refusal(workflow, settings, [edit]) is None

    def _show_program(self) -> None:
        verdict = self._offers("verdict")
        for widget in self.query("#fork-verdict-label, #fork-verdict"):
            widget.display = verdict
        if not verdict:
            self.query_one("#fork-verdict", Select).value = "checker"
        editable = self._offers("program")
        for widget in self.query("#fork-program, #fork-program-label"):
            widget.display = editable
        if not editable:
            self._original = ""
            self.query_one("#fork-program", TextArea).load_text("")
            return
        program = clean(recorded_program(self.data.events, self.step, self.progression))
        self._original = program
        label = self.query_one("#fork-program-label", Static)
        if program:
            label.update(f"The program {self.step} ended with; edit it to replace the agent's answer:")
        else:
            label.update(f"Write a program to replace the answer of {self.step} (left empty: the agent answers):")
        self.query_one("#fork-program", TextArea).load_text(program)

    # -- answering ---------------------------------------------------------------------------

    def plan(self) -> ForkPlan:
        """The fork as the fields say, checked by the core. Raises ForkError."""
        text = self.query_one("#fork-program", TextArea).text
        program = text if text.strip() and text != self._original else None
        verdict = self.query_one("#fork-verdict", Select).value
        model = self.query_one("#fork-model", Input).value.strip() or None
        if not self.step:
            raise ForkError("the session has no step to fork at")
        return plan_fork(
            self.data,
            self.step,
            progression=self.progression,
            program=program,
            verdict={"accept": True, "reject": False}.get(str(verdict)),
            model=model,
            live=self.live,
        )

    def action_fork(self) -> None:
        error = self.query_one("#fork-error", Static)
        try:
            plan = self.plan()
        except ForkError as exc:
            error.update(f"✖ {one_line(clean(str(exc)))}")
            error.add_class("-error")
            self._checked = True
            return
        self.dismiss(plan)

    @on(TextArea.Changed, "#fork-program")
    @on(Input.Changed, "#fork-model")
    @on(Select.Changed, "#fork-verdict")
    def _edited(self) -> None:
        """An error said at ctrl+s is about the fields as they were: from then
        on they are checked again as they change, and the error goes when the
        fork would now be taken (a syntax error fixed no longer reads as one)."""
        if not self._checked:
            return
        error = self.query_one("#fork-error", Static)
        try:
            self.plan()
        except ForkError as exc:
            error.update(f"✖ {one_line(clean(str(exc)))}")
            error.add_class("-error")
            return
        error.update(self._where_from())
        error.remove_class("-error")

    @on(Input.Submitted, "#fork-model")
    def _model_entered(self, event: Input.Submitted) -> None:
        # Enter in the model field starts nothing: the fork is ctrl+s (or its button).
        event.stop()
        model = one_line(clean(event.value.strip()), 60) or "the app's model"
        self.query_one("#fork-error", Static).update(f"Enter starts nothing here: ctrl+s forks, live with {model}")

    @on(Button.Pressed, "#fork-yes")
    def _yes(self) -> None:
        self.action_fork()

    @on(Button.Pressed, "#fork-no")
    def _no(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        for select in self.query(Select):
            if select.expanded:  # Escape closes an open list first, as it does elsewhere
                select.expanded = False
                return
        self.dismiss(None)


def start_fork(screen: Screen[_Result], plan: ForkPlan) -> None:
    """Run ``plan`` live on a new run screen: the recording answers the calls
    before the branch, the app's model (a test's script) or the one the dialog
    named the rest; the session names its parent."""
    host = qflow_app(screen)
    shared = host.client
    try:
        client = plan.client(shared)
    except LLMError as exc:
        screen.notify(one_line(clean(str(exc))), title="Cannot fork", severity="error", markup=False)
        return
    host.open_run(
        plan.problem,
        plan.config,
        client=client,
        own_client=shared is None,
        stepping=host.stepping,
        breakpoints=host.breakpoints,
        steering=plan.steering,
        header=plan.header,
    )
