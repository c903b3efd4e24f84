"""A bench (or several side by side) as one self-contained page: the header
with the protocol, pass@1 with its interval, pass@k, cost per solved problem,
the published figure beside ours, charts of pass@1 by step, tokens and cost
per problem and the checker's confusion matrix, and a sortable, filterable
table of every problem whose rows open that problem's session.

Figures come from the report's own data functions (:mod:`..bench.report`,
:mod:`..bench.figures`): the page draws what ``qflow bench report`` prints.
Sessions are embedded gzipped (decompressed by the browser when a row is
opened) or, with ``split``, written as sibling pages the rows link to."""

from __future__ import annotations

import base64
import gzip
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ... import __version__
from ..bench import data as bd
from ..bench import report as rp
from ..bench.figures import (
    bench_figures,
    compare_pairs,
    correction_words,
    first_samples,
    problem_number,
    report_json,
    verdicts,
)
from ..bench.papers import published
from ..bench.protocol import convention, convention_words, setting, setting_words, title
from ..bench.results import ResultLine, VerdictRow
from ..bench.stats import interval_text
from ..escape import htmltext as h
from ..session import SessionError, read_session
from .charts import Bar, bars, histogram
from .page import asset, document
from .session_page import render_session_page, session_page, verdict_mark

#: Sessions bigger than this are not embedded (a page must stay openable); the row says so.
MAX_SESSION_BYTES = 32 << 20


@dataclass
class Written:
    """What a page cost to write: the page, and the sibling session pages (``split``)."""

    html: str
    siblings: dict[str, str] = field(default_factory=dict)
    """Relative path (from the page's folder) -> page text."""
    notes: list[str] = field(default_factory=list)
    """Sessions that could not be read, in words."""


_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def _number(text: str) -> float | None:
    m = _NUM.fullmatch(text.strip().lstrip("+"))
    return float(m.group()) if m else None


def _interval(text: str) -> tuple[float | None, float | None]:
    found = _NUM.findall(text)
    return (float(found[0]), float(found[1])) if len(found) == 2 else (None, None)


def _th(cells: Sequence[str], num_from: int = 1) -> str:
    num = ' class="num"'
    return "".join(f'<th scope="col"{num if i >= num_from else ""}>{h.text(c)}</th>' for i, c in enumerate(cells))


def _table(caption: str, header: Sequence[str], rows: Sequence[Sequence[str]], row_heads: bool = True) -> str:
    """A table of outside text (each cell escaped here); the first cell of a row heads it."""
    body = []
    for r in rows:
        cells = [
            f'<th scope="row">{h.text(c)}</th>' if i == 0 and row_heads else f'<td class="num">{h.text(c)}</td>'
            for i, c in enumerate(r)
        ]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="wide"><table><caption>{h.text(caption)}</caption><thead><tr>{_th(header)}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _facts(rows: Sequence[tuple[str, str]]) -> str:
    return '<dl class="facts">' + "".join(f"<dt>{h.text(k)}</dt><dd>{h.text(v)}</dd>" for k, v in rows) + "</dl>"


def _figure(label: str, value: str, detail: str = "") -> str:
    d = f'<div class="label">{h.text(detail)}</div>' if detail else ""
    return (
        f'<div class="figure"><div class="label">{h.text(label)}</div><div class="value">{h.text(value)}</div>{d}</div>'
    )


