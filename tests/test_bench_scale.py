"""The scale bench (issue 16 item 5): its pipelined build stores the same workload the
query bench builds (the answers of stale and impact equal the workload's ground truth,
and the store holds what the build sent), a build refuses an existing path, and the peak
memory it reports for a command is that command's own, not the bench process's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import bench_queries as bq
from bench import bench_scale as bs
from provgraph import EmbeddedStore, analytics


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("scale") / "store"
    res = bs.build(path, 300, optimize=True, log=lambda s: None)
    return path, res


def test_pipelined_build_gives_the_workloads_answers(built):
    path, res = built
    truth = bq._load_truth(Path(f"{path}.truth.json"))
    assert truth.answers == 300 and len(truth.claims) == 900
    store = EmbeddedStore(path, read_only=True)
    try:
        assert len(store) == truth.statements == res["statements"]
        # duplicates the Recorder re-sends (shared agents, support shortcuts) collapse
        assert res["statements_sent"] >= res["statements"]
        stale = analytics.stale(store)
        impact = analytics.impact(store, bq.PARSER_V2[0], version=bq.PARSER_V2[1])
        checks = {**bq._checks("stale", stale, truth), **bq._checks("impact", impact, truth)}
        assert checks == {"stale_updated": True, "stale_deleted": True, "impact_parser_v2": True}
        assert truth.stale_updated and truth.parser_v2_claims
        assert len(analytics.lineage(store, truth.claims[0])) > 10
    finally:
        store.close()
    assert res["bytes_after_reopen"] > 0 and res["bytes_after_optimize"] > 0


def test_build_refuses_an_existing_path(built):
    path, _ = built
    with pytest.raises(FileExistsError, match="--path"):
        bs.build(path, 10, log=lambda s: None)


def test_child_peak_is_the_childs_own():
    big = bytearray(400 * 1024 * 1024)  # this process is over 400 MB
    small = bs.run_child([sys.executable, "-c", "pass"])
    grown = bs.run_child([sys.executable, "-c", "x = bytearray(150 * 1024 * 1024)"])
    del big
    assert small["maxrss_mb"] < 100
    assert 150 < grown["maxrss_mb"] < 300
    assert grown["wall_s"] > 0
