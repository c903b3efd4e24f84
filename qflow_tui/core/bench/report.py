"""The paper's tables for one bench (or several side by side) in markdown:
pass@1 by workflow step (QualityFlow Table 1), the Code Quality Checker as a
classifier at each step (Table 4), the Test Quality Checker as a classifier of
synthesized tests (Table 6), self-debugging deviation, average tokens per
agent (Table 11), and pass@k. A renderer: what it shows comes from the data
layer (:mod:`.data` and :mod:`.figures`), whose names it still offers."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from ..escape import markdown as md
from ..safe_text import one_line
from ..workflows import WORKFLOWS, WorkflowSpec
from .cluster import cluster_lines
from .data import BenchData as BenchData
from .data import _after as _after
from .data import (
    _id_key,
    _number,
    _pct,
    _ranked,
    _roles,
    _unfinished,
)
from .data import _whole as _whole
from .data import base_and_plus as base_and_plus
from .data import bench_price as bench_price
from .data import cached_tokens as cached_tokens
from .data import cost as cost
from .data import last_programs_k as last_programs_k
from .data import load_bench as load_bench
from .data import pass_at_k as pass_at_k
from .data import pass_at_last as pass_at_last
from .data import pass_by_step_intervals as pass_by_step_intervals
from .data import records_cost as records_cost
from .data import step_columns as step_columns
from .data import step_order as step_order
from .data import table_cqc as table_cqc
from .data import table_cqc_verdicts as table_cqc_verdicts
from .data import table_debug as table_debug
from .data import table_pass_by_step as table_pass_by_step
from .data import table_tokens as table_tokens
from .data import table_tqc as table_tqc
from .datasets import BenchProblem, without_visible_tests
from .figures import BenchFigures, bench_cost, bench_figures, compare_pairs, correction_words
from .papers import family_of, paper, published
from .protocol import bench_config, family, is_evalplus, protocol_lines, setting, title, workflow_settings
from .results import BenchSpecFile, ResultLine
from .sources import load_dataset
from .stats import BOOTSTRAP, MCNEMAR, WILSON, dollars, interval_text, wilson


def pass_at_last_words(spec: Mapping[str, object], done: list[ResultLine]) -> str:
    """``pass@5 (the last 5 programs) 80.00% (8/10), 95% CI [49.0, 94.3]`` (Wilson's
    interval), with base and plus apart on EvalPlus's datasets; "" when the bench's
    workflow reports no such figure."""
    k = last_programs_k(spec)
    if not k:
        return ""
    n, base, passed = pass_at_last(done, k)
    what = f"pass@{k} (the last {k} programs)"
    base_ci, ci = interval_text(wilson(base, n)), interval_text(wilson(passed, n))
    if is_evalplus(str(spec.get("dataset", ""))):
        plus = f"plus {_pct(passed, n)}% ({passed}/{n}), 95% CI {ci}"
        return f"{what} base {_pct(base, n)}% ({base}/{n}), 95% CI {base_ci}, {plus}"
    return f"{what} {_pct(passed, n)}% ({passed}/{n}), 95% CI {ci}"


# ------------------------------------------------------------------ markdown
def _md(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table of cells already written as markdown (outside text through ``md.text``)."""
    return md.table(header, rows)


#: Run settings that shape every model call, shown with any workflow's own.
MODEL_SETTINGS_SHOWN = ("temperature", "max_tokens", "seed", "effort", "test_timeout")


def _settings_line(s: BenchSpecFile) -> str:
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


def role_label(spec: Mapping[str, object], declared: Callable[[WorkflowSpec], str], otherwise: str) -> str:
    """The label of the role the bench's workflow declares as one of its
    spec's roles (``declared`` reads it: ``lambda w: w.checker``, or its
    ``debugger`` or ``test_judge``), so a report names each workflow's agents
    in its own words (``Code quality checker``); ``otherwise`` (capitalised)
    for a workflow not installed here, or one that declares no such role."""
    workflow = WORKFLOWS.get(str(spec.get("workflow", "")))
    role = (declared(workflow) or "") if workflow is not None else ""
    agent = next((a for a in workflow.agents if a.role == role), None) if workflow is not None and role else None
    label = agent.label if agent is not None else otherwise
    return label[:1].upper() + label[1:]


def render_report(data: BenchData, paper_family: str | None = None, *, problems: Sequence[BenchProblem] = ()) -> str:
    """The bench's report in markdown; ``paper_family`` matches the papers' rows
    of that model family instead of the bench's own. ``problems``: the bench's
    problems when the caller has them loaded (the runner that just ran it), so
    the dataset is not read and parsed a second time."""
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
    checker = md.text(role_label(s, lambda w: w.checker, "the quality checker"))
    if any(r.get("checks") for r in first_sample):
        parts += ["", f"## {checker} as a classifier (QualityFlow's Table 4)", "", _md([md.text(c) for c in h], rows)]
        parts += ["", f"Every verdict of the {checker.lower()}, per step:", ""]
        verdict_rows = [[md.text(step), *rest] for step, *rest in table_cqc_verdicts(checked)]
        parts.append(_md(["step", "verdicts", "accuracy", "precision", "recall"], verdict_rows))
        if unchecked:
            parts += [
                "",
                f"Left out of both: {len(unchecked)} problems with no visible test, whose checks judged nothing "
                f"(the {checker.lower()} checks a program against the visible tests; with none it judged nothing): "
                + ", ".join(md.text(str(r.get("id"))) for r in unchecked)
                + ".",
            ]
    if any(r.get("tests") for r in first_sample):
        judge = md.text(role_label(s, lambda w: w.test_judge, "the test judge"))
        parts += ["", f"## {judge} on synthesized tests (QualityFlow's Table 6)", ""]
        parts.append("A positive test is an incorrect one: the dataset's reference solution fails it.")
        parts += ["", _md(["statistic", "value"], table_tqc(first_sample))]
    dbg = table_debug(first_sample)
    if dbg:
        debugger = md.text(role_label(s, lambda w: w.debugger, "the debugger"))
        parts += ["", f"## {debugger}: what its fixes did (QualityFlow's Table 7)", ""]
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
            bare = without_visible_tests(_bench_problems(data, problems))
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


def _bench_problems(data: BenchData, known: Sequence[BenchProblem]) -> list[BenchProblem]:
    """The bench's problems in dataset order: ``known`` when it holds every one
    of them (the runner's, already loaded), else read from the shipped dataset
    (as a report of a folder does)."""
    wanted = set(data.problem_ids)
    have = [bp for bp in known if bp.id in wanted]
    if len(have) == len(wanted) and not data.spec.get("dataset_file"):
        return have
    return load_dataset(data.dataset, ids=[i.split("/")[-1] for i in data.problem_ids])


def compare_problem(benches: list[BenchData]) -> str | None:
    """Why these benches cannot be compared problem by problem (HumanEval
    against MBPP), or None when they can."""
    families = {family(b.dataset) for b in benches}
    if len(families) > 1:
        named = ", ".join(f"{b.folder} ({title(b.dataset)})" for b in benches)
        return (
            f"these benches judge different problems ({named}): compare HumanEval with HumanEval(+) and MBPP "
            "with MBPP(+), or put them side by side with 'qflow bench table'"
        )
    return None


def _mixed_settings_note(benches: list[BenchData]) -> list[str]:
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
