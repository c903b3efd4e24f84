"""A session as a readable Markdown transcript: the problem, every model
exchange in full, checks, verdicts, decisions and the final program."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..events import Event
from .fileformat import section

if TYPE_CHECKING:
    from .reader import SessionData


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    ticks = "`" * (longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{ticks}{lang}\n{body}{ticks}\n"


def _where(e: Event) -> str:
    return f"p{e.progression}" if e.progression is not None else "run"


def _fmt_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s} s"


def markdown_transcript(data: SessionData) -> str:
    """A readable Markdown transcript of a session: the problem, every model
    exchange in full (prompt in a fold, response open), checks, verdicts,
    decisions and the final program."""
    h = data.header
    s = data.summary()
    cfg = section(h, "config")
    problem = section(h, "problem")
    tokens = s.get("tokens") or {}
    t_in = sum(int(t.get("input", 0)) for t in tokens.values())
    t_out = sum(int(t.get("output", 0)) for t in tokens.values())
    out: list[str] = [f"# {data.title}\n"]
    settings = ", ".join(
        f"{k} {cfg[k]}" for k in ("checker", "prompts", "epochs", "clarify", "tqc", "revert") if k in cfg
    )
    rows = [
        ("Session", f"`{data.path.name}`"),
        ("Recorded", str(h.get("created", ""))),
        ("Model", f"`{h.get('model', '')}`"),
        ("Workflow", f"{h.get('workflow', '')}" + (f" ({settings})" if settings else "")),
        (
            "Outcome",
            f"**{str(s['outcome']).upper()}**"
            + (f" at `{s['accepted_at']}`" if s.get("accepted_at") else "")
            + (f", progression {s['progression']}" if s.get("progression") is not None else ""),
        ),
        ("Model calls", f"{s['llm_calls']} ({t_in} tokens in, {t_out} out)"),
        ("Duration", _fmt_duration(float(s.get("duration") or 0))),
        ("qflow", f"{h.get('app_version', '?')} (session format {h.get('format_version')})"),
    ]
    out.append("| | |\n|---|---|")
    out.extend(f"| {k} | {v} |" for k, v in rows)
    out.append("")
    for w in s["warnings"]:
        out.append(f"> **Warning:** {w}\n")
    out.append("## Problem\n")
    out.append(str(problem.get("statement", "")).strip() + "\n")
    if problem.get("tests"):
        out.append("Visible tests:\n")
        out.append(_fence("\n".join(problem["tests"]), "python"))
    out.append("## Transcript\n")
    pending: dict[str, Event] = {}
    current_step: str | None = None
    for e in data.events:
        k = e.kind
        if k in ("text_delta", "run_started"):
            continue
        if e.step and e.step != current_step and k not in ("run_finished", "run_failed"):
            current_step = e.step
            out.append(f"### Step `{current_step}`\n")
        if k == "llm_call_started":
            pending[e.call_id] = e  # type: ignore[attr-defined]
        elif k == "llm_call_finished":
            out.append("\n" + _md_call(pending.pop(e.call_id, None), e))  # type: ignore[attr-defined]
        elif k == "llm_call_failed":
            start = pending.pop(e.call_id, None)  # type: ignore[attr-defined]
            out.append(f"\n**{_where(e)} · {e.agent}: model call failed** — {getattr(e, 'error', '')}\n")
            if start is not None:
                out.append(_md_prompt(start))
        elif k == "llm_call_given_up":
            out.append(f"\n**{_where(e)} · {e.agent}: retry given up by the user** — {getattr(e, 'error', '')}\n")
        elif k == "step_started":
            detail = f" ({getattr(e, 'detail', '')})" if getattr(e, "detail", "") else ""
            out.append(f"- {_where(e)} · `{e.agent or e.step}` starts{detail}")
        elif k == "step_finished":
            detail = f" — {getattr(e, 'detail', '')}" if getattr(e, "detail", "") else ""
            out.append(f"- {_where(e)} · `{e.agent or e.step}`: **{getattr(e, 'outcome', '')}**{detail}\n")
        elif k == "program_candidate":
            out.append(f"\nProgram from `{e.agent}` ({_where(e)}):\n")
            out.append(_fence(getattr(e, "program", ""), "python"))
        elif k == "imagined_check":
            verdict = getattr(e, "verdict", "")
            out.append(
                f"- Imagined execution ({_where(e)}) of `{getattr(e, 'test', '')}`: **{verdict.upper()}**"
                + (f", model's value `{e.value}`" if getattr(e, "value", None) else "")  # type: ignore[attr-defined]
                + (f" — {e.detail}" if getattr(e, "detail", "") else "")  # type: ignore[attr-defined]
            )
        elif k == "tests_designed":
            new = getattr(e, "tests", [])
            out.append(
                f"\nTest designer round {getattr(e, 'round', '?')}: "
                f"{len(new)} new tests, {getattr(e, 'total', 0)} in all.\n"
            )
            if new:
                out.append(_fence("\n".join(new), "python"))
        elif k == "tqc_verdict":
            verdict = getattr(e, "verdict", "")
            mark = "kept" if verdict == "kept" else "**rejected**"
            out.append(
                f"- TQC #{getattr(e, 'index', '?')} `{getattr(e, 'test', '')}`: {mark}"
                + (f" (model's value `{e.value}`)" if getattr(e, "value", None) else "")  # type: ignore[attr-defined]
                + (f" — {e.detail}" if getattr(e, "detail", "") else "")  # type: ignore[attr-defined]
            )
        elif k == "sandbox_run":
            out.append(_md_sandbox(e))
        elif k == "decision":
            out.append(
                f"\n**Decision ({_where(e)}): {getattr(e, 'decision', '').upper()}** — {getattr(e, 'reason', '')}\n"
            )
        elif k == "notice":
            out.append(f"> {getattr(e, 'level', 'info')}: {getattr(e, 'message', '')}\n")
        elif k == "run_failed":
            out.append(f"\n## Run failed\n\n{getattr(e, 'error', '')}\n")
        elif k == "run_finished":
            out.append("\n## Final program\n")
            where = f" at `{e.accepted_at}`" if getattr(e, "accepted_at", None) else ""  # type: ignore[attr-defined]
            out.append(f"**{getattr(e, 'outcome', '').upper()}**{where}.\n")
            out.append(_fence(getattr(e, "final_program", ""), "python"))
    for start in pending.values():
        out.append(f"**{_where(start)} · {start.agent}: model call never finished** (the recording stops here)\n")
        out.append(_md_prompt(start))
    return "\n".join(out).rstrip() + "\n"


def _md_prompt(start: Event) -> str:
    parts = [
        f"<details><summary>Prompt ({len(getattr(start, 'messages', []))} message(s), temperature "
        f"{getattr(start, 'temperature', '')}, hash <code>{getattr(start, 'prompt_hash', '')}</code>)</summary>\n"
    ]
    system = getattr(start, "system", "")
    if system:
        parts.append("*system*\n")
        parts.append(_fence(system, "text"))
    for m in getattr(start, "messages", []):
        parts.append(f"*{m.get('role', '?')}*\n")
        parts.append(_fence(str(m.get("content", "")), "text"))
    parts.append("</details>\n")
    return "\n".join(parts)


def _md_call(start: Event | None, end: Event) -> str:
    where: list[str] = []
    if start is not None:
        for name in ("turn", "epoch", "attempt"):
            v = getattr(start, name, None)
            if v is not None and not (name == "turn" and v == 1):
                where.append(f"{name} {v}")
    est = " (estimated)" if getattr(end, "tokens_estimated", False) else ""
    inp, out = getattr(end, "input_tokens", None), getattr(end, "output_tokens", None)
    cut = getattr(end, "detail", "") if getattr(end, "stop_reason", "finished") != "finished" else ""
    head = (
        f"**{_where(end)} · `{end.agent}`**"
        + (f" ({', '.join(where)})" if where else "")
        + f" — {'?' if inp is None else inp} tokens in, {'?' if out is None else out} out{est}, "
        + f"{getattr(end, 'latency', 0.0):.2f} s"
        + (f" — ✂ {cut}" if cut else "")
        + "\n"
    )
    parts = [head]
    test = getattr(start, "test", None) if start is not None else None
    if test:
        parts.append(f"Test: `{test}`\n")
    if start is not None:
        parts.append(_md_prompt(start))
    parts.append("Response:\n")
    parts.append(_fence(getattr(end, "response", ""), "text"))
    return "\n".join(parts)


def _md_sandbox(e: Event) -> str:
    passed, total = getattr(e, "passed", 0), getattr(e, "total", 0)
    lines = [f"\nSandbox run ({getattr(e, 'purpose', '')}, {_where(e)}): **{passed}/{total} passed**\n"]
    if getattr(e, "load_error", None):
        lines.append(f"The program failed to load: {e.load_error}\n")  # type: ignore[attr-defined]
    results = getattr(e, "results", []) or []
    if results:
        lines.append("| test | result |\n|---|---|")
        for r in results:
            status = r.get("status", "")
            extra = r.get("error") or (
                f"returned {r.get('actual')}" if r.get("actual") is not None and status != "pass" else ""
            )
            cell = status + (f": {extra}" if extra else "")
            test = str(r.get("test", "")).replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{test}` | {cell.replace('|', '/').replace(chr(10), ' ')} |")
        lines.append("")
    return "\n".join(lines)
