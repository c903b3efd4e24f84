"""The bench form: what ``qflow bench`` asks on the command line (dataset,
which problems, workflow, model, concurrency, convention, folder), asked in the
app; a good answer starts the live bench screen, a bad one is one line under
the form."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select, Static
from textual.worker import Worker, WorkerState

from ...core.bench.bench_runner import (
    BENCH_DATASETS,
    BenchError,
    BenchRunner,
    BenchSpec,
    default_bench_folder,
    split_ids,
)
from ...core.bench.datasets import BenchProblem
from ...core.bench.estimate import DEFAULT_SAMPLE
from ...core.bench.evaluate import CONVENTIONS, DEFAULT_CONVENTION
from ...core.config import ConfigError, RunConfig
from ...core.llm import LLMClient, LLMError
from ...core.llm.base import close_quietly
from ...core.safe_text import clean
from ...core.workflow_run import build_client
from ...core.workflows import WORKFLOWS
from ...core.workflows.values import validate
from ..access import mark_invalid, qflow_app
from .base import AppModal
from .confirm import Confirm

#: The line under the form while nothing is wrong.
_HINT = "ctrl+s starts · Estimate prices it all first · Escape cancels"

#: Each convention in the few words its choice has room for (the bench's report says it whole).
_CONVENTION_WORDS = {"completion": "+ prompt", "solution": "alone"}


class BenchFormError(Exception):
    """A value in the form is wrong; the message says which and what to give."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def read_problems(text: str) -> tuple[int | None, list[str] | None]:
    """The "Problems" field: empty for all, a number for the first N, else ids
    separated by spaces or commas (``0 1 2``, ``mbpp/11, mbpp/12``)."""
    text = text.strip()
    if not text:
        return None, None
    if text.isdigit() and " " not in text and "," not in text:
        limit = int(text)
        if limit < 1:
            raise BenchFormError(
                "Problems: give at least 1 (or leave it empty for the whole dataset)", "bench-problems"
            )
        return limit, None
    return None, split_ids(text)


