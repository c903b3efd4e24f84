"""The paper's tables for one bench (or several side by side), from the lines
of ``results.jsonl``: pass@1 by workflow step (QualityFlow Table 1), the Code
Quality Checker as a classifier at each step (Table 4), the Test Quality
Checker as a classifier of synthesized tests (Table 6), self-debugging
deviation, average tokens per agent (Table 11), and pass@k."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..escape import markdown as md
from ..llm.prices import Price, PriceError, load_prices, price_of, with_cache_rates
from ..workflows import WORKFLOWS
from .bench_runner import latest_results, read_spec
from .protocol import bench_config, workflow_settings
from .results import RESULTS, read_lines

if TYPE_CHECKING:
    from .figures import BenchFigures


def _roles(spec: dict[str, Any]) -> tuple[str, ...]:
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


def step_order(done: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Each step's place among the runs' steps, in the order the runs took them:
    every run lists its steps in order, and one order is merged from them all
    (a step first seen earlier goes first where the runs do not say), so no
    workflow's steps need naming here."""
    first: dict[str, int] = {}
    before: dict[str, set[str]] = {}
    for r in done:
        steps = [str(x["step"]) for x in r.get("steps", [])]
        steps += [str(x["step"]) for key in ("checks", "debug") for x in r.get(key, [])]
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
    spec: dict[str, Any]
    records: list[dict[str, Any]]
    problem_ids: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """The lines of ``results.jsonl`` that were not read, each named with why
    (terminal-safe, one line each; see :mod:`qflow_tui.core.bench.results`)."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """Runs (by run key) whose line was not read, with why."""

    @property
    def done(self) -> list[dict[str, Any]]:
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
        from .protocol import convention, setting, title

        return f"{title(self.dataset)} · {self.label} · {setting(self.spec)} · {convention(self.spec)}"


def load_bench(folder: Path | str) -> BenchData:
    from .bench_runner import BenchError

    folder = Path(folder)
    spec = read_spec(folder)
    if spec is None:
        raise BenchError(f"{folder} is not a bench folder (no bench.json): give the --out folder of a qflow bench run")
    read = read_lines(folder)
    records = list(latest_results(read.records).values())
    return BenchData(
        folder, spec, records, list(spec.get("problems", [])), read.said(folder / RESULTS), read.unreadable
    )


# ------------------------------------------------------------------ the tables
def step_columns(done: Iterable[dict[str, Any]]) -> list[str]:
    records = list(done)
    steps: set[str] = set()
    for r in records:
        steps.update(s["step"] for s in r.get("steps", []))
    return _ranked(steps, step_order(records))


def _after(rec: dict[str, Any], column: str, order: dict[str, int]) -> dict[str, Any] | None:
    """The run's output after the step ``column``: that step's row, else the
    last step before it (a run accepted early keeps its program)."""
    best = None
    for s in rec.get("steps", []):
        if order.get(s["step"], len(order)) <= order.get(column, len(order)):
            best = s
    return best


def table_pass_by_step(done: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
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


def pass_by_step_intervals(done: list[dict[str, Any]]) -> list[str]:
    """The 95% interval of each figure of :func:`table_pass_by_step`, in its
    order: Wilson's for each pass@1; for Δ (final against first program, on the
    same problems) the paired bootstrap's."""
    from .stats import interval_text, paired, wilson

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


