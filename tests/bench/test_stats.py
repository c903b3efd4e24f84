"""The statistics of a bench against hand-worked examples: the exact McNemar
p-value from a 2x2 table, Wilson's interval, Holm's correction, the paired
bootstrap (the same distribution as resampling problems), the spread across
samples and the figures a report builds from them."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from qflow_tui.core.bench import stats
from qflow_tui.core.bench.figures import bench_figures, compare_pairs
from qflow_tui.core.bench.report import BenchData


def test_the_exact_mcnemar_p_of_hand_worked_tables():
    # A solved 1 problem B did not, B solved 6 A did not: the 7 discordant problems
    # split 1-6. p = 2 * (C(7,0) + C(7,1)) / 2^7 = 2 * 8 / 128.
    assert stats.mcnemar_exact(1, 6) == 0.125
    assert stats.mcnemar_exact(6, 1) == 0.125
    # 2 against 10: 2 * (1 + 12 + 66) / 4096.
    assert stats.mcnemar_exact(2, 10) == pytest.approx(158 / 4096, abs=0)
    # All 5 one way: 2 / 32.
    assert stats.mcnemar_exact(5, 0) == 0.0625
    # No discordant problem, or an even split: nothing to see.
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(5, 5) == 1.0
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 2)


def test_wilsons_interval_of_hand_worked_rates():
    # 8 of 10, z = 1.96: centre (0.8 + z²/20) / (1 + z²/10) = 0.7167, half-width
    # z·sqrt(0.016 + z²/400) / (1 + z²/10) = 0.2266.
    iv = stats.wilson(8, 10)
    assert iv is not None
    assert (round(iv.low, 4), round(iv.high, 4)) == (0.4902, 0.9433)
    # At 0 and at n the interval reaches the end exactly; the other end is z²/(n + z²).
    zero, full = stats.wilson(0, 10), stats.wilson(10, 10)
    assert zero is not None and full is not None
    assert zero.low == 0.0 and zero.high == pytest.approx(3.8415 / 13.8415, abs=1e-4)
    assert full.high == 1.0 and full.low == pytest.approx(10 / 13.8415, abs=1e-4)
    assert stats.wilson(0, 0) is None
    assert iv.method == stats.WILSON


def test_holms_correction():
    # Sorted 0.01, 0.03, 0.04: times 3, 2, 1 -> 0.03, 0.06, 0.04, kept monotone -> 0.06.
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5]) == [0.5]
    assert stats.holm([0.6, 0.7]) == [1.0, 1.0]  # capped at 1


def test_the_binomial_draws_have_the_binomials_mean_and_variance():
    rng = random.Random(7)
    for n, p in ((50, 0.3), (500, 0.02), (40, 0.9), (200, 0.5)):
        draws = [stats._binomial(rng, n, p) for _ in range(4000)]
        mean = sum(draws) / len(draws)
        var = sum((d - mean) ** 2 for d in draws) / (len(draws) - 1)
        assert mean == pytest.approx(n * p, abs=4 * math.sqrt(n * p * (1 - p) / len(draws)) + 1e-9)
        assert var == pytest.approx(n * p * (1 - p), rel=0.1)
        assert all(0 <= d <= n for d in draws)


def test_the_paired_bootstrap_is_the_bootstrap_over_problems():
    """Drawing the 2x2 table's counts is resampling problems: a naive bootstrap
    that draws n problems gives the same interval (up to resampling noise)."""
    n, b, c = 200, 20, 35
    a_wins = [True] * b + [False] * c + [True] * 100 + [False] * (n - b - c - 100)
    b_wins = [False] * b + [True] * c + [True] * 100 + [False] * (n - b - c - 100)
    rng = random.Random(1)
    naive = []
    for _ in range(4000):
        idx = [rng.randrange(n) for _ in range(n)]
        naive.append(sum(b_wins[i] - a_wins[i] for i in idx) / n)
    naive.sort()
    low, high = naive[100], naive[3899]
    iv = stats.paired_difference(b, c, n)
    assert iv is not None
    assert iv.low == pytest.approx(low, abs=0.01) and iv.high == pytest.approx(high, abs=0.01)
    assert iv.low < (c - b) / n < iv.high
    # Seeded: the same table gives the same interval, every time.
    assert stats.paired_difference(b, c, n) == iv


def test_the_paired_statistics_of_two_benches():
    # 12 problems: A alone solves 1, B alone 6, both 3, neither 2.
    a = [True] * 1 + [False] * 6 + [True] * 3 + [False] * 2
    b = [False] * 1 + [True] * 6 + [True] * 3 + [False] * 2
    p = stats.paired(a, b)
    assert (p.n, p.a_passed, p.b_passed, p.a_only, p.b_only) == (12, 4, 9, 1, 6)
    assert p.p_value == 0.125
    assert p.difference == pytest.approx(5 / 12)
    with pytest.raises(ValueError):
        stats.paired([True], [True, False])


def test_the_spread_across_samples_and_the_pass_at_k_interval():
    # Sample 0 solves 1 of 2, sample 1 both, sample 2 one: 0.5, 1.0, 0.5 -> std 0.2887.
    spread = stats.spread({0: [True, False], 1: [True, True], 2: [False, True]})
    assert spread is not None
    assert spread.rates == [0.5, 1.0, 0.5]
    assert spread.std == pytest.approx(math.sqrt(((0.5 - 2 / 3) ** 2 * 2 + (1 / 3) ** 2) / 2))
    assert stats.spread({0: [True]}) is None
    iv = stats.mean_interval([1.0] * 30 + [0.0] * 10 + [0.5] * 10)
    assert iv is not None and iv.low < 0.7 < iv.high
    assert stats.mean_interval([]) is None


def test_cost_per_solved_problem_has_a_bootstrap_interval_that_may_be_unbounded():
    iv = stats.ratio_interval([0.1] * 10, [1.0] * 10)
    assert iv is not None and iv.low == pytest.approx(0.1) and iv.high == pytest.approx(0.1)
    assert stats.ratio_interval([0.1, 0.2], [0.0, 0.0]) is None
    # One solved problem in 20: many resamples solve none, so the upper end is unbounded.
    wide = stats.ratio_interval([0.1] * 20, [1.0] + [0.0] * 19)
    assert wide is not None and math.isinf(wide.high)
    assert wide.to_dict()["high"] is None  # JSON has no infinity
    assert stats.interval_text(wide, stats.dollars).endswith("∞]")


def _record(pid: str, passed: bool, sample: int = 0, cost_tokens: int = 1000) -> dict:
    return {
        "id": pid,
        "sample": sample,
        "status": "done",
        "passed": passed,
        "steps": [],
        "tokens": {"program_generator": {"input": cost_tokens, "output": 0, "calls": 1}},
        "tokens_total": cost_tokens,
    }


def _bench(tmp: Path, verdicts: list[bool], samples: int = 1, **spec: object) -> BenchData:
    ids = [f"mbpp/{11 + i}" for i in range(len(verdicts) // samples)]
    records = [_record(ids[i % len(ids)], v, sample=i // len(ids)) for i, v in enumerate(verdicts)]
    full = {"dataset": "mbpp", "workflow": "zeroshot", "model": "script/x.py", "samples": samples, **spec}
    return BenchData(tmp, full, records, ids)


def test_a_benchs_figures(tmp_path):
    data = _bench(tmp_path, [True] * 8 + [False] * 2, model="openai/gpt-4.1")
    f = bench_figures(data)
    assert (f.pass1.passed, f.pass1.n) == (8, 10)
    assert f.pass1.text() == "80.00% (8/10), 95% CI [49.0, 94.3]"
    # 1000 input tokens a problem at $2 per million: $0.002 each, $0.0025 per solved problem.
    assert f.cost is not None and f.cost.per_solved == pytest.approx(0.0025)
    assert f.cost.interval is not None and f.cost.interval.low <= 0.0025 <= f.cost.interval.high
    assert bench_figures(_bench(tmp_path, [True, False])).cost is None  # a script model costs nothing
    many = bench_figures(_bench(tmp_path, [True, False, True, True, True, False], samples=3))
    assert many.spread is not None and many.spread.rates == [0.5, 1.0, 0.5]
    assert [p.k for p in many.pass_at_k] == [1, 2]
    assert many.pass_at_k[0].value == pytest.approx(2 / 3)


def test_several_benches_are_compared_in_pairs_with_holms_correction(tmp_path):
    a = _bench(tmp_path, [True] * 1 + [False] * 6 + [True] * 3 + [False] * 2)
    b = _bench(tmp_path, [False] * 1 + [True] * 6 + [True] * 3 + [False] * 2)
    c = _bench(tmp_path, [True] * 12)
    pairs = compare_pairs([a, b, c])
    assert [(p.a, p.b) for p in pairs] == [(0, 1), (0, 2), (1, 2)]
    assert pairs[0].stats.p_value == 0.125
    raw = [p.stats.p_value for p in pairs]
    assert [p.p_holm for p in pairs] == pytest.approx(stats.holm(raw))
    assert [(p.a, p.b) for p in compare_pairs([a, b, c], "first")] == [(0, 1), (0, 2)]