class BenchForm(AppModal[BenchRunner | None]):
    """Ask for a bench; dismiss with a prepared :class:`BenchRunner`, or None."""

    BINDINGS = [
        # A bench spends on every problem: it starts on its own key, never on the
        # Enter that ends a field (the form opens with the focus in one).
        Binding("ctrl+s", "start", "Start", priority=True, tooltip="Start the bench the form describes"),
        Binding("escape", "cancel", "Cancel", tooltip="Close the form; nothing starts"),
    ]

    def __init__(self, config: RunConfig) -> None:
        super().__init__()
        self.config = config
        """The compose form's settings: the bench runs the workflow under them."""
        self._out_default = ""
        """The folder field's value while the user has not typed their own."""
        self.max_cost: float | None = None
        """The form's Max cost, as last read (``--max-cost``)."""
        self.preparing: Worker[BenchRunner] | None = None
        """The worker loading the bench the form asked for, once Start was pressed."""
        self.estimate: int | None = None
        """Set when Estimate was pressed: the bench screen estimates the whole bench
        from this many first problems (or the folder's finished runs) and runs no more."""

    def compose(self) -> ComposeResult:

        names = list(WORKFLOWS)
        with Vertical(classes="dialog", id="bench-form"):
            yield Label("Run a benchmark", classes="dialog-title")
            with Horizontal(classes="bench-form-row"):
                with Vertical():
                    yield Label("Dataset", classes="field-label")
                    yield Select(
                        [(d, d) for d in BENCH_DATASETS],
                        value="humaneval",
                        id="bench-dataset",
                        allow_blank=False,
                        compact=True,
                    )
                with Vertical():
                    yield Label("Workflow", classes="field-label")
                    yield Select(
                        [(n, n) for n in names],
                        value=self.config.workflow if self.config.workflow in names else names[0],
                        id="bench-workflow",
                        allow_blank=False,
                        compact=True,
                    )
            yield Label("Problems: empty for all, N for the first N, or ids (0 1 2)", classes="field-label")
            yield Input("10", id="bench-problems", compact=True, placeholder="all problems")
            yield Label("Model", classes="field-label")
            yield Input(self.config.model, id="bench-model", compact=True, placeholder="provider/model")
            with Horizontal(classes="bench-form-row"):
                with Vertical(classes="-narrow"):
                    yield Label("Problems at once", classes="field-label")
                    yield Input("4", id="bench-concurrency", compact=True)
                with Vertical(classes="-narrow"):
                    # qflow bench --max-cost: a problem starts only if it is expected to fit.
                    yield Label("Max cost (USD)", classes="field-label")
                    cap = qflow_app(self).prefs.bench_max_cost  # the settings' cost cap (F5)
                    yield Input(
                        "" if cap is None else f"{cap:g}", id="bench-max-cost", compact=True, placeholder="no cap"
                    )
                with Vertical():
                    # qflow bench --convention: how a HumanEval program is judged.
                    yield Label("HumanEval judged as", classes="field-label")
                    yield Select(
                        [(f"{c} ({_CONVENTION_WORDS.get(c, c)})", c) for c in CONVENTIONS],
                        value=DEFAULT_CONVENTION,
                        id="bench-convention",
                        allow_blank=False,
                        compact=True,
                    )
            yield Label("Folder (a rerun with the same folder resumes the bench)", classes="field-label")
            yield Input(id="bench-out", compact=True)
            with Horizontal(classes="bench-form-row"):
                yield Button("Start (ctrl+s)", id="bench-start", variant="primary", compact=True)
                yield Button("Estimate", id="bench-estimate", compact=True)
                yield Button("Cancel", id="bench-cancel", compact=True)
            yield Static(_HINT, id="bench-error", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self._default_out()
        self.query_one("#bench-problems", Input).focus()

    # -- the folder follows the dataset, workflow and model until the user types one ---------

    def _default_out(self) -> None:
        try:
            dataset = str(self.query_one("#bench-dataset", Select).value)
            workflow = str(self.query_one("#bench-workflow", Select).value)
            model = self.query_one("#bench-model", Input).value.strip() or "model"
        except Exception:  # a field not mounted yet
            return
        out = self.query_one("#bench-out", Input)
        if out.value == self._out_default:
            self._out_default = str(default_bench_folder(dataset, workflow, model))
            out.value = self._out_default

    @on(Select.Changed)
    def _choice_changed(self) -> None:
        self._default_out()

    @on(Input.Changed, "#bench-model")
    def _model_changed(self) -> None:
        self._default_out()

    # -- reading and starting ---------------------------------------------------------------

    def read_form(self) -> tuple[BenchSpec, Path]:
        """The bench the form asks for. Raises :class:`BenchFormError`."""
        limit, ids = read_problems(self.query_one("#bench-problems", Input).value)
        raw = self.query_one("#bench-concurrency", Input).value.strip()
        try:
            concurrency = int(raw)
        except ValueError:
            raise BenchFormError(f"Problems at once must be a whole number, not {raw!r}", "bench-concurrency") from None
        if concurrency < 1:
            raise BenchFormError("Problems at once must be at least 1", "bench-concurrency")
        model = self.query_one("#bench-model", Input).value.strip()
        if not model:
            raise BenchFormError(
                "Model: give one, e.g. anthropic/claude-sonnet-5-5 or script/responder.py", "bench-model"
            )
        raw_cap = self.query_one("#bench-max-cost", Input).value.strip().lstrip("$")
        max_cost: float | None = None
        if raw_cap:
            try:
                max_cost = float(raw_cap)
            except ValueError:
                raise BenchFormError(
                    f"Max cost: US dollars, e.g. 5 or 0.50, not {raw_cap!r} (empty: no cap)", "bench-max-cost"
                ) from None
            if not (math.isfinite(max_cost) and max_cost > 0):
                raise BenchFormError("Max cost: above 0 US dollars (empty: no cap)", "bench-max-cost")
        self.max_cost = max_cost
        out_text = self.query_one("#bench-out", Input).value.strip()
        if not out_text:
            raise BenchFormError("Folder: give one (a new or an earlier bench's folder)", "bench-out")
        try:
            config = validate(
                self.config.replace(model=model, workflow=str(self.query_one("#bench-workflow", Select).value))
            )
        except ConfigError as exc:
            raise BenchFormError(str(exc)) from None
        spec = BenchSpec(
            dataset=str(self.query_one("#bench-dataset", Select).value),
            config=config,
            ids=ids,
            limit=limit,
            concurrency=concurrency,
            # A choice among CONVENTIONS, as --convention's: nothing else can be chosen.
            convention=str(self.query_one("#bench-convention", Select).value),
        )
        return spec, Path(out_text).expanduser()

    def show_error(self, message: str, field: str | None = None) -> None:
        hint = self.query_one("#bench-error", Static)
        hint.update(clean(message) if message else _HINT)
        hint.set_class(bool(message), "-error")
        mark_invalid(self, field)

    def action_start(self, estimate: int | None = None) -> None:
        try:
            spec, out = self.read_form()
        except BenchFormError as exc:
            self.show_error(f"✗ {exc}", exc.field)
            return
        self.estimate = estimate
        self.show_error("")
        self.query_one("#bench-error", Static).update("Loading the problems…")
        self.preparing = self.prepare_bench(spec, out, qflow_app(self).client, self.max_cost)

    def action_estimate(self) -> None:
        """Estimate the whole bench before it spends (``qflow bench --estimate``)."""

        self.action_start(estimate=DEFAULT_SAMPLE)

    @work(thread=True, exclusive=True, group="bench-form", exit_on_error=False, name="prepare bench")
    def prepare_bench(
        self, spec: BenchSpec, out: Path, client: LLMClient | None, max_cost: float | None = None
    ) -> BenchRunner:
        # A thread: loading a dataset and building the model's client take time.

        close = client is None
        if client is None:
            try:
                client = build_client(spec.config)
            except LLMError as exc:
                raise BenchFormError(f"Model: {exc}", "bench-model") from None
        runner = BenchRunner(spec, out, client=client, close_client=close, max_cost=max_cost)
        try:
            # Checked before the folder is made: a bench the user then declines
            # (a script model that knows too few of its problems) leaves nothing behind.
            runner.prepare(write=False)
            if not script_model_misses(runner):
                runner.prepare()
        except BenchError as exc:
            if close:
                _close_quietly(client)
            field = None if str(out) in str(exc) else "bench-max-cost" if "--max-cost" in str(exc) else "bench-problems"
            raise BenchFormError(str(exc), field) from None
        return runner

    @work(thread=True, exclusive=True, group="bench-form", exit_on_error=False, name="write bench")
    def write_bench(self, runner: BenchRunner) -> BenchRunner:
        """Make the folder of a bench the user chose to run after all."""
        try:
            runner.prepare()
        except BenchError as exc:
            raise BenchFormError(str(exc)) from None
        return runner

    @on(Worker.StateChanged)
    def _prepared(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "bench-form":
            return
        if event.state == WorkerState.SUCCESS:
            runner = event.worker.result
            assert isinstance(runner, BenchRunner)
            if event.worker.name == "write bench":
                self.dismiss(runner)
            else:
                self._confirm_script_model(runner)
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            if isinstance(error, BenchFormError):
                self.show_error(f"✗ {error}", error.field)
            else:
                self.show_error(f"✗ the bench cannot start: {type(error).__name__}: {error}")

    def _confirm_script_model(self, runner: BenchRunner) -> None:
        """Start the bench, unless its model is a script model that knows only
        some problems (the demo responder plays MBPP 11 alone): then say how
        many of the bench's problems it will fail, and start only if asked."""
        known = runner.known_entry_points
        unknown = script_model_misses(runner)
        if not unknown:
            self.dismiss(runner)
            return

        def answered(go: bool | None) -> None:
            if go:  # its folder is made now, on a thread
                self.query_one("#bench-error", Static).update("Preparing the bench folder…")
                self.preparing = self.write_bench(runner)
            else:  # the form stays as it was; the runner made nothing (no folder, no bench.json)
                self.show_error("✗ the script model knows only " + ", ".join(known or ()), "bench-model")

        total = len(runner.problems)
        self.app.push_screen(
            Confirm(
                f"The script model only knows {', '.join(known or ())}",
                f"It answers every problem with a program for {', '.join(known or ())}: {len(unknown)} of the "
                f"bench's {total} problems will fail whatever the workflow, and the bench spends its time "
                "judging them. Name a real model in Model to measure one.",
                yes="Run anyway",
                no="Back to the form",
            ),
            answered,
        )

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    @on(Button.Pressed, "#bench-start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#bench-estimate")
    def _estimate_pressed(self) -> None:
        self.action_estimate()

    @on(Button.Pressed, "#bench-cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


def script_model_misses(runner: BenchRunner) -> list[BenchProblem]:
    """The bench's problems its script model has no answer for (the demo
    responder plays MBPP 11 alone); empty for any other model."""
    known = runner.known_entry_points
    return [bp for bp in runner.problems if known and bp.problem.entry_point not in known]


def _close_quietly(client: LLMClient) -> None:
    """Close a client built for a bench that did not start (from a worker thread)."""

    asyncio.run(close_quietly(client))
