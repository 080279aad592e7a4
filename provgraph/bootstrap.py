"""The paired bootstrap over queries (issue 18 part 3): a percentile confidence interval
for the mean of per-query paired differences, seeded and free of numpy.

The query is the resampling unit: each resample draws ``n`` of the ``n`` per-query
differences with replacement (``random.Random(seed)``, so a seed gives the same
interval on every machine and Python version that keeps ``random``'s generator), and
the interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of
the resample means (Efron and Tibshirani, *An Introduction to the Bootstrap*, 1993,
ch. 13). Missing data is the caller's to settle before: a query whose difference is
undefined is not a difference (:mod:`provgraph.exposure` drops it and counts it).

Example:
    >>> ci = paired_bootstrap([0.5, 0.5, 0.5], resamples=100, seed=1)
    >>> ci.mean, ci.low, ci.high, ci.n
    (0.5, 0.5, 0.5, 3)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BootstrapCI", "paired_bootstrap", "DEFAULT_RESAMPLES", "DEFAULT_CONFIDENCE"]

DEFAULT_RESAMPLES = 2000
"""Bootstrap resamples unless told otherwise."""
DEFAULT_CONFIDENCE = 0.95
"""Coverage of the interval unless told otherwise."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapCI:
    """A percentile bootstrap interval for a mean.

    Attributes:
        mean: the mean of the ``n`` differences (the point estimate); ``None`` when ``n`` is 0.
        low, high: the interval's bounds (``low <= mean <= high`` is not guaranteed by the
            percentile method, though usual); ``None`` when ``n`` is 0.
        n: how many differences (queries) were resampled.
        resamples: how many resamples were drawn (0 when ``n`` is 0).
        confidence: the nominal coverage, in (0, 1).
        seed: the seed of ``random.Random``.
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int
    resamples: int
    confidence: float
    seed: int


def paired_bootstrap(differences: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                     confidence: float = DEFAULT_CONFIDENCE, seed: int = 0) -> BootstrapCI:
    """The percentile bootstrap interval of the mean of ``differences``.

    Args:
        differences: one paired difference per query (arm minus reference), floats.
            Empty: the interval is undefined (``mean``, ``low``, ``high`` are ``None``).
        resamples: how many resamples to draw (at least 1).
        confidence: nominal coverage, strictly between 0 and 1.
        seed: seeds ``random.Random``; the same seed and input give the same interval.

    Returns:
        :class:`BootstrapCI`. With one difference, or all equal, the interval has zero
        width: resampling cannot show variation the queries do not have, which says
        nothing about the variation of queries not in the sample.

    Raises:
        ValueError: ``resamples`` below 1, ``confidence`` outside (0, 1), or a
            difference that is not finite.
    """
    if resamples < 1:
        raise ValueError(f"resamples={resamples}: draw at least 1 resample")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence}: give a coverage strictly between 0 and 1")
    xs = [float(d) for d in differences]
    if any(not math.isfinite(x) for x in xs):
        raise ValueError("a paired difference is not finite (NaN or infinity); drop undefined "
                         "differences before the bootstrap")
    n = len(xs)
    if n == 0:
        return BootstrapCI(mean=None, low=None, high=None, n=0, resamples=0,
                           confidence=confidence, seed=seed)
    mean = math.fsum(xs) / n
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(xs, k=n)) / n for _ in range(resamples))
    alpha = 1 - confidence
    lo = means[max(0, math.floor(alpha / 2 * resamples))]
    hi = means[min(resamples - 1, math.ceil((1 - alpha / 2) * resamples) - 1)]
    return BootstrapCI(mean=mean, low=lo, high=hi, n=n, resamples=resamples,
                       confidence=confidence, seed=seed)
