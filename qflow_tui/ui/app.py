"""The Textual app: compose a problem, run a workflow (QualityFlow or a peer) on it live, inspect the result.

:func:`create_app` is the one factory the CLI, the tests and the screenshot
script use, so all three see the same app.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from asyncio import AbstractEventLoop
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, TypeVar, Unpack

from rich.cells import cell_len
from textual import events, on
from textual.app import App, AutopilotCallbackType, SystemCommand
from textual.binding import Binding
from textual.content import Content
from textual.notifications import Notify
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import Input, TextArea

from ..core.app_prefs import AppPrefs, load_prefs, save_prefs
from ..core.config import ConfigError, RunConfig, save_setting
from ..core.llm import LLMClient, named_model
from ..core.problem import Problem
from ..core.safe_text import one_line
from ..core.sandbox import Sandbox
from ..core.steer.edits import Steering
from ..core.steer.gate import Breakpoint
from ..core.workflows.values import load_config, small_settings
from ..locations import config_file, demo_session
from . import screens
from .access import Host, LoggedMessage, ReplayOptions
from .first_minute import FirstMinute, first_minute
from .messages import KeyDone, SaveRequested
from .screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS, ComposeScreen
from .screens.confirm import Confirm
from .screens.keys import KeysScreen, own_binding
from .screens.message_log import MessagesScreen
from .screens.path_prompt import PathPrompt, write_text_file
from .screens.settings import Settings, SettingsScreen, changed_run_settings
from .screens.ways_in import FirstMinuteScreen
from .themes import DEFAULT_THEME, ThemeFileError, load_themes, theme_variable_defaults

if TYPE_CHECKING:
    from ..core.bench.bench_runner import BenchRunner
    from .screens.bench import BenchScreen
    from .screens.replay import ReplayScreen

# The app opens every screen (screens never import one another). The form is
# painted before the run, bench, replay, compare and sessions machinery is
# imported: those screens load when first opened (the run screen warmed on a
# thread once the form is up, compose.RUN_MODULE), which keeps the first paint
# from waiting on them (tests/core/test_import_hygiene.py).


_Result = TypeVar("_Result")
"""What a screen hands back when dismissed; the app's own handlers do not read it."""

#: Keys whose bindings edit text where the cursor is: see `QFlowApp._edit_path`.
_EDIT_KEYS = frozenset({"backspace", "delete", "left", "right", "up", "down", "home", "end"})


