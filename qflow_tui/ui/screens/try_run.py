"""Run a program by hand, as a judge's page offers: the selected progression's
program on the problem's visible tests (the samples) or on input a person
types, in the sandbox, on a worker (the app stays live), each output beside
the expected one. Open from the run screen and the replay (``o``) or the
command palette. What the program printed is shown as plain text, cut short
(``core/try_program.py``); nothing here enters the run or its session."""

from __future__ import annotations

from typing import TypeVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Label, Static, TextArea

from ...core.problem import Problem
from ...core.safe_text import one_line
from ...core.sandbox.api import SandboxProtocol
from ...core.try_program import TryError, TryReport, problem_of, try_input, try_samples
from ...core.workflow_run import build_sandbox
from ..access import qflow_app
from ..palette import Palette, palette
from ..widgets.program_view import selected_program
from ..widgets.run_view import RunView
from .base import AppModal

_Result = TypeVar("_Result")
"""What a screen hands back when dismissed; nothing here reads it."""

#: The key that opens this dialog on the run screen and the replay (shown in their footers).
TRY_KEY = Binding(
    "o",
    "try_program",
    "Run",
    tooltip="Run the shown progression's program in the sandbox: on the samples, or on your input",
)

_VERDICT = {"pass": "✓ pass", "fail": "✗ fail", "error": "✗ error", "timeout": "✗ timeout", "ran": ""}


def open_try(screen: Screen[_Result], problem: Problem | None = None) -> None:
    """Open the dialog on ``screen``'s run view: its shown progression's program,
    ``problem`` (a live run's) or the one the run recorded (a replay's)."""
    view = screen.query_one(RunView)
    program, which = selected_program(view.state, view.progression)
    try:
        if not program.strip():
            raise TryError(f"nothing to run: {which}")
        chosen = problem if problem is not None else problem_of(view.state.problem)
    except TryError as exc:
        screen.notify(one_line(str(exc)), severity="warning", markup=False)
        return
    screen.app.push_screen(TryScreen(chosen, program, which))


def render_report(report: TryReport, colours: Palette) -> RenderableType:
    """The rows side by side: input, expected and what came out (a sample's),
    or the assert and what its call returned. Plain text only (Text cells)."""
    table = Table(expand=True, show_lines=True, pad_edge=False, header_style="bold")
    table.add_column("", no_wrap=True, width=10)
    io = report.kind == "io"
    if report.on == "samples":
        headers = ["input", "expected", "got"] if io else ["assert", "returned"]
    else:
        headers = ["input", "output"] if io else ["call", "returned"]
    for h in headers:
        table.add_column(h, overflow="fold", ratio=1)
    for row in report.rows:
        head = Text(f"{row.label}\n" if io or report.on == "input" else "", style="bold")
        head.append(_VERDICT[row.verdict], style=colours.outcome(row.verdict))
        got = Text(row.got if row.got or row.verdict in ("error", "timeout") else "(nothing)")
        if row.note:
            got.append(("\n" if got.plain else "") + row.note, style=colours.error)
        cells: list[Text] = [Text(row.given)]
        if report.on == "samples" and io:
            cells.append(Text(row.expected or ""))
        table.add_row(head, *cells, got)
    title = Text(report.summary(), style="bold")
    if report.isolation:
        title.append(f"  (sandbox: {report.isolation})", style=colours.muted)
    return Group(title, table)


class TryScreen(AppModal[None]):
    """Run a program by hand in the sandbox: on the samples, or on input a person types."""

    DEFAULT_CSS = """
    TryScreen { align: center middle; }
    #try-dialog {
        width: 110; max-width: 100%; height: 100%; max-height: 40;
        padding: 0 1; border: thick $primary; background: $surface;
    }
    #try-title { text-style: bold; width: 100%; }
    #try-results { height: 1fr; }
    #try-input { height: 4; }
    #try-hint { color: $text-muted; }
    """

    BINDINGS = [
        # Priority: the input box would take these keys otherwise.
        Binding("ctrl+r", "run_input", "Run on my input", priority=True),
        Binding("ctrl+s", "run_samples", "Run on the samples", priority=True),
        Binding("escape", "close", "Close", priority=True),
    ]

    def __init__(self, problem: Problem, program: str, which: str, sandbox: SandboxProtocol | None = None) -> None:
        super().__init__()
        self.problem = problem
        self.program = program
        self.which = which
        self._sandbox = sandbox
        self.report: TryReport | None = None
        """What the last run gave (None before one ends, or when it could not run)."""

    def compose(self) -> ComposeResult:
        kind = "stdin/stdout problem" if self.problem.is_io else "function problem"
        what = "its stdin" if self.problem.is_io else f"a call, e.g. {self.problem.entry_point}(...), or its arguments"
        with Vertical(id="try-dialog"):
            yield Label(f"Run {self.which} · {kind}", id="try-title", markup=False)
            with VerticalScroll(id="try-results"):
                yield Static(id="try-report", markup=False)
            yield Label(f"Your input ({what}):", markup=False)
            yield TextArea(id="try-input", soft_wrap=True, tab_behavior="focus")
            yield Static("ctrl+s on the samples · ctrl+r on your input · Esc close", id="try-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#try-input", TextArea).focus()
        if self.problem.tests:
            self.action_run_samples()
        else:
            self._say("No visible tests: type an input below and press ctrl+r.")

    @property
    def sandbox(self) -> SandboxProtocol:
        if self._sandbox is None:
            app = qflow_app(self)
            self._sandbox = app.sandbox if app.sandbox is not None else build_sandbox(app.config)
        return self._sandbox

    def _say(self, text: str, error: bool = False) -> None:
        style = palette(self.app).error if error else ""
        self.query_one("#try-report", Static).update(Text(text, style=style))

    def action_run_samples(self) -> None:
        self._say("Running on the samples in the sandbox…")
        self._run(None)

    def action_run_input(self) -> None:
        text = self.query_one("#try-input", TextArea).text
        if not self.problem.is_io and not text.strip():
            self._say(f"Type a call first, e.g. {self.problem.entry_point}(...), then ctrl+r.", error=True)
            return
        self._say("Running on your input in the sandbox…")
        self._run(text)

    @work(exclusive=True, group="try", exit_on_error=False, name="try program")
    async def _run(self, typed: str | None) -> None:
        """One run in the sandbox (the sandbox works in threads: keys keep working)."""
        try:
            if typed is None:
                report = await try_samples(self.sandbox, self.problem, self.program)
            else:
                report = await try_input(self.sandbox, self.problem, self.program, typed)
        except TryError as exc:
            self.report = None
            self._say(one_line(str(exc)), error=True)
            return
        except Exception as exc:  # the sandbox failed, not the program: one line, never a traceback
            self.report = None
            self._say(f"The sandbox could not run it: {one_line(f'{type(exc).__name__}: {exc}', 200)}", error=True)
            return
        self.report = report
        self.query_one("#try-report", Static).update(render_report(report, palette(self.app)))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "try")
        self.dismiss(None)
