"""The compose screen: a problem statement, its visible tests and the run's
settings; problems in any of them are shown inline before a run starts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import Button, Checkbox, Header, Input, Label, Select, Static, TextArea

from ...core.config import ConfigError, RunConfig
from ...core.llm import LLMClient, LLMError
from ...core.llm.provider_keys import MissingKey
from ...core.problem import Problem, ProblemError, ProblemKind, looks_like_io_tests, parse_io_tests, split_samples
from ...core.resolve import Resolution, Unresolved, form_texts, is_dataset_id, problem_from_text, resolve_problem
from ...core.safe_text import clean, one_line
from ...core.steer.gate import BREAKPOINT_KINDS, Breakpoint, BreakpointError
from ...core.workflows import WORKFLOWS
from ...core.workflows.values import validate
from ..access import mark_invalid, qflow_app
from ..editor import NO_EDITOR, EditorError, edit_text, editor_command
from ..palette import palette
from ..widgets.footer import AppFooter
from ..widgets.tick_box import TickBox
from .base import AppScreen
from .compose_notices import notice_lines, sandbox_lines, server_models
from .compose_settings import dom_name, known_model_names, settings_boxes, settings_values
from .confirm import Confirm
from .warm_up import warm_up_the_run_screen

if TYPE_CHECKING:
    from ...core.bench.bench_runner import BenchRunner

#: The paper's running example (QualityFlow, Figure 1): MBPP No. 11.
EXAMPLE_STATEMENT = "Write a python function to remove first and last occurrence of a given character from the string."
EXAMPLE_TESTS = (
    'assert remove_Occ("hello","l") == "heo"\n'
    'assert remove_Occ("abcda","a") == "bcd"\n'
    'assert remove_Occ("PHP","P") == "H"\n'
)

#: The tests box's title and placeholder for each kind of problem.
KIND_LABELS: dict[str, str] = {
    "function": "Tests: one assert each",
    "io": "Tests: Input/Output blocks",
}
KIND_PLACEHOLDERS: dict[str, str] = {
    "function": "assert f(1, 2) == 3",
    "io": "Input\n1 2\nOutput\n3\n\n(F9 takes the samples out of a pasted statement)",
}
KIND_CHOICES = [("asserts", "function"), ("stdin/stdout", "io")]


class ComposeScreen(AppScreen[None]):
    """Paste or load a problem, pick the settings, run."""

    BINDINGS = [
        Binding("ctrl+r", "run", "Run", priority=True, tooltip="Check the input and start the run"),
        Binding("ctrl+t", "toggle_stepping", "Step mode", priority=True, tooltip="Pause before every workflow step"),
        Binding(
            "ctrl+o", "focus_load", "Load", priority=True, tooltip="Load a problem file or a benchmark id (mbpp/11)"
        ),
        Binding(
            "f9",
            "take_samples",
            "Samples",  # on show at 80 columns: a judge's page pasted needs it first
            tooltip="Take the Input/Output sample blocks out of the statement into the tests (stdin/stdout)",
        ),
        Binding("f4", "example", "Example", tooltip="Fill in MBPP No. 11, the paper's example"),
        Binding("ctrl+n", "new_problem", "New", tooltip="Clear the statement, the tests and the entry point"),
        Binding(
            "f8",
            "toggle_kind",
            "Kind",
            show=False,
            tooltip="Switch the problem between asserts on a function and a program on stdin/stdout",
        ),
        Binding("f10", "add_sample", "Add sample", show=False, tooltip="Add an Input/Output pair to the tests"),
        Binding(
            "ctrl+g",  # F6/F7 are the text boxes' own (select line, select all)
            "open_in_editor",
            "$EDITOR",
            show=False,  # the footer is full at 80 columns; ? and the palette list it
            tooltip="Open the statement (or the tests, when focused) in $EDITOR and take back what it saves",
        ),
        Binding(
            "ctrl+b",
            "bench",
            "Bench",
            show=False,  # the footer is full at 80 columns; the palette and the README name it
            priority=True,
            tooltip="Run a benchmark (HumanEval, MBPP) with these settings and watch it live",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.ready = False
        """Set once the form is mounted: keys pressed while the app starts are ignored."""
        self._sandbox_notices: list[str] = []
        """The red lines of the sandbox level a run will use (found on a thread)."""
        self._kept: tuple[str, str] | None = None
        """The statement and tests as last filled in or run (None: as composed):
        text that differs was typed here and is not in any file or session."""
        self._kind: ProblemKind = "function"
        """The kind the tests box holds: asserts (``function``) or Input/Output blocks (``io``)."""
        self._samples_said_for = ""
        """The statement whose sample blocks Ctrl+R last pointed out beside asserts."""
        self._other_tests: dict[str, str] = {}
        """The tests box's text of the kind not shown, kept while the other is
        (switching kinds and back loses nothing)."""
        self._loaded_io: tuple[str, Problem] | None = None
        """An I/O problem loaded from a file or a dataset, with the tests text
        shown for it: while that text is unchanged the run takes the problem's
        own pairs, byte for byte, and its time and memory limits."""

    def compose(self) -> ComposeResult:
        app = qflow_app(self)
        cfg: RunConfig = app.config
        yield Header()
        with Horizontal(id="compose-main"):
            with Vertical(id="compose-texts"):
                yield Label("Problem statement", classes="field-label")
                yield TextArea(
                    app.problem_text or "",
                    id="statement",
                    soft_wrap=True,
                    tab_behavior="focus",
                    placeholder="Describe the function to write…",
                )
                kind: ProblemKind = "io" if looks_like_io_tests(app.tests_text or "") else "function"
                self._kind = kind
                with Horizontal(id="tests-head"):
                    yield Label(KIND_LABELS[kind], classes="field-label", id="tests-label")
                    kinds = Select(KIND_CHOICES, value=kind, id="kind", allow_blank=False, compact=True)
                    kinds.tooltip = "asserts on a function, or a program reading stdin and printing stdout (F8)"
                    yield kinds
                yield TextArea(
                    app.tests_text or "",
                    id="tests",  # Python after the first paint (on_mount): given here, it is compiled twice
                    soft_wrap=False,
                    tab_behavior="focus",
                    show_line_numbers=True,
                    placeholder=KIND_PLACEHOLDERS[kind],
                )
            with VerticalScroll(id="compose-settings"):
                yield Label("Load file or benchmark id", classes="field-label")
                yield Input(placeholder="mbpp/11, humaneval/12, path", id="load", compact=True)
                yield Label("Model", classes="field-label")
                yield Input(
                    cfg.model,
                    id="model",
                    compact=True,
                    placeholder="provider/model",
                    suggester=SuggestFromList(known_model_names(), case_sensitive=False),
                )
                yield Static("", id="model-hint")
                yield Label("Workflow", classes="field-label")
                names = list(WORKFLOWS)
                first = cfg.workflow if cfg.workflow in names else names[0]
                yield Select(
                    [(n, n) for n in names],
                    value=first,
                    id="workflow",
                    allow_blank=False,
                    compact=True,
                )
                # The other workflows' settings are mounted when one is chosen
                # (_show_settings): a hidden widget costs start-up like a shown one.
                yield settings_boxes(WORKFLOWS[first], cfg)
                yield TickBox("Step mode", app.stepping, id="stepping", compact=True)
                with Vertical(classes="break-box", id="break-box") as box:
                    box.tooltip = "Stop the run before these (comma-separated): " + "; ".join(BREAKPOINT_KINDS.values())
                    yield Label("Break at", classes="field-label")
                    yield Input(
                        ", ".join(str(b) for b in app.breakpoints),
                        placeholder="e.g. decision:reject",
                        id="break-at",
                        compact=True,
                    )
                yield Label("Entry point", classes="field-label")
                yield Input(
                    app.entry_point or "", placeholder="detected from the tests", id="entry-point", compact=True
                )
                yield Button("Run ▶", id="run", variant="primary", compact=True)
        yield Static("", id="compose-notices", markup=False)
        yield Static("", id="compose-error", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        # The tests' highlighting (tree-sitter's Python grammar and its query,
        # about 30 ms) comes one frame after the form's first paint: the form
        # shows that much sooner, with the tests uncoloured for that frame.
        self.call_after_refresh(self._highlight_tests)
        self._show_settings(str(self.query_one("#workflow", Select).value))
        self.ready = True
        self.refresh_bindings()
        self.query_one("#statement", TextArea).focus()
        self.app.theme_changed_signal.subscribe(self, lambda _t: self._style_editors())
        self._style_editors()
        cfg: RunConfig = qflow_app(self).config
        # The app's refresh, not this screen's: a dialog over the form at start
        # (the three ways in, with no key) keeps the form from refreshing.
        self.app.call_after_refresh(warm_up_the_run_screen, cfg.model, cfg.base_url)
        if cfg.base_url:
            base_url = cfg.base_url
            self.run_worker(lambda: self._ask_server(base_url), thread=True, group="models", exit_on_error=False)
        self._show_notices()
        if qflow_app(self).sandbox is None:  # the level a run will use, found on a thread (it starts a child)
            self.app.call_after_refresh(
                self.run_worker, self._ask_sandbox, thread=True, group="sandbox level", exit_on_error=False
            )

    def _ask_sandbox(self) -> None:
        """On a thread: the red lines when a run would use a weak sandbox level."""
        self.app.call_from_thread(self._show_notices, sandbox_lines())

    def _show_notices(self, sandbox: list[str] | None = None) -> None:
        """The sandbox's red lines and the plugins that were not loaded (see :func:`notice_lines`)."""
        if not self.is_attached:
            return
        if sandbox is not None:
            self._sandbox_notices = sandbox
        lines, whole = notice_lines(self._sandbox_notices)
        notice = self.query_one("#compose-notices", Static)
        notice.update(Text(clean("\n".join(lines))))
        notice.set_class(bool(lines), "-visible")
        notice.tooltip = clean(whole) or None

    def _ask_server(self, base_url: str) -> None:
        """On a thread: the local server's models join the Model field's
        completions; a server that cannot say, or whose list was cut, is one
        line under the field."""
        self.app.call_from_thread(self._server_answered, *server_models(base_url))

    def _server_answered(self, names: list[str], problem: str) -> None:
        if not self.is_attached:
            return
        field = self.query_one("#model", Input)
        field.suggester = SuggestFromList([*names, *known_model_names()], case_sensitive=False)
        hint = self.query_one("#model-hint", Static)
        hint.update(clean(problem))
        hint.set_class(bool(problem), "-visible")

    def _highlight_tests(self) -> None:
        if self.is_attached and self._kind == "function":
            self.query_one("#tests", TextArea).language = "python"

    def _style_editors(self) -> None:
        theme = palette(self.app).editor_theme
        for area in self.query(TextArea):
            if theme in area.available_themes:
                area.theme = theme

    # -- input checks ----------------------------------------------------------------------

    def show_error(self, message: str, field: str | None = None) -> None:
        error = self.query_one("#compose-error", Static)
        error.update(clean(message))
        error.set_class(bool(message), "-visible")
        mark_invalid(self, field)

    def read_config(self) -> RunConfig:
        cfg: RunConfig = qflow_app(self).config
        workflow = str(self.query_one("#workflow", Select).value)
        chosen = cfg.replace(
            model=self.query_one("#model", Input).value.strip(), workflow=workflow, theme=self.app.theme
        )
        return chosen.with_settings(self._form_values(workflow))

    def _form_values(self, workflow: str) -> dict[str, object]:
        """The chosen workflow's settings as the form has them, typed; a number
        that does not parse is a ConfigError naming the setting (shown on the form)."""
        spec = WORKFLOWS.get(workflow)
        found = self.query(f"#settings-{dom_name(workflow)}")
        if spec is None or not found:
            return {}
        return settings_values(spec, found.first())

    def read_problem(self) -> Problem:
        """The problem the form holds; :class:`ProblemError` (one line) if none."""
        found = self.resolve_form()
        if isinstance(found, Unresolved):
            raise ProblemError(found.message)
        return found

    def resolve_form(self) -> Resolution:
        """The form's statement and tests, read as every way in reads them
        (core/resolve.py): a judge's page pasted with no test is a stdin/stdout
        problem whose tests are its samples."""
        statement, tests = self._texts()
        loaded = self._loaded_io if self._kind == "io" else None
        if loaded is not None and loaded[0] == tests and loaded[1].statement == statement.strip():
            return loaded[1]  # the file's own pairs, byte for byte, with its limits
        entry = self.query_one("#entry-point", Input).value.strip() or None
        found = problem_from_text(statement, tests, entry_point=entry, kind=self._kind)
        if isinstance(found, Problem) and loaded is not None:
            return replace(found, time_limit=loaded[1].time_limit, memory_mb=loaded[1].memory_mb)
        return found

    def _said_unresolved(self, found: Unresolved) -> None:
        """Why the form makes no problem, under the field to fix."""
        field = {"statement": "statement", "entry_point": "entry-point"}.get(found.where, "tests")
        hint = ""
        if found.samples:
            hint = "; F9 takes the samples out of the statement into stdin/stdout tests, to fix them there"
        elif self._kind == "function" and found.message.startswith("tests, line 1: these are Input/Output"):
            hint = ": switch the tests to stdin/stdout (F8) to run them"
        self.show_error(f"✗ {found.message}{hint}", field)

    def read_breakpoints(self) -> list[Breakpoint]:
        """The "Break at" field: breakpoints in ``--break`` syntax, comma-separated.
        Raises BreakpointError (one line) for one that cannot be read."""
        text = self.query_one("#break-at", Input).value
        return [Breakpoint.parse(part.strip()) for part in text.split(",") if part.strip()]

    def _samples_unasked(self, statement: str) -> bool:
        """Whether ``statement`` holds sample blocks the user has not been told
        of yet (once per statement text: a second Ctrl+R goes on)."""
        if split_samples(statement) is None or statement == self._samples_said_for:
            return False
        self._samples_said_for = statement
        return True

    def validate(self) -> tuple[Problem, RunConfig, LLMClient] | None:
        """Everything a run needs, or None after showing what is wrong."""
        problem = self.resolve_form()
        if isinstance(problem, Unresolved):
            self._said_unresolved(problem)
            return None
        if problem.is_io and not self._texts()[1].strip():
            # A judge's page pasted with no test: shown as the samples it runs on.
            self.action_take_samples()
            self.notify("The statement's samples are the tests: the problem is stdin/stdout (F8 switches back).")
        elif not problem.is_io and self._samples_unasked(problem.statement):
            # A judge's page pasted over asserts (the example the form opens
            # with): the run would judge the page's program by another
            # function's asserts. Said once; Ctrl+R again runs as it stands.
            self.show_error(
                "✗ the statement has Input/Output samples but the tests are asserts on a function: F9 takes "
                "the samples as the tests (stdin/stdout); Ctrl+R again runs the asserts as they are",
                "tests",
            )
            return None
        try:
            config = validate(self.read_config())
        except ConfigError as exc:
            self.show_error(f"✗ {exc}")
            return None
        try:
            self.read_breakpoints()
        except BreakpointError as exc:
            self.show_error(f"✗ {exc}", "break-at")
            return None
        client = qflow_app(self).client
        if client is None:
            try:
                # The run machinery loads after the form is painted (RUN_MODULE,
                # warmed on a thread): the first paint does not wait for it.
                from ...core.workflow_run import build_client

                client = build_client(config)
            except MissingKey as exc:
                # The command line's advice names flags this form does not have.
                self.show_error(
                    f"✗ set {exc.variable} to use {exc.model}, or, with no key: local/smollm2 in Model runs a "
                    "small model on this machine, script/qflow_tui/data/demo/responder.py plays every agent, "
                    "and F2 then D replays the demo",
                    "model",
                )
                return None
            except LLMError as exc:
                self.show_error(f"✗ {exc}", "model")
                return None
        self.show_error("")
        return problem, config, client

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Before the form exists (a key pressed while the app starts) no action can
        # read it: the key is ignored rather than crashing the app.
        return self.ready and self.is_mounted

    def action_run(self) -> None:
        checked = self.validate()
        if checked is None:
            return
        problem, config, client = checked
        known = getattr(client, "known_entry_points", None)
        if known and problem.entry_point not in known:

            def answered(go: bool | None) -> None:
                if go:
                    self._start(problem, config, client)

            name = one_line(getattr(client, "name", "the script model"), 80)
            self.app.push_screen(
                Confirm(
                    f"The script model only knows {', '.join(known)}",
                    f"{name} answers with programs for {', '.join(known)} whatever the problem: "
                    f"for {'this stdin/stdout program' if problem.is_io else problem.entry_point} every check "
                    "will fail. Name a real model in Model "
                    "(local/smollm2 runs one on this machine) to solve your own problem.",
                    yes="Run anyway",
                    no="Back to the form",
                ),
                answered,
            )
            return
        self._start(problem, config, client)

    def _start(self, problem: Problem, config: RunConfig, client: LLMClient) -> None:
        stepping = self.query_one("#stepping", Checkbox).value
        own_client = qflow_app(self).client is None
        self.app.clear_notifications()  # the form's toasts do not belong over the run
        breakpoints = self.read_breakpoints()
        self._kept = self._texts()  # in the run's session file from now on
        qflow_app(self).open_run(
            problem, config, client=client, stepping=stepping, own_client=own_client, breakpoints=breakpoints
        )

    def action_bench(self) -> None:
        """Ask for a bench (the workflow settings are this form's) and watch it live."""
        from .bench_form import BenchForm  # the bench machinery, loaded when asked for

        try:
            config = self.read_config()
        except ConfigError:
            config = qflow_app(self).config  # a bad setting here is the run's problem, not the bench's

        form = BenchForm(config)

        def chosen(runner: BenchRunner | None) -> None:
            if runner is not None:
                qflow_app(self).open_bench(runner, estimate=form.estimate)

        self.app.push_screen(form, chosen)

    @on(Select.Changed, "#workflow")
    def _workflow_chosen(self, event: Select.Changed) -> None:
        self._show_settings(str(event.value))

    def _show_settings(self, workflow: str) -> None:
        """Show the chosen workflow's own settings, and only those."""
        self.sub_title = f"compose · {workflow}"
        wanted = f"settings-{dom_name(workflow)}"
        spec = WORKFLOWS.get(workflow)
        if spec is not None and not self.query(f"#{wanted}"):
            self.query_one("#compose-settings").mount(settings_boxes(spec, qflow_app(self).config), before="#stepping")
        for box in self.query(".workflow-settings"):
            box.display = box.id == wanted

    @on(Button.Pressed, "#run")
    def _run_pressed(self) -> None:
        self.action_run()

    def action_toggle_stepping(self) -> None:
        box = self.query_one("#stepping", Checkbox)
        box.value = not box.value
        box.scroll_visible(animate=False)  # at 80x24 the settings above hide it: show what changed
        self.notify("Step mode on: the run pauses before each step." if box.value else "Step mode off.")

    def action_focus_load(self) -> None:
        self.query_one("#load", Input).focus()

    # -- the kind of problem ---------------------------------------------------------------

    @on(Select.Changed, "#kind")
    def _kind_chosen(self, event: Select.Changed) -> None:
        if event.value in ("function", "io") and event.value != self._kind:
            self.set_kind("io" if event.value == "io" else "function")

    def set_kind(self, kind: ProblemKind, *, carry: bool = False) -> None:
        """Show the tests box for ``kind``: the text of the kind left is kept
        (and comes back when switched back); ``carry`` keeps the box's text
        (tests pasted in the other kind's format)."""
        if kind == self._kind:
            return
        area = self.query_one("#tests", TextArea)
        left = area.text
        self._kind = kind
        if not carry:
            self._other_tests[self._other(kind)] = left
            area.load_text(self._other_tests.pop(kind, ""))
        area.placeholder = KIND_PLACEHOLDERS[kind]
        area.language = "python" if kind == "function" else None
        self.query_one("#tests-label", Label).update(KIND_LABELS[kind])
        kinds = self.query_one("#kind", Select)
        if kinds.value != kind:
            with self.prevent(Select.Changed):
                kinds.value = kind
        entry = self.query_one("#entry-point", Input)
        entry.disabled = kind == "io"
        entry.placeholder = "none: a program on stdin/stdout" if kind == "io" else "detected from the tests"
        self.show_error("")

    @staticmethod
    def _other(kind: ProblemKind) -> ProblemKind:
        return "function" if kind == "io" else "io"

    def action_toggle_kind(self) -> None:
        self.set_kind(self._other(self._kind))
        said = "stdin/stdout: Input and Output blocks" if self._kind == "io" else "asserts on a function"
        self.notify(f"Tests: {said}.", timeout=3)

    @on(TextArea.Changed, "#tests")
    def _tests_changed(self, event: TextArea.Changed) -> None:
        # Samples pasted into the assert box: the box switches to stdin/stdout, text and all.
        if self.ready and self._kind == "function" and looks_like_io_tests(event.text_area.text):
            self.set_kind("io", carry=True)
            self.notify("These tests are Input/Output blocks: the problem is now stdin/stdout (F8 switches back).")

    def action_take_samples(self) -> None:
        """Split the statement's sample blocks off into the tests (stdin/stdout)."""
        area = self.query_one("#statement", TextArea)
        found = split_samples(area.text)
        if found is None:
            self.show_error(
                "✗ The statement has no sample: no line reads 'Input' (or 'Sample Input 1', 'Example input'); "
                "type the tests in Tests.",
                "statement",
            )
            return
        statement, samples = found
        try:
            pairs = parse_io_tests(samples)
        except ProblemError as exc:
            self.show_error(f"✗ The statement's samples cannot be read: {exc}", "statement")
            return
        tests = self.query_one("#tests", TextArea)
        if self._kind == "io" and tests.text.strip():
            # Tests already typed are kept ahead of the samples, not replaced.
            samples = tests.text.rstrip("\n") + "\n\n" + samples
        self.set_kind("io")
        area.load_text(statement)
        tests.load_text(samples)
        self.show_error("")
        self.notify(f"Took {len(pairs)} sample test{'s' if len(pairs) != 1 else ''} out of the statement.", timeout=3)

    def action_open_in_editor(self) -> None:
        """The statement, or the tests when their box has the focus, in the
        user's own editor (the app suspended); what the editor saves replaces
        the box's text, as typing it would (lazygit's ``e``)."""
        command = editor_command()
        if command is None:
            self.notify(NO_EDITOR.replace("press E", "press Ctrl+G"), severity="warning", markup=False)
            return
        which = "tests" if self.focused is not None and self.focused.id == "tests" else "statement"
        area = self.query_one(f"#{which}", TextArea)
        suffix = ".py" if which == "tests" and self._kind == "function" else ".txt"
        try:
            edited = edit_text(self.app, command, area.text, f"{which}{suffix}")
        except EditorError as exc:
            self.notify(clean(str(exc)), severity="error", markup=False)
            return
        if edited != area.text:
            area.load_text(edited)
            area.focus()
            self.notify(f"The {which} from your editor.", timeout=3)

    def action_add_sample(self) -> None:
        """A new, empty Input/Output pair at the end of the tests, the cursor in its input."""
        self.set_kind("io")
        tests = self.query_one("#tests", TextArea)
        text = tests.text.rstrip("\n")
        try:
            number = f" {len(parse_io_tests(text)) + 1 if text.strip() else 1}"
        except ProblemError:
            number = ""  # the blocks above do not read yet: the new pair is unnumbered
        text = (text + "\n\n" if text else "") + f"Input{number}\n\nOutput{number}\n"
        tests.load_text(text)
        lines = text.split("\n")
        tests.move_cursor((len(lines) - 3, 0))
        tests.focus()

    def action_example(self) -> None:
        self.fill(EXAMPLE_STATEMENT, EXAMPLE_TESTS, None)
        self.notify("MBPP No. 11, the example of the QualityFlow paper.")

    def action_new_problem(self) -> None:
        self.fill("", "", None)
        self.query_one("#statement", TextArea).focus()
        self.notify("A new problem: type or paste its statement and tests.", timeout=3)

    def _texts(self) -> tuple[str, str]:
        return self.query_one("#statement", TextArea).text, self.query_one("#tests", TextArea).text

    def typed_unsaved(self) -> bool:
        """Whether the form holds a statement or tests a person typed that no file,
        example or session has (what a quit would lose)."""
        if not self.ready:
            return False
        app = qflow_app(self)
        kept = self._kept if self._kept is not None else (app.problem_text or "", app.tests_text or "")
        statement, tests = self._texts()
        if not statement.strip() and not tests.strip():
            return False
        return (statement, tests) != kept

    def fill(self, statement: str, tests: str, entry_point: str | None, kind: ProblemKind = "function") -> None:
        self._loaded_io = None
        self.set_kind(kind, carry=True)
        self.query_one("#statement", TextArea).load_text(statement)
        self.query_one("#tests", TextArea).load_text(tests)
        self._kept = (statement, tests)
        self.query_one("#entry-point", Input).value = entry_point or ""
        self.show_error("")

    @on(Input.Submitted, "#load")
    def _load(self, event: Input.Submitted) -> None:
        """A file, a benchmark id, or ``codecontests/3 FILE`` (a dataset read
        from a local copy), read as ``qflow solve --problem`` reads it."""
        spec = event.value.strip()
        if not spec:
            self.show_error("✗ Type a file path or a benchmark id such as mbpp/11 or humaneval/12.", "load")
            return
        head, _, rest = spec.partition(" ")
        copy = None
        if rest.strip() and is_dataset_id(head) and not Path(spec).expanduser().exists():
            spec, copy = head, rest.strip()
        found = resolve_problem(spec, dataset_file=copy, local_copy="after the id: {name}/3 /path/to/file")
        if isinstance(found, Problem):
            self.fill_problem(found)
            self.notify(clean(f"Loaded {spec}: {_loaded_words(found)}."), markup=False)
        elif found.statement:
            # Said inline, under the field the user must fill next, not in a toast.
            self.fill(found.statement, "", None)
            self.show_error(
                f"✗ Loaded the statement of {Path(spec).name}, but no test: it has no line that starts with assert "
                "and no Input/Output sample. Type the visible tests in Tests.",
                "tests",
            )
        else:
            hint = " (or a benchmark id such as mbpp/11)" if found.message.endswith("no such file") else ""
            self.show_error(f"✗ {found.message}{hint}.", "load")

    def fill_problem(self, problem: Problem) -> None:
        """Fill the form with a problem read whole (a file, a dataset's)."""
        statement, tests, entry_point = form_texts(problem)
        self.fill(statement, tests, entry_point, kind=problem.kind)
        if problem.is_io:
            self._loaded_io = (tests, problem)


def _loaded_words(problem: Problem) -> str:
    """``remove_Occ, 3 visible tests`` or ``stdin/stdout, 2 tests, 1.5 s a test``."""
    count = f"{len(problem.tests)} visible test{'s' if len(problem.tests) != 1 else ''}"
    if not problem.is_io:
        return f"{problem.entry_point}, {count}"
    limit = f", {problem.time_limit:g} s a test" if problem.time_limit else ""
    return f"stdin/stdout, {count}{limit}"
