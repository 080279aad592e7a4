"""Paired timing for every bench row that has a target (issue 16, item 8).

A row compares A (provgraph) with B (its baseline) measured in the same run. On a shared
machine the speed drifts during a run, so A and B run in turn, A B A B ..., and the ratio
is taken pair by pair: a drift then moves both halves of a pair alike. Every figure is
reported as min, median and max; the median is the one to quote, the spread says how
noisy the machine was.

:func:`paired` times two callables; :func:`spread` summarises a list of numbers.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def spread(xs: Sequence[float]) -> dict[str, float]:
    """``{"min", "median", "max", "n"}`` of ``xs`` (not empty)."""
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs), "n": len(xs)}


def paired(a: Callable[[], Any], b: Callable[[], Any], pairs: int, *,
           warmup: bool = True, clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """Time ``a`` and ``b`` in turn, ``pairs`` times (A B A B ...), after one untimed call
    of each when ``warmup``.

    ``clock`` is wall time by default; ``time.process_time`` (the CPU seconds of every
    thread of this process) tells the work apart from the waiting on a machine whose other
    jobs leave no idle core (issue 16: at load 10 on 2 cores a command's wall time was
    7 times its CPU time).

    Returns:
        ``{"a": spread, "b": spread, "ratio": spread}``: seconds of ``clock`` (default
        ``time.perf_counter``) of each side and the ratios ``a / b`` pair by pair.

    Raises:
        ValueError: ``pairs`` < 1.
    """
    if pairs < 1:
        raise ValueError("pairs must be at least 1")
    if warmup:
        a()
        b()
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(pairs):
        for fn, out in ((a, ta), (b, tb)):
            t = clock()
            fn()
            out.append(clock() - t)
    return {"a": spread(ta), "b": spread(tb), "ratio": spread([x / y for x, y in zip(ta, tb)])}


def paired_values(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """:func:`paired`'s result for values measured in turn elsewhere (``a[i]`` and
    ``b[i]`` one pair, e.g. two child processes that report their own rate)."""
    if not a or len(a) != len(b):
        raise ValueError("need as many A values as B values, at least one")
    return {"a": spread(a), "b": spread(b), "ratio": spread([x / y for x, y in zip(a, b)])}


def child(argv: list[str]) -> Callable[[], None]:
    """A callable that runs ``argv`` as a child process, output discarded; a failing
    child raises :class:`subprocess.CalledProcessError`."""
    def call() -> None:
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return call


def provgraph_cli() -> list[str]:
    """The ``provgraph`` command of this interpreter's environment (its console script,
    else ``python -m provgraph``)."""
    script = Path(sys.executable).parent / "provgraph"
    return [str(script)] if script.exists() else [sys.executable, "-m", "provgraph"]


def describe(r: dict[str, Any], *, scale: float = 1.0, unit: str = "s") -> str:
    """``"median; min-max A-B unit; ratio min-max, n pairs"`` for a row's measure text."""
    a, ratio = r["a"], r["ratio"]
    return (f"min-max {a['min'] * scale:.3g}-{a['max'] * scale:.3g} {unit}; ratio "
            f"{ratio['min']:.2f}-{ratio['max']:.2f}×, {a['n']} pairs")
