"""What a bench's report says, as data: a bench folder read back
(:class:`BenchData`), and the counts, rates and tables of cells the paper's
tables hold (pass@1 by workflow step, the checkers as classifiers, the
self-debugging deviation, tokens per agent, pass@k, cost). The renderers
(:mod:`.report` for markdown, :mod:`.tables` for markdown, LaTeX, CSV and
JSON, :mod:`.export`) are built on it; it imports none of them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..llm.prices import Price, PriceError, load_prices, price_of, with_cache_rates
from ..workflows import WORKFLOWS
from .names import BenchError
from .protocol import convention, setting, title
from .results import RESULTS, BenchSpecFile, ResultLine, ResultsRead, StepRow, latest_results, read_lines, read_spec
from .stats import interval_text, paired, wilson


def _roles(spec: Mapping[str, object]) -> tuple[str, ...]:
    """The bench's workflow's agents, in its order (none for a workflow not installed)."""
    workflow = WORKFLOWS.get(str(spec.get("workflow", "")))
    return tuple(a.role for a in workflow.agents) if workflow is not None else ()


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k from n samples of which c pass
    (Chen et al. 2021): 1 - C(n-c, k) / C(n, k)."""
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def _pct(num: float, den: float) -> str:
    return "n/a" if den == 0 else f"{100.0 * num / den:.2f}"


def step_order(done: Iterable[ResultLine]) -> dict[str, int]:
    """Each step's place among the runs' steps, in the order the runs took them:
    every run lists its steps in order, and one order is merged from them all
    (a step first seen earlier goes first where the runs do not say), so no
    workflow's steps need naming here."""
    first: dict[str, int] = {}
    before: dict[str, set[str]] = {}
    for r in done:
        steps = [str(x["step"]) for x in r.get("steps", [])]
        steps += [str(x["step"]) for x in [*r.get("checks", []), *r.get("debug", [])]]
        for step in steps:
            first.setdefault(step, len(first))
            before.setdefault(step, set())
        for a, b in itertools.pairwise(str(x["step"]) for x in r.get("steps", [])):
            if a != b:
                before[b].add(a)
    order: dict[str, int] = {}
    while len(order) < len(first):
        left = [st for st in first if st not in order]
        ready = [st for st in left if before[st] <= order.keys()] or left  # a cycle: the first seen goes
        order[min(ready, key=first.__getitem__)] = len(order)
    return order


def _ranked(steps: Iterable[str], order: dict[str, int]) -> list[str]:
    return sorted(steps, key=lambda st: (order.get(st, len(order)), st))


