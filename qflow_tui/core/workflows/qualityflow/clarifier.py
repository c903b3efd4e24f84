"""Problem Clarifier (QualityFlow 3.5): explains the statement using everything
the run learned (synthesized tests, TQC verdicts, the debugging trajectory, why
the check failed) so the generator gets a second, better-informed chance.

Every attempt starts from the progression's self-debugging result (Appendix A:
"3 Clarifier attempts are performed on each of the 6 self-debugging results"),
each with its own prompt variant (section 3.6, Diversified Prompting; the
first for every attempt in Table 12's ablation without it). The
prompt says only what is true of the run: no debugging when there were no
epochs or no usable test, no Test Quality Checker verdicts when it was off, no
rejection when no checker runs."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...context import RunContext
from ...extract import extract_clarified
from . import CHECKER, EPOCHS, TQC, variant_index

AGENT = "clarifier"
PROMPTS = "qualityflow/clarifier"

_CHECKER_VERDICT = {
    "imagined": "the code quality checker, emulating it step by step on the visible tests, does not accept it",
    "python": "it still fails visible tests",
    "yesno": "a reviewer asked whether it is correct still answers no",
    "none": "no quality checker runs in this setting (checker=none), so every step runs whatever the program's quality",
}


def _history(ctx: RunContext, designed: bool, kept: list[str], debugged: bool) -> str:
    cfg = ctx.config
    parts = ["a program was generated"]
    if EPOCHS.of(cfg):
        if debugged:
            parts.append("then revised by self-debugging against synthesized unit tests")
        elif kept:
            parts.append("and it already passes every synthesized unit test, so self-debugging changed nothing")
        elif designed and TQC.of(cfg):
            parts.append(
                "but the test quality checker judged every synthesized unit test wrong, so there was nothing to "
                "debug against"
            )
        else:
            parts.append("but the test designer produced no usable unit test, so it was not debugged")
    verdict = _CHECKER_VERDICT.get(CHECKER.of(cfg), _CHECKER_VERDICT["imagined"])
    return ", ".join(parts) + "; " + verdict + "."


def clarifier_prompt(
    ctx: RunContext,
    attempt: int,
    *,
    program: str,
    kept_tests: list[str],
    rejected_tests: list[str],
    trajectory: str,
    check_feedback: str,
    debugged: bool,
    statement: str | None = None,
) -> tuple[str, str]:
    """The clarifier's prompt for one attempt: variant ``attempt`` of the
    diversified clarifier prompts, filled with what the run learned.
    ``debugged``: the self-debugger revised the program at least once;
    ``statement``: the statement as a person edited it (the problem's when None)."""
    cfg = ctx.config
    designed = bool(kept_tests or rejected_tests)
    evidence: list[str] = []
    if EPOCHS.of(cfg) and designed:
        if TQC.of(cfg):
            evidence.append(
                "Synthesized unit tests the test quality checker judged correct:\n"
                + ("\n".join(kept_tests) or "(none)")
                + "\n\nSynthesized unit tests the test quality checker rejected as wrong:\n"
                + ("\n".join(rejected_tests) or "(none)")
            )
        else:
            evidence.append(
                "Synthesized unit tests (used as written, unchecked, so some may be wrong):\n" + "\n".join(kept_tests)
            )
    if EPOCHS.of(cfg) and trajectory.strip():
        evidence.append("Self-debugging trajectory:\n" + trajectory.strip())
    label = "The program after self-debugging" if EPOCHS.of(cfg) else "The generated program"
    accepted_note = "" if CHECKER.of(cfg) == "none" else " (not accepted)"
    program_section = f"{label}{accepted_note}:\n```python\n{program}\n```"
    if CHECKER.of(cfg) != "none" and check_feedback.strip():
        program_section += f"\n\nWhy it was not accepted:\n{check_feedback.strip()}"
    variants = ctx.prompts.variants(PROMPTS)
    return variants[variant_index(ctx.config, attempt - 1, len(variants))].render(
        statement=ctx.problem.statement if statement is None else statement,
        tests=tests_text(ctx),
        history=_history(ctx, designed, kept_tests, debugged),
        evidence="".join("\n\n" + section for section in evidence),
        program_section=program_section,
    )


async def clarify(
    ctx: RunContext,
    progression: int,
    attempt: int,
    *,
    program: str,
    kept_tests: list[str],
    rejected_tests: list[str],
    trajectory: str,
    check_feedback: str,
    step: str,
    debugged: bool | None = None,
    statement: str | None = None,
) -> str:
    if debugged is None:
        # The trajectory has a "passed:" entry for each epoch the debugger ran.
        debugged = "synthesized tests passed:" in trajectory
    rendered = clarifier_prompt(
        ctx,
        attempt,
        program=program,
        kept_tests=kept_tests,
        rejected_tests=rejected_tests,
        trajectory=trajectory,
        check_feedback=check_feedback,
        debugged=debugged,
        statement=statement,
    )
    text = await ctx.call(ctx.request(AGENT, rendered, progression=progression, attempt=attempt), step=step)
    return extract_clarified(text)
