"""The statistics a reviewer asks of a bench: intervals for every rate, paired
tests for two benches on the same problems, and a correction for several.

Each method is a textbook one, named where it is used and in
``docs/benchmark.md``:

- pass@1's 95% interval: the Wilson score interval (Wilson 1927), honest at
  small n and at 0 or n passes, where the normal approximation is not;
- two benches on the same problems: the exact McNemar test (McNemar 1947; the
  two-sided binomial test on the discordant problems) and a paired percentile
  bootstrap over problems (Efron and Tibshirani 1993) for the difference;
- several comparisons: Holm's step-down correction (Holm 1979);
- pass@k (k > 1) and cost per solved problem: a percentile bootstrap over
  problems.

Every bootstrap here draws :data:`BOOTSTRAP_RESAMPLES` resamples from a
``random.Random`` seeded with :data:`BOOTSTRAP_SEED`, fresh for each figure, so
the same results give the same interval on every machine and in every order.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054
#: Resamples of every bootstrap (percentile intervals want a thousand or more).
BOOTSTRAP_RESAMPLES = 2000
#: The seed of every bootstrap: fixed, so a figure is the same on every run.
BOOTSTRAP_SEED = 0

WILSON = "Wilson score interval"
BOOTSTRAP = f"percentile bootstrap over problems ({BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED})"
MCNEMAR = "exact McNemar test (two-sided binomial test on the discordant problems)"
HOLM = "Holm's step-down correction"


@dataclass(frozen=True)
class Interval:
    """A 95% interval ``[low, high]`` (fractions, not percent), and how it was made."""

    low: float
    high: float
    method: str

    def to_dict(self) -> dict[str, object]:
        return {"low": _finite(self.low), "high": _finite(self.high), "method": self.method}


def _finite(x: float) -> float | None:
    """JSON has no infinity: an unbounded end is null."""
    return x if math.isfinite(x) else None


# ------------------------------------------------------------------ one rate
def wilson(k: int, n: int, z: float = Z95) -> Interval | None:
    """The Wilson score interval of k successes in n trials (None for n = 0):
    (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At k = 0 (k = n) the lower (upper) end is 0 (1) exactly; rounding must not hide it.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return Interval(low, high, WILSON)


# ------------------------------------------------------------------ two benches
def mcnemar_exact(b: int, c: int) -> float:
    """The exact McNemar p-value for ``b`` and ``c`` discordant problems (solved
    by one bench only, each way): p = min(1, 2·Σ_{i≤min(b,c)} C(b+c, i) / 2^(b+c)),
    computed in exact fractions; 1 when no problem is discordant."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts cannot be negative")
    m = b + c
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**m)))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: the i-th smallest
    of m is multiplied by (m - i + 1), kept monotone, and capped at 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def _binomial(rng: random.Random, n: int, p: float) -> int:
    """One exact draw from Binomial(n, p), by inversion (fast when n·min(p, 1-p)
    is small, as discordant counts are)."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:
        return n - _binomial(rng, n, 1.0 - p)
    q = 1.0 - p
    start = n * math.log(q)
    if start < -700.0:  # (1-p)^n would underflow: draw the n trials one by one
        return sum(1 for _ in range(n) if rng.random() < p)
    f = math.exp(start)
    u = rng.random()
    k = 0
    ratio = p / q
    while u > f and k < n:
        u -= f
        f *= (n - k) / (k + 1) * ratio
        k += 1
    return k


def _percentile(values: list[float]) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the resampled statistics."""
    values.sort()
    b = len(values)
    return values[int(0.025 * b)], values[max(0, int(0.975 * b) - 1)]


def paired_difference(b: int, c: int, n: int) -> Interval | None:
    """The 95% interval of pass@1(B) - pass@1(A) over ``n`` shared problems, of
    which ``b`` only A solved and ``c`` only B solved: a percentile bootstrap
    over problems. Resampling n problems with replacement only moves how many
    land in each cell of the 2x2 table, so each resample draws those counts
    (a multinomial, as two binomials) instead of n problems: the same
    distribution, exactly, at a fraction of the cost."""
    if n <= 0:
        return None
    rng = random.Random(BOOTSTRAP_SEED)
    pb, pc = b / n, c / n
    stats = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        bs = _binomial(rng, n, pb)
        rest = n - bs
        cs = _binomial(rng, rest, pc / (1.0 - pb)) if pb < 1.0 else 0
        stats.append((cs - bs) / n)
    low, high = _percentile(stats)
    return Interval(low, high, BOOTSTRAP)


@dataclass(frozen=True)
class Paired:
    """Two benches judged on the same problems (A first, B second)."""

    n: int
    """Problems both benches finished."""
    a_passed: int
    b_passed: int
    a_only: int
    """Discordant: solved by A, not by B (McNemar's b)."""
    b_only: int
    """Discordant: solved by B, not by A (McNemar's c)."""
    p_value: float
    """The exact McNemar p-value."""
    interval: Interval | None
    """The 95% interval of the difference B - A."""

    @property
    def difference(self) -> float | None:
        """pass@1 of B minus pass@1 of A, over the shared problems (a fraction)."""
        return None if self.n == 0 else (self.b_passed - self.a_passed) / self.n


def paired(a: Sequence[bool], b: Sequence[bool]) -> Paired:
    """The paired statistics of two benches' verdicts on the same problems (in the same order)."""
    if len(a) != len(b):
        raise ValueError("paired verdicts must be of the same problems")
    n = len(a)
    a_only = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    b_only = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    return Paired(
        n=n,
        a_passed=sum(1 for x in a if x),
        b_passed=sum(1 for y in b if y),
        a_only=a_only,
        b_only=b_only,
        p_value=mcnemar_exact(a_only, b_only),
        interval=paired_difference(a_only, b_only, n),
    )


# ------------------------------------------------------------------ bootstraps of means and ratios
def _multinomial(rng: random.Random, n: int, counts: Sequence[int]) -> list[int]:
    """Counts of n draws over categories of the given sizes (summing to n), as
    successive binomials; the largest category takes what is left."""
    biggest = max(range(len(counts)), key=counts.__getitem__)
    out = [0] * len(counts)
    left, mass = n, n
    for i, size in enumerate(counts):
        if i == biggest or left == 0:
            continue
        draw = _binomial(rng, left, size / mass) if mass > 0 else 0
        out[i] = draw
        left -= draw
        mass -= size
    out[biggest] = left
    return out


def mean_interval(values: Sequence[float]) -> Interval | None:
    """The 95% percentile-bootstrap interval of the mean of per-problem values
    (pass@k's unbiased estimates). Values repeat (a problem's estimate depends
    only on how many of its samples passed), so each resample draws how many
    problems of each value it holds."""
    n = len(values)
    if n == 0:
        return None
    tally = Counter(values)
    kinds = list(tally)
    sizes = [tally[v] for v in kinds]
    rng = random.Random(BOOTSTRAP_SEED)
    stats = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        drawn = _multinomial(rng, n, sizes)
        stats.append(sum(v * k for v, k in zip(kinds, drawn, strict=True)) / n)
    low, high = _percentile(stats)
    return Interval(low, high, BOOTSTRAP)


def ratio_interval(numerators: Sequence[float], denominators: Sequence[float]) -> Interval | None:
    """The 95% percentile-bootstrap interval of Σ numerators / Σ denominators over
    problems (cost per solved problem: dollars over problems solved). A
    resample with nothing in its denominator has no ratio: it counts as
    infinite, so when such resamples pass 2.5% the upper end is unbounded."""
    n = len(numerators)
    if n == 0 or n != len(denominators) or not any(denominators):
        return None
    rng = random.Random(BOOTSTRAP_SEED)
    r = rng.random
    stats = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        idx = [int(r() * n) for _ in range(n)]
        den = sum([denominators[i] for i in idx])
        num = sum([numerators[i] for i in idx])
        stats.append(num / den if den else math.inf)
    low, high = _percentile(stats)
    return Interval(low, high, BOOTSTRAP)


# ------------------------------------------------------------------ across samples
@dataclass(frozen=True)
class Spread:
    """pass@1 of each of a bench's samples (``--samples N``), and their spread."""

    rates: list[float]
    """pass@1 of sample 0, 1, ... (fractions), each over the problems it finished."""

    @property
    def mean(self) -> float:
        return statistics.fmean(self.rates)

    @property
    def std(self) -> float | None:
        """The sample standard deviation (n - 1) across samples; None for one sample."""
        return statistics.stdev(self.rates) if len(self.rates) > 1 else None


def spread(by_sample: dict[int, list[bool]]) -> Spread | None:
    """The spread of pass@1 across samples, from each sample's verdicts."""
    rates = [sum(v) / len(v) for _s, v in sorted(by_sample.items()) if v]
    return Spread(rates) if len(rates) > 1 else None


def pct(x: float | None, digits: int = 1) -> str:
    """A fraction as a percentage, without the sign."""
    if x is None:
        return "n/a"
    if math.isinf(x):
        return "∞"
    return f"{100.0 * x:.{digits}f}"


def dollars(x: float) -> str:
    """US dollars to a hundredth of a cent (∞ for an unbounded end)."""
    return "∞" if math.isinf(x) else f"${x:.4f}"


def interval_text(iv: Interval | None, fmt: Callable[[float], str] = pct) -> str:
    """``[a, b]`` in the given format ("n/a" without an interval)."""
    if iv is None:
        return "n/a"
    return f"[{fmt(iv.low)}, {fmt(iv.high)}]"