@dataclass
class BenchData:
    """A bench folder read back: its spec and the latest line of every run."""

    folder: Path
    spec: BenchSpecFile
    records: list[ResultLine]
    problem_ids: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """The lines of ``results.jsonl`` that were not read, each named with why
    (terminal-safe, one line each; see :mod:`qflow_tui.core.bench.results`)."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """Runs (by run key) whose line was not read, with why."""

    @property
    def done(self) -> list[ResultLine]:
        return [r for r in self.records if r.get("status") == "done"]

    @property
    def label(self) -> str:
        s = self.spec
        return f"{s.get('workflow', '?')} · {s.get('model', '?')}"

    @property
    def dataset(self) -> str:
        return str(self.spec.get("dataset", ""))

    @property
    def full_label(self) -> str:
        """The label with the dataset, the setting and the convention: what a
        row of a comparison must say to be read right."""
        return f"{title(self.dataset)} · {self.label} · {setting(self.spec)} · {convention(self.spec)}"


def load_bench(folder: Path | str, read: ResultsRead | None = None) -> BenchData:
    """The bench in ``folder``; ``read``: its ``results.jsonl`` already read
    (by the runner that has just ended), else it is read here."""
    folder = Path(folder)
    spec = read_spec(folder)
    if spec is None:
        raise BenchError(f"{folder} is not a bench folder (no bench.json): give the --out folder of a qflow bench run")
    read = read if read is not None else read_lines(folder)
    records = list(latest_results(read.records).values())
    return BenchData(
        folder, spec, records, list(spec.get("problems", [])), read.said(folder / RESULTS), read.unreadable
    )


# ------------------------------------------------------------------ the tables
def step_columns(done: Iterable[ResultLine]) -> list[str]:
    records = list(done)
    steps: set[str] = set()
    for r in records:
        steps.update(s["step"] for s in r.get("steps", []))
    return _ranked(steps, step_order(records))


def _after(rec: ResultLine, column: str, order: dict[str, int]) -> StepRow | None:
    """The run's output after the step ``column``: that step's row, else the
    last step before it (a run accepted early keeps its program)."""
    best = None
    for s in rec.get("steps", []):
        if order.get(s["step"], len(order)) <= order.get(column, len(order)):
            best = s
    return best


def table_pass_by_step(done: list[ResultLine]) -> tuple[list[str], list[str]]:
    """Table 1: pass@1 of the first program (zero-shot), after each step, and final."""
    cols = step_columns(done)
    order = step_order(done)
    n = len(done)
    header = ["first program", *cols, "final", "Δ"]
    first = sum(1 for r in done if r.get("first_passed"))
    values = [_pct(first, n)]
    for c in cols:
        values.append(_pct(sum(1 for r in done if (a := _after(r, c, order)) and a["passed"]), n))
    final = sum(1 for r in done if r.get("passed"))
    values.append(_pct(final, n))
    values.append("n/a" if n == 0 else f"{100.0 * (final - first) / n:+.2f}")
    return header, values


def pass_by_step_intervals(done: list[ResultLine]) -> list[str]:
    """The 95% interval of each figure of :func:`table_pass_by_step`, in its
    order: Wilson's for each pass@1; for Δ (final against first program, on the
    same problems) the paired bootstrap's."""
    cols = step_columns(done)
    order = step_order(done)
    n = len(done)
    out = [interval_text(wilson(sum(1 for r in done if r.get("first_passed")), n))]
    for c in cols:
        out.append(interval_text(wilson(sum(1 for r in done if (a := _after(r, c, order)) and a["passed"]), n)))
    out.append(interval_text(wilson(sum(1 for r in done if r.get("passed")), n)))
    both = paired([bool(r.get("first_passed")) for r in done], [bool(r.get("passed")) for r in done])
    out.append(interval_text(both.interval, lambda x: f"{100 * x:+.1f}"))
    return out


def table_cqc(done: list[ResultLine]) -> tuple[list[str], list[list[str]]]:
    """Table 4: the Code Quality Checker as a classifier of the output after each
    step (positive: passes the evaluation tests; predicted: accepted by then)."""
    cols = [c for c in step_columns(done) if c != "revert"]
    order = step_order(done)
    rows: dict[str, list[str]] = {
        k: [] for k in ("Actual positive", "Accuracy", "Precision", "Recall", "% of final output")
    }
    for c in cols:
        tp = fp = fn = tn = 0
        for r in done:
            a = _after(r, c, order)
            passed, accepted = bool(a and a["passed"]), bool(a and a["accepted"])
            tp += passed and accepted
            fp += (not passed) and accepted
            fn += passed and not accepted
            tn += (not passed) and not accepted
        n = tp + fp + fn + tn
        rows["Actual positive"].append(_pct(tp + fn, n))
        rows["Accuracy"].append(_pct(tp + tn, n))
        rows["Precision"].append(_pct(tp, tp + fp))
        rows["Recall"].append(_pct(tp, tp + fn))
        rows["% of final output"].append(_pct(tp + fp, n))
    return ["statistic", *cols], [[k, *v] for k, v in rows.items()]


