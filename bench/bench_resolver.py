"""Resolver throughput: check-quote resolutions per second, in-process (issue 3 target:
at least 50,000 per second), against plain ``bytes.find`` measured in the same run.

Run it standalone::

    /work/devvenv/bin/python bench/bench_resolver.py [--quick]

or call :func:`run` (``bench/__main__.py`` does). Workload: one realistic source
of about 24 KB (UTF-8 prose with accented letters, emoji, CRLF line ends and
a BOM), decoded once into a :class:`~provgraph.offsets.SourceText` and reused,
as an auditor's script checking many citations of one document would. Every
citation quotes a whole sentence of it:

* exact-range: quote plus code point range (the common provider-citation shape);
* quote-search: quote only, located by search (exactly one occurrence each);
* normalized-search: quote only, with single spaces where the source has CRLF,
  so the exact search fails and the ``whitespace`` policy decides;
* resolve_run: recorded citations resolved through the store (chunk ->
  extracted text -> offset map -> snapshot bytes) with the write-back.

The baseline is ``bytes.find`` of each quote's UTF-8 bytes in the source bytes:
the least any quote check must do. Ratios are resolver rate / baseline rate.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import pairing  # noqa: E402
from provgraph.matching import check_quote  # noqa: E402
from provgraph.offsets import BOM, SourceText  # noqa: E402

TARGET_PER_SECOND = 50_000

_WORDS = ("inspection interval boiler valve pressure certified engineer registry annual "
          "report caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00fcber \u2014 \U0001F527 \U0001F4C8 "
          "schedule rated bar section annex maintenance record owner").split()


def make_source(sentences: int = 400) -> tuple[str, list[str]]:
    """A deterministic document of ``sentences`` distinct sentences (numbered, so each
    occurs once), 8 per paragraph, paragraphs separated by CRLF."""
    out, sents = [], []
    for i in range(sentences):
        words = [_WORDS[(i * 7 + k * 3) % len(_WORDS)] for k in range(6 + i % 5)]
        s = f"Item {i}: " + " ".join(words) + "."
        sents.append(s)
        out.append(s + ("\r\n" if i % 8 == 7 else " "))
    return "".join(out), sents


def _round(fn: Callable[[], int], seconds: float) -> float:
    """Checks per second of ``fn`` (which returns how many checks it did), called until
    ``seconds`` have passed."""
    done, start = 0, time.perf_counter()
    while True:
        done += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def _paired_rates(fn: Callable[[], int], base: Callable[[], int], min_seconds: float,
                  pairs: int = 3) -> dict[str, Any]:
    """Rates of ``fn`` and of the baseline ``base`` in turn, ``pairs`` rounds each of
    ``min_seconds / pairs`` (A B A B ..., :func:`bench.pairing.paired_values`)."""
    a, b = [], []
    for _ in range(pairs):
        a.append(_round(fn, min_seconds / pairs))
        b.append(_round(base, min_seconds / pairs))
    return pairing.paired_values(a, b)


def _store_rate(n_citations: int) -> float:
    from provgraph import EmbeddedStore, Recorder
    from provgraph.resolve import resolve_run

    text, sents = make_source(max(8, n_citations + n_citations // 8))
    store = EmbeddedStore()
    rec = Recorder(store, label="bench", packages=[])
    with rec.batch():
        data = BOM + text.encode()
        snap = rec.snapshot(data, uri="https://example.org/bench.txt", media_type="text/plain")
        ext = rec.extraction(snap, parser=("plain", "1"), text=text,
                             offset_map=[(0, len(text), 3, len(data))])
        step = 2000
        chunks = rec.chunking(ext, chunker=("fixed", "1"),
                              ranges=[(a, min(a + step, len(text))) for a in range(0, len(text), step)])
        answer = rec.generation(rec.context_packing(text="q", segments=[]), model=("m", "1"),
                                text="answer")
        claim = rec.claim(answer, start=0, end=6, kind="quotation")
        cited = 0
        for s in sents:
            pos = text.index(s)
            chunk = next(c for c in chunks if c.start <= pos < c.end)
            if pos + len(s) <= chunk.end and cited < n_citations:  # whole sentences only
                rec.citation(claim, target=chunk, quote=s)
                cited += 1
    start = time.perf_counter()
    result = resolve_run(store, rec.iri)
    elapsed = time.perf_counter() - start
    store.close()
    assert result.counts()["quote_match"] == n_citations, result.counts()
    return n_citations / elapsed


def run(quick: bool = True) -> dict[str, Any]:
    """Measure and return the results (rates are checks per second).

    Args:
        quick: a few seconds in total; ``False`` measures longer and resolves more
            stored citations.

    Returns:
        ``dict`` with ``source_bytes``, ``citations``, ``exact_range_per_s``,
        ``quote_search_per_s``, ``normalized_search_per_s``, ``bytes_find_per_s``,
        ``ratio_exact_range_vs_find``, ``ratio_quote_search_vs_find``,
        ``resolve_run_citations``, ``resolve_run_per_s``, ``target_per_s`` and
        ``meets_target`` (both check-quote modes at or above the target).
    """
    seconds = 1.5 if quick else 6.0
    text, sents = make_source()
    data = BOM + text.encode()
    src = SourceText.from_bytes(data)
    ranges = []
    for s in sents:
        pos = text.index(s)
        ranges.append((s, pos, pos + len(s)))
    quotes = [(s, s.encode()) for s in sents]
    # sentences that straddle a CRLF, quoted with a single space instead
    loose = [text[a:b].replace("\r\n", " ") for a, b in
             ((text.index(s1), text.index(s2) + len(s2))
              for s1, s2 in zip(sents[7::8], sents[8::8]))]

    def exact_range() -> int:
        for q, a, b in ranges:
            r = check_quote(src, q, start=a, end=b)
        assert r.outcome == "quote_match"
        return len(ranges)

    def quote_search() -> int:
        for q, _ in quotes:
            r = check_quote(src, q)
        assert r.outcome == "quote_match"
        return len(quotes)

    def normalized_search() -> int:
        for q in loose:
            r = check_quote(src, q, policy="whitespace")
        assert r.outcome == "normalized_match"
        return len(loose)

    def baseline() -> int:
        find = data.find
        for _, qb in quotes:
            find(qb)
        return len(quotes)

    out: dict[str, Any] = {"source_bytes": len(data), "citations": len(sents)}
    pairs = {"exact_range": _paired_rates(exact_range, baseline, seconds),
             "quote_search": _paired_rates(quote_search, baseline, seconds),
             "normalized_search": _paired_rates(normalized_search, baseline, seconds)}
    out["pairs"] = pairs
    out["bytes_find_per_s"] = statistics.median(p["b"]["median"] for p in pairs.values())
    for k, p in pairs.items():
        out[f"{k}_per_s"] = p["a"]["median"]
    out["ratio_exact_range_vs_find"] = pairs["exact_range"]["ratio"]["median"]
    out["ratio_quote_search_vs_find"] = pairs["quote_search"]["ratio"]["median"]
    n = 200 if quick else 2000
    out["resolve_run_citations"] = n
    out["resolve_run_per_s"] = _store_rate(n)
    out["target_per_s"] = TARGET_PER_SECOND
    out["meets_target"] = min(out["exact_range_per_s"], out["quote_search_per_s"]) >= TARGET_PER_SECOND
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the measurements as a table (``--quick`` for the short run)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short measurement")
    args = parser.parse_args(argv)
    res = run(quick=args.quick)
    print(f"provgraph resolver throughput ({'quick' if args.quick else 'full'}; Python "
          f"{platform.python_version()}, {platform.machine()}; source {res['source_bytes']} bytes, "
          f"{res['citations']} citations)")
    rows = [("bytes.find baseline", res["bytes_find_per_s"], 1.0),
            ("check-quote exact-range", res["exact_range_per_s"], res["ratio_exact_range_vs_find"]),
            ("check-quote quote-search", res["quote_search_per_s"], res["ratio_quote_search_vs_find"]),
            ("check-quote normalized-search", res["normalized_search_per_s"],
             res["normalized_search_per_s"] / res["bytes_find_per_s"]),
            (f"resolve_run through the store ({res['resolve_run_citations']})",
             res["resolve_run_per_s"], res["resolve_run_per_s"] / res["bytes_find_per_s"])]
    print(f"{'measure':<44}{'per second':>14}{'vs find':>10}")
    for name, rate, ratio in rows:
        print(f"{name:<44}{rate:>14,.0f}{ratio:>10.3f}")
    verdict = "meets" if res["meets_target"] else "MISSES"
    print(f"target: {TARGET_PER_SECOND:,} check-quote resolutions per second: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
