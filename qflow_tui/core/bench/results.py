"""A bench folder's files read back: ``results.jsonl`` (one line per finished
run, written by :mod:`qflow_tui.core.bench.bench_runner`) and ``bench.json`` (its
spec), each checked against the shapes below before any reader sees it.

A line of the wrong shape (``"sample": "1x"``, ``"id": 7``, a step that is not
a row) is skipped and named, with its line number and the field that is wrong,
and the rest is read: ``qflow bench report``, ``export``, ``compare``,
``table``, ``open`` and the bench screen read what is here and say what they
skipped. A line cut short by a kill is skipped as before (the runner appends
after it). A field the runner writes is declared here too
(``tests/bench/test_crafted_results.py`` fails when one is not), so a reader
can rely on every declared field's type.
"""

# No ``from __future__ import annotations`` here: Python 3.11 sees ``Required``
# in a TypedDict only when its annotations are evaluated.
import json
import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn, Required, TypedDict, cast

from ..jsonbound import depth_problem
from ..jsontypes import JSONValue
from ..safe_text import one_line
from ..typecheck import keys_problem
from .names import RESULTS as RESULTS
from .names import SPEC as SPEC
from .names import BenchError, run_key

#: The largest results file read (a line per run: a million runs fit).
MAX_RESULTS_BYTES = 2 * 1024**3
#: The deepest a line may nest (rows in lists in a line: 4).
MAX_DEPTH = 32
#: Skipped lines named one by one; past this many, a count.
NAMED = 20
#: The largest count a line may hold (tokens, calls, a sample's number): far
#: past any real run's, and small enough that a cost computed from it is a
#: finite number.
MAX_COUNT = 10**15
#: The longest duration a line may hold, in seconds (about 31 years).
MAX_SECONDS = 1e9


class StepRow(TypedDict):
    """The run's output after one step, judged on the hidden tests."""

    step: str
    passed: bool
    accepted: bool


class ProgramRow(TypedDict, total=False):
    step: str | None
    progression: int | None
    agent: str | None
    passed: bool
    status: str
    detail: str
    base: bool | None


class CheckRow(TypedDict, total=False):
    step: Required[str]
    progression: int | None
    accepted: Required[bool]
    passed: Required[bool]
    no_visible_test: bool
    """The problem had no visible test, so the check judged nothing (imagined
    execution accepts at once): Table 4's figures count it apart."""


class DebugRow(TypedDict, total=False):
    step: Required[str]
    progression: int | None
    before: Required[bool]
    after: Required[bool]


class TestRow(TypedDict, total=False):
    test: str
    kept: Required[bool | None]
    correct: Required[bool]
    triggered: bool


class VerdictRow(TypedDict, total=False):
    passed: bool
    status: str
    detail: str
    duration: float
    base: bool | None
    plus: bool | None
    charged: float | None
    limit: float | None


class ResultLine(TypedDict, total=False):
    """One line of ``results.jsonl``: a run of one problem (one sample)."""

    id: Required[str]
    sample: int
    session: str
    status: str
    """``done``, ``error`` or ``provider_error``."""
    error: str
    outcome: str | None
    accepted_at: str | None
    program: str
    passed: bool
    verdict: VerdictRow
    first_passed: bool
    steps: list[StepRow]
    programs: list[ProgramRow]
    checks: list[CheckRow]
    debug: list[DebugRow]
    tests: list[TestRow]
    tokens: dict[str, dict[str, float]]
    tokens_total: int
    llm_calls: int
    duration: float
    eval_duration: float
    tokens_unreported: int
    """Model calls the provider reported no usage for: their tokens are estimates."""
    node: str
    """The cluster node that judged the final program (``--cluster`` benches only)."""


class JudgedRun(TypedDict):
    """What judging a finished run adds to its line (see :class:`ResultLine`)."""

    passed: bool
    verdict: VerdictRow
    first_passed: bool
    steps: list[StepRow]
    programs: list[ProgramRow]
    checks: list[CheckRow]
    debug: list[DebugRow]
    tests: list[TestRow]


class BenchSpecFile(TypedDict, total=False):
    """``bench.json``: what was asked for (see :class:`BenchSpec.to_dict`)."""

    dataset: str
    model: str
    workflow: str
    settings: dict[str, object]
    samples: int
    convention: str
    extract: str
    problems: list[str]
    app_version: str
    created: str
    price_in: float | None
    price_out: float | None
    dataset_file: str | None


def line_problem(parsed: object) -> str | None:
    """Why one parsed line is not a run's line (one line naming the field), or None."""
    problem = keys_problem(parsed, ResultLine)
    if problem:
        return problem
    record = cast(ResultLine, parsed)  # its shape was just checked
    if not record["id"].strip():
        return "id is empty"
    return counts_problem(record)