def table_cqc_verdicts(done: list[ResultLine]) -> list[list[str]]:
    """Every CQC verdict on a program, by step: how often it was right."""
    by_step: dict[str, list[int]] = {}
    for r in done:
        for ch in r.get("checks", []):
            c = by_step.setdefault(ch["step"], [0, 0, 0, 0])
            c[0 if ch["passed"] and ch["accepted"] else 1 if ch["accepted"] else 2 if ch["passed"] else 3] += 1
    out = []
    for step in _ranked(by_step, step_order(done)):
        tp, fp, fn, tn = by_step[step]
        out.append(
            [step, str(tp + fp + fn + tn), _pct(tp + tn, tp + fp + fn + tn), _pct(tp, tp + fp), _pct(tp, tp + fn)]
        )
    return out


def table_tqc(done: list[ResultLine]) -> list[list[str]]:
    """Table 6: the Test Quality Checker as a classifier; a positive test is an
    incorrect one (the canonical solution fails it), predicted by rejection."""
    rows = [t for r in done for t in r.get("tests", []) if t.get("kept") is not None]
    all_tests = [t for r in done for t in r.get("tests", [])]
    covered = sum(1 for r in done if any(t.get("kept") is not None for t in r.get("tests", [])))
    tp = sum(1 for t in rows if not t["correct"] and not t["kept"])
    fp = sum(1 for t in rows if t["correct"] and not t["kept"])
    fn = sum(1 for t in rows if not t["correct"] and t["kept"])
    tn = sum(1 for t in rows if t["correct"] and t["kept"])
    triggered = [t for t in rows if t.get("triggered")]
    prec, rec = (tp / (tp + fp) if tp + fp else None), (tp / (tp + fn) if tp + fn else None)
    # F1 as a percentage like the rows around it (it said 0.86 beside 85.71).
    f1 = "n/a" if not prec or not rec else f"{100.0 * 2 * prec * rec / (prec + rec):.2f}"
    return [
        ["Total programs", str(len(done))],
        ["Covered programs (tests went through the TQC)", str(covered)],
        ["Total synthesized tests", str(len(all_tests))],
        ["Incorrect synthesized tests (%)", _pct(sum(1 for t in all_tests if not t["correct"]), len(all_tests))],
        ["Tests judged by the TQC", str(len(rows))],
        ["Triggered tests (the first program fails them)", str(len(triggered))],
        ["Incorrect among triggered (%)", _pct(sum(1 for t in triggered if not t["correct"]), len(triggered))],
        ["Accuracy", _pct(tp + tn, len(rows))],
        ["Precision", _pct(tp, tp + fp)],
        ["Recall", _pct(tp, tp + fn)],
        ["F1", f1],
        ["Incorrect tests filtered", str(tp)],
        ["Correct tests filtered", str(fp)],
    ]


def table_debug(done: list[ResultLine]) -> list[list[str]]:
    """Self-debugging deviation: what each debug epoch did to the programs it changed."""
    by_step: dict[str, list[int]] = {}
    for r in done:
        for d in r.get("debug", []):
            c = by_step.setdefault(d["step"], [0, 0, 0, 0])
            c[(0 if d["before"] else 2) + (0 if d["after"] else 1)] += 1
    out = []
    for step in _ranked(by_step, step_order(done)):
        cc, ci, ic, ii = by_step[step]
        out.append([step, str(cc + ci + ic + ii), str(cc), str(ci), str(ic), str(ii), _pct(ci, cc + ci)])
    return out


def table_tokens(done: list[ResultLine], roles: Sequence[str] = ()) -> list[list[str]]:
    """Table 11: average tokens (input + output) per problem, per agent: the
    workflow's ``roles`` in its order, then any other alphabetically."""
    agents: set[str] = set()
    for r in done:
        agents.update((r.get("tokens") or {}).keys())
    order = [a for a in roles if a in agents] + sorted(agents - set(roles))
    n = len(done)
    out = []
    for a in order:
        tin = sum((r.get("tokens") or {}).get(a, {}).get("input", 0) for r in done)
        tout = sum((r.get("tokens") or {}).get(a, {}).get("output", 0) for r in done)
        calls = sum((r.get("tokens") or {}).get(a, {}).get("calls", 0) for r in done)
        out.append([a, f"{tin / n:.0f}", f"{tout / n:.0f}", f"{(tin + tout) / n:.0f}", f"{calls / n:.2f}"])
    total = sum(r.get("tokens_total", 0) for r in done)
    out.append(["total", "", "", f"{total / n:.0f}" if n else "n/a", ""])
    return out


