"""A bench's headline figures with their intervals, and the paired comparisons
of several benches on the same problems: what ``qflow bench report``,
``compare`` and ``table`` print, their JSON, and the bench screen show.

The methods live in :mod:`.stats`; this module decides what they are applied
to: pass@1 over the first sample of each problem (as the paper's tables),
pass@k over every sample, the cost per solved problem over every finished run.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import stats
from .data import BenchData, bench_price, pass_at_k, records_cost
from .papers import published
from .protocol import convention, is_evalplus, setting
from .results import ResultLine
from .stats import Interval, Paired, Spread


@dataclass(frozen=True)
class Rate:
    """k of n, with its 95% interval."""

    passed: int
    n: int
    interval: Interval | None

    @property
    def value(self) -> float | None:
        return None if self.n == 0 else self.passed / self.n

    def to_dict(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "n": self.n,
            "rate": self.value,
            "interval": self.interval.to_dict() if self.interval else None,
        }

    def text(self, digits: int = 2) -> str:
        """``61.59% (101/164), 95% CI [53.9, 68.8]``."""
        if self.n == 0:
            return "n/a (none finished)"
        return f"{stats.pct(self.value, digits)}% ({self.passed}/{self.n}), 95% CI {stats.interval_text(self.interval)}"


def rate(passed: int, n: int) -> Rate:
    return Rate(passed, n, stats.wilson(passed, n))


@dataclass(frozen=True)
class PassAtK:
    k: int
    value: float
    interval: Interval | None

    def to_dict(self) -> dict[str, object]:
        return {"k": self.k, "value": self.value, "interval": self.interval.to_dict() if self.interval else None}


@dataclass(frozen=True)
class Cost:
    """What the finished runs cost, and per solved problem with its interval."""

    total: float
    solved: int
    per_solved: float | None
    interval: Interval | None

    def to_dict(self) -> dict[str, object]:
        return {
            "currency": "USD",
            "total": round(self.total, 6),
            "solved": self.solved,
            "per_solved": None if self.per_solved is None else round(self.per_solved, 6),
            "per_solved_interval": self.interval.to_dict() if self.interval else None,
        }

    def per_solved_text(self) -> str:
        """``$0.0412 [$0.0351, $0.0489]``, or why there is no figure."""
        if self.per_solved is None:
            return "no problem solved"
        return f"${self.per_solved:.4f} {stats.interval_text(self.interval, stats.dollars)}"


@dataclass
class BenchFigures:
    """One bench's figures (see the module docstring for what each counts)."""

    pass1: Rate
    """Final pass@1 over the first sample of each problem (EvalPlus: base and plus)."""
    base: Rate | None = None
    """EvalPlus's base inputs alone, on the -plus datasets."""
    pass_at_k: list[PassAtK] = field(default_factory=list)
    spread: Spread | None = None
    cost: Cost | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "pass@1": self.pass1.to_dict(),
            "pass@1_base": self.base.to_dict() if self.base else None,
            "pass@k": [p.to_dict() for p in self.pass_at_k],
            "samples_spread": None
            if self.spread is None
            else {"pass@1_per_sample": self.spread.rates, "mean": self.spread.mean, "std": self.spread.std},
            "cost": self.cost.to_dict() if self.cost else None,
        }


#: What each interval is, for the JSON and the captions.
METHODS = {
    "pass@1": f"95% {stats.WILSON}",
    "pass@k": f"95% {stats.BOOTSTRAP}",
    "cost_per_solved": f"95% {stats.BOOTSTRAP}",
    "paired_difference": f"95% paired {stats.BOOTSTRAP}",
    "p_value": stats.MCNEMAR,
    "correction": stats.HOLM,
}


def first_samples(data: BenchData) -> list[ResultLine]:
    return [r for r in data.done if r.get("sample", 0) == 0]


def bench_figures(data: BenchData) -> BenchFigures:
    first = first_samples(data)
    n = len(first)
    passed = sum(1 for r in first if r.get("passed"))
    figures = BenchFigures(pass1=rate(passed, n))
    if is_evalplus(data.dataset):
        base = sum(1 for r in first if (r.get("verdict") or {}).get("base", r.get("passed")))
        figures.base = rate(base, n)
    per: dict[str, list[bool]] = {}
    by_sample: dict[int, list[bool]] = {}
    for r in data.done:
        per.setdefault(str(r["id"]), []).append(bool(r.get("passed")))
        by_sample.setdefault(int(r.get("sample", 0)), []).append(bool(r.get("passed")))
    if int(data.spec.get("samples", 1) or 1) > 1 and per:
        least = min(len(v) for v in per.values())
        for k in (1, 2, 5, 10, 20, 50, 100):
            if k > least:
                break
            values = [pass_at_k(len(v), sum(v), k) for v in per.values()]
            figures.pass_at_k.append(PassAtK(k, sum(values) / len(values), stats.mean_interval(values)))
        figures.spread = stats.spread(by_sample)
    figures.cost = bench_cost(data, data.done)
    return figures