# ------------------------------------------------------------------ one bench
def _headline(data: rp.BenchData, family: str | None) -> str:
    figs = bench_figures(data)
    out = ['<div class="headline">']
    p1 = figs.pass1
    value = "n/a" if p1.value is None else f"{100 * p1.value:.2f}%"
    out.append(
        _figure("pass@1 (final, first sample)", value, f"{p1.passed}/{p1.n}, 95% CI {interval_text(p1.interval)}")
    )
    base = figs.base
    if base is not None and base.value is not None:
        b = base
        out.append(
            _figure(
                "pass@1 on base inputs",
                f"{100 * base.value:.2f}%",
                f"{b.passed}/{b.n}, 95% CI {interval_text(b.interval)}",
            )
        )
    for p in figs.pass_at_k:
        out.append(_figure(f"pass@{p.k}", f"{100 * p.value:.2f}%", f"95% CI {interval_text(p.interval)}"))
    c = figs.cost
    if c is None:
        out.append(_figure("cost per solved problem", "n/a", "no price for this model (a local or script model)"))
    elif c.per_solved is None:
        out.append(_figure("cost per solved problem", "none solved", f"total ${c.total:.4f}"))
    else:
        out.append(
            _figure(
                "cost per solved problem",
                f"${c.per_solved:.4f}",
                f"95% CI {interval_text(c.interval, lambda x: f'${x:.4f}')}; total ${c.total:.4f}",
            )
        )
    out.append("</div>")
    last = rp.pass_at_last_words(data.spec, first_samples(data)) if first_samples(data) else ""
    if last:
        out.append(f"<p>{h.text(last)}.</p>")
    found = published(data.spec, family)
    if found:
        rows = []
        for f in found:
            ours = (figs.base if f.part == "base" else figs.pass1) or figs.pass1
            mine = f"{100 * ours.value:.2f}" if ours.value is not None else "n/a"
            delta = f"{100 * ours.value - f.value:+.2f}" if ours.value is not None and f.value is not None else "n/a"
            rows.append(
                [
                    f"pass@1 ({f.part})" if f.part else "pass@1",
                    mine,
                    f.printed,
                    delta,
                    f"{f.source()}, column {f.column} ({f.ref})",
                ]
            )
        out.append(
            _table(
                "The published figure beside ours",
                ["figure", "ours", "published", "Δ (ours − published)", "where"],
                rows,
            )
        )
        out.append(
            '<p class="note">The paper ran another model of the same family: the figures are of the same workflow, '
            "settings and dataset.</p>"
        )
    else:
        out.append(
            '<p class="note">No published figure matches this bench (workflow, settings, dataset and model '
            "family); <code>qflow bench paper</code> lists every published row.</p>"
        )
    return "\n".join(out)


def _pass_by_step(first: list[ResultLine]) -> str:
    if not first:
        return '<p class="note">No run finished.</p>'
    header, values = rp.table_pass_by_step(first)
    intervals = rp.pass_by_step_intervals(first)
    chart = []
    for col, v, iv in zip(header[:-1], values[:-1], intervals[:-1], strict=True):
        low, high = _interval(iv)
        chart.append(Bar(col, _number(v), low, high))
    svg = bars("pass@1 (%) after each workflow step, with 95% Wilson intervals", chart)
    table = _table(
        "pass@1 (%) after each step; Δ: final against first program, paired",
        ["", *header],
        [["pass@1", *values], ["95% CI", *intervals]],
    )
    return svg + table


def _confusion(first: list[ResultLine]) -> str:
    """The Code Quality Checker's verdicts against the evaluation, per step (every verdict it gave)."""
    by_step: dict[str, list[int]] = {}
    for r in first:
        for ch in r.get("checks", []) or []:
            if not isinstance(ch, dict) or ch.get("no_visible_test"):
                continue
            c = by_step.setdefault(str(ch.get("step")), [0, 0, 0, 0])
            c[
                0
                if ch.get("passed") and ch.get("accepted")
                else 1
                if ch.get("accepted")
                else 2
                if ch.get("passed")
                else 3
            ] += 1
    if not by_step:
        return '<p class="note">No quality check in these runs.</p>'
    out = []
    for step in bd._ranked(by_step, rp.step_order(first)):
        tp, fp, fn, tn = by_step[step]
        n = tp + fp + fn + tn or 1

        def cell(k: int, what: str, n: int = n) -> str:
            share = k / n
            shade = f"color-mix(in srgb, var(--bar) {round(60 * share)}%, transparent)"
            return (
                f'<td class="cell" style="background: {shade}">'
                f'<strong>{k}</strong> ({100 * share:.0f}%)<br><span class="note">{h.text(what)}</span></td>'
            )

        out.append(
            f'<table class="cm"><caption>Step <span class="mono">{h.text(step)}</span>: {n} verdicts</caption>'
            '<thead><tr><td></td><th scope="col">accepted by the checker</th>'
            '<th scope="col">rejected by the checker</th></tr></thead>'
            '<tbody><tr><th scope="row">passes the evaluation</th>'
            f"{cell(tp, 'true positive')}{cell(fn, 'false negative')}</tr>"
            '<tr><th scope="row">fails the evaluation</th>'
            f"{cell(fp, 'false positive')}{cell(tn, 'true negative')}</tr></tbody></table>"
        )
    checked = [
        r for r in first if not any(isinstance(c, dict) and c.get("no_visible_test") for c in r.get("checks", []) or [])
    ]
    header, rows = rp.table_cqc(checked)
    out.append(_table("The Code Quality Checker as a classifier of the output after each step (%)", header, rows))
    return "\n".join(out)


