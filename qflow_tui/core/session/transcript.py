"""A session as a readable Markdown transcript: the problem, every model
exchange in full, checks, verdicts, decisions and the final program.

Everything in it came from outside (a model's answers, a problem, a session
file that may have been edited): text goes through
:mod:`qflow_tui.core.escape.markdown` (one line, its markup escaped), code and
whole answers into fences longer than any run of backticks inside, and the
few values inside qflow's own HTML (the prompt's fold) are HTML-escaped."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from ..escape import markdown as md
from ..events import (
    Decision,
    Event,
    ImaginedCheck,
    LLMCallFailed,
    LLMCallFinished,
    LLMCallGivenUp,
    LLMCallStarted,
    Notice,
    ProgramCandidate,
    Record,
    RunFailed,
    RunFinished,
    RunStarted,
    SandboxRun,
    StepFinished,
    StepStarted,
    TestsDesigned,
    TextDelta,
    TQCVerdict,
)
from ..pieces import RecordRow, record_line
from ..problem import whole_words
from ..steps import decision_said
from ..summary import tokens_from_dict, total
from ..workflows.values import recorded_workflow_settings
from .fileformat import section

if TYPE_CHECKING:
    from .reader import SessionData


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    ticks = "`" * (longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{ticks}{lang}\n{body}{ticks}\n"


def _where(e: Event) -> str:
    return f"p{md.text(e.progression)}" if e.progression is not None else "run"


def _fmt_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s} s"


def markdown_transcript(data: SessionData) -> str:
    """A readable Markdown transcript of a session: the problem, every model
    exchange in full (prompt in a fold, response open), checks, verdicts,
    decisions and the final program. Its figures are the run's projection's
    (core/run_state.py), as every other summary of a run."""
    h = data.header
    s = data.summary()
    cfg = section(h, "config")
    problem = section(h, "problem")
    t = total(tokens_from_dict(s.get("tokens")))
    out: list[str] = [f"# {md.text(whole_words(data.title, str(problem.get('statement', ''))))}\n"]
    workflow = str(h.get("workflow") or "")
    settings = ", ".join(f"{k} {v}" for k, v in recorded_workflow_settings(cfg, workflow).items())
    rows = [
        ("Session", md.code(data.path.name, cell=True)),
        ("Recorded", md.text(h.get("created", ""))),
        ("Model", md.code(h.get("model", ""), cell=True)),
        ("Workflow", md.text(f"{h.get('workflow', '')}" + (f" ({settings})" if settings else ""))),
        (
            "Outcome",
            f"**{md.text(str(s['outcome']).upper())}**"
            + (f" at {md.code(s['accepted_at'], cell=True)}" if s.get("accepted_at") else "")
            + (f", progression {md.text(s['progression'])}" if s.get("progression") is not None else ""),
        ),
        ("Model calls", md.text(f"{s['llm_calls']} ({t.input} tokens in, {t.output} out)")),
        ("Duration", _fmt_duration(float(s.get("duration") or 0))),
        ("qflow", md.text(f"{h.get('app_version', '?')} (session format {h.get('format_version')})")),
    ]
    out.append(md.table(["", ""], [[k, v] for k, v in rows]))
    out.append("")
    for w in s["warnings"]:
        out.append(f"> **Warning:** {md.text(w)}\n")
    out.append("## Problem\n")
    # The statement as written: a docstring's >>> and __init__ are not markdown.
    out.append(_fence(str(problem.get("statement", "")).strip(), "text"))
    tests = problem.get("tests")
    if isinstance(tests, list) and tests:
        out.append("Visible tests:\n")
        out.extend(_md_visible_tests(tests))
    out.append("## Transcript\n")
    pending: dict[str, LLMCallStarted] = {}
    current_step: str | None = None
    for e in data.events:
        if isinstance(e, TextDelta | RunStarted):
            continue
        if e.step and e.step != current_step and not isinstance(e, RunFinished | RunFailed):
            current_step = e.step
            out.append(f"### Step {md.code(current_step)}\n")
        out.extend(_md_event(e, pending))
    for start in pending.values():
        agent = md.text(start.agent)
        out.append(f"**{_where(start)} · {agent}: model call never finished** (the recording stops here)\n")
        out.append(_md_prompt(start))
    return "\n".join(out).rstrip() + "\n"


def _md_visible_tests(tests: list[object]) -> list[str]:
    """A function problem's asserts in one fence; a stdin/stdout problem's
    samples each as its input and the output it expects."""
    if all(isinstance(t, str) for t in tests):
        return [_fence("\n".join(str(t) for t in tests), "python")]
    out: list[str] = []
    for n, t in enumerate(tests, 1):
        if isinstance(t, dict):
            out.append(f"Sample {n}, input:\n")
            out.append(_fence(str(t.get("input", "")).rstrip("\n"), "text"))
            out.append("Expected output:\n")
            out.append(_fence(str(t.get("output", "")).rstrip("\n"), "text"))
        else:
            out.append(_fence(str(t), "python"))
    return out


def _md_event(e: Event, pending: dict[str, LLMCallStarted]) -> list[str]:
    """The transcript's lines for one event; a call's prompt waits in ``pending`` for its end."""
    match e:
        case LLMCallStarted():
            pending[e.call_id] = e
        case LLMCallFinished():
            return ["\n" + _md_call(pending.pop(e.call_id, None), e)]
        case LLMCallFailed():
            start = pending.pop(e.call_id, None)
            failed = f"\n**{_where(e)} · {md.text(e.agent)}: model call failed** — {md.text(e.error)}\n"
            return [failed] + ([_md_prompt(start)] if start is not None else [])
        case LLMCallGivenUp():
            return [f"\n**{_where(e)} · {md.text(e.agent)}: retry given up by the user** — {md.text(e.error)}\n"]
        case StepStarted():
            detail = f" ({md.text(e.detail)})" if e.detail else ""
            return [f"- {_where(e)} · {md.code(e.agent or e.step)} starts{detail}"]
        case StepFinished():
            detail = f" — {md.text(e.detail)}" if e.detail else ""
            return [f"- {_where(e)} · {md.code(e.agent or e.step)}: **{md.text(e.outcome)}**{detail}\n"]
        case ProgramCandidate():
            return [f"\nProgram from {md.code(e.agent)} ({_where(e)}):\n", _fence(e.program, "python")]
        case ImaginedCheck():
            return [
                f"- Imagined execution ({_where(e)}) of {md.code(e.test)}: **{md.text(e.verdict.upper())}**"
                + (f", model's value {md.code(e.value)}" if e.value else "")
                + (f" — {md.text(e.detail)}" if e.detail else "")
            ]
        case TestsDesigned():
            said = [md.text(f"Test designer round {e.round}: {len(e.tests)} new tests, {e.total} in all.") + "\n"]
            said[0] = "\n" + said[0]
            return said + ([_fence("\n".join(e.tests), "python")] if e.tests else [])
        case TQCVerdict():
            mark = "kept" if e.verdict == "kept" else "**rejected**"
            return [
                f"- TQC #{md.text(e.index)} {md.code(e.test)}: {mark}"
                + (f" (model's value {md.code(e.value)})" if e.value else "")
                + (f" — {md.text(e.detail)}" if e.detail else "")
            ]
        case SandboxRun():
            return [_md_sandbox(e)]
        case Record():
            # A workflow's own row (a plan's confidence): every field, on one line.
            row = RecordRow(e.record, e.fields, e.step, e.agent, e.progression)
            return [f"- {_where(e)} · {md.text(record_line(row, limit=200))}"]
        case Decision():
            verdict, word, rest = decision_said(e.said, e.reason)
            decided = f"{verdict}, so {word.upper()}" if verdict else word.upper()
            return [f"\n**Decision ({_where(e)}): {md.text(decided)}** — {md.text(rest)}\n"]
        case Notice():
            return [f"> {md.text(e.level)}: {md.text(e.message)}\n"]
        case RunFailed():
            return ["\n## Run failed\n", _fence(e.error, "text")]
        case RunFinished():
            where = f" at {md.code(e.accepted_at)}" if e.accepted_at else ""
            outcome = md.text(e.outcome.upper())
            return ["\n## Final program\n", f"**{outcome}**{where}.\n", _fence(e.final_program, "python")]
    return []


def _md_prompt(start: LLMCallStarted) -> str:
    parts = [
        f"<details><summary>Prompt ({len(start.messages)} message(s), temperature "
        f"{html.escape(str(start.temperature))}, hash <code>{html.escape(str(start.prompt_hash))}</code>)"
        "</summary>\n"
    ]
    if start.system:
        parts.append("*system*\n")
        parts.append(_fence(start.system, "text"))
    for m in start.messages:
        parts.append(f"*{md.text(m.get('role', '?'))}*\n")
        parts.append(_fence(str(m.get("content", "")), "text"))
    parts.append("</details>\n")
    return "\n".join(parts)


def _md_call(start: LLMCallStarted | None, end: LLMCallFinished) -> str:
    where: list[str] = []
    if start is not None:
        for name, v in (("turn", start.turn), ("epoch", start.epoch), ("attempt", start.attempt)):
            if v is not None and not (name == "turn" and v == 1):
                where.append(f"{name} {v}")
    est = " (estimated)" if end.tokens_estimated else ""
    inp, out = end.input_tokens, end.output_tokens
    cut = end.detail if end.stop_reason != "finished" else ""
    head = (
        f"**{_where(end)} · {md.code(end.agent)}**"
        + (f" ({', '.join(where)})" if where else "")
        + f" — {'?' if inp is None else inp} tokens in, {'?' if out is None else out} out{est}, "
        + f"{end.latency:.2f} s"
        + (f" — ✂ {md.text(cut)}" if cut else "")
        + "\n"
    )
    parts = [head]
    if start is not None and start.test:
        parts.append(f"Test: {md.code(start.test)}\n")
    if start is not None:
        parts.append(_md_prompt(start))
    parts.append("Response:\n")
    parts.append(_fence(end.response, "text"))
    return "\n".join(parts)


def _md_sandbox(e: SandboxRun) -> str:
    lines = [f"\nSandbox run ({md.text(e.purpose)}, {_where(e)}): **{e.passed}/{e.total} passed**\n"]
    if e.load_error:
        lines.append(f"The program failed to load: {md.text(e.load_error)}\n")
    if e.results:
        rows = []
        for r in e.results:
            status = str(r.get("status", ""))
            extra = r.get("error") or (
                f"returned {r.get('actual')}" if r.get("actual") is not None and status != "pass" else ""
            )
            cell = status + (f": {extra}" if extra else "")
            rows.append([md.code(r.get("test", ""), cell=True), md.text(cell)])
        lines += [md.table(["test", "result"], rows), ""]
    return "\n".join(lines)
