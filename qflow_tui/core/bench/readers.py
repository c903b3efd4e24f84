"""The readers of the dataset files qflow does not ship, each from a local
copy (``--dataset-file``): CodeContests, APPS (and CodeTree's draw of 150),
HumanEval-ET and MBPP-ET, and ``jsonl``, the format for a set of one's own.
``read_records`` and ``jsonl_problem`` serve a plugin's reader too (imported
from ``sources.py``, the registry above this module, which names each reader
in its built-in table); the shipped sets' readers are ``datasets.py``, below.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..iojudge import COMPARES
from ..problem import ProblemError, make_io_problem, make_problem
from .datasets import MBPP_TEST_SPLIT, BenchProblem, _humaneval, _mbpp

#: The largest dataset file read (bytes, before decompression).
MAX_FILE_BYTES = 4 << 30


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
        raise ProblemError(f"{name} record {n}: {key!r} must be text, not {kind_of(value)}")
    return value


def kind_of(value: object) -> str:
    """What a value is, in a refusal's words: ``None``, or ``a list``."""
    return "None" if value is None else f"a {type(value).__name__}"


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


def apps_level_reader(level: str) -> Callable[[Path | None], list[BenchProblem]]:
    """The reader of APPS's problems of one difficulty (``apps-interview``: ``interview``)."""

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