def number_problem(value: float, where: str, largest: float) -> str | None:
    """Why ``value`` is not a count or a duration a run can have: not a finite
    number (``Infinity`` read from a hand-edited line), below 0, or past
    ``largest``; None when it can be."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where} is {value}, not a finite number"
    if value < 0:
        return f"{where} is {_shown(value)}, below 0"
    if value > largest:
        return f"{where} is {_shown(value)}, above {largest:g}"
    return None


def _shown(value: float) -> str:
    if isinstance(value, int) and abs(value) >= 10**21:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    return f"{value:g}"


def counts_problem(record: ResultLine) -> str | None:
    """Why a line of the right shape holds a count or a duration no run has
    (tokens, calls, a sample's number, seconds), or a number anywhere that is
    not finite; None when all are readable. A cost, an estimate or a cost
    cap computed from such a line would be infinite or negative."""
    fields: dict[str, object] = dict(record)  # read by name: the keys below are fields of the checked shape
    numbers: list[tuple[float, str, float]] = [(record.get("sample", 0), "sample", MAX_COUNT)]
    numbers += [(_number(fields[k]), k, MAX_COUNT) for k in ("tokens_total", "llm_calls") if k in fields]
    numbers += [(_number(fields[k]), k, MAX_SECONDS) for k in ("duration", "eval_duration") if k in fields]
    for agent, tally in (record.get("tokens") or {}).items():
        numbers += [
            (v, f"tokens[{one_line(repr(agent), 40)}][{one_line(repr(k), 40)}]", MAX_COUNT) for k, v in tally.items()
        ]
    verdict: dict[str, object] = dict(record.get("verdict") or {})
    numbers += [
        (_number(verdict[k]), f"verdict.{k}", MAX_SECONDS)
        for k in ("duration", "charged", "limit")
        if verdict.get(k) is not None
    ]
    rows: dict[str, Iterable[ProgramRow | CheckRow | DebugRow]] = {
        "programs": record.get("programs") or [],
        "checks": record.get("checks") or [],
        "debug": record.get("debug") or [],
    }
    for key, listed in rows.items():
        for i, row in enumerate(listed):
            progression = row.get("progression")
            if progression is not None:
                numbers.append((progression, f"{key}[{i}].progression", MAX_COUNT))
    for value, where, largest in numbers:
        problem = number_problem(value, where, largest)
        if problem:
            return problem
    place = _not_finite(record)
    return f"{place} is not a finite number" if place is not None else None


def _number(value: object) -> float:
    """A field the shape check found a number (int or float) to be."""
    assert isinstance(value, (int, float))
    return value


def _not_finite_keys(value: object, depth: int = 0) -> list[object] | None:
    """The keys, innermost first, down to a float in ``value`` that is not
    finite (JSON has none), or None. One walk over a line's every number; the
    keys are gathered only on the way back up from one that is found."""
    if isinstance(value, float):
        return None if math.isfinite(value) else []
    if depth > MAX_DEPTH:
        return None
    items: Iterable[tuple[object, object]]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _not_finite_keys(item, depth + 1)
        if found is not None:
            found.append(key)
            return found
    return None


def _not_finite(value: object) -> str | None:
    """Where in ``value`` a float that is not finite sits, as a path a user
    reads (``checks[3].seconds``), or None."""
    keys = _not_finite_keys(value)
    if keys is None:
        return None
    where = ""
    for key in reversed(keys):
        step = f"[{one_line(repr(key), 40)}]"
        where = f"{where}{step}" if where or not isinstance(key, str) else key
    return where or "it"


class _NotJsonNumber(ValueError):
    """A number JSON does not have (``NaN``, ``Infinity``, one too large for a float)."""


def _refuse_constant(name: str) -> NoReturn:
    raise _NotJsonNumber(f"holds {name}, which is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJsonNumber(f"holds {one_line(text, 40)}, a number too large to read")
    return value


def strict_loads(text: str) -> JSONValue:
    """``json.loads`` as JSON is written: ``NaN``, ``Infinity`` and a number too
    large for a float are refused (``_NotJsonNumber``, a ValueError, naming it)."""
    return cast(JSONValue, json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float))


@dataclass
class ResultsRead:
    """What a results file held: the lines of the right shape, in order, and
    the others, named."""

    records: list[ResultLine] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """``line N: why``, one per skipped line (cut short, not JSON, wrong shape)."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """The runs (``id`` or ``id#sample``) whose line was skipped though it named
    them, with why: a screen can show the run as unreadable, not as not run."""

    def said(self, path: Path | str) -> list[str]:
        """One line per skipped line, at most :data:`NAMED`, then a count; terminal-safe."""
        shown = [f"{one_line(str(path), 200)} {one_line(s, 300)}: skipped" for s in self.skipped[:NAMED]]
        if len(self.skipped) > NAMED:
            shown.append(f"{one_line(str(path), 200)}: {len(self.skipped) - NAMED} more lines skipped")
        return shown


def checked_line(line: str) -> bool:
    """Whether one line of text passes every check :func:`read_lines` makes of
    it: a bench checks each line it writes as it writes it, in its writer
    thread, so that reading the file back at its end checks only the others."""
    if depth_problem(line.encode("utf-8", "surrogatepass"), MAX_DEPTH) is not None:
        return False
    try:
        record = strict_loads(line)
    except (ValueError, RecursionError):
        return False
    return line_problem(record) is None


def read_lines(folder: Path | str, checked: Collection[str] = ()) -> ResultsRead:
    """Every line of the folder's ``results.jsonl`` checked: the good ones kept,
    each other one named (``line 3: sample is '1x' (a str), not a whole number``).
    A line in ``checked`` passed :func:`checked_line` already and is only parsed."""
    path = Path(folder) / RESULTS
    read = ResultsRead()
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_RESULTS_BYTES + 1)
    except FileNotFoundError:
        return read
    except OSError as exc:
        read.skipped.append(f"could not be read ({one_line(exc.strerror or str(exc))})")
        return read
    if len(data) > MAX_RESULTS_BYTES:
        read.skipped.append(f"is larger than {MAX_RESULTS_BYTES >> 30} GB: only that much was read")
        data = data[:MAX_RESULTS_BYTES]
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    last = len(lines)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if line in checked:
            read.records.append(cast(ResultLine, json.loads(line)))  # checked as it was written
            continue
        problem = depth_problem(line.encode("utf-8", "surrogatepass"), MAX_DEPTH)
        if problem is None:
            try:
                record = strict_loads(line)
            except _NotJsonNumber as exc:
                problem = str(exc)
            except (ValueError, RecursionError):
                problem = "is cut short (a run ended mid-write)" if number == last else "is not JSON"
            else:
                problem = line_problem(record)
        if problem is None:
            read.records.append(cast(ResultLine, record))  # its shape was checked
        else:
            read.skipped.append(f"line {number}: {problem}")
            parsed = _or_none(line, problem)
            named = parsed.get("id") if isinstance(parsed, dict) else None
            sample = parsed.get("sample", 0) if isinstance(parsed, dict) else 0
            if isinstance(named, str) and named.strip() and isinstance(sample, int) and not isinstance(sample, bool):
                read.unreadable[named if sample == 0 else f"{named}#{sample}"] = problem
    return read


def _or_none(line: str, problem: str) -> JSONValue:
    """The parsed line when it parsed (its shape was the problem), else None."""
    if problem.startswith(("its JSON nests", "is cut short", "is not JSON")):
        return None
    return cast(JSONValue, json.loads(line))


def spec_problem(parsed: object) -> str | None:
    """Why a parsed ``bench.json`` is not a bench's spec (one line naming the field), or None."""
    problem = keys_problem(parsed, BenchSpecFile)
    if problem:
        return problem
    data = cast(BenchSpecFile, parsed)  # its shape was just checked
    if data.get("samples", 1) < 1:
        return f"samples is {data['samples']}, below 1"
    problem = number_problem(data.get("samples", 1), "samples", MAX_COUNT)
    for key, price in (("price_in", data.get("price_in")), ("price_out", data.get("price_out"))):
        if problem is None and price is not None:
            problem = number_problem(price, key, MAX_COUNT)
    return problem


def read_results(folder: Path) -> list[ResultLine]:
    """Every line of ``results.jsonl`` of the shape the runner writes (a line cut
    short by a kill, or of another shape, is skipped: :func:`read_lines` names them)."""
    return read_lines(folder).records


def latest_results(records: Iterable[ResultLine]) -> dict[str, ResultLine]:
    """The last line for each run (a retried problem's newer line wins)."""
    latest: dict[str, ResultLine] = {}
    for rec in records:
        latest[run_key(rec["id"], int(rec.get("sample", 0)))] = rec
    return latest


def read_spec(folder: Path) -> BenchSpecFile | None:
    path = Path(folder) / SPEC
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes()[: 16 * 1024 * 1024])
    except (ValueError, RecursionError, OSError) as exc:
        why = one_line(str(exc), 200) if not isinstance(exc, RecursionError) else "it nests too deep"
        raise BenchError(f"{path} is not a bench spec ({why}); choose another --out") from None
    problem = spec_problem(data)
    if problem:
        raise BenchError(f"{path} is not a bench spec qflow wrote: {one_line(problem, 300)}; choose another --out")
    return cast(BenchSpecFile, data)  # its shape was just checked
