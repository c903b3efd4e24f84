"""One run as a page: the problem and its visible tests, the timeline of
steps, each agent's output, the imagined-execution traces, the synthesized
tests with their Test Quality Checker verdicts, the decisions, the final
program and its diff against the first, steering edits and forks marked.
Every figure comes from the one reducer (core/run_state.py) over the
session's events, as the app and the Markdown transcript read them."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from .. import events as ev
from ..escape import htmltext as h
from ..pieces import ImaginedChecks, SynthTests
from ..run_state import RunState
from ..session.fileformat import section
from ..session.reader import SessionData
from ..summary import tokens_from_dict, total
from .page import code, document

_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


@dataclass
class SessionPage:
    """A session's page body and what a bench page says about it."""

    body: str
    agents: list[str]
    isolation: str
    outcome: str


def verdict_mark(word: str) -> str:
    """A verdict as a symbol and its word (never colour alone), classed for its colour."""
    w = str(word or "").lower()
    if w in ("pass", "passed", "accepted", "accept", "kept", "done", "true"):
        sym, cls = "✓", "v-pass"
    elif w in ("fail", "failed", "error", "rejected", "reject", "timeout", "reverted", "revert", "false"):
        sym, cls = "✗", "v-fail"
    else:
        sym, cls = "•", "v-other"
    return f'<span class="{cls}">{sym} {h.text(word or "?")}</span>'


def agent_output(text: str) -> str:
    """A model's answer: prose as text, each fenced code block highlighted as Python."""
    out: list[str] = []
    at = 0
    for m in _FENCE.finditer(text):
        prose = text[at : m.start()].strip("\n")
        if prose.strip():
            out.append(f'<pre class="prose">{h.text(prose)}</pre>')
        lang = m.group(1).lower()
        out.append(code(m.group(2), "python" if lang in ("", "python", "py", "python3") else "text"))
        at = m.end()
    rest = text[at:].strip("\n")
    if rest.strip() or not out:
        out.append(f'<pre class="prose">{h.text(rest)}</pre>')
    return "\n".join(out)


