"""What a whole bench will cost before it spends: tokens, dollars and time for
every run, extrapolated from finished runs (the bench folder's own, the first
few problems run now, or another bench's, ``--estimate-from``)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..llm.prices import Price
from ..summary import TokenTally
from .bench_runner import BenchRunner, cap_price
from .data import load_bench
from .names import BenchError, run_key
from .results import ResultLine, latest_results, read_results

#: Problems an estimate runs when the folder has none finished.
DEFAULT_SAMPLE = 3


@dataclass(frozen=True)
class Estimate:
    """The whole bench, extrapolated from ``sample`` finished runs."""

    sample: list[str]
    """The finished runs the figures come from (their keys)."""
    source: str
    """Where they come from, in words (this folder, just run, another bench)."""
    runs: int
    """Runs in the whole bench (problems x samples)."""
    left: int
    """Runs not finished yet."""
    concurrency: int
    tokens_in: float
    """Mean input tokens per run."""
    tokens_out: float
    """Mean output tokens per run."""
    cost: float | None
    """Mean US dollars per run (None: unpriced; 0: the model costs nothing)."""
    cost_low: float | None
    cost_high: float | None
    """The cheapest and dearest run of the sample."""
    seconds: float
    """Mean wall time a run held its place among the ``concurrency`` (the workflow's time)."""
    judge_seconds: float
    """Mean time judging a run took after it (it does not hold a place)."""
    price_words: str

    @property
    def wall_seconds(self) -> float:
        """The runs left, ``concurrency`` at a time, then the last one judged."""
        if not self.left:
            return 0.0
        return self.left * self.seconds / self.concurrency + self.judge_seconds

    def to_dict(self) -> dict[str, object]:
        return {
            "sample": self.sample,
            "source": self.source,
            "runs": self.runs,
            "left": self.left,
            "concurrency": self.concurrency,
            "per_run": {
                "input_tokens": round(self.tokens_in),
                "output_tokens": round(self.tokens_out),
                "cost": self.cost,
                "seconds": round(self.seconds, 3),
            },
            "whole_bench": {
                "input_tokens": round(self.tokens_in * self.runs),
                "output_tokens": round(self.tokens_out * self.runs),
                "cost": None if self.cost is None else round(self.cost * self.runs, 6),
                "cost_range": None
                if self.cost_low is None or self.cost_high is None
                else [round(self.cost_low * self.runs, 6), round(self.cost_high * self.runs, 6)],
            },
            "runs_left": {
                "runs": self.left,
                "cost": None if self.cost is None else round(self.cost * self.left, 6),
                "wall_seconds": round(self.wall_seconds, 1),
            },
            "price": self.price_words,
        }

    def text(self) -> str:
        """The estimate in a few lines, for the terminal and the bench screen."""
        n = len(self.sample)
        lines = [
            f"Estimate from {n} finished run{'s' if n != 1 else ''} ({self.source}): "
            f"per run {_tokens(self.tokens_in)} tokens in, {_tokens(self.tokens_out)} out"
            + (f", ${self.cost:.4f}" if self.cost is not None else "")
            + f", {self.seconds:.1f}s.",
        ]
        whole = (
            f"The whole bench, {self.runs} runs: about {_tokens((self.tokens_in + self.tokens_out) * self.runs)} tokens"
        )
        if self.cost is None:
            whole += f"; cost unknown ({self.price_words})"
        elif self.cost == 0:
            whole += f"; $0 ({self.price_words})"
        else:
            whole += f", ${self.cost * self.runs:.2f}"
            if self.cost_low is not None and self.cost_high is not None and n > 1:
                low, high = self.cost_low * self.runs, self.cost_high * self.runs
                whole += f" (${low:.2f} to ${high:.2f} at the sample's cheapest and dearest run)"
        lines.append(whole + ".")
        if self.left:
            left = (
                f"The {self.left} runs left: about {_duration(self.wall_seconds)} at --concurrency {self.concurrency}"
            )
            if self.cost:
                left += f", ${self.cost * self.left:.2f}"
            lines.append(left + " (if the provider serves that many calls at once at the sample's pace).")
        else:
            lines.append("Every run has finished.")
        return "\n".join(lines)


def _tokens(n: float) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.2f}M"
    if n >= 1e4:
        return f"{n / 1e3:.0f}k"
    return f"{n:.0f}"


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def estimate_from(
    records: Sequence[ResultLine],
    *,
    runs: int,
    left: int,
    concurrency: int,
    price: Price | None,
    priced: bool,
    source: str,
) -> Estimate:
    """The estimate from finished ``records`` (their tokens, at ``price``;
    ``priced`` False: the model's price is unknown)."""
    if not records:
        raise ValueError("an estimate needs at least one finished run")
    tin = [sum(int(t.get("input", 0)) for t in _tallies(r)) for r in records]
    tout = [sum(int(t.get("output", 0)) for t in _tallies(r)) for r in records]
    costs = [sum(price.cost(t) for t in _tallies(r)) for r in records] if price is not None else []
    work = [max(0.0, float(r.get("duration", 0) or 0) - float(r.get("eval_duration", 0) or 0)) for r in records]
    judge = [float(r.get("eval_duration", 0) or 0) for r in records]
    if not priced:
        cost = low = high = None
        words = "the model has no price: give --price-in and --price-out"
    elif price is None:
        cost, low, high = 0.0, 0.0, 0.0
        words = "the model costs nothing"
    else:
        cost, low, high = statistics.fmean(costs), min(costs), max(costs)
        words = f"at ${price.input:g} in, ${price.output:g} out per million tokens" + (
            f" (prices as of {price.as_of})" if price.as_of else ""
        )
    return Estimate(
        sample=[run_key(str(r["id"]), int(r.get("sample", 0))) for r in records],
        source=source,
        runs=runs,
        left=left,
        concurrency=max(1, concurrency),
        tokens_in=statistics.fmean(tin),
        tokens_out=statistics.fmean(tout),
        cost=cost,
        cost_low=low,
        cost_high=high,
        seconds=statistics.fmean(work),
        judge_seconds=statistics.fmean(judge),
        price_words=words,
    )