class QFlowApp(App[int]):
    """qflow's terminal app."""

    TITLE = "qflow"
    SUB_TITLE = "program synthesis, live"
    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]

    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("f2", "sessions", "Sessions", tooltip="Browse saved sessions and replay one"),
        Binding("f3", "toggle_light", "Theme", tooltip="Switch between the qflow dark and light themes"),
        # Not in the footer: at 80 columns it would push a screen's own keys out;
        # the footer's "…" (keys left out) says ? lists them all.
        Binding("question_mark,f1", "keys", "Keys", show=False, tooltip="Every key of this screen, with what it does"),
        Binding("ctrl+l", "messages", "Messages", show=False, tooltip="Every notice this session of the app gave"),
        Binding(
            "f5",
            "settings",
            "Settings",
            show=False,
            tooltip="Default model, workflow, theme, step mode, bench cost cap, the welcome dialog",
        ),
    ]

    def __init__(
        self,
        config: RunConfig,
        *,
        client: LLMClient | None = None,
        problem_text: str | None = None,
        tests_text: str | None = None,
        replay_path: str | Path | None = None,
        stepping: bool = False,
        sandbox: Sandbox | None = None,
        entry_point: str | None = None,
        clock: Callable[[], float] | None = None,
        remember_theme: bool = True,
        replay_options: ReplayOptions | None = None,
        bench_runner: BenchRunner | None = None,
        breakpoints: Sequence[Breakpoint] | None = None,
        bench_folder: str | Path | None = None,
        bench_estimate: int | None = None,
        compare_paths: tuple[str | Path, str | Path] | None = None,
        env: Mapping[str, str] | None = None,
        model_named: bool = False,
    ) -> None:
        super().__init__()
        self._prefs_warning = ""
        try:
            self.prefs = load_prefs()
            """The app's own preferences (the config file's ``[app]`` table)."""
        except ConfigError as exc:
            self.prefs, self._prefs_warning = AppPrefs(), f"{exc} (the defaults apply; F5 sets them)"
        stepping = stepping or self.prefs.step_mode
        self.first_minute: FirstMinute | None = None
        """Set when the default model has no key: the app opens on a model that
        answers instead (see ui/first_minute.py)."""
        opens_elsewhere = replay_path or bench_runner or bench_folder or compare_paths
        self.small_settings: list[str] = []
        """The small settings the form was given for a tiny model (``prompts 1``, ...)."""
        if client is None and not opens_elsewhere:
            self.first_minute = first_minute(config, os.environ if env is None else env, named=model_named)
        self.own_problem = bool(problem_text or tests_text)
        """The form opens on a problem the user gave (``--problem``), not the example."""
        if self.first_minute is not None:
            config = config.replace(model=self.first_minute.model)
            if not (problem_text or tests_text):
                # The paper's example, MBPP 11.
                problem_text, tests_text = EXAMPLE_STATEMENT, EXAMPLE_TESTS
        tiny = named_model(config.model)
        if client is None and not opens_elsewhere and tiny is not None and tiny.small:
            config, self.small_settings = small_settings(config)
        self.config = config
        """Settings the compose form starts from; each run uses the form's copy."""
        self.client: LLMClient | None = client
        """A model client to use instead of building one from the model name (tests, embedding)."""
        self.sandbox: Sandbox | None = sandbox
        """A sandbox to use instead of the default one (tests)."""
        self.problem_text: str | None = problem_text
        self.tests_text: str | None = tests_text
        self.entry_point: str | None = entry_point
        self.replay_path = replay_path
        self.stepping: bool = stepping
        """Start runs in step mode (pause before every workflow step)."""
        self.clock: Callable[[], float] = clock or time.monotonic
        """Where live runs read elapsed time; tests pass a frozen clock."""
        self._started_at = self.clock()
        self.message_log: deque[LoggedMessage] = deque(maxlen=MESSAGE_LOG_SIZE)
        self._toasted: dict[str, tuple[str, str]] = {}
        """What each toast says (title, message) before it is fitted to its line, by notification identity."""
        """Every notification so far (the newest ``MESSAGE_LOG_SIZE``), for Ctrl+L."""
        self.remember_theme = remember_theme
        self.replay_options: ReplayOptions = replay_options or {}
        """How the first replay opens (``step``, ``play``); read once by the replay screen."""
        self.breakpoints: list[Breakpoint] = list(breakpoints or [])
        """Where runs stop (``agent:self_debugger``, ``decision:reject``; see core/gate.py)."""
        self.bench_runner = bench_runner
        """A bench (a ``BenchRunner``) to run on the bench screen at start-up (``qflow bench --tui``)."""
        self.bench_folder = bench_folder
        """A bench folder to show on the bench screen at start-up (``qflow bench open``)."""
        self.bench_estimate = bench_estimate
        """Estimate the start-up bench from its first N problems instead of running it (``--tui --estimate``)."""
        self.compare_paths = compare_paths
        """Two sessions to compare at start-up (``qflow compare A B --tui``)."""
        self.settle_memory = False
        """This process is the app's alone: set by `run` (the CLI's way in, where
        tests use run_test); see `on_ready`."""
        self._keys_waiting: deque[events.Key | events.Paste] = deque()
        """Keys that came while the one before them was on its way (see `on_event`)."""
        self._key_on_its_way: KeyDone | None = None
        self._theme_ready = False
        self._theme_warnings: list[str] = []
        # The theme is chosen before the first screen mounts: set later, it makes
        # Textual parse the stylesheet again and restyle every widget of it.
        self._install_themes()
        self.start_replay: ReplayScreen | None = None
        """The replay the app opened on (``qflow replay``, ``qflow demo``), if it did."""

    # -- start-up ------------------------------------------------------------------------

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def get_default_screen(self) -> BenchScreen | ComposeScreen:
        if self.bench_runner is not None or self.bench_folder is not None:
            # `qflow bench --tui` / `bench open`: the bench is the first screen
            # painted. Under the compose form it waited for that form to be
            # built (about a second on a busy machine) for a screen the user
            # may never open; Escape builds it when asked (open_compose).
            return screens.BenchScreen(self.bench_runner, self.bench_folder, estimate=self.bench_estimate)
        return ComposeScreen()

    def on_mount(self) -> None:
        for warning in self._theme_warnings:
            self.notify(warning, severity="warning", markup=False)
        self._theme_ready = True
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if self.replay_path is not None:
            self.start_replay = self._push_replay(self.replay_path)
        if self.compare_paths is not None:
            self.open_compare(*self.compare_paths)
        if self.small_settings:
            # One toast line at 80 columns (77 cells): the model's name is in the form.
            self.notify(f"A tiny model: the form holds {', '.join(self.small_settings)}", timeout=10, markup=False)
        if self._prefs_warning:
            self.notify(self._prefs_warning, severity="warning", markup=False)
        if self.first_minute is not None:
            if self.prefs.welcome:
                self._offer_first_minute(self.first_minute)
            else:
                # The user said not to show the dialog again: one line says what the form holds.
                self.notify(
                    f"No key for {self.first_minute.wanted}: the form holds {self.first_minute.model} (F5: settings)",
                    markup=False,
                )

    def _offer_first_minute(self, start: FirstMinute) -> None:
        """Offer the three ways in on one screen: the form holds MBPP 11 and a
        model that answers (the local one when installed, else the script model)."""

        def chosen(way: str | None) -> None:
            if way == "demo":
                self.replay_options = {"play": True, "intro": True}
                self.open_replay(demo_session())
            elif way == "run" and isinstance(self.screen, ComposeScreen):
                self.screen.action_run()
            elif way == "never":
                self._save_prefs({"welcome": False}, "The welcome dialog will not show again (F5 brings it back).")

        screen = FirstMinuteScreen(start.missing.variable, start.wanted, start.model, own_problem=self.own_problem)
        self.push_screen(screen, chosen)

    def run(
        self,
        *,
        headless: bool = False,
        inline: bool = False,
        inline_no_clear: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
        auto_pilot: AutopilotCallbackType | None = None,
        loop: AbstractEventLoop | None = None,
    ) -> int | None:
        """Run in this terminal, as every qflow command that opens the app does."""
        self.settle_memory = True
        return super().run(
            headless=headless,
            inline=inline,
            inline_no_clear=inline_no_clear,
            mouse=mouse,
            size=size,
            auto_pilot=auto_pilot,
            loop=loop,
        )

    def on_ready(self) -> None:
        # The first screen is painted. What is alive now (modules, classes, the
        # app, the compose form) lives as long as the process; Python's full
        # collections walked all of it again every few seconds of a run, stalling
        # the loop 60-80 ms each time. Collected once here and frozen, it is left
        # out of every later collection (what it holds that dies later is freed by
        # reference counting; a cycle of it stays, the few kB of a settings box the
        # user swaps out). The CLI turns the collector off until here (cli.py):
        # the start-up made garbage but few cycles worth a pass.
        if self.settle_memory:
            self.settle_memory = False
            gc.collect()
            gc.freeze()
            gc.enable()

    def _install_themes(self) -> None:
        try:
            themes = load_themes()
        except (OSError, ThemeFileError) as exc:
            themes = []
            self._theme_warnings.append(f"Themes could not be loaded: {exc}")
        for theme in themes:
            self.register_theme(theme)
        wanted = self.config.theme or DEFAULT_THEME
        if wanted not in self.available_themes:
            fallback = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
            self._theme_warnings.append(
                f"Unknown theme {wanted!r}; using {fallback}. Pick one with F3 or the command palette."
            )
            wanted = fallback
        self._choose_first_theme(wanted)

    def _choose_first_theme(self, name: str) -> None:
        """Start in the theme ``name`` without a second parse of the stylesheet.

        Setting ``App.theme`` runs Textual's watcher, which queues a re-parse of
        every stylesheet: at start-up that parsed app.tcss a second time before the
        first paint (13 ms of the launch). Nothing is parsed yet here, so setting
        the stylesheet's variables is enough; the classes are the ones the watcher
        sets. The watcher also points Rich's ANSI colours at the dark or the light
        terminal palette: a theme that differs from Textual's default in that goes
        the watcher's way, and pays the parse."""
        theme = self.get_theme(name)
        if theme is None or theme.dark != self.current_theme.dark:
            self.theme = name
            return
        self.set_reactive(App.theme, name)
        classes = {c: False for c in self.classes if c.startswith("-theme-")}
        classes.update({f"-theme-{name}": True, "-dark-mode": theme.dark, "-light-mode": not theme.dark})
        self.update_classes(classes, update=False)
        self.stylesheet.set_variables(self.get_css_variables())

    def _remember_theme(self, theme: Theme) -> None:
        if not self._theme_ready or not self.remember_theme:
            return
        try:
            save_setting("theme", theme.name)
        except OSError as exc:
            self.notify(f"Could not remember the theme: {exc.strerror or exc}", severity="warning", markup=False)
        except ConfigError as exc:
            self.notify(f"Could not remember the theme: {exc}", severity="warning", markup=False)

    # -- keys in the order they were typed -----------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        """Keys (and pastes) one at a time, in the order they came.

        Textual hands a key to the focused widget's queue and goes on to the next
        key at once. A priority key (Ctrl+R) then ran before the keys ahead of it
        were handled (F4's example, the characters just typed), and a key after
        a Tab went to the widget the Tab was leaving. Here a key waits while the
        one before it is on its way: the :class:`KeyDone` that follows it up the
        widget tree says when it arrived."""
        if not isinstance(event, events.Key | events.Paste) or event.is_forwarded:
            await super().on_event(event)
            return
        self._keys_waiting.append(event)
        if self._key_on_its_way is None:
            await self._next_key()

    async def _next_key(self) -> None:
        while self._keys_waiting and self._key_on_its_way is None:
            if not self.screen_stack:
                # The app is closing (a key's wait timer fired after its screens
                # went): nothing is left to type into.
                self._keys_waiting.clear()
                return
            event = self._keys_waiting.popleft()
            target = self.focused or self.screen
            await super().on_event(event)
            # Keys that only edit the focused editor's text, all the same way, go on
            # after it at once: they travel one path in order, and none moves the
            # focus or reaches past the editor. Held or typed faster than a frame
            # is drawn, they are handled together and drawn once, where waiting
            # for each drew a frame a key (300 backspaces took seconds).
            while (
                event.is_forwarded
                and self._keys_waiting
                and self.focused is target
                and (path := self._edit_path(event, target)) is not None
                and self._edit_path(self._keys_waiting[0], target) == path
            ):
                event = self._keys_waiting.popleft()
                await super().on_event(event)
            if event.is_forwarded:  # handed to a widget: the next waits for it
                done = KeyDone()
                self._key_on_its_way = done
                target.post_message(done)
                # Should the widget go before it handles the key, the key is lost, not the rest.
                self.set_timer(KEY_WAIT_LIMIT, partial(self._key_lost, done, target, KEY_WAIT_LIMIT))

    def _edit_path(self, event: events.Key | events.Paste, target: object) -> str | None:
        """How ``event`` edits the text of ``target``, a focused editor: "typed"
        (a character the editor inserts as it reads the key) or "bound" (an
        editing key whose binding runs as the key comes back up to the app);
        None when it may do anything else (a priority binding, Tab, Escape...).
        Only keys of one path keep their order without waiting: a character
        typed after a backspace would be inserted before the backspace ran."""
        if not isinstance(event, events.Key) or not isinstance(target, TextArea | Input):
            return None
        for _node, bindings in self.screen._modal_binding_chain:
            if any(binding.priority for binding in bindings.key_to_bindings.get(event.key, ())):
                return None
        if event.key in _EDIT_KEYS:
            return "bound"
        if event.key != "tab" and (event.is_printable or (event.key == "enter" and isinstance(target, TextArea))):
            return "typed"
        return None

    @on(KeyDone)
    async def _key_arrived(self, message: KeyDone) -> None:
        await self._key_done(message)

    async def _key_lost(self, done: KeyDone, target: Widget, waited: float) -> None:
        """A key still on its way after ``waited`` seconds: lost if the widget it
        went to is gone; else (a busy machine) waited for, up to KEY_WAIT_MOST
        (a handler that never returns must not leave every later key dead)."""
        if self._key_on_its_way is not done:
            return
        if target.is_attached and target.is_running and waited < KEY_WAIT_MOST:
            self.set_timer(KEY_WAIT_LIMIT, partial(self._key_lost, done, target, waited + KEY_WAIT_LIMIT))
            return
        await self._key_done(done)

    async def _key_done(self, done: KeyDone) -> None:
        if self._key_on_its_way is done:
            self._key_on_its_way = None
            await self._next_key()

    # -- navigation ----------------------------------------------------------------------

    def open_run(
        self,
        problem: Problem,
        config: RunConfig,
        *,
        client: LLMClient | None = None,
        own_client: bool = False,
        stepping: bool = False,
        breakpoints: Sequence[Breakpoint] = (),
        steering: Steering | None = None,
        header: Mapping[str, object] | None = None,
    ) -> None:
        self.push_screen(
            screens.RunScreen(
                problem,
                config,
                client=client,
                own_client=own_client,
                stepping=stepping,
                breakpoints=breakpoints,
                sandbox=self.sandbox,
                steering=steering,
                header=header,
            )
        )

    def open_replay(self, path: str | Path, *, step: int | None = None) -> None:
        self._push_replay(path, step=step)

    def _push_replay(self, path: str | Path, *, step: int | None = None) -> ReplayScreen:
        screen = screens.ReplayScreen(path, step=step)
        self.push_screen(screen)
        return screen

    def quit_from(self, screen: Screen[_Result]) -> None:
        """``q`` on a screen that quits qflow (a replay, the demo). On the screen
        the app opened on (``qflow demo``, ``qflow replay``) it quits as Ctrl+Q
        does; opened from the app (the welcome dialog's demo, the browser), the
        app the user came from is behind it, so it asks first (Escape goes back)."""
        if screen is self.start_replay or self._quit_asks():
            self.call_later(self.action_quit)
            return

        def answered(quit_: bool | None) -> None:
            if quit_:
                self.exit()

        self.push_screen(
            Confirm(
                "Quit qflow?",
                "This replay was opened from the app: Escape goes back to where you were.",
                yes="Quit",
                no="Stay",
            ),
            answered,
        )

    def _quit_asks(self) -> bool:
        """Whether Ctrl+Q asks before it quits: a run or a bench going, or a problem typed and never run."""
        runs = sys.modules.get("qflow_tui.ui.screens.run_screen")
        benches = sys.modules.get("qflow_tui.ui.screens.bench")
        for s in self.screen_stack:
            if runs is not None and isinstance(s, runs.RunScreen) and s.running:
                return True
            if benches is not None and isinstance(s, benches.BenchScreen) and s.running:
                return True
            if isinstance(s, ComposeScreen) and s.typed_unsaved():
                return True
        return False

    def open_compare(self, a: str | Path, b: str | Path) -> None:
        self.push_screen(screens.CompareScreen(a, b))

    def open_compose(self) -> None:
        if not any(isinstance(s, ComposeScreen) for s in self.screen_stack):
            # The app opened on another screen (a bench): the form goes on top of it.
            while len(self.screen_stack) > 1:
                self.pop_screen()
            self.push_screen(ComposeScreen())
            return
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ComposeScreen):
            self.pop_screen()
        if isinstance(self.screen, ComposeScreen):
            self.screen.action_new_problem()

    def open_bench(self, runner: BenchRunner | None = None, *, estimate: int | None = None) -> None:
        self.push_screen(screens.BenchScreen(runner, estimate=estimate))

    def action_sessions(self) -> None:
        try:
            sessions = screens.SessionsScreen
        except ImportError:
            self.notify("The sessions browser is not available in this build.", severity="warning")
            return
        self.push_screen(sessions())

    def action_settings(self) -> None:
        """F5: the settings screen; what it saves applies at once where it can."""
        if isinstance(self.screen, SettingsScreen):
            return
        themes = sorted(self.available_themes)
        # The default model as configured: not the one that answers for it this first minute.
        base = self.config if self.first_minute is None else self.config.replace(model=self.first_minute.wanted)
        screen = SettingsScreen(base, self.prefs, themes, str(config_file()))
        self.push_screen(screen, partial(self._settings_chosen, base))

    def _settings_chosen(self, base: RunConfig, settings: Settings | None) -> None:
        if settings is None:
            return
        changed = changed_run_settings(settings, base)
        try:
            for key, value in changed.items():
                save_setting(key, value)
        except ConfigError as exc:
            self.notify(f"Settings not saved: {exc}", severity="error", markup=False)
            return
        prefs = settings.prefs
        saved = self._save_prefs(
            {"welcome": prefs.welcome, "step_mode": prefs.step_mode, "bench_max_cost": prefs.bench_max_cost},
            f"Settings saved to {config_file()}; a new problem's form takes the model and workflow.",
        )
        if not saved:
            return
        self.config = self.config.replace(**{k: v for k, v in changed.items() if k != "theme"})
        self.stepping = prefs.step_mode
        if settings.theme != self.theme:
            self.theme = settings.theme

    def _save_prefs(self, changes: dict[str, object], said: str) -> bool:
        """Save app preferences, keep them, and say ``said``; a file that cannot take them is one line."""
        try:
            save_prefs(changes)
        except ConfigError as exc:
            self.notify(f"Settings not saved: {exc}", severity="error", markup=False)
            return False
        self.prefs = replace(self.prefs, **changes)  # type: ignore[arg-type]
        self.notify(said, markup=False)
        return True

    @on(SaveRequested)
    def _save_requested(self, message: SaveRequested) -> None:
        """A widget's text to a file the user names (widgets never open screens)."""

        def saved(path: Path | None) -> None:
            if path is not None:
                self.notify(f"{message.saved} to {path}.", markup=False)

        prompt = PathPrompt(message.title, message.name, write_text_file(message.text), name_in_folder=message.name)
        self.push_screen(prompt, saved)

    async def action_quit(self) -> None:
        """Ctrl+Q: while a run or a bench is going, ask first (as q does on the
        run screen); with a problem typed in the compose form and never run, ask too."""
        if isinstance(self.screen, Confirm):
            self.exit()
            return
        # A run screen exists only once its module has loaded.
        runs = sys.modules.get("qflow_tui.ui.screens.run_screen")
        live = [s for s in self.screen_stack if runs is not None and isinstance(s, runs.RunScreen) and s.running]
        if live:
            live[-1].action_quit_app()
            return
        # Likewise a bench, once its screen's module has loaded.
        benches = sys.modules.get("qflow_tui.ui.screens.bench")
        running = [s for s in self.screen_stack if benches is not None and isinstance(s, benches.BenchScreen)]
        running = [s for s in running if s.running]
        if running:
            question, detail = running[-1].quit_question()

            def stop(quit_: bool | None) -> None:
                if quit_:
                    self.exit()

            self.push_screen(Confirm(question, detail, yes="Quit", no="Stay"), stop)
            return
        typed = [s for s in self.screen_stack if isinstance(s, ComposeScreen) and s.typed_unsaved()]
        if typed:

            def answered(quit_: bool | None) -> None:
                if quit_:
                    self.exit()

            self.push_screen(
                Confirm(
                    "Quit and lose the problem you typed?",
                    "The statement and tests in the form are in no file or session yet: "
                    "Ctrl+R runs them (the session keeps them).",
                    yes="Quit",
                    no="Stay",
                ),
                answered,
            )
            return
        self.exit()

    def _on_notify(self, event: Notify) -> None:
        """Keep every notification in the log, and say one thing once: a message
        already on screen is not toasted again (the log counts the repeat).

        A toast is one line over the header (app.tcss), the newest only: a
        boxed toast at 80x24 covered the tests table the user was editing, a
        dialog's key hint or an inline error for its timeout. The title leads
        the line; what does not fit is cut, and the line says where it is whole."""
        note = event.notification
        message = Content.from_markup(note.message).plain if note.markup else str(note.message)
        last = self.message_log[-1] if self.message_log else None
        if last is not None and last.message == message and last.title == note.title:
            last.repeats += 1
        else:
            at = self.clock() - self._started_at
            self.message_log.append(LoggedMessage(at, str(note.severity), note.title, message))
        if any(self._toasted.get(shown.identity, ("", ""))[1] == message for shown in self._notifications):
            event.prevent_default()  # Textual's handler (which shows it) runs after this one
            return
        self._toasted = {n.identity: self._toasted.get(n.identity, ("", n.message)) for n in self._notifications}
        self._toasted[note.identity] = (note.title, message)
        note.title, note.message, note.markup = "", toast_line(note.title, message, self.size.width), False

    def notices_shown(self) -> list[str]:
        """The notifications on show now, each whole (its title, then its
        message), as the log keeps them; a toast shows what fits its line."""
        said = [self._toasted.get(n.identity, ("", str(n.message))) for n in self._notifications]
        return [f"{title}: {message}" if title else message for title, message in said]

    def action_messages(self) -> None:
        if not isinstance(self.screen, MessagesScreen):
            self.push_screen(MessagesScreen())

    def action_keys(self) -> None:
        if isinstance(self.screen, KeysScreen):
            return
        self.push_screen(KeysScreen(self.screen))

    def action_show_help_panel(self) -> None:
        """The command palette's "Keys": qflow's own keys screen, not Textual's panel."""
        self.action_keys()

    def action_toggle_light(self) -> None:
        self.theme = "qflow-light" if self.theme != "qflow-light" else "qflow-dark"

    # -- command palette -----------------------------------------------------------------

    def get_system_commands(self, screen: Screen[_Result]) -> Iterable[SystemCommand]:
        """The app's own actions only: Textual's internals (scroll, focus-next, page
        left) are not things a person looks for, and one theme entry is enough."""
        yield SystemCommand("Quit", "Quit qflow (Ctrl+Q)", self.action_quit)
        yield SystemCommand("Sessions", "Browse saved sessions and replay one (F2)", self.action_sessions)
        yield SystemCommand("Theme", "Pick a theme from themes/ (F3 switches dark and light)", self.action_change_theme)
        yield SystemCommand("Keys", "Every key of this screen, with what it does (?)", self.action_keys)
        yield SystemCommand(
            "Settings", "Default model, workflow, theme, step mode, cost cap, welcome (F5)", self.action_settings
        )
        seen: set[str] = {"Quit", "Sessions", "Theme", "Keys", "Settings"}
        for active in screen.active_bindings.values():
            binding = active.binding
            if not binding.description or binding.description in seen or not active.enabled:
                continue
            if not own_binding(active.node, binding):
                continue
            seen.add(binding.description)
            key = binding.key_display or binding.key
            help_text = f"{binding.tooltip or binding.description} ({key})"
            yield SystemCommand(binding.description, help_text, partial(self.run_action, binding.action, active.node))
        # Commands whose words depend on what a node shows (the run view's tabs,
        # numbered as its run has them): the node names them.
        nodes = dict.fromkeys(active.node for active in screen.active_bindings.values())
        for node in nodes:
            said = getattr(node, "palette_commands", None)
            for title, help_text, run in said() if callable(said) else ():
                if title not in seen:
                    seen.add(title)
                    yield SystemCommand(title, help_text, run)


#: Seconds between looks at a key still on its way: a key handed to a widget
#: that goes away before it handles it never reports back.
KEY_WAIT_LIMIT = 0.5
#: Seconds a key waits at most while the widget before it is alive but busy
#: (under a load of 20 the key before took over half a second).
KEY_WAIT_MOST = 5.0

#: How many notifications the log keeps.
MESSAGE_LOG_SIZE = 200


#: What ends a toast cut to its line: the log (Ctrl+L) has it whole.
CUT_HINT = " … ^l log"


def toast_line(title: str, message: str, width: int) -> str:
    """A notification as its one-line toast ``width`` columns wide (its edge
    and padding take 3): the title, then the message; cut with a pointer to
    the log where it does not fit."""
    line = one_line(f"{title}: {message}" if title else message)
    room = max(len(CUT_HINT) + 10, width - 3)
    if cell_len(line) <= room:
        return line
    if title:  # a long title (a session's) leaves the message, the news, its room
        line = one_line(f"{one_line(title, max(12, room // 3))}: {message}")
        if cell_len(line) <= room:
            return line
    return one_line(line, room - len(CUT_HINT) + 1)[:-1].rstrip() + CUT_HINT


class AppOptions(TypedDict, total=False):
    """The rest of :class:`QFlowApp`'s keyword arguments, as :func:`create_app` passes them on."""

    sandbox: Sandbox | None
    entry_point: str | None
    clock: Callable[[], float] | None
    remember_theme: bool
    replay_options: ReplayOptions | None
    bench_runner: BenchRunner | None
    breakpoints: Sequence[Breakpoint] | None
    bench_folder: str | Path | None
    bench_estimate: int | None
    compare_paths: tuple[str | Path, str | Path] | None
    env: Mapping[str, str] | None
    model_named: bool


def create_app(
    config: RunConfig | None = None,
    *,
    client: LLMClient | None = None,
    problem_text: str | None = None,
    tests_text: str | None = None,
    replay_path: str | Path | None = None,
    stepping: bool = False,
    **kwargs: Unpack[AppOptions],
) -> QFlowApp:
    """Build the app for the CLI, the tests and the screenshot script."""

    return QFlowApp(
        config if config is not None else load_config(),
        client=client,
        problem_text=problem_text,
        tests_text=tests_text,
        replay_path=replay_path,
        stepping=stepping,
        **kwargs,
    )


def _is_a_host(app: QFlowApp) -> Host:
    """The app gives its screens all that :class:`~.access.Host` promises (mypy checks this)."""
    return app