def _facts(rows: list[tuple[str, str]]) -> str:
    cells = "".join(f"<dt>{h.text(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return f'<dl class="facts">{cells}</dl>'


def _where(progression: int | None) -> str:
    return "run-wide" if progression is None else f"progression {progression}"


def _test_block(t: object) -> str:
    if isinstance(t, dict):
        return (
            '<div class="io-test"><p class="note">stdin</p>'
            f"<pre>{h.text(t.get('input', ''))}</pre>"
            f'<p class="note">expected stdout</p><pre>{h.text(t.get("output", ""))}</pre></div>'
        )
    return code(str(t))


def _timeline(data: SessionData, state: RunState) -> str:
    items: list[str] = []
    for e in data.events:
        match e:
            case ev.StepFinished():
                who = h.text(e.agent or e.step)
                detail = f" — {h.text(e.detail)}" if e.detail else ""
                items.append(
                    f'<li><span class="mono">{h.text(e.step)}</span> · {h.text(_where(e.progression))} · '
                    f"{who}: {verdict_mark(e.outcome)}{detail}</li>"
                )
            case ev.Decision():
                items.append(
                    f'<li class="decision"><strong>Decision</strong> ({h.text(_where(e.progression))}, '
                    f"{h.text(e.step or '')}): {verdict_mark(e.decision)}"
                    + (f" ({h.text(e.word)})" if e.word else "")
                    + f" — {h.text(e.reason)}</li>"
                )
            case ev.Steered():
                items.append(
                    f'<li class="steered"><span class="badge">✎ steered</span> {h.text(e.who)} changed '
                    f"{h.text(e.what)} at {h.text(e.step or 'the run')} ({h.text(_where(e.progression))})"
                    + (f": test {h.text(e.test)}" if e.test else "")
                    + "</li>"
                )
            case ev.Notice():
                items.append(f'<li class="notice">{h.text(e.level)}: {h.text(e.message)}</li>')
            case ev.RunFinished():
                items.append(f"<li><strong>Run finished</strong>: {verdict_mark(e.outcome)}</li>")
            case ev.RunFailed():
                items.append(f"<li><strong>Run failed</strong>: {h.text(e.error)}</li>")
    if not items:
        return '<p class="note">No step finished in this recording.</p>'
    del state
    return '<ol class="timeline">' + "".join(items) + "</ol>"


def _agents(state: RunState) -> str:
    out: list[str] = []
    progressions: list[int | None] = [None, *range(state.progressions)]
    for agent in state.agents:
        calls = sorted(
            {c.call_id: c for p in progressions for c in state.calls_for(agent.role, p)}.values(),
            key=lambda c: c.seq,
        )
        steps = [s for p in progressions for s in state.steps_of(agent.role, p)]
        out.append(
            f'<section class="agent"><h3>{h.text(agent.label)} <span class="note mono">{h.text(agent.role)}</span></h3>'
        )
        dropped = sum(state.dropped_for(agent.role, p) for p in progressions[1:]) + state.dropped_calls.get(
            (agent.role, None), 0
        )
        if dropped:
            out.append(f'<p class="note">{dropped} earlier calls are not kept in the run\'s projection.</p>')
        if not calls and not steps:
            out.append('<p class="note">No model call and no finished step.</p>')
        if not calls:
            for stage, cell in steps:
                out.append(
                    f'<p><span class="mono">{h.text(stage)}</span>: {verdict_mark(cell.status)} '
                    f"{h.text(cell.detail)}</p>"
                )
        for c in calls:
            tokens = f"{'?' if c.input_tokens is None else c.input_tokens} in, " + (
                f"{'?' if c.output_tokens is None else c.output_tokens} out"
            )
            extra = "".join(
                f", {name} {v}" for name, v in (("epoch", c.epoch), ("attempt", c.attempt)) if v is not None
            )
            cut = f" — ✂ {h.text(c.cut)}" if c.cut else ""
            err = f" — {h.text(c.error)}" if c.error else ""
            summary = (
                f'<span class="mono">{h.text(c.step or "")}</span> · {h.text(_where(c.progression))}'
                f"{h.text(extra)} · turn {c.turn} · {verdict_mark(c.status)} · {h.text(tokens)}{cut}{err}"
            )
            test = f"<p>Test: <code>{h.text(c.test)}</code></p>" if c.test else ""
            out.append(f"<details><summary>{summary}</summary>{test}{agent_output(c.text)}</details>")
        out.append("</section>")
    return "\n".join(out)


def _imagined(state: RunState) -> str:
    rows = list(state.piece(ImaginedChecks).records.values())
    if not rows:
        return '<p class="note">No imagined execution in this run.</p>'
    out = []
    for r in rows:
        head = (
            f"{verdict_mark(r.verdict or 'unfinished')} <code>{h.text(r.test)}</code> · "
            f'<span class="mono">{h.text(r.step or "")}</span> · {h.text(_where(r.progression))}'
        )
        value = f"<p>The model's value: <code>{h.text(r.value)}</code></p>" if r.value is not None else ""
        detail = f"<p>{h.text(r.detail)}</p>" if r.detail else ""
        reasoning = agent_output(r.reasoning) if r.reasoning else ""
        out.append(f"<details><summary>{head}</summary>{value}{detail}{reasoning}</details>")
    return "\n".join(out)


def _synth(state: RunState) -> str:
    if not state.piece(SynthTests).tests:
        return '<p class="note">No synthesized test in this run.</p>'
    rows = []
    for i, t in enumerate(state.piece(SynthTests).tests, 1):
        steered = f' <span class="badge">✎ {h.text(t.steered)}</span>' if t.steered else ""
        why = h.text(t.detail or (t.reasoning[:300] if t.reasoning else ""))
        rows.append(
            f'<tr><td class="num">{i}</td><td><code>{h.text(t.test)}</code></td><td class="num">{t.round}</td>'
            f"<td>{verdict_mark(t.verdict or 'not judged')}{steered}</td><td>{why}</td></tr>"
        )
    return (
        '<div class="wide"><table><caption>Synthesized tests and the Test Quality Checker\'s verdicts</caption>'
        '<thead><tr><th scope="col" class="num">#</th><th scope="col">test</th><th scope="col" class="num">round'
        '</th><th scope="col">TQC verdict</th><th scope="col">why</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div>"
    )


def _decisions(state: RunState) -> str:
    if not state.decisions:
        return '<p class="note">No decision in this run.</p>'
    rows = "".join(
        f'<tr><td class="mono">{h.text(d.step or "")}</td><td>{h.text(_where(d.progression))}</td>'
        f"<td>{verdict_mark(d.decision)}{f' ({h.text(d.word)})' if d.word else ''}</td><td>{h.text(d.reason)}</td></tr>"
        for d in state.decisions
    )
    return (
        '<table><caption>The run\'s decisions, in order</caption><thead><tr><th scope="col">step</th>'
        '<th scope="col">where</th><th scope="col">decision</th><th scope="col">reason</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def _final(state: RunState) -> str:
    f = state.finished
    if f is None:
        if state.failed is not None:
            return f"<p>{verdict_mark('failed')}: {h.text(state.failed.error)}</p>"
        return '<p class="note">The recording stops before the run ended.</p>'
    where = f' at <span class="mono">{h.text(f.accepted_at)}</span>' if f.accepted_at else ""
    prog = f", progression {f.progression}" if f.progression is not None else ""
    out = [f"<p>{verdict_mark(f.outcome)}{where}{h.text(prog)}</p>", code(f.final_program)]
    first = f.first_program or state.first_program(0)
    out.append("<h3>Diff against the first generated program</h3>")
    if not first:
        out.append('<p class="note">No first program to compare with.</p>')
    elif first == f.final_program:
        out.append('<p class="note">Identical to the first generated program.</p>')
    else:
        diff = "\n".join(
            difflib.unified_diff(
                first.splitlines(), f.final_program.splitlines(), "first program", "final program", lineterm="", n=2
            )
        )
        out.append('<div class="diff">' + code(diff, "diff") + "</div>")
    return "\n".join(out)


def _candidates(state: RunState) -> str:
    if not state.candidates:
        return ""
    out = ["<h3>Every program, in order</h3>"]
    for c in state.candidates:
        who = f'{h.text(c.agent or "?")} · <span class="mono">{h.text(c.step or "")}</span> · '
        out.append(f"<details><summary>{who}{h.text(_where(c.progression))}</summary>{code(c.program)}</details>")
    return "\n".join(out)


def session_page(data: SessionData, level: int = 1) -> SessionPage:
    """The page's body for one session; ``level`` is its title's heading level
    (1 on its own page, 3 inside a bench's page)."""
    state = RunState()
    for e in data.events:
        state.apply(e)
    hd = data.header
    problem = section(hd, "problem")
    s = data.summary()
    t = total(tokens_from_dict(s.get("tokens")))
    parent = hd.get("parent") if isinstance(hd.get("parent"), dict) else None
    facts = [
        ("Session", f'<span class="mono">{h.text(Path(data.path).name)}</span>'),
        ("Recorded", h.text(hd.get("created", ""))),
        ("Workflow", h.text(hd.get("workflow", ""))),
        ("Model", f'<span class="mono">{h.text(hd.get("model", ""))}</span>'),
        ("Outcome", verdict_mark(str(s.get("outcome", "")))),
        ("Agents", h.text(", ".join(a.role for a in state.agents) or "none declared")),
        ("Model calls", h.text(f"{s.get('llm_calls', 0)} ({t.input} tokens in, {t.output} out)")),
        ("Sandbox isolation", h.text(state.isolation or "not recorded")),
        ("qflow", h.text(f"{hd.get('app_version', '?')} (session format {hd.get('format_version')})")),
    ]
    if parent is not None:
        facts.append(
            (
                "Forked from",
                f'<span class="badge">⑂ fork</span> <span class="mono">'
                f"{h.text(Path(str(parent.get('session', ''))).name)}</span> at "
                f'<span class="mono">{h.text(parent.get("forked_at", ""))}</span>',
            )
        )
    hx, hy = f"h{level}", f"h{level + 1}"
    body = [f"<{hx}>{h.text(data.title)}</{hx}>", _facts(facts)]
    for w in [*data.warnings, *s.get("warnings", [])]:
        body.append(f'<p class="v-other">⚠ {h.text(w)}</p>')
    body.append(f"<{hy}>Problem</{hy}>")
    body.append(f"<pre>{h.text(str(problem.get('statement', '')).strip())}</pre>")
    tests = problem.get("tests") or []
    body.append(f"<p>Visible tests ({len(tests)}):</p>" if tests else '<p class="note">No visible test.</p>')
    body += [_test_block(x) for x in tests]
    sections = [
        ("Timeline", _timeline(data, state)),
        ("Agents", _agents(state)),
        ("Imagined execution", _imagined(state)),
        ("Synthesized tests", _synth(state)),
        ("Decisions", _decisions(state)),
        ("Final program", _final(state) + _candidates(state)),
    ]
    for name, html_part in sections:
        body += [f"<{hy}>{name}</{hy}>", html_part]
    outcome = str(s.get("outcome", ""))
    return SessionPage("\n".join(body), [a.role for a in state.agents], state.isolation, outcome)


def render_session_page(data: SessionData) -> str:
    """A session as one self-contained HTML page."""
    return document(f"qflow session: {data.title}", session_page(data).body)