def last_programs_k(spec: Mapping[str, object]) -> int:
    """k when the bench's workflow's paper reports pass@k over the last k programs
    of a run (its spec says so; QualityFlow: 5), else 0."""
    workflow = WORKFLOWS.get(str(spec.get("workflow", "")))
    return workflow.pass_at_last if workflow is not None else 0


def pass_at_last(done: list[ResultLine], k: int) -> tuple[int, int, int]:
    """(runs, passing EvalPlus's base inputs, passing) where a run counts when any
    of the last ``k`` programs it produced passes (QualityFlow section 4.1's
    pass@5); a run that produced fewer counts all of its programs."""
    base = passed = 0
    for r in done:
        programs = r.get("programs")
        # A hand-edited line may hold anything: what is not a program is not counted.
        made = [p for p in programs if isinstance(p, dict)] if isinstance(programs, list) else []
        last = made[-k:] if k > 0 else []
        passed += any(p.get("passed") for p in last)
        base += any(p.get("base", p.get("passed")) for p in last)
    return len(done), base, passed


def bench_price(spec: Mapping[str, object]) -> Price | None:
    """The bench's price: ``--price-in/--price-out`` when given (with the
    provider's usual cache ratios), else the dated price table's for its model;
    None when unknown, or nothing to pay (a local or script model)."""
    pin, pout = spec.get("price_in"), spec.get("price_out")
    model = str(spec.get("model") or "")
    if pin is not None or pout is not None:
        return with_cache_rates(model, _dollars(pin), _dollars(pout), "")
    try:
        price = price_of(model, load_prices())
    except PriceError:
        return None
    return price if price is not None and (price.input or price.output) else None


def _dollars(value: object) -> float:
    """A spec's price, checked a number or null when the spec was read."""
    return float(value) if isinstance(value, (int, float)) else 0.0


def records_cost(records: list[ResultLine], price: Price | None) -> float | None:
    """US dollars of these runs, each part of each prompt at its own rate."""
    if price is None:
        return None
    return sum(price.cost(t) for r in records for t in (r.get("tokens") or {}).values() if isinstance(t, dict))


def cost(data: BenchData) -> float | None:
    return records_cost(data.done, bench_price(data.spec))


def _whole(value: object) -> int:
    """A count from a results line: a whole number of 0 or more, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def cached_tokens(records: list[ResultLine]) -> tuple[float, float]:
    """(read from, written to) the prompt cache, over these runs (whole numbers
    but for a hand-edited line: a line's counts are read as numbers)."""
    tallies = [t for r in records for t in (r.get("tokens") or {}).values() if isinstance(t, dict)]
    return sum(t.get("cache_read", 0) for t in tallies), sum(t.get("cache_write", 0) for t in tallies)


def _unfinished(data: BenchData) -> list[ResultLine]:
    return [r for r in data.records if r.get("status") != "done"]


def base_and_plus(done: list[ResultLine]) -> tuple[int, int, int]:
    """(runs, passing EvalPlus's base inputs, passing base and plus) over finished runs."""
    base = sum(1 for r in done if (r.get("verdict") or {}).get("base", r.get("passed")))
    return len(done), base, sum(1 for r in done if r.get("passed"))


def _number(pid: str) -> str:
    """``humaneval-plus/3`` and ``humaneval/3`` as ``HumanEval/3`` (EvalPlus's
    own ids): the same problem under either dataset."""
    name, _, n = pid.partition("/")
    return f"{'HumanEval' if name.startswith('humaneval') else 'Mbpp'}/{n}"


def _id_key(pid: str) -> tuple[str, int]:
    name, _, n = pid.partition("/")
    return name, int(n) if n.isdigit() else 0