def bench_cost(data: BenchData, records: list[ResultLine]) -> Cost | None:
    """The cost of ``records`` at the bench's price (None: unpriced or free),
    per solved problem with a bootstrap over problems."""
    price = bench_price(data.spec)
    total = records_cost(records, price)
    if price is None or total is None:
        return None
    spent: dict[str, float] = {}
    solved: dict[str, float] = {}
    for r in records:
        pid = str(r["id"])
        spent[pid] = spent.get(pid, 0.0) + (records_cost([r], price) or 0.0)
        solved[pid] = solved.get(pid, 0.0) + (1.0 if r.get("passed") else 0.0)
    wins = int(sum(solved.values()))
    keys = list(spent)
    return Cost(
        total=total,
        solved=wins,
        per_solved=total / wins if wins else None,
        interval=stats.ratio_interval([spent[k] for k in keys], [solved[k] for k in keys]) if wins else None,
    )


# ------------------------------------------------------------------ paired comparisons
def problem_number(pid: str) -> str:
    """``humaneval-plus/3`` and ``humaneval/3`` as ``HumanEval/3`` (EvalPlus's
    own ids): the same problem under either dataset."""
    name, _, n = pid.partition("/")
    return f"{'HumanEval' if name.startswith('humaneval') else 'Mbpp'}/{n}"


@dataclass(frozen=True)
class Comparison:
    """Bench ``a`` against bench ``b`` (indices into the benches compared)."""

    a: int
    b: int
    stats: Paired
    p_holm: float
    """The McNemar p-value after Holm's correction over every comparison made."""

    def to_dict(self) -> dict[str, object]:
        s = self.stats
        return {
            "a": self.a + 1,
            "b": self.b + 1,
            "problems": s.n,
            "a_passed": s.a_passed,
            "b_passed": s.b_passed,
            "difference": s.difference,
            "difference_interval": s.interval.to_dict() if s.interval else None,
            "a_only": s.a_only,
            "b_only": s.b_only,
            "p_value": s.p_value,
            "p_holm": self.p_holm,
        }


def verdicts(data: BenchData) -> dict[str, bool]:
    """The first sample's final verdict of each finished problem, by problem number."""
    return {problem_number(str(r["id"])): bool(r.get("passed")) for r in first_samples(data)}


def compare_pairs(benches: Sequence[BenchData], pairs: str = "all") -> list[Comparison]:
    """Each pair of benches (``all``), or each against the first (``first``), on
    the problems both finished, with Holm's correction over the comparisons made."""
    by = [verdicts(b) for b in benches]
    if pairs == "first":
        chosen = [(0, j) for j in range(1, len(benches))]
    else:
        chosen = list(itertools.combinations(range(len(benches)), 2))
    raw: list[Paired] = []
    for i, j in chosen:
        common = sorted(set(by[i]) & set(by[j]))
        raw.append(stats.paired([by[i][p] for p in common], [by[j][p] for p in common]))
    adjusted = stats.holm([p.p_value for p in raw])
    return [Comparison(i, j, s, h) for (i, j), s, h in zip(chosen, raw, adjusted, strict=True)]


def correction_words(comparisons: Sequence[Comparison]) -> str:
    if len(comparisons) <= 1:
        return "one comparison, so no correction for multiple comparisons"
    return f"{stats.HOLM} over the {len(comparisons)} comparisons (Holm p)"


def report_json(data: BenchData, paper_family: str | None = None) -> dict[str, object]:
    """``qflow bench report DIR --json``: the bench, its protocol and its headline
    figures with their intervals."""
    s = data.spec
    return {
        "folder": str(data.folder),
        "dataset": data.dataset,
        "workflow": s.get("workflow"),
        "model": s.get("model"),
        "setting": setting(s),
        "convention": convention(s),
        "runs": len(data.problem_ids) * int(s.get("samples", 1) or 1),
        "finished": len(data.done),
        **bench_figures(data).to_dict(),
        # The papers' figures this bench reproduces (its workflow with the paper's settings, an ablation's too).
        "published": [
            {"row": f.ref, "table": f.table, "column": f.column, "printed": f.printed, "value": f.value, "part": f.part}
            for f in published(s, paper_family)
        ],
        "methods": METHODS,
    }
