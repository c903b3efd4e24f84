"""The bench screen: a bench's problems as a table that fills in live (status,
the verdict after each workflow step, tokens, time), the running pass@1 (and the
paper's pass@k over each run's last programs, where the workflow declares one)
with pass@1 by step as bars, and any finished problem opened in the replay screen.

It shows either a bench it runs (a :class:`~qflow_tui.core.bench.bench_runner.BenchRunner`,
run in a worker on the app's event loop and heard through its sinks) or a bench
folder read back from disk (a finished or an interrupted one)."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import Worker, WorkerState

from ...core.bench.bench_runner import REPORT, RESULTS, BenchError, BenchRunner, ProblemUpdate, run_key
from ...core.bench.estimate import Estimate, estimate_bench
from ...core.bench.report import (
    bench_price,
    last_programs_k,
    load_bench,
    pass_at_k,
    pass_at_last,
    records_cost,
    render_report,
)
from ...core.bench.results import BenchSpecFile, ResultLine
from ...core.bench.stats import dollars, interval_text, mean_interval, ratio_interval, spread, wilson
from ...core.safe_text import clean, one_line
from ..access import qflow_app
from ..widgets.bench_chart import PassByStepChart, bar
from ..widgets.bench_table import BenchRow, BenchTable, step_words
from ..widgets.footer import AppFooter
from ..widgets.search_line import SearchLine, search_key
from .base import AppScreen
from .bench_compare import BenchCompareDialog


def _readable(rec: ResultLine) -> bool:
    """Whether a results line read from disk has the shape the runner writes
    (a hand-edited or foreign line must not break the table or the chart)."""
    steps = rec.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, dict) and isinstance(s.get("step"), str) for s in steps):
        return False
    if not isinstance(rec.get("session", ""), str):
        return False
    try:
        int(rec.get("tokens_total", 0) or 0)
        float(rec.get("duration", 0) or 0)
    except (TypeError, ValueError):
        return False
    return True


class BenchScreen(AppScreen[None]):
    """Watch a bench run, or look at a bench folder (see the module docstring)."""

    BINDINGS = [
        # Priority: the table's own Enter (select the row) would hide the key from the footer.
        Binding("enter", "open", "Replay", priority=True, tooltip="Replay the selected problem's session"),
        search_key("Show only the problems whose id, status or reason hold the words typed"),
        Binding("r", "reload", "Reload", tooltip="Read the bench folder again (a bench another qflow is running)"),
        Binding(
            "c",
            "compare",
            "Compare",
            tooltip="Compare with another bench folder on the same problems: the paired difference and McNemar's p",
        ),
        Binding(
            "s", "start_all", "Run all", tooltip="After an estimate: run the whole bench (the estimate's runs are kept)"
        ),
        Binding(
            "escape",
            "back",
            "Back",
            tooltip="Leave the bench screen (once the bench is not running); clears the search first",
        ),
    ]

    DEFAULT_CSS = """
    BenchScreen { layout: vertical; }
    BenchScreen #bench-summary { height: auto; padding: 0 1; }
    BenchScreen #bench-where { height: 1; padding: 0 1; color: $text-muted; }
    BenchScreen #bench-body { height: 1fr; }
    BenchScreen #bench-chart { dock: top; padding: 0 1; margin-bottom: 1; }
    BenchScreen #bench-table { height: 1fr; }
    BenchScreen #bench-detail { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    BenchScreen.-wide #bench-chart {
        dock: right; width: 64; height: 1fr; margin-bottom: 0; border-left: vkey $surface-lighten-2;
    }
    """

    class Updated(Message):
        """The bench reported progress (the updates wait in the screen's queue)."""

    def __init__(
        self, runner: BenchRunner | None = None, folder: str | Path | None = None, *, estimate: int | None = None
    ) -> None:
        super().__init__()
        self.estimate = estimate
        """Run only the first ``estimate`` problems and estimate the whole bench from them
        (or from the folder's finished runs), instead of running it all."""
        self.estimated: Estimate | None = None
        """The estimate, once made."""
        self._cost_cache: tuple[int, str] = (-1, "")
        if runner is None and folder is None:
            raise ValueError("BenchScreen needs a runner or a folder")
        self.runner = runner
        """The bench this screen runs, if it runs one."""
        self.folder = Path(folder) if folder is not None else runner.folder  # type: ignore[union-attr]
        """The bench folder: results, report and sessions."""
        self.spec: BenchSpecFile = {}
        self.rows: dict[str, BenchRow] = {}
        """Every run of the bench, by key, in the bench's order."""
        self.running = False
        """Whether the bench is running in this screen now."""
        self.finished = False
        """Whether the bench this screen ran has ended (every problem tried)."""
        self.outcome = ""
        """How the bench this screen ran ended, in one line."""
        self._pending: list[ProblemUpdate] = []
        self._posted = False
        self._started: float | None = None
        self._ended: float | None = None
        self._clock: Timer | None = None

    # -- layout ---------------------------------------------------------------------------

    _hint = ""
    """What the line under the summary says a key does (after the folder)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="bench-summary", markup=False)
        yield Static(id="bench-where", markup=False)
        yield SearchLine("an id, a status, a reason", id="bench-search")
        with Vertical(id="bench-body"):
            yield BenchTable(id="bench-table")
            yield PassByStepChart(id="bench-chart")
        yield Static(id="bench-detail", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self.query_one(BenchTable).focus()
        if self.runner is not None:
            self._start()
        else:
            self._load_folder()

    def _now(self) -> float:
        return qflow_app(self).clock()

    # -- a bench this screen runs -----------------------------------------------------------

    def _start(self) -> None:
        runner = self.runner
        assert runner is not None
        if not runner.keys:
            try:
                runner.prepare()
            except BenchError as exc:
                self.outcome = str(exc)
                self.notify(clean(str(exc)), title="The bench cannot start", severity="error", markup=False)
                self._describe()
                return
        self.spec = runner.spec.to_dict([bp.id for bp in runner.problems])
        self._name_steps()
        self.rows = {run_key(pid, s): BenchRow(run_key(pid, s)) for pid, s in runner.keys}
        self.query_one(BenchTable).show(list(self.rows.values()))
        runner.sinks.append(self._heard)
        self.running = True
        self._started = self._now()
        self._describe()
        # The elapsed time, the ETA and the running problems' times move on between updates.
        self._clock = self.set_interval(1.0, self._tick)
        # The table is painted first, then the bench starts: its first steps
        # (the sandbox, the model client, every problem's first call) run on this
        # loop and held the first paint back until problems had finished.
        self.call_after_refresh(self.run_bench)

    def _tick(self) -> None:
        if not self.running:
            return
        table = self.query_one(BenchTable)
        table.now = self._now()
        table.update_rows([r.key for r in self.rows.values() if r.state in ("running", "evaluating")])
        self._describe()

    def _heard(self, update: ProblemUpdate) -> None:
        """The runner's sink: called on the app's event loop from the bench worker.
        Updates are queued and the screen is told once per batch, so a flood of
        them costs one redraw."""
        self._pending.append(update)
        if not self._posted:
            self._posted = True
            self.post_message(self.Updated())

    @work(exclusive=True, group="bench", exit_on_error=False, name="bench")
    async def run_bench(self) -> None:
        assert self.runner is not None
        if self.estimate is not None:
            self.estimated = await estimate_bench(self.runner, self.estimate)
            return
        await self.runner.run()

    @on(Updated)
    def _apply_updates(self) -> None:
        self._posted = False
        updates, self._pending = self._pending, []
        now = self._now()
        changed: list[str] = []
        for u in updates:
            if u.state == "notice":  # about the whole bench (estimated tokens): said once, no row
                self.notify(clean(u.step), title="Bench warning", severity="warning", markup=False)
                continue
            row = self.rows.get(u.key)
            if row is None:
                row = self.rows[u.key] = BenchRow(u.key)
            if u.state == "skipped":
                row.state, row.record = "done", u.record
            else:
                if u.state == "running" and row.started is None:
                    row.started = now
                row.state = u.state
                row.step = u.step or (row.step if u.state == "running" else "")
                row.tokens = u.tokens or row.tokens
                if u.record is not None:
                    row.record = u.record
            row.seen_at = now
            if u.key not in changed:
                changed.append(u.key)
        table = self.query_one(BenchTable)
        table.now = now
        table.rows_by_key = self.rows
        table.update_rows(changed)
        self._refresh_chart()
        self._describe()

    @on(Worker.StateChanged)
    def _bench_ended(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "bench" or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            return
        self.running = False
        self._ended = self._now()
        if self._clock is not None:
            self._clock.stop()
        runner = self.runner
        if runner is not None and self._heard in runner.sinks:
            runner.sinks.remove(self._heard)
        if event.state == WorkerState.CANCELLED or not self.is_attached:
            return  # the app is closing: the folder is consistent, a rerun resumes it
        self._apply_updates()  # whatever the runner said last
        for row in self.rows.values():  # what the bench did not start (an estimate, the cost cap)
            if row.state == "queued":
                row.state = "not run"
        self.query_one(BenchTable).show(list(self.rows.values()))
        if event.state == WorkerState.SUCCESS and self.estimated is not None:
            self.finished = True
            self.outcome = self.estimated.text().replace("\n", " ")
            self.notify(clean(self.estimated.text()), title="Estimate (s runs the whole bench)", markup=False)
        elif event.state == WorkerState.SUCCESS:
            self.finished = True
            self.outcome = self._write_report()
            if runner is not None and runner.stopped:
                self.outcome = f"The bench stopped: {runner.stopped}"
                self.notify(clean(self.outcome), severity="error", markup=False)
            else:
                self.notify(clean(self.outcome), title="Bench finished", markup=False)
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            self.outcome = str(error) if isinstance(error, BenchError) else f"{type(error).__name__}: {error}"
            self.notify(clean(self.outcome), title="The bench stopped", severity="error", markup=False)
        self._describe()
        self.refresh_bindings()

    def _write_report(self) -> str:

        path = self.folder / REPORT
        try:
            path.write_text(render_report(load_bench(self.folder)), encoding="utf-8")
        except (OSError, BenchError) as exc:
            return f"Finished; the report could not be written to {path}: {exc}"
        return f"Finished; report in {path}"

    # -- a bench folder -----------------------------------------------------------------------

    def _load_folder(self) -> None:

        try:
            data = load_bench(self.folder)
            self.spec = data.spec
            self._name_steps()
            samples = int(data.spec.get("samples", 1) or 1)
            latest = {run_key(str(r["id"]), int(r.get("sample", 0))): r for r in data.records}
            problem_ids = [str(pid) for pid in data.problem_ids]
        except (BenchError, TypeError, ValueError, AttributeError) as exc:
            why = (
                str(exc)
                if isinstance(exc, BenchError)
                else f"{self.folder} has a bench.json or results.jsonl qflow did not write ({exc})"
            )
            self.outcome = why
            self.notify(clean(why), title="Not a bench folder", severity="error", markup=False)
            self._describe()
            return
        rows: dict[str, BenchRow] = {}
        unreadable = 0

        def row(key: str, rec: ResultLine | None) -> BenchRow:
            nonlocal unreadable
            if rec is None and key in data.unreadable:  # its line was not read: said, not "not run"
                return BenchRow(key, state="unreadable")
            if rec is None:
                return BenchRow(key, state="not run")
            if not _readable(rec):
                unreadable += 1
                return BenchRow(key, state="unreadable")
            return BenchRow(key, state=str(rec.get("status", "error")), record=rec)

        for pid in problem_ids:
            for s in range(samples):
                key = run_key(pid, s)
                rows[key] = row(key, latest.get(key))
        for key, rec in latest.items():  # lines for problems the spec no longer names
            if key not in rows:
                rows[key] = row(key, rec)
        if unreadable:
            self.notify(
                clean(f"{unreadable} lines of {self.folder / RESULTS} are not what qflow writes; shown as unreadable."),
                severity="warning",
                markup=False,
            )
        if data.skipped:
            self.notify(
                clean(
                    "\n".join(data.skipped[:3]) + (f"\n… {len(data.skipped) - 3} more" if len(data.skipped) > 3 else "")
                ),
                title="Lines not read",
                severity="warning",
                markup=False,
            )
        self.rows = rows
        table = self.query_one(BenchTable)
        table.show(list(rows.values()))
        self._refresh_chart()
        self._describe()

    # -- what the screen shows ----------------------------------------------------------------

    def _done(self) -> list[ResultLine]:
        return [r.record for r in self.rows.values() if r.state == "done" and r.record is not None]

    def _refresh_chart(self) -> None:
        self.query_one(PassByStepChart).show(self._done(), len(self.rows), self._workflow())

    def _workflow(self) -> str:
        """The bench's workflow, whose words name its steps."""
        return str(self.spec.get("workflow") or "") if self.spec else ""

    def _name_steps(self) -> None:
        """Name the table's steps in the bench's workflow's words."""
        self.query_one(BenchTable).words = step_words(self._workflow())

    def _describe(self) -> None:
        spec = self.spec
        done = self._done()
        rows = list(self.rows.values())
        passed = sum(1 for r in done if r.get("passed"))
        # A problem being judged has given its place back (the next one's model
        # calls run meanwhile): "--concurrency 4" shows at most "4 running", and
        # the ones in the sandbox are counted apart.
        running = sum(1 for r in rows if r.state == "running")
        judging = sum(1 for r in rows if r.state == "evaluating")
        unfinished = sum(1 for r in rows if r.state in ("provider_error", "error"))
        tokens = sum(int((r.record or {}).get("tokens_total", 0) or 0) if r.record else r.tokens for r in rows)
        what = " · ".join(str(spec.get(k, "?")) for k in ("dataset", "workflow", "model")) if spec else "bench"
        parts = [
            f"{len(done)}/{len(rows)} done",
            f"pass@1 {100.0 * passed / len(done):.1f}% ({passed}/{len(done)}), 95% CI {_interval(passed, len(done))}"
            if done
            else "pass@1 n/a",
            f"{tokens} tokens",
        ]
        # The workflow's paper's pass@k over a run's last k programs, when its spec declares one.
        k = last_programs_k(spec) if spec else 0
        if k and done:
            _n, _base, last = pass_at_last(done, k)
            parts.insert(
                2,
                f"pass@{k} (last {k} programs) {100.0 * last / len(done):.1f}% ({last}/{len(done)}), "
                f"95% CI {_interval(last, len(done))}",
            )
        samples = self._samples(done)
        if samples:
            parts.insert(2, samples)
        if running:
            parts.append(f"{running} running")
        if judging:
            parts.append(f"{judging} being judged")
        if unfinished:
            parts.append(f"{unfinished} not finished")
        if self._started is not None:
            elapsed = (self._ended if self._ended is not None else self._now()) - self._started
            parts.append(f"{elapsed:.0f}s elapsed")
            # Problems this screen saw run to the end (not those a resume skipped) set the pace.
            fresh = sum(1 for r in rows if r.state == "done" and r.started is not None)
            left = sum(1 for r in rows if r.state in ("queued", "running", "evaluating"))
            if self.running and fresh and left:
                parts.append(f"ETA {elapsed / fresh * left:.0f}s")
        elif done:
            parts.append(f"{sum(float(r.get('duration', 0) or 0) for r in done):.1f}s of runs")
        summary = one_line(what) + "\n" + "\n".join(fit_parts([one_line(p) for p in parts], self._text_width()))
        money = self._money(done)
        if money:
            summary += "\n" + one_line(money)
        if self.outcome:
            summary += "\n" + one_line(self.outcome)
        advice = _advice(rows, self.running)
        if advice:
            summary += "\n" + one_line(advice)
        self.query_one("#bench-summary", Static).update(summary)
        self.sub_title = "bench running" if self.running else "bench"
        hint = "Enter replays a problem" if any(r.session for r in rows) else ""
        self._hint = hint
        self._show_where()
        # The highlighted problem may have changed under the cursor (a run ended).
        self._show_detail()

    def _samples(self, done: list[ResultLine]) -> str:
        """With several samples a problem: the spread of pass@1 across them and
        the largest pass@k with its interval, as the report gives them."""
        if int(self.spec.get("samples", 1) or 1) < 2 or not done:
            return ""

        by_sample: dict[int, list[bool]] = {}
        per: dict[str, list[bool]] = {}
        for r in done:
            by_sample.setdefault(int(r.get("sample", 0) or 0), []).append(bool(r.get("passed")))
            per.setdefault(str(r.get("id")), []).append(bool(r.get("passed")))
        out = []
        sp = spread(by_sample)
        if sp is not None and sp.std is not None:
            out.append(f"pass@1 std {100 * sp.std:.1f} pts over {len(sp.rates)} samples")
        least = min(len(v) for v in per.values())
        k = max((k for k in (2, 5, 10, 20, 50, 100) if k <= least), default=0)
        if k:
            values = [pass_at_k(len(v), sum(v), k) for v in per.values()]
            iv = mean_interval(values)
            out.append(f"pass@{k} {100 * sum(values) / len(values):.1f}% {interval_text(iv)}")
        return "  ".join(out)

    def _money(self, done: list[ResultLine]) -> str:
        """The spend: against the cap, as a bar, while a capped bench runs or
        after; else what the finished runs cost, per solved problem with its
        interval ("" for a model that costs nothing or has no price)."""

        runner = self.runner
        if runner is not None and runner.max_cost is not None:
            spent, cap = runner.spent(), runner.max_cost
            fraction = spent / cap if cap else 1.0
            width = max(8, min(30, (self.size.width or 80) - 60))
            shown = f"{cap:.2f}" if cap >= 1 else f"{cap:.4f}"
            # Calls the provider reported no usage for were counted by estimate: so is the spend.
            est = " (est.)" if runner.warnings else ""
            return f"spent ${spent:.4f}{est} of the ${shown} cap {_bar(fraction, width)} {100 * fraction:.0f}%"
        price = bench_price(self.spec) if self.spec else None
        cost = records_cost(done, price)
        if cost is None:
            return ""
        # The interval is a bootstrap: computed again only when a run has finished.
        if self._cost_cache[0] != len(done):
            solved = [1.0 if r.get("passed") else 0.0 for r in done]
            spent_each = [records_cost([r], price) or 0.0 for r in done]
            wins = sum(solved)
            per = (
                f"${cost / wins:.4f} per solved problem, 95% CI "
                f"{interval_text(ratio_interval(spent_each, solved), dollars)}"
                if wins
                else "no problem solved"
            )
            self._cost_cache = (len(done), per)
        est = " (est.)" if any(r.get("tokens_unreported") for r in done) else ""
        return f"cost ${cost:.4f}{est} ({self._cost_cache[1]})"

    def _show_where(self) -> None:
        """The folder, and the hint whole: a folder too long for the line is cut
        at its start (the end names the bench), with an ellipsis."""
        tail = f"  ·  {self._hint}" if self._hint else ""
        room = max(10, self._text_width() - len(tail))
        folder = one_line(str(self.folder))
        if len(folder) > room:
            folder = "…" + folder[-(room - 1) :]
        self.query_one("#bench-where", Static).update(folder + tail)

    def on_resize(self) -> None:
        if self.is_mounted:
            self._describe()  # the summary's lines are fitted to the width, then the folder's

    def _text_width(self) -> int:
        """Columns a line of the summary and the folder have (their padding is one each side)."""
        return (self.size.width or 80) - 2

    # -- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reload":
            return not self.running
        if action == "start_all":
            return self.estimated is not None and not self.running
        return True

    def action_start_all(self) -> None:
        """After an estimate, run the whole bench on this screen."""
        if self.estimated is None or self.running or self.runner is None:
            return
        self.estimate = None
        self.estimated = None
        self.finished = False
        self.outcome = ""
        self._ended = None
        for row in self.rows.values():
            if row.state == "not run":
                row.state = "queued"
        self.query_one(BenchTable).show(list(self.rows.values()))
        self.runner.sinks.append(self._heard)
        self.running = True
        self._started = self._now()
        self._clock = self.set_interval(1.0, self._tick)
        self._describe()
        self.refresh_bindings()
        self.run_bench()

    def action_compare(self) -> None:

        if self.running:
            self.notify("Compare once the bench has finished (its figures still move).", markup=False)
            return
        self.app.push_screen(BenchCompareDialog(self.folder))

    @on(DataTable.RowHighlighted, "#bench-table")
    def _show_detail(self) -> None:
        """The highlighted problem in full under the table: its state, why it
        failed (whole, where the column cuts it) and its time."""
        row = self.query_one(BenchTable).selected
        detail = self.query_one("#bench-detail", Static)
        if row is None:
            detail.update("")
            return
        rec = row.record
        passed = rec is not None and rec.get("passed")
        state = {"done": "passed" if passed else "FAILED"}.get(row.state, row.state.replace("_", " "))
        bits = [row.key, state]
        if rec is not None and rec.get("outcome"):
            bits.append(f"{rec.get('outcome')}" + (f" at {rec.get('accepted_at')}" if rec.get("accepted_at") else ""))
        if rec is not None and (duration := rec.get("duration")) is not None:
            bits.append(f"{float(duration):.1f}s")
        text = " · ".join(one_line(str(b)) for b in bits)
        if row.why:
            # At most the lines the detail has room for, cut with an ellipsis.
            text += "\n" + one_line(row.why, max(20, (self.size.width - 2) * (_DETAIL_LINES - 1)))
        detail.update(text)

    @on(DataTable.RowSelected, "#bench-table")
    def _row_selected(self) -> None:
        self.action_open()

    def action_search(self) -> None:
        self.query_one(SearchLine).open()

    @on(Input.Changed, "#bench-search")
    def _search_changed(self, event: Input.Changed) -> None:
        table = self.query_one(BenchTable)
        table.search_for(event.value)
        self._show_detail()
        if not table.row_count:
            self.query_one("#bench-detail", Static).update(f"No problem matches {event.value.strip()!r}.")

    def _close_search(self, clear: bool) -> bool:
        """Leave the search line (emptied if ``clear``); False if it was not open."""
        table = self.query_one(BenchTable)
        if not self.query_one(SearchLine).close(table, clear=clear):
            return False
        if clear:
            table.search_for("")
        return True

    def action_open(self) -> None:
        if self.query_one(SearchLine).has_focus:
            self._close_search(clear=False)  # Enter in the search: to the rows it left
            return
        row = self.query_one(BenchTable).selected
        if row is None:
            return
        if row.session is None:
            what = "has not run" if row.state in ("queued", "not run") else "has not finished"
            self.notify(f"{one_line(row.key)} {what} yet: its session opens once it is finished.", markup=False)
            return
        path = self.folder / row.session
        if not path.is_file():
            self.notify(clean(f"Its session file is missing: {path}"), severity="error", markup=False)
            return
        qflow_app(self).open_replay(path)

    def action_reload(self) -> None:
        if self.running:
            return
        self.outcome = ""
        self._load_folder()

    def quit_question(self) -> tuple[str, str]:
        """What Ctrl+Q asks while this bench runs, and what quitting keeps. No
        counts: the bench runs on while the question is up."""
        detail = (
            f"Results already written to {self.folder} are kept: every problem finished so far. "
            "The ones running now stop unfinished; running the same bench into that folder again "
            "resumes them and the rest."
        )
        return "Stop the bench and quit?", clean(detail)

    def action_back(self) -> None:
        if self._close_search(clear=True):
            return
        if self.running:
            self.notify(
                "The bench is running. Ctrl+Q stops it (run the same command again to resume).",
                severity="warning",
            )
            return
        if len(self.app.screen_stack) > 1 and self.app.screen_stack[0] is not self:
            self.app.pop_screen()
        elif self.app.screen_stack[0] is self:
            # The app opened on this bench: back is the compose form, built now.
            qflow_app(self).open_compose()


#: The lines of the detail under the table (#bench-detail's max-height).
_DETAIL_LINES = 4


def fit_parts(parts: list[str], width: int) -> list[str]:
    """``parts`` joined by two spaces into lines of at most ``width`` columns,
    broken only between parts: a narrow terminal shows "12s elapsed" whole on
    the next line, never "12s" at one line's end and "elapsed" on the next. A
    part wider than a line has one of its own (the widget wraps it)."""
    lines: list[str] = []
    for part in parts:
        if lines and cell_len(lines[-1]) + 2 + cell_len(part) <= width:
            lines[-1] += "  " + part
        else:
            lines.append(part)
    return lines


def _interval(passed: int, n: int) -> str:
    """pass@1's 95% Wilson score interval (:func:`~qflow_tui.core.bench.stats.wilson`),
    in percent, written as the report writes every interval: ``[53.9, 68.8]``."""
    return interval_text(wilson(passed, n))


def _bar(fraction: float, width: int) -> str:
    """The spend against the cap: filled to ``fraction``, the rest shaded."""
    filled = bar(min(1.0, max(0.0, fraction)), width)
    return filled.rstrip() + "░" * (width - len(filled.rstrip()))


def _advice(rows: list[BenchRow], running: bool) -> str:
    """What would help when runs failed for want of an answer: the same error on
    every unfinished problem will not change by running again."""
    failed = [r for r in rows if r.state in ("provider_error", "error")]
    if running or not failed:
        return ""
    reasons = {r.why for r in failed}
    if len(failed) >= 2 and len(reasons) == 1:
        return (
            f"All {len(failed)} unfinished problems failed the same way (the line under the table says how): "
            "running again will fail again; change the model or its settings (Ctrl+B)."
        )
    return f"{len(failed)} problems did not finish: the line under the table says why for the highlighted one."