def _tokens(data: rp.BenchData, first: list[ResultLine]) -> str:
    if not first:
        return ""
    out = [
        _table(
            "Average tokens per problem, per agent",
            ["agent", "input", "output", "total", "calls"],
            rp.table_tokens(first, bd._roles(data.spec)),
        )
    ]
    tokens = [float(r.get("tokens_total", 0) or 0) for r in first]
    out.append(histogram("Tokens per problem", tokens, "tokens"))
    price = rp.bench_price(data.spec)
    if price is not None:
        costs = [rp.records_cost([r], price) or 0.0 for r in first]
        out.append(histogram("Cost per problem (US dollars)", costs, "$"))
    return "\n".join(out)


def _tqc(first: list[ResultLine]) -> str:
    if not any(r.get("tests") for r in first):
        return ""
    return "<h2>Test Quality Checker on synthesized tests</h2>" + _table(
        "A positive test is an incorrect one (the canonical solution fails it)",
        ["statistic", "value"],
        rp.table_tqc(first),
    )


def _inside(folder: Path, rel: object) -> Path | None:
    """The session a results line names, only inside the bench's folder."""
    if not isinstance(rel, str) or not rel:
        return None
    try:
        path = (folder / rel).resolve()
        return path if path.is_relative_to(folder.resolve()) and path.is_file() else None
    except (OSError, ValueError):
        return None


def _verdict_word(r: ResultLine) -> str:
    if r.get("status") != "done":
        return str(r.get("status") or "unfinished")
    if r.get("passed"):
        return "pass"
    return str((r.get("verdict") or {}).get("status") or "fail")


def _problems(data: rp.BenchData, out: Written, split_dir: str | None) -> tuple[str, str]:
    """The table of every problem, and the embedded sessions (empty with ``split_dir``)."""
    price = rp.bench_price(data.spec)
    order = rp.step_order(data.done)
    records = sorted(data.records, key=lambda r: (bd._id_key(str(r.get("id"))), r.get("sample", 0)))
    samples = int(data.spec.get("samples", 1) or 1) > 1
    rows: list[str] = []
    blobs: list[str] = []
    for i, r in enumerate(records):
        pid = str(r.get("id"))
        verdict: VerdictRow = r["verdict"] if isinstance(r.get("verdict"), dict) else {}
        detail = str(verdict.get("detail") or r.get("error") or "")
        word = _verdict_word(r)
        failed = word != "pass"
        flipped = r.get("status") == "done" and bool(r.get("first_passed")) != bool(r.get("passed"))
        near = "near its time limit" in detail
        steps = [str(s.get("step")) for s in r.get("steps", []) or [] if isinstance(s, dict)]
        steps = bd._ranked(dict.fromkeys(steps), order) if steps else []
        tokens = rp._whole(r.get("tokens_total"))
        cost = rp.records_cost([r], price) if price is not None else None
        secs = r.get("duration")
        secs = float(secs) if isinstance(secs, int | float) and not isinstance(secs, bool) else None
        session = _inside(data.folder, r.get("session"))
        opener = h.text(pid)
        if session is not None:
            try:
                sess = read_session(session)
            except SessionError as exc:
                out.notes.append(f"{pid}: {exc}")
                sess = None
            if sess is not None and split_dir is not None:
                rel = f"{split_dir}/{i:05d}.html"
                out.siblings[rel] = render_session_page(sess)
                opener = f'<a href="{h.text(rel)}">{h.text(pid)}</a>'
            elif sess is not None and session.stat().st_size <= MAX_SESSION_BYTES:
                body = session_page(sess, level=2).body
                blob = base64.b64encode(gzip.compress(body.encode("utf-8"), 6, mtime=0)).decode("ascii")
                blobs.append(f'<script type="text/x-qflow-session" id="s{i}">{blob}</script>')
                opener = (
                    f'<button type="button" class="open" data-s="s{i}" aria-controls="session-view">'
                    f"{h.text(pid)}</button>"
                )
        flip_word = " (flipped)" if flipped else ""
        time_text = "n/a" if secs is None else f"{secs:.1f} s"
        cells = [
            f'<th scope="row" data-v="{i}">{opener}</th>',
            *([f'<td class="num">{h.text(r.get("sample", 0))}</td>'] if samples else []),
            f'<td data-v="{h.text(word)}">{verdict_mark(word)}{h.text(flip_word)}</td>',
            f'<td data-v="{len(steps)}"><span class="num">{len(steps)}</span> '
            f'<span class="mono note">{h.text(" → ".join(steps))}</span></td>',
            f'<td class="num" data-v="{tokens}">{tokens}</td>',
            f'<td class="num" data-v="{-1 if cost is None else cost}">{"n/a" if cost is None else f"${cost:.4f}"}</td>',
            f'<td class="num" data-v="{-1 if secs is None else secs}">{time_text}</td>',
            f"<td>{h.text(detail[:300])}</td>",
        ]
        rows.append(
            f'<tr data-id="{h.text(pid.lower())}" data-failed="{int(failed)}" data-flipped="{int(flipped)}" '
            f'data-near="{int(near)}">' + "".join(cells) + "</tr>"
        )
    cols = [
        ("problem", "num"),
        *([("sample", "num")] if samples else []),
        ("verdict", "text"),
        ("steps", "num"),
        ("tokens", "num"),
        ("cost", "num"),
        ("time", "num"),
        ("verdict detail", "text"),
    ]
    head = "".join(
        f'<th scope="col" data-type="{t}"><button type="button" class="sort" data-col="{j}">{h.text(c)}</button></th>'
        for j, (c, t) in enumerate(cols)
    )
    how = (
        "Each problem's id links to its session's page (written beside this one)."
        if split_dir is not None
        else "Each problem's id opens its session below the table (embedded in this page, unpacked when opened)."
    )
    controls = (
        '<div class="controls" role="search">'
        '<label>Show <select id="filter"><option value="all">every problem</option>'
        '<option value="failed">failed only</option><option value="flipped">flipped by a step</option>'
        '<option value="near">near a time limit</option></select></label>'
        '<label>Problem id contains <input type="search" id="search" autocomplete="off"></label>'
        f'<span id="shown" aria-live="polite">{len(records)} of {len(records)} shown</span></div>'
    )
    table = (
        f'<p class="note">{h.text(how)} Sort by a column with its heading (Enter or a click; again to reverse).</p>'
        + controls
        + '<div class="wide"><table id="problems"><caption>Every problem: verdict, steps taken, tokens, cost, time'
        f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        + '<section id="session-view" tabindex="-1" aria-label="The opened session"></section>'
    )
    return table, "\n".join(blobs)