def _tallies(rec: ResultLine) -> list[dict[str, int]]:
    """A line's tallies, each count a whole number from 0 to MAX_TALLY (a
    hand-edited ``10**400`` or ``"lots"`` counts 0, never an OverflowError)."""
    tokens = rec.get("tokens")
    if not isinstance(tokens, dict):
        return []
    return [TokenTally.from_dict(t).to_dict() for t in tokens.values() if isinstance(t, dict)]


def price_for(spec: Mapping[str, object], base_url: str | None) -> tuple[Price | None, bool]:
    """(price, priced): the bench's price as the report counts it; ``priced``
    False when the model has no known price (None with priced True: free)."""
    try:
        return cap_price(spec, base_url), True
    except BenchError:
        return None, False


async def estimate_bench(
    runner: BenchRunner, sample: int = DEFAULT_SAMPLE, source_folder: Path | str | None = None
) -> Estimate:
    """Estimate ``runner``'s whole bench: from ``source_folder``'s finished runs
    when given, else from the folder's own, else by running its first
    ``sample`` runs now (kept: the full bench skips them later)."""
    if not runner.keys:
        runner.prepare(write=source_folder is None)
    spec = runner.spec.to_dict([bp.id for bp in runner.problems])
    price, priced = price_for(spec, runner.spec.config.base_url)
    keys = [run_key(pid, s) for pid, s in runner.keys]
    latest = latest_results(read_results(runner.folder))
    done_here = [latest[k] for k in keys if k in latest and latest[k].get("status") == "done"]
    left = len(keys) - len(done_here)
    if source_folder is not None:
        other = load_bench(source_folder)
        if not other.done:
            raise BenchError(f"{source_folder} has no finished run to estimate from")
        what = " · ".join(str(other.spec.get(k, "?")) for k in ("dataset", "workflow", "model"))
        source = f"from {source_folder}: {what}"
        return estimate_from(
            other.done,
            runs=len(keys),
            left=left,
            concurrency=runner.spec.concurrency,
            price=price,
            priced=priced,
            source=source,
        )
    if done_here:
        return estimate_from(
            done_here,
            runs=len(keys),
            left=left,
            concurrency=runner.spec.concurrency,
            price=price,
            priced=priced,
            source="this bench folder's finished runs",
        )
    runner.only = set(keys[: max(1, sample)])
    try:
        await runner.run()
    finally:
        runner.only = None
    latest = latest_results(read_results(runner.folder))
    ran = [latest[k] for k in keys if k in latest and latest[k].get("status") == "done"]
    if not ran:
        why = next((str(latest[k].get("error", "")) for k in keys if k in latest), "")
        raise BenchError("the estimate's first runs did not finish" + (f": {why[:200]}" if why else ""))
    return estimate_from(
        ran,
        runs=len(keys),
        left=len(keys) - len(ran),
        concurrency=runner.spec.concurrency,
        price=price,
        priced=priced,
        source=f"the first {len(ran)} run now, kept in the folder"
        if len(ran) == 1
        else f"the first {len(ran)} runs now, kept in the folder",
    )
