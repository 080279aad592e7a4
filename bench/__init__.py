"""provgraph benchmarks (issue 8): ``python -m bench --quick | --full``.

Every measurement is a ratio against a baseline measured in the same run, on
the same machine, on the same data: the raw pyoxigraph engine for recording,
importing and disk use, and the ``prov`` package for PROV-JSON. These are
benchmarks, not timed unit tests; ``tests/test_bench_smoke.py`` checks only the
workload's shape.

Modules:

* :mod:`bench.workload` - the synthetic recorded RAG workload (1,000 / 10,000 /
  100,000 answers) through the real Recorder, and the same quads captured raw.
* :mod:`bench.bench_record` - Recorder vs raw inserts; store size per answer; profile.
* :mod:`bench.bench_import` - N-Quads bulk import rate and peak memory.
* :mod:`bench.bench_export` - PROV-JSON export and import vs the ``prov`` package.
* :mod:`bench.bench_demo` - on the demo store: ``exposure`` vs the raw engine running
  the same ``.rq`` text, and the start-up of ``--help`` and ``lineage`` (issue 16).
* ``bench.bench_queries`` (branch ``queries``) and ``bench.bench_resolver``
  (branch ``resolver``) plug in through the hook contract below.

Hook contract for other benchmark modules: a module ``bench.bench_<name>`` with

    def run(quick: bool) -> dict

``bench/__main__.py`` imports it when present and prints "(not available yet)"
otherwise. The returned dict is rendered as a table when it has a ``"rows"``
list, each row a dict with these keys (all but ``measure`` optional)::

    {"measure": "lineage of one claim, median", "value": 3.1, "unit": "ms",
     "baseline": "plain SPARQL, property paths", "baseline_value": 41.0,
     "ratio": 0.076, "target": "≤ 5 ms", "ok": True}

and optional ``"notes"`` (a list of strings). Other keys are printed as JSON.
Use :func:`bench.workload.record_workload` to build a store of the workload
(its ground truth is on :class:`bench.workload.Workload`), on disk, in a
temporary directory.
"""
