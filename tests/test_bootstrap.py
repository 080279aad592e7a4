"""The paired bootstrap (provgraph.bootstrap) against known distributions."""

from __future__ import annotations

import random
import statistics

import pytest

from provgraph.bootstrap import paired_bootstrap


def test_covers_the_true_mean_of_a_known_normal_about_as_often_as_stated() -> None:
    # 300 samples of 30 paired differences drawn from N(0.3, 1): a 95% interval should
    # cover 0.3 in about 95% of them (the percentile method runs a little under at n=30).
    true_mean = 0.3
    trials, covered, widths = 300, 0, []
    for t in range(trials):
        rng = random.Random(10_000 + t)
        diffs = [rng.gauss(true_mean, 1.0) for _ in range(30)]
        ci = paired_bootstrap(diffs, resamples=400, seed=t)
        assert ci.low is not None and ci.high is not None
        covered += ci.low <= true_mean <= ci.high
        widths.append(ci.high - ci.low)
    assert 0.89 <= covered / trials <= 0.99
    # the width matches the normal theory width 2 * 1.96 * sigma / sqrt(n) = 0.716
    assert statistics.mean(widths) == pytest.approx(2 * 1.96 / 30 ** 0.5, rel=0.08)


def test_a_90_percent_interval_is_narrower_than_a_99_percent_one() -> None:
    rng = random.Random(3)
    diffs = [rng.gauss(0, 1) for _ in range(40)]
    narrow = paired_bootstrap(diffs, confidence=0.90, seed=5)
    wide = paired_bootstrap(diffs, confidence=0.99, seed=5)
    assert wide.low < narrow.low < narrow.high < wide.high  # type: ignore[operator]


def test_the_mean_is_the_sample_mean_and_the_seed_fixes_the_interval() -> None:
    diffs = [0.0, 1.0, 1.0, 0.0, 1.0]
    a = paired_bootstrap(diffs, resamples=500, seed=42)
    b = paired_bootstrap(diffs, resamples=500, seed=42)
    assert a == b
    assert a.mean == pytest.approx(0.6)
    assert 0.0 <= a.low <= 0.6 <= a.high <= 1.0  # type: ignore[operator]


def test_degenerate_differences_give_a_zero_width_interval() -> None:
    ci = paired_bootstrap([0.25] * 12, resamples=200, seed=9)
    assert (ci.mean, ci.low, ci.high, ci.n) == (0.25, 0.25, 0.25, 12)
    one = paired_bootstrap([-1.0], resamples=50, seed=0)
    assert (one.low, one.high) == (-1.0, -1.0)


def test_no_differences_is_undefined_not_zero() -> None:
    ci = paired_bootstrap([], seed=1)
    assert (ci.mean, ci.low, ci.high, ci.n, ci.resamples) == (None, None, None, 0, 0)


@pytest.mark.parametrize("kwargs, message", [
    ({"resamples": 0}, "at least 1 resample"),
    ({"confidence": 1.0}, "strictly between 0 and 1"),
    ({"confidence": 0.0}, "strictly between 0 and 1"),
])
def test_bad_settings_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        paired_bootstrap([1.0, 2.0], **kwargs)  # type: ignore[arg-type]


def test_a_nan_difference_is_refused() -> None:
    with pytest.raises(ValueError, match="not finite"):
        paired_bootstrap([1.0, float("nan")])
