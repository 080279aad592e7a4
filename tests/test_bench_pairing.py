"""The bench's pairing, its raw engine floor and its verdict (issue 16, items 1 and 8):
ratios are taken pair by pair; the floor replays exactly the engine reads the library
made, and the fresh-process floor script reads the same values as the in-process one;
``python -m bench`` exits 1 naming a failed target row."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from bench import __main__ as bench_main
from bench import bench_queries as bq
from bench import pairing
from provgraph import EmbeddedStore


def test_paired_times_with_the_clock_it_is_given():
    ticks = iter(range(100))
    r = pairing.paired(lambda: None, lambda: None, 2, warmup=False, clock=lambda: float(next(ticks)))
    assert r["a"]["median"] == r["b"]["median"] == 1.0 and r["ratio"]["median"] == 1.0


def test_paired_takes_the_ratio_pair_by_pair():
    calls: list[str] = []
    r = pairing.paired(lambda: calls.append("a"), lambda: calls.append("b"), 3)
    assert calls == ["a", "b"] * 4  # one warm-up each, then A B A B A B
    assert r["a"]["n"] == r["b"]["n"] == r["ratio"]["n"] == 3
    v = pairing.paired_values([2.0, 9.0, 3.0], [1.0, 3.0, 1.0])
    assert (v["ratio"]["min"], v["ratio"]["median"], v["ratio"]["max"]) == (2.0, 3.0, 3.0)
    assert v["a"]["median"] == 3.0 and v["b"]["median"] == 1.0
    with pytest.raises(ValueError):
        pairing.paired_values([1.0], [])


@pytest.fixture(scope="module")
def bench_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("floor") / "store"
    s = EmbeddedStore(path)
    truth = bq.build_workload(s, 200, runs=2)
    s.close()
    return path, truth


@pytest.mark.parametrize("question", sorted(q for q in bq.FLOOR_QUESTIONS if q not in bq.READS_OF))
def test_the_floor_replays_the_reads_the_library_made(bench_store, question, tmp_path):
    path, truth = bench_store
    fn = bq.FLOOR_QUESTIONS[question][0]
    store = EmbeddedStore(path, read_only=True)
    raw = ox.Store.read_only(str(path / "rdf"))
    try:
        rows, calls = bq.engine_reads(store, lambda: fn(store))
        assert rows and all(bq._checks(question, rows, truth).values())
        queries = [c for c in calls if c[0] == "query"]
        assert queries and all("use_default_graph_as_union" in c[2] for c in queries)
        # a second recording makes the same reads (in another order where stale's two
        # threads interleave)
        _, again = bq.engine_reads(store, lambda: fn(store))
        assert sorted((k, str(w)) for k, w, _ in again) == sorted((k, str(w)) for k, w, _ in calls)
        values = bq.replay(raw, calls)
        assert values > 0
        # where the floor goes: every read once, by its query's name, the same values
        costs = bq.read_costs(raw, calls, repeat=1)
        assert sum(int(c["calls"]) for c in costs.values()) == len(calls)
        assert sum(int(c["values"]) for c in costs.values()) == values
        assert f"{question}-claims" in costs and all(c["cpu_s"] >= 0 for c in costs.values())
    finally:
        store.close()
        del raw
    # the fresh-process floor of the command reads the same values
    reads = tmp_path / "reads.json"
    reads.write_text(bq.reads_json(calls), encoding="utf-8")
    script = bq.FLOOR_SCRIPT + "\nprint(n)\n"
    out = subprocess.run([sys.executable, "-c", script, str(path / "rdf"), str(reads)],
                         capture_output=True, text=True, check=True)
    assert int(out.stdout) == values


def test_bench_exits_1_and_names_a_failed_target_row(monkeypatch, capsys, tmp_path):
    def fake_resolver(quick: bool) -> dict:
        p = pairing.paired_values([40_000.0, 41_000.0, 39_000.0], [90_000.0] * 3)
        return {"pairs": {"exact_range": p, "quote_search": p, "normalized_search": p},
                "target_per_s": 50_000, "resolve_run_citations": 1, "resolve_run_per_s": 1.0,
                "source_bytes": 1, "citations": 1}

    from bench import bench_resolver

    monkeypatch.setattr(bench_resolver, "run", fake_resolver)
    results = tmp_path / "RESULTS.md"
    assert bench_main.main(["--quick", "--only", "resolver", "--results", str(results)]) == 1
    err = capsys.readouterr().err
    assert "2 target row(s) FAILED" in err and "check-quote, quote and code point range" in err
    assert "targets: 2 FAILED" in results.read_text(encoding="utf-8")
    monkeypatch.setattr(bench_resolver, "run", lambda quick: {
        **fake_resolver(quick), "target_per_s": 30_000})
    assert bench_main.main(["--quick", "--only", "resolver"]) == 0
    assert "targets: all pass" in capsys.readouterr().out


def test_every_target_row_of_the_floor_report_is_judged_from_10000_answers():
    p = pairing.paired_values([1.0, 1.2, 1.1], [0.5, 0.6, 0.55])  # ratio 2
    floors = {q: {"inproc": p, "cli": p, "rows": 1, "reads": 1, "values": 1}
              for q in ("stale", "impact")}
    assert {r["ok"] for r in bq.floor_rows(1_000, floors)} == {None}
    small = bq.floor_rows(10_000, floors)
    assert [r["ok"] for r in small] == [False, None, False, None]  # ratio 2 > 1.5
    big = bq.floor_rows(100_000, floors)
    assert [r["ok"] for r in big] == [False, False, False, False]  # and 1.1 s > 0.4 / 0.7 s
    assert Path(bq.__file__).name == "bench_queries.py"


@pytest.mark.parametrize("question", ["stale", "impact"])
def test_the_indexed_question_reads_nothing_and_is_timed_against_the_computed_reads(
        bench_store, question):
    """``stale-indexed`` and ``impact-indexed`` answer from their indexes (no query once
    the first call kept it), with the rows the computed question gives; their floor is
    the computed question's reads."""
    path, truth = bench_store
    assert bq.READS_OF == {"stale-indexed": "stale", "impact-indexed": "impact"}
    indexed = f"{question}-indexed"
    store = EmbeddedStore(path, read_only=True)
    try:
        computed, reads = bq.engine_reads(store, lambda: bq.FLOOR_QUESTIONS[question][0](store))
        assert [c for c in reads if c[0] == "query"]
        bq.FLOOR_QUESTIONS[indexed][0](store)  # keeps the index
        rows, calls = bq.engine_reads(store, lambda: bq.FLOOR_QUESTIONS[indexed][0](store))
        assert rows == computed and all(bq._checks(question, rows, truth).values())
        assert [c for c in calls if c[0] == "query"] == []
        # the computed question neither reads nor is changed by the index
        again, reads_again = bq.engine_reads(store, lambda: bq.FLOOR_QUESTIONS[question][0](store))
        assert again == computed and len(reads_again) == len(reads)
    finally:
        store.close()