def table_cqc(done: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
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


def table_cqc_verdicts(done: list[dict[str, Any]]) -> list[list[str]]:
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


def table_tqc(done: list[dict[str, Any]]) -> list[list[str]]:
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
    f1 = "n/a" if not prec or not rec else f"{2 * prec * rec / (prec + rec):.2f}"
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


def table_debug(done: list[dict[str, Any]]) -> list[list[str]]:
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


def table_tokens(done: list[dict[str, Any]], roles: Sequence[str] = ()) -> list[list[str]]:
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


def last_programs_k(spec: dict[str, Any]) -> int:
    """k when the bench's workflow's paper reports pass@k over the last k programs
    of a run (its spec says so; QualityFlow: 5), else 0."""
    workflow = WORKFLOWS.get(str(spec.get("workflow", "")))
    return workflow.pass_at_last if workflow is not None else 0


def pass_at_last(done: list[dict[str, Any]], k: int) -> tuple[int, int, int]:
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


def pass_at_last_words(spec: dict[str, Any], done: list[dict[str, Any]]) -> str:
    """``pass@5 (the last 5 programs) 80.00% (8/10), 95% CI [49.0, 94.3]`` (Wilson's
    interval), with base and plus apart on EvalPlus's datasets; "" when the bench's
    workflow reports no such figure."""
    from .protocol import is_evalplus

    k = last_programs_k(spec)
    if not k:
        return ""
    from .stats import interval_text, wilson

    n, base, passed = pass_at_last(done, k)
    what = f"pass@{k} (the last {k} programs)"
    base_ci, ci = interval_text(wilson(base, n)), interval_text(wilson(passed, n))
    if is_evalplus(str(spec.get("dataset", ""))):
        plus = f"plus {_pct(passed, n)}% ({passed}/{n}), 95% CI {ci}"
        return f"{what} base {_pct(base, n)}% ({base}/{n}), 95% CI {base_ci}, {plus}"
    return f"{what} {_pct(passed, n)}% ({passed}/{n}), 95% CI {ci}"


def bench_price(spec: dict[str, Any]) -> Price | None:
    """The bench's price: ``--price-in/--price-out`` when given (with the
    provider's usual cache ratios), else the dated price table's for its model;
    None when unknown, or nothing to pay (a local or script model)."""
    pin, pout = spec.get("price_in"), spec.get("price_out")
    model = str(spec.get("model") or "")
    if pin is not None or pout is not None:
        return with_cache_rates(model, float(pin or 0), float(pout or 0), "")
    try:
        price = price_of(model, load_prices())
    except PriceError:
        return None
    return price if price is not None and (price.input or price.output) else None


def records_cost(records: list[dict[str, Any]], price: Price | None) -> float | None:
    """US dollars of these runs, each part of each prompt at its own rate."""
    if price is None:
        return None
    return sum(price.cost(t) for r in records for t in (r.get("tokens") or {}).values() if isinstance(t, dict))


def cost(data: BenchData) -> float | None:
    return records_cost(data.done, bench_price(data.spec))


def _whole(value: Any) -> int:
    """A count from a results line: a whole number of 0 or more, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def cached_tokens(records: list[dict[str, Any]]) -> tuple[int, int]:
    """(read from, written to) the prompt cache, over these runs."""
    tallies = [t for r in records for t in (r.get("tokens") or {}).values() if isinstance(t, dict)]
    return sum(t.get("cache_read", 0) for t in tallies), sum(t.get("cache_write", 0) for t in tallies)


# ------------------------------------------------------------------ markdown
def _md(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table of cells already written as markdown (outside text through ``md.text``)."""
    return md.table(header, rows)


def _unfinished(data: BenchData) -> list[dict[str, Any]]:
    return [r for r in data.records if r.get("status") != "done"]


def base_and_plus(done: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(runs, passing EvalPlus's base inputs, passing base and plus) over finished runs."""
    base = sum(1 for r in done if (r.get("verdict") or {}).get("base", r.get("passed")))
    return len(done), base, sum(1 for r in done if r.get("passed"))


#: Run settings that shape every model call, shown with any workflow's own.
MODEL_SETTINGS_SHOWN = ("temperature", "max_tokens", "seed", "effort", "test_timeout")


def _settings_line(s: dict[str, Any]) -> str:
    settings = s.get("settings") or {}
    shown = [md.text(f"{k}={v}") for k, v in workflow_settings(s).items()]
    model = [
        md.text(f"{k}={settings[k]}")
        for k in MODEL_SETTINGS_SHOWN
        if k in settings and not (k == "seed" and settings[k] == -1) and settings[k] != ""
    ]
    line = "Settings: " + (", ".join(shown) if shown else f"{md.text(s.get('workflow'))} has no settings of its own")
    if model:
        line += "; model calls: " + ", ".join(model)
    workflow = WORKFLOWS.get(str(s.get("workflow", "")))
    notes = workflow.setting_notes(bench_config(s)) if workflow is not None else ()
    return line + "." + "".join(f" Note: {note}." for note in notes)


def sampling_note(data: BenchData) -> str:
    """A line for the report's header when the model calls did not carry the
    paper's temperatures (the Anthropic API takes none): read from a finished
    run's session header, which records what was really sent; "" otherwise."""
    import json

    from ..safe_text import one_line

    for rec in data.done:
        session = rec.get("session")
        if not isinstance(session, str):
            continue
        try:
            with open(data.folder / session, encoding="utf-8", errors="replace") as fh:
                header = json.loads(fh.readline(1 << 20))
        except (OSError, ValueError):
            continue
        sampling = header.get("sampling") if isinstance(header, dict) else None
        said = sampling.get("temperature") if isinstance(sampling, dict) else None
        if not isinstance(said, str):
            return ""
        if said.startswith("not sent"):
            return (
                f"Temperature: {md.text(one_line(said, 160))}. Every agent sampled at the provider's default, "
                "not at the paper's temperatures (0; 0.1 for QualityFlow's test designer), so two runs of a "
                "problem can differ."
            )
        return ""
    return ""


def published_lines(data: BenchData, figures: BenchFigures, family: str | None = None) -> list[str]:
    """The report's section on the paper's figure this bench reproduces (the
    workflow with the paper's settings, an ablation's too, on the dataset, with
    a model of the family the paper ran, or of ``family``), ours beside it; or
    why none is shown."""
    from .papers import family_of, paper, published

    found = published(data.spec, family)
    out = ["", "## Published figure", ""]
    if not found and (family or family_of(str(data.spec.get("model", "")))) is None:
        out.append(
            "No published figure: no paper ran a model of this bench's model's family; `qflow bench report DIR "
            "--paper-model FAMILY` compares with a family's rows (`qflow bench paper` lists them)."
        )
        return out
    if not found:
        out.append(
            "No paper printed a figure for this workflow with these settings on this dataset with a model of "
            "this family; `qflow bench paper` lists every published row and the command that reproduces it."
        )
        return out
    for f in found:
        ours = (figures.base if f.part == "base" else figures.pass1) or figures.pass1
        what = f"pass@1 ({f.part})" if f.part else "pass@1"
        value, printed = ours.value, f.value
        mine = f"{100 * value:.2f}" if value is not None else "n/a"
        delta = ""
        if value is not None and printed is not None:
            delta = f"; Δ (ours − published) {100 * value - printed:+.2f} points"
        where = f"{f.source()}, column {f.column} ({f.ref})"
        out.append(f"- {what}: ours {mine}, published {f.printed}{delta}. {where}.")
    out.append("")
    same = f"the model family asked for ({family})" if family else "model family"
    out.append(
        f"The paper ran {', '.join(sorted({f.model for f in found}))}, not this bench's model: the figures are "
        f"of the same workflow, settings, dataset and {same}. Cited: "
        + "; ".join(dict.fromkeys(paper(f.paper).citation for f in found))
    )
    return out


def render_report(data: BenchData, paper_family: str | None = None) -> str:
    """The bench's report in markdown; ``paper_family`` matches the papers' rows
    of that model family instead of the bench's own."""
    from .cluster import cluster_lines
    from .datasets import load_dataset, without_visible_tests
    from .figures import bench_figures
    from .protocol import is_evalplus, protocol_lines, title
    from .stats import BOOTSTRAP, WILSON, interval_text

    s = data.spec
    done = sorted(data.done, key=lambda r: (r["id"], r.get("sample", 0)))
    first_sample = [r for r in done if r.get("sample", 0) == 0]
    total = len(data.problem_ids) * int(s.get("samples", 1))
    dataset = str(s.get("dataset", ""))
    figures = bench_figures(data)
    parts = [f"# Bench: {md.text(title(dataset))} · {md.text(s.get('workflow'))} · {md.text(s.get('model'))}", ""]
    parts += [md.text(line) for line in protocol_lines(s)]
    parts += [md.text(line) for line in cluster_lines(data.folder, data.records)]
    sampling = sampling_note(data)
    if sampling:
        parts.append(sampling)
    parts.append("")
    last = pass_at_last_words(s, first_sample) if first_sample else ""
    last = f"; {last}" if last else ""
    if is_evalplus(dataset) and figures.base is not None:
        parts.append(
            f"{len(done)} of {total} runs finished; final pass@1 base {figures.base.text()}, "
            f"plus {figures.pass1.text()}{last}."
        )
    else:
        parts.append(f"{len(done)} of {total} runs finished; final pass@1 {figures.pass1.text()}{last}.")
    if figures.spread is not None:
        sp = figures.spread
        each = ", ".join(f"{100 * r:.2f}" for r in sp.rates)
        parts.append(
            f"pass@1 of each of the {len(sp.rates)} samples: {each} (mean {100 * sp.mean:.2f}%, "
            f"standard deviation {100 * (sp.std or 0.0):.2f} points across samples)."
        )
    parts.append(
        f"Intervals are 95%: pass@1 by the {WILSON}"
        + (f"; pass@k and cost per solved problem by a {BOOTSTRAP}." if figures.cost or figures.pass_at_k else ".")
    )
    unfinished = _unfinished(data)
    if unfinished or len(done) < total:
        provider = sum(1 for r in unfinished if r.get("status") == "provider_error")
        other = sum(1 for r in unfinished if r.get("status") == "error")
        parts.append(
            f"Not counted: {total - len(done)} unfinished ({provider} provider failures, {other} errors, "
            f"{total - len(done) - provider - other} not run); rerun the same command to finish them."
        )
    parts.append("")
    parts.append(_settings_line(s))
    tokens_total = sum(r.get("tokens_total", 0) for r in done)
    read, write = cached_tokens(done)
    cached = f" ({read} read from the prompt cache, {write} written to it)" if read or write else ""
    priced = ""
    if figures.cost is not None:
        c = figures.cost
        per = f"{c.per_solved_text()} per solved problem" if c.per_solved is not None else "no problem solved"
        priced = f"cost ${c.total:.4f} ({per})"
    unreported = sum(_whole(r.get("tokens_unreported")) for r in done)
    if unreported:  # counted by qflow, not the provider (docs/benchmark.md)
        cached += (
            f" (estimated for {unreported} call{'s' if unreported != 1 else ''} the provider reported no usage for: "
            "words and punctuation marks" + (", and so is the cost" if priced else "") + ")"
        )
    parts.append(f"Tokens: {tokens_total}{cached}" + (f"; {priced}" if priced else "") + ".")
    parts += published_lines(data, figures, paper_family)
    if not first_sample:
        return "\n".join(parts) + "\n"

    h, v = table_pass_by_step(first_sample)
    ci = pass_by_step_intervals(first_sample)
    h = [md.text(c) for c in h]
    parts += ["", "## pass@1 by workflow step (Table 1)", "", _md(["", *h], [["pass@1", *v], ["95% CI", *ci]])]
    parts.append("")
    parts.append(
        "Each step column is what the run would have returned had it stopped after that step. The intervals "
        f"are Wilson's; Δ's (final against first program, problem by problem) is a paired {BOOTSTRAP}."
    )
    last = pass_at_last_words(s, first_sample)
    if last:
        k = last_programs_k(s)
        parts += ["", f"## pass@{k} as the paper counts it", ""]
        parts += [f"{last}.", ""]
        parts.append(
            f"As the workflow's paper counts its pass@{k}, a problem counts when any of the last {k} programs "
            "its run produced passes, in the order they were produced; a run that produced fewer counts them "
            f"all. A reverted run's answer, its first program, is among them only when it is one of its last {k}."
        )
    # A problem with no visible test gave the checker nothing to check: counted apart.
    unchecked = [r for r in first_sample if any(c.get("no_visible_test") for c in r.get("checks", []))]
    checked = [r for r in first_sample if not any(c.get("no_visible_test") for c in r.get("checks", []))]
    h, rows = table_cqc(checked)
    if any(r.get("checks") for r in first_sample):
        parts += ["", "## Code Quality Checker as a classifier (Table 4)", "", _md([md.text(c) for c in h], rows)]
        parts += ["", "Every CQC verdict, per step:", ""]
        verdict_rows = [[md.text(step), *rest] for step, *rest in table_cqc_verdicts(checked)]
        parts.append(_md(["step", "verdicts", "accuracy", "precision", "recall"], verdict_rows))
        if unchecked:
            parts += [
                "",
                f"Left out of both: {len(unchecked)} problems with no visible test, whose checks judged nothing "
                "(the Code Quality Checker examines visible-test conformity; with no test it accepts at once): "
                + ", ".join(md.text(str(r.get("id"))) for r in unchecked)
                + ".",
            ]
    if any(r.get("tests") for r in first_sample):
        parts += ["", "## Test Quality Checker on synthesized tests (Table 6)", ""]
        parts.append("A positive test is an incorrect one: the canonical solution fails it.")
        parts += ["", _md(["statistic", "value"], table_tqc(first_sample))]
    dbg = table_debug(first_sample)
    if dbg:
        parts += ["", "## Self-debugging deviation (Table 7)", ""]
        parts.append(
            _md(
                [
                    "step",
                    "debugged",
                    "correct→correct",
                    "correct→incorrect",
                    "incorrect→correct",
                    "incorrect→incorrect",
                    "% correct made incorrect",
                ],
                [[md.text(step), *rest] for step, *rest in dbg],
            )
        )
    parts += ["", "## Average tokens per problem, per agent (Table 11)", ""]
    agents = [[md.text(agent), *rest] for agent, *rest in table_tokens(first_sample, _roles(s))]
    parts.append(_md(["agent", "input", "output", "total", "calls"], agents))
    if int(s.get("samples", 1)) > 1:
        rows = [[f"pass@{p.k}", f"{100 * p.value:.2f}", interval_text(p.interval)] for p in figures.pass_at_k]
        parts += ["", "## pass@k (unbiased estimator)", "", _md(["metric", "%", "95% interval"], rows)]
    if dataset.startswith("humaneval"):
        try:
            bare = without_visible_tests(load_dataset(dataset, ids=[i.split("/")[-1] for i in data.problem_ids]))
        except Exception:
            bare = []
        if bare:
            parts += [
                "",
                "## Problems run without visible tests",
                "",
                "Their docstrings show no usable example and the paper does not say what it showed; a hidden "
                "test is never shown instead, so these ran with no visible test: "
                + ", ".join(md.text(b) for b in bare)
                + ".",
            ]
    failed = [r for r in first_sample if not r.get("passed")]
    if failed:
        parts += ["", "## Problems whose final program failed", ""]
        for r in failed:
            detail = str((r.get("verdict") or {}).get("detail", ""))
            parts.append(f"- {md.text(r['id'])}: {md.text(detail[:200])} ({md.text(r.get('session'))})")
    near = [r for r in first_sample if "near its time limit" in str((r.get("verdict") or {}).get("detail", ""))]
    if near:
        # Timing verdicts a busier machine, or another run, may judge the other way.
        parts += ["", "## Verdicts near a time limit", ""]
        for r in near:
            verdict = r.get("verdict") or {}
            status = "pass" if r.get("passed") else str(verdict.get("status", "fail"))
            parts.append(f"- {md.text(r['id'])}: {md.text(status)}: {md.text(str(verdict.get('detail', ''))[:200])}")
    if unfinished:
        parts += ["", "## Unfinished (retried on resume)", ""]
        for r in unfinished:
            error = md.text(str(r.get("error", ""))[:200])
            parts.append(f"- {md.text(r['id'])}: {md.text(r.get('status'))}: {error}")
    return "\n".join(parts) + "\n"


def compare_problem(benches: list[BenchData]) -> str | None:
    """Why these benches cannot be compared problem by problem (HumanEval
    against MBPP), or None when they can."""
    from .protocol import family, title

    families = {family(b.dataset) for b in benches}
    if len(families) > 1:
        named = ", ".join(f"{b.folder} ({title(b.dataset)})" for b in benches)
        return (
            f"these benches judge different problems ({named}): compare HumanEval with HumanEval(+) and MBPP "
            "with MBPP(+), or put them side by side with 'qflow bench table'"
        )
    return None


def _mixed_settings_note(benches: list[BenchData]) -> list[str]:
    from .protocol import setting

    settings = {setting(b.spec) for b in benches}
    if len(settings) > 1:
        relaxed = [str(i + 1) for i, b in enumerate(benches) if setting(b.spec) == "relaxed"]
        return [
            "",
            f"**Mixed settings:** bench {', '.join(relaxed)} executed the visible tests during synthesis "
            "(relaxed); the others did not (standard). Their figures are not comparable as equals.",
        ]
    return []


def bench_labels(benches: list[BenchData]) -> list[str]:
    """Each bench's full label; where two would read alike, with the workflow
    settings that tell them apart (``rounds=3``), so no two rows look the same."""
    plain = [b.full_label for b in benches]
    settings = [workflow_settings(b.spec) for b in benches]
    labels = list(plain)
    for i, label in enumerate(plain):
        alike = [j for j, other in enumerate(plain) if other == label and j != i]
        differ = [k for k, v in settings[i].items() if any(settings[j].get(k) != v for j in alike)]
        if differ:
            labels[i] = f"{label} · " + ", ".join(f"{k}={settings[i][k]}" for k in differ)
    return labels


def render_compare(benches: list[BenchData], pairs: str = "all") -> str:
    """The tables side by side for several benches (of one dataset family), the
    paired statistics of each pair (or of each against the first: ``pairs``),
    and the problems whose verdicts differ."""
    from .figures import bench_cost
    from .stats import BOOTSTRAP, WILSON, dollars, interval_text, wilson

    labels = [f"{i + 1}: {md.text(label)}" for i, label in enumerate(bench_labels(benches))]
    parts = ["# Bench comparison", ""]
    for i, (b, label) in enumerate(zip(benches, bench_labels(benches), strict=True)):
        parts.append(f"{i + 1}. {md.code(b.folder)}: {md.text(label)} ({len(b.done)} finished)")
    parts += _mixed_settings_note(benches)
    firsts = [[r for r in b.done if r.get("sample", 0) == 0] for b in benches]
    cols: list[str] = []
    for f in firsts:
        cols += [c for c in step_columns(f) if c not in cols]
    cols = _ranked(cols, step_order(r for f in firsts for r in f))
    rows = []
    for label, f in zip(labels, firsts, strict=True):
        h, v = table_pass_by_step(f)
        ci = pass_by_step_intervals(f) if f else [""] * len(h)
        by_col = {col: f"{value} {iv}".strip() for col, value, iv in zip(h, v, ci, strict=True)}
        rows.append([label, by_col["first program"], *[by_col.get(c, "") for c in cols], by_col["final"], by_col["Δ"]])
    header = ["bench", "first program", *(md.text(c) for c in cols), "final", "Δ"]
    parts += ["", "## pass@1 by workflow step", "", _md(header, rows)]
    parts += ["", f"Each figure with its 95% interval: Wilson's; Δ's a paired {BOOTSTRAP}."]
    if any(b.dataset.endswith("-plus") for b in benches):
        plus_rows = []
        for label, b, f in zip(labels, benches, firsts, strict=True):
            if b.dataset.endswith("-plus"):
                n, base, plus = base_and_plus(f)
                plus_rows.append([label, _pct(base, n), _pct(plus, n)])
        parts += ["", "## EvalPlus base and plus (final pass@1)", "", _md(["bench", "base", "plus"], plus_rows)]
    if any(last_programs_k(b.spec) for b in benches):
        last_rows = []
        for label, b, f in zip(labels, benches, firsts, strict=True):
            words = pass_at_last_words(b.spec, f) if f else ""
            if not words and f:
                words = (
                    f"n/a: {md.text(b.spec.get('workflow', '?'))}'s paper reports no pass@k over a run's last programs"
                )
            last_rows.append([label, words or "n/a: no run finished"])
        parts += ["", "## pass@k over each run's last k programs (the paper's pass@5)", ""]
        parts.append(_md(["bench", "figure"], last_rows))
    tok_rows = []
    for label, b, f in zip(labels, benches, firsts, strict=True):
        total = sum(r.get("tokens_total", 0) for r in f)
        read, _write = cached_tokens(f)
        solved = sum(1 for r in f if r.get("passed"))
        c = bench_cost(b, f)
        if c is None:
            per_solved, per_interval = "n/a", ""
        elif c.per_solved is None:
            per_solved, per_interval = "none solved", ""
        else:
            per_solved, per_interval = f"${c.per_solved:.4f}", interval_text(c.interval, dollars)
        tok_rows.append(
            [
                label,
                _pct(solved, len(f)) if f else "n/a",
                interval_text(wilson(solved, len(f))),
                f"{total / len(f):.0f}" if f else "n/a",
                f"{read / len(f):.0f}" if f else "n/a",
                per_solved,
                per_interval,
                str(len(f)),
            ]
        )
    header = ["bench", "pass@1", "95% CI", "tokens", "of them cached", "cost per solved", "95% CI", "problems"]
    parts += ["", "## pass@1, tokens and cost per problem", "", _md(header, tok_rows)]
    parts += [
        "",
        f"pass@1 over the first sample of each problem, its interval the {WILSON}; cost per solved problem "
        f"over the same runs, its interval a {BOOTSTRAP}.",
    ]
    parts += paired_section(benches, pairs)
    # HumanEval and HumanEval+ share their problems: compare them by number.
    verdicts = [{_number(r["id"]): bool(r.get("passed")) for r in f} for f in firsts]
    shown = {_number(r["id"]): r["id"] for f in reversed(firsts) for r in f}  # the first bench's spelling
    common = sorted(set.intersection(*(set(v) for v in verdicts)) if verdicts else set(), key=_id_key)
    diff = [pid for pid in common if len({v[pid] for v in verdicts}) > 1]
    if not common:
        parts += ["", "## Problems with different verdicts", "", "No problem is in all of these benches."]
    elif not diff:
        parts += [
            "",
            "## Problems with different verdicts",
            "",
            f"None differ: the {len(common)} problems in common have the same verdict in every bench.",
        ]
    else:
        parts += ["", f"## Problems with different verdicts ({len(diff)} of the {len(common)} in common)", ""]
        parts.append(
            _md(
                ["problem", *[str(i + 1) for i in range(len(benches))]],
                [[md.text(shown[pid]), *("pass" if v[pid] else "fail" for v in verdicts)] for pid in diff],
            )
        )
    return "\n".join(parts) + "\n"


def paired_section(benches: list[BenchData], pairs: str = "all") -> list[str]:
    """The paired comparisons as a markdown section: the difference in pass@1,
    its paired interval, the discordant problems and McNemar's p."""
    from .figures import compare_pairs, correction_words
    from .stats import BOOTSTRAP, MCNEMAR, interval_text

    comparisons = compare_pairs(benches, pairs)
    if not comparisons:
        return []
    rows = []
    for c in comparisons:
        st = c.stats
        diff = "n/a" if st.difference is None else f"{100 * st.difference:+.2f}"
        rows.append(
            [
                f"{c.b + 1} vs {c.a + 1}",
                str(st.n),
                _pct(st.a_passed, st.n),
                _pct(st.b_passed, st.n),
                diff,
                interval_text(st.interval, signed_pct),
                str(st.a_only),
                str(st.b_only),
                p_text(st.p_value),
                p_text(c.p_holm) if len(comparisons) > 1 else "",
            ]
        )
    header = ["B vs A", "problems", "A", "B", "Δ (B − A)", "95% CI", "A only", "B only", "McNemar p", "Holm p"]
    return [
        "",
        "## Paired comparisons (the problems both benches finished)",
        "",
        _md(header, rows),
        "",
        f"Δ is pass@1 of B minus pass@1 of A in points, on the problems both finished (first sample); its 95% "
        f'interval is a paired {BOOTSTRAP}. "A only" and "B only" count the discordant problems, solved by '
        f"one bench and not the other; p is the {MCNEMAR}; {correction_words(comparisons)}.",
    ]


def signed_pct(x: float) -> str:
    return f"{100 * x:+.1f}"


def p_text(p: float) -> str:
    """A p-value as journals print it: three significant digits, or < 0.001."""
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3g}" if p < 1 else "1"


def _number(pid: str) -> str:
    """``humaneval-plus/3`` and ``humaneval/3`` as ``HumanEval/3`` (EvalPlus's
    own ids): the same problem under either dataset."""
    name, _, n = pid.partition("/")
    return f"{'HumanEval' if name.startswith('humaneval') else 'Mbpp'}/{n}"


def _id_key(pid: str) -> tuple[str, int]:
    name, _, n = pid.partition("/")
    return name, int(n) if n.isdigit() else 0