def _isolation(data: rp.BenchData) -> str:
    for r in data.done:
        path = _inside(data.folder, r.get("session"))
        if path is None:
            continue
        try:
            iso = session_page(read_session(path, max_bytes=1 << 20)).isolation
        except SessionError:
            continue
        if iso:
            return f"{iso} (as the runs' sessions record it)"
    return "not recorded"


def bench_body(data: rp.BenchData, family: str | None, out: Written, split_dir: str | None) -> tuple[str, str]:
    s = data.spec
    first = sorted(first_samples(data), key=lambda r: bd._id_key(str(r.get("id"))))
    total = len(data.problem_ids) * int(s.get("samples", 1) or 1)
    parts = [
        f"<h1>Bench: {h.text(title(data.dataset))} · {h.text(s.get('workflow', '?'))} · "
        f"{h.text(s.get('model', '?'))}</h1>"
    ]
    parts.append(
        _facts(
            [
                ("Dataset", title(data.dataset)),
                ("Workflow", str(s.get("workflow", "?"))),
                ("Model", str(s.get("model", "?"))),
                ("Setting", setting(s).upper() if setting(s) == "relaxed" else setting(s)),
                ("", setting_words(s)),
                ("Convention", convention(s)),
                ("", convention_words(s)),
                ("Date", str(s.get("created", "not recorded"))),
                ("qflow", f"{s.get('app_version', '?')} ran the bench; {__version__} wrote this page"),
                ("Isolation", _isolation(data)),
                ("Runs", f"{len(data.done)} of {total} finished"),
                ("Bench folder", data.folder.name),
            ]
        )
    )
    for said in [*data.skipped, *(f"{k}: {v}" for k, v in data.unreadable.items())]:
        parts.append(f'<p class="v-other">⚠ {h.text(said)}</p>')
    parts.append("<h2>Headline figures</h2>")
    parts.append(_headline(data, family))
    parts.append("<h2>pass@1 by workflow step</h2>")
    parts.append(_pass_by_step(first))
    parts.append("<h2>The Code Quality Checker's verdicts</h2>")
    parts.append(_confusion(first))
    parts.append(_tqc(first))
    parts.append("<h2>Tokens and cost per problem</h2>")
    parts.append(_tokens(data, first))
    parts.append("<h2>Every problem</h2>")
    table, blobs = _problems(data, out, split_dir)
    parts.append(table)
    return "\n".join(parts), blobs


def _page_data(value: object) -> str:
    return h.script_json(value)


