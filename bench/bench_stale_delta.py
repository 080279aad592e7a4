"""``stale`` right after a write (issue 16, item 1): the stale index brought up to date
through the ledger (:mod:`provgraph._stale_delta`) against computing anew, on a copy of a
store built by ``bench_queries`` (``--path``; the copy is written to, the original is not).

Each round: a writer opens the copy and records answers (a new run; each answer a
query, a retrieval of 3 chunks, the packing of 2, a generation and 3 claims citing them,
chunks of revised snapshots among them, as ``bench_queries`` records them), and closes;
then a read-only open (as the CLI opens) asks ``stale`` (the first call after the write:
the index brought up to date, timed), checks the rows equal computing anew, and times
computing anew (``index=False``: what the first call after every write cost before).
The same again after a writer records a new revision of one document (``revision``).
Then the same as whole commands: ``provgraph stale --json`` after a write, and
``provgraph stale --recompute --json``.

``impact`` of the workload's second parser version likewise (issue 16, items 1 and 5):
after each recorded answer, from its impact index replayed through the ledger
(:mod:`provgraph._impact_index`, timed, checked equal to reading the store) and read
anew (``index=False``); as whole commands, ``provgraph impact --agent NAME --version V
--json`` after a write and with ``--recompute``; and the same for the generator model
of every answer (:data:`MODEL`), whose claims the recorded answers add to.

    python -m bench.bench_stale_delta --path /tmp/pgq100k-wt --copy /tmp/pgq100k-delta
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from provgraph import EmbeddedStore, Recorder, analytics
from provgraph.model import Hit, Segment
from provgraph.staleness import stale
from provgraph.terms import term_value

_CHUNKS = """PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX pg: <https://w3id.org/provgraph/ns#>
SELECT ?chunk ?text WHERE {
  ?newer prov:wasRevisionOf ?snapshot .
  ?ext prov:wasDerivedFrom ?snapshot .
  ?chunk prov:wasDerivedFrom ?ext ; pg:text ?text .
} LIMIT 200"""


def record_answers(path: Path, answers: int, rng: random.Random) -> None:
    """``answers`` answers in a new run, recorded by a writer open of ``path``."""
    store = EmbeddedStore(path)
    try:
        chunks = [(r["chunk"], str(r["text"])) for r in store.select(_CHUNKS)]
        rec = Recorder(store, label="bench-delta", packages=[])
        for _ in range(answers):
            picked = rng.sample(chunks, 3)
            q = rec.query("what does the document say?")
            ret = rec.retrieval(q, retriever=("rank-bm25", "0.2.2"), index_version="idx-1",
                                hits=[Hit(target=str(c), rank=i + 1, score=1.0 / (i + 1))
                                      for i, (c, _) in enumerate(picked)])
            text = picked[0][1] + "\n" + picked[1][1]
            gi = rec.context_packing(text=text, retrieval=ret, template=("qa", "1"), segments=[
                Segment(start=0, end=len(picked[0][1]), origin="original", source=str(picked[0][0])),
                Segment(start=len(picked[0][1]) + 1, end=len(text), origin="original",
                        source=str(picked[1][0]))])
            ans = rec.generation(gi, model=MODEL, text=text)
            for i, (c, body) in enumerate(picked[:2]):
                start = 0 if i == 0 else len(picked[0][1]) + 1
                claim = rec.claim(ans, start=start, end=start + len(body), kind="quotation")
                rec.citation(claim, target=str(c), quote=body[: max(1, len(body) // 2)])
            claim = rec.claim(ans, start=0, end=len(text), kind="paraphrase")
            rec.citation(claim, target=str(picked[2][0]))
    finally:
        store.close()


_DOCS = """PREFIX pg: <https://w3id.org/provgraph/ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?snapshot ?sha ?uri ?type WHERE {
  ?snapshot pg:sha256 ?sha ; pg:sourceUri ?uri ; pg:mediaType ?type .
  FILTER NOT EXISTS { ?newer prov:wasRevisionOf ?snapshot }
  FILTER NOT EXISTS { ?snapshot prov:wasInvalidatedBy ?deletion }
} LIMIT 200"""


def revise_document(path: Path, rng: random.Random) -> None:
    """A new revision of one document (its newest snapshot's bytes with a line changed),
    recorded by a writer open of ``path``."""
    store = EmbeddedStore(path)
    try:
        snap, sha, uri, media = rng.choice([
            (r["snapshot"], term_value(r["sha"]), term_value(r["uri"]), term_value(r["type"]))
            for r in store.select(_DOCS)])
        text = store.originals.get(str(sha)).decode("utf-8")
        lines = text.split("\n")
        lines[0] = lines[0] + f" (revised {rng.random():.6f})"
        rec = Recorder(store, label="bench-delta-revision", packages=[])
        rec.snapshot("\n".join(lines).encode("utf-8"), uri=str(uri), media_type=str(media),
                     revision_of=str(snap))
    finally:
        store.close()


def _timed(fn: Any) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _command(path: Path, *args: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "provgraph", "--store", str(path), *args],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


MODEL = ("gen-model", "1.0")
"""The generator model of every answer of the workload and of the answers recorded here:
its impact grows by 3 claims per answer (about 300,000 at 100,000 answers)."""


def _impact(store: EmbeddedStore, index: bool = True, agent: tuple[str, str] | None = None
            ) -> list[Any]:
    from bench.bench_queries import PARSER_V2

    name, version = agent or PARSER_V2
    return analytics.impact(store, name, version=version, index=index)


def _impact_args(agent: tuple[str, str] | None = None) -> list[str]:
    from bench.bench_queries import PARSER_V2

    name, version = agent or PARSER_V2
    return ["impact", "--agent", name, "--version", version, "--json"]


def run(path: Path, copy: Path, *, rounds: int = 5, answers: int = 1, seed: int = 11
        ) -> dict[str, Any]:
    """The measurements (see the module docstring) as a dict of lists of seconds."""
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(path, copy)
    rng = random.Random(seed)
    out: dict[str, Any] = {"load_before": os.getloadavg()[0], "rounds": rounds,
                           "answers_per_round": answers}
    s = EmbeddedStore(copy, read_only=True)
    out["rows_before"] = len(stale(s))  # computes and keeps the index (with its ledger mark)
    out["impact_rows_before"] = len(_impact(s))  # likewise the impact index
    out["model_rows_before"] = len(_impact(s, agent=MODEL))
    s.close()
    for key in ("delta_wall", "delta_cpu", "computed_wall", "computed_cpu", "cmd_delta",
                "cmd_recompute", "revision_wall", "revision_cpu", "impact_delta_wall",
                "impact_delta_cpu", "impact_computed_wall", "impact_computed_cpu",
                "cmd_impact_delta", "cmd_impact_recompute", "model_delta_wall",
                "model_delta_cpu", "model_computed_wall", "model_computed_cpu",
                "cmd_model_delta", "cmd_model_recompute"):
        out[key] = []
    for _ in range(rounds):
        for write, key in ((record_answers, "delta"), (revise_document, "revision")):
            if write is record_answers:
                record_answers(copy, answers, rng)
            else:
                revise_document(copy, rng)
            s = EmbeddedStore(copy, read_only=True)
            rows, w, c = _timed(lambda: stale(s))
            live, w2, c2 = _timed(lambda: stale(s, index=False))
            assert rows == live, "the index brought up to date differs from computing anew"
            out[key + "_wall"].append(w)
            out[key + "_cpu"].append(c)
            out["computed_wall"].append(w2)
            out["computed_cpu"].append(c2)
            out["rows"] = len(rows)
            if write is record_answers:
                for q, agent in (("impact", None), ("model", MODEL)):
                    rows, w, c = _timed(lambda: _impact(s, agent=agent))
                    live, w2, c2 = _timed(lambda: _impact(s, index=False, agent=agent))
                    assert rows == live, "the impact index replayed differs from reading the store"
                    for k, v in ((f"{q}_delta_wall", w), (f"{q}_delta_cpu", c),
                                 (f"{q}_computed_wall", w2), (f"{q}_computed_cpu", c2)):
                        out[k].append(v)
                    out[f"{q}_rows"] = len(rows)
            s.close()
        record_answers(copy, answers, rng)
        out["cmd_delta"].append(_command(copy, "stale", "--json"))
        out["cmd_recompute"].append(_command(copy, "stale", "--json", "--recompute"))
        record_answers(copy, answers, rng)
        out["cmd_impact_delta"].append(_command(copy, *_impact_args()))
        out["cmd_impact_recompute"].append(_command(copy, *_impact_args(), "--recompute"))
        record_answers(copy, answers, rng)
        out["cmd_model_delta"].append(_command(copy, *_impact_args(MODEL)))
        out["cmd_model_recompute"].append(_command(copy, *_impact_args(MODEL), "--recompute"))
    out["load_after"] = os.getloadavg()[0]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", type=Path, required=True, help="a store built by bench_queries")
    ap.add_argument("--copy", type=Path, required=True, help="where to copy it (replaced)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--answers", type=int, default=1, help="answers recorded per round")
    ap.add_argument("--json", type=Path, help="write the measurements here")
    a = ap.parse_args(argv)
    got = run(a.path, a.copy, rounds=a.rounds, answers=a.answers)
    if a.json:
        a.json.write_text(json.dumps(got, indent=1))
    med = statistics.median
    print(f"rows {got['rows_before']} -> {got['rows']}; load {got['load_before']:.1f} -> "
          f"{got['load_after']:.1f}; {got['rounds']} rounds of {got['answers_per_round']} answer(s)")
    for key in ("delta", "revision", "computed"):
        print(f"stale {key:9s} in-process: median {med(got[key + '_wall']):.3f} s wall "
              f"(min {min(got[key + '_wall']):.3f}, max {max(got[key + '_wall']):.3f}), "
              f"{med(got[key + '_cpu']):.3f} s CPU")
    print(f"impact rows {got['impact_rows_before']} -> {got['impact_rows']}; of the model "
          f"{got['model_rows_before']} -> {got['model_rows']}")
    for key in ("impact_delta", "impact_computed", "model_delta", "model_computed"):
        print(f"{key:16s} in-process: median {med(got[key + '_wall']):.3f} s wall "
              f"(min {min(got[key + '_wall']):.3f}, max {max(got[key + '_wall']):.3f}), "
              f"{med(got[key + '_cpu']):.3f} s CPU")
    for key in ("cmd_delta", "cmd_recompute", "cmd_impact_delta", "cmd_impact_recompute",
                "cmd_model_delta", "cmd_model_recompute"):
        print(f"{key:14s} whole command: median {med(got[key]):.2f} s "
              f"(min {min(got[key]):.2f}, max {max(got[key]):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