def render_bench_page(data: rp.BenchData, family: str | None = None, split_dir: str | None = None) -> Written:
    """One bench's page; with ``split_dir`` (a folder name relative to the
    page) its sessions become sibling pages instead of embedded data."""
    out = Written("")
    body, blobs = bench_body(data, family, out, split_dir)
    summary = report_json(data, family)
    summary.pop("folder", None)  # an absolute path of the machine that wrote it
    out.html = document(
        f"qflow bench: {title(data.dataset)} · {data.spec.get('workflow', '?')}",
        body,
        script=asset("bench.js"),
        data=_page_data(summary),
        after=blobs,
    )
    return out


# ------------------------------------------------------------------ several benches
def render_compare_page(benches: list[rp.BenchData], pairs: str = "all") -> Written:
    """Several benches of one dataset family: pass@1 side by side with
    intervals, each pair's paired difference and McNemar p, and the problems
    whose verdicts differ."""
    labels = rp.bench_labels(benches)
    parts = [f"<h1>Bench comparison: {len(benches)} benches</h1>", "<ol>"]
    parts += [f"<li>{h.text(label)} ({len(b.done)} finished)</li>" for b, label in zip(benches, labels, strict=True)]
    parts.append("</ol>")
    settings = {setting(b.spec) for b in benches}
    if len(settings) > 1:
        parts.append(
            '<p class="v-other">⚠ Mixed settings: some benches executed the visible tests during synthesis '
            "(relaxed); their figures are not comparable as equals.</p>"
        )
    figs = [bench_figures(b) for b in benches]
    chart = []
    rows = []
    for i, f in enumerate(figs):
        p = f.pass1
        iv = p.interval
        chart.append(
            Bar(
                str(i + 1),
                None if p.value is None else 100 * p.value,
                None if iv is None else 100 * iv.low,
                None if iv is None else 100 * iv.high,
            )
        )
        rows.append(
            [
                f"{i + 1}: {labels[i]}",
                "n/a" if p.value is None else f"{100 * p.value:.2f}",
                interval_text(iv),
                f"{p.passed}/{p.n}",
            ]
        )
    parts.append("<h2>pass@1 side by side</h2>")
    parts.append(bars("Final pass@1 (%) of each bench, with 95% Wilson intervals", chart))
    parts.append(
        _table("Final pass@1 (%) over the first sample of each problem", ["bench", "pass@1", "95% CI", "passed"], rows)
    )
    comparisons = compare_pairs(benches, pairs)
    prow = []
    for c in comparisons:
        st = c.stats
        prow.append(
            [
                f"{c.b + 1} vs {c.a + 1}",
                str(st.n),
                "n/a" if st.difference is None else f"{100 * st.difference:+.2f}",
                interval_text(st.interval, rp.signed_pct),
                str(st.a_only),
                str(st.b_only),
                rp.p_text(st.p_value),
                rp.p_text(c.p_holm) if len(comparisons) > 1 else "",
            ]
        )
    parts.append("<h2>Paired comparisons</h2>")
    parts.append(
        _table(
            "On the problems both benches finished (first sample)",
            [
                "B vs A",
                "problems",
                "Δ pass@1 (B − A, points)",
                "95% CI (paired)",
                "A only",
                "B only",
                "McNemar p",
                "Holm p",
            ],
            prow,
        )
    )
    parts.append(
        '<p class="note">"A only" and "B only" count the discordant problems; '
        f"{h.text(correction_words(comparisons))}.</p>"
    )
    by = [verdicts(b) for b in benches]
    shown = {problem_number(str(r["id"])): str(r["id"]) for b in reversed(benches) for r in first_samples(b)}
    common = sorted(set.intersection(*(set(v) for v in by)) if by else set(), key=bd._id_key)
    diff = [p for p in common if len({v[p] for v in by}) > 1]
    parts.append(f"<h2>Problems with different verdicts ({len(diff)} of the {len(common)} in common)</h2>")
    if diff:
        head = ["problem", *(f"bench {i + 1}" for i in range(len(benches)))]
        body = "".join(
            f'<tr><th scope="row">{h.text(shown[p])}</th>'
            + "".join(f"<td>{verdict_mark('pass' if v[p] else 'fail')}</td>" for v in by)
            + "</tr>"
            for p in diff
        )
        parts.append(
            f'<div class="wide"><table><caption>Side by side</caption><thead><tr>{_th(head, 99)}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>"
        )
    else:
        parts.append('<p class="note">None differ.</p>')
    return Written(document("qflow bench comparison", "\n".join(parts)))
