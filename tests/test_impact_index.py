"""The impact index (issue 16, items 1 and 5; :mod:`provgraph._impact_index`): after any
sequence of writes, ``impact`` answered from an agent's index (as kept, or replayed from
the ledger) gives the rows reading the store gives, for every agent, version and run; a
recorded answer is replayed, not read anew; what the ledger cannot tell is read anew; and
``provgraph verify`` finds an index changed outside provgraph."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from provgraph import EmbeddedStore, Recorder, _impact_index, analytics
from provgraph.errors import AgentNotFound, ProvgraphError
from provgraph.runs import delete_run
from provgraph.terms import IRI, BNode, Literal
from provgraph.verify import verify_store
from provgraph.vocab import PG, RDFS

from . import pipeline

AGENTS = [("plain-utf8", None), ("plain-utf8", "1.0"), ("lines", None), ("rank-bm25", "0.2.2"),
          ("extractive", "1.0"), ("m", None), ("m", "1"), ("m", "2")]
"""The (name, version) questions asked after every write: the fixture pipeline's parser,
chunker, retriever and model, and the models the answers below record."""

_OPS = st.one_of(
    st.tuples(st.just("answer"), st.sampled_from(["1", "2"]), st.booleans(),
              st.lists(st.integers(0, 20), max_size=2)),
    st.tuples(st.just("raw-add"), st.integers(0, 20), st.integers(0, 20),
              st.sampled_from(["run", "default", "other"])),
    st.tuples(st.just("raw-remove"), st.integers(0, 20)),
    st.tuples(st.just("update-delete"), st.integers(0, 20)),
    st.tuples(st.just("delete-run"), st.integers(0, 5)),
    st.tuples(st.just("noise"), st.integers(0, 20)),
    st.tuples(st.just("bnode-claim"), st.integers(0, 20)),
)


class _World:
    """An on-disk store with the fixture pipeline recorded; what later writes pick from."""

    def __init__(self, root: Path) -> None:
        self.path = root / "store"
        self.store = EmbeddedStore(self.path)
        rec = Recorder(self.store, label="fixture", packages=[], run_iri=pipeline.RUN,
                       started_at=pipeline.t(0))
        self.r = pipeline.record(rec)
        self.rec = rec
        self.minute = 500
        self.runs = [IRI(pipeline.RUN)]
        self.claims: list[IRI] = [IRI(self.r[k].iri) for k in ("claim_quote", "claim_para", "claim_bad")]
        self.targets = [self.r[k] for k in ("c_interval", "c_engineer", "c_faq_a", "policy_v1")]
        self.bnodes = 0

    def now(self) -> Any:
        self.minute += 1
        return pipeline.t(self.minute)

    def agents(self) -> list[IRI]:
        return sorted({IRI(q[0]) for q in self.store.quads(None, PG.agentName, None)
                       if isinstance(q[0], IRI)})

    def apply(self, op: tuple[Any, ...]) -> None:
        kind = op[0]
        if kind == "answer":
            _, version, new_run, picks = op
            rec = self.rec
            if new_run:
                rec = Recorder(self.store, label=f"run{len(self.runs)}", packages=[],
                               started_at=self.now())
                self.runs.append(IRI(rec.run.iri))
            gi = rec.context_packing(text="context", segments=[], at=self.now())
            ans = rec.generation(gi, model=("m", version), text="Boilers are inspected.",
                                 started_at=self.now(), ended_at=self.now())
            claim = rec.claim(ans, start=0, end=7, kind="quotation")
            self.claims.append(IRI(claim.iri))
            for p in picks:
                rec.citation(claim, target=self.targets[p % len(self.targets)], quote="inspected")
        elif kind == "raw-add":  # a shortcut statement written by hand, in some graph
            _, c, a, where = op
            agents = self.agents()
            graph = {"run": self.runs[c % len(self.runs)], "default": None,
                     "other": IRI("urn:x:other-graph")}[where]
            self.store.add([(self.claims[c % len(self.claims)], PG.supportAgent,
                             agents[a % len(agents)], graph)])
        elif kind == "raw-remove":
            quads = sorted(self.store.quads(None, PG.supportAgent, None, None), key=str)
            if quads:
                self.store.remove([quads[op[1] % len(quads)]])
        elif kind == "update-delete":  # SPARQL 1.1 Update, recorded as its effect
            claim = self.claims[op[1] % len(self.claims)]
            self.store.update(f"DELETE WHERE {{ GRAPH ?g {{ <{claim}> "
                              f"<{PG.supportAgent}> ?a }} }}")
        elif kind == "delete-run":
            alive = [r for r in self.runs if self.store.has_graph(r)]
            if len(alive) > 1:
                run = alive[op[1] % len(alive)]
                if any(isinstance(q[0], BNode) for q in self.store.quads(graph=run)):
                    # DELETE DATA cannot name a blank node: the deletion is refused, and
                    # the ledger line written ahead of it is answered by a recover line
                    with pytest.raises(ProvgraphError, match="does not parse"):
                        delete_run(self.store, str(run), reason="test")
                else:
                    delete_run(self.store, str(run), reason="test")
        elif kind == "noise":
            claim = self.claims[op[1] % len(self.claims)]
            self.store.add([(claim, RDFS.label, Literal(f"noise {self.minute}"), self.runs[0])])
            self.minute += 1
        elif kind == "bnode-claim":  # a blank-node claim: the index cannot keep it
            agents = self.agents()
            self.bnodes += 1
            self.store.add([(BNode(f"b{self.bnodes}"), PG.supportAgent,
                             agents[op[1] % len(agents)], self.runs[0])])


def _rows(store: EmbeddedStore, name: str, version: str | None, run: str | None,
          index: bool) -> Any:
    try:
        return analytics.impact(store, name, version=version, run=run, index=index)
    except AgentNotFound as exc:
        return ("AgentNotFound", str(exc))


def _agree(world: _World) -> None:
    for name, version in AGENTS:
        for run in [None, *map(str, world.runs)]:
            if run is not None and not world.store.has_graph(IRI(run)):
                continue
            indexed = _rows(world.store, name, version, run, True)
            assert indexed == _rows(world.store, name, version, run, False), (name, version, run)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(_OPS, min_size=1, max_size=6))
@example(ops=[("answer", "1", False, [0]), ("answer", "2", True, [1])])
@example(ops=[("raw-add", 0, 0, "run"), ("raw-add", 0, 0, "default"), ("raw-add", 1, 2, "other")])
@example(ops=[("raw-remove", 0), ("raw-remove", 3), ("answer", "1", False, [])])
@example(ops=[("update-delete", 0), ("update-delete", 2)])
@example(ops=[("answer", "2", True, [0]), ("delete-run", 1), ("answer", "2", True, [])])
@example(ops=[("bnode-claim", 0), ("answer", "1", False, [0])])
@example(ops=[("answer", "1", False, [0]), ("raw-remove", 0), ("raw-add", 0, 0, "run")])
@example(ops=[("answer", "1", True, []), ("bnode-claim", 0), ("delete-run", 0)])
def test_impact_from_the_index_is_impact_read_from_the_store_after_any_writes(ops):
    root = Path(tempfile.mkdtemp(prefix="pg-impact-"))
    try:
        world = _World(root)
        _agree(world)  # keeps an index for every agent asked about
        for op in ops:
            world.apply(op)
            _agree(world)
        world.store.close()
        report = verify_store(root / "store")
        assert not [f for f in report.findings if f.kind == "impact-index"]
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def world(tmp_path):
    w = _World(tmp_path)
    yield w
    w.store.close()


def _count_reads(monkeypatch) -> list[Any]:
    calls: list[Any] = []
    real = _impact_index._read

    def counted(store, agent, run):
        calls.append((agent, run))
        return real(store, agent, run)
    monkeypatch.setattr(_impact_index, "_read", counted)
    return calls


def test_a_recorded_answer_is_replayed_from_the_ledger_not_read_anew(world, monkeypatch):
    world.apply(("answer", "1", False, [0]))
    assert len(analytics.impact(world.store, "m", version="1")) == 1  # keeps the index
    world.apply(("answer", "1", False, [1]))
    world.apply(("answer", "1", True, [1]))
    reads = _count_reads(monkeypatch)
    rows = analytics.impact(world.store, "m", version="1")
    assert len(rows) == 3 and reads == []  # the two new claims came from the ledger
    assert rows == analytics.impact(world.store, "m", version="1", index=False)
    assert len(reads) == 1  # the comparison read the store
    # a shortcut in the default graph belongs to no run: passed over, nothing read anew
    analytics.impact(world.store, "m", version="1")
    world.apply(("raw-add", 0, 0, "default"))
    reads.clear()
    assert analytics.impact(world.store, "m", version="1") == rows and reads == []


def test_the_index_is_kept_per_agent_with_the_ledger_mark(world):
    analytics.impact(world.store, "plain-utf8")
    files = sorted((world.path / "index").glob("impact-v1-*.json"))
    agents = [IRI(q[0]) for q in world.store.quads(None, PG.agentName, Literal("plain-utf8"))]
    assert [f.name for f in files] == sorted({_impact_index._name(a) for a in agents})
    doc = json.loads(files[0].read_text(encoding="utf-8"))
    assert doc["agent"] in agents and doc["mark"] is not None
    assert sum(len(c) for c in doc["runs"].values()) == len(
        [q for q in world.store.quads(None, PG.supportAgent, IRI(doc["agent"])) if q[3] is not None])


def test_recompute_neither_reads_nor_writes_the_index(world):
    analytics.impact(world.store, "lines", index=False)
    assert not list((world.path / "index").glob("impact-v1-*.json"))


def test_a_writer_without_the_ledger_makes_the_store_read_anew(tmp_path, monkeypatch):
    world = _World(tmp_path)
    kept = analytics.impact(world.store, "lines")
    claim = world.claims[0]
    world.store.close()
    other = EmbeddedStore(tmp_path / "store", ledger=False)
    lines_agent = next(IRI(q[0]) for q in other.quads(None, PG.agentName, Literal("lines")))
    other.add([(IRI("urn:x:late-claim"), PG.supportAgent, lines_agent, IRI(pipeline.RUN))])
    other.close()
    store = EmbeddedStore(tmp_path / "store")
    try:
        reads = _count_reads(monkeypatch)
        rows = analytics.impact(store, "lines")
        assert reads  # the ledger cannot tell: read anew
        assert len(rows) == len(kept) + 1 and any(r.claim == "urn:x:late-claim" for r in rows)
        assert claim in {r.claim for r in rows}
    finally:
        store.close()


def test_verify_finds_an_index_changed_outside_provgraph(world):
    analytics.impact(world.store, "lines")
    [path] = list((world.path / "index").glob("impact-v1-*.json"))
    world.store.close()
    doc = json.loads(path.read_text(encoding="utf-8"))
    run = next(iter(doc["runs"]))
    doc["runs"][run].append("urn:x:forged-claim")
    path.write_text(json.dumps(doc), encoding="utf-8")
    store = EmbeddedStore(world.path, read_only=True)
    try:  # as kept (the token matches), the forged claim would be answered
        assert any(r.claim == "urn:x:forged-claim" for r in analytics.impact(store, "lines"))
    finally:
        store.close()
    report = verify_store(world.path)
    [finding] = [f for f in report.findings if f.kind == "impact-index"]
    assert "does not agree with the store" in finding.detail and "Delete the file" in finding.detail
    world.store = EmbeddedStore(world.path)  # for the fixture's close


def test_the_cli_answers_from_the_index_and_with_recompute_alike(world):
    world.apply(("answer", "2", True, [0, 2]))
    path = world.path
    world.store.close()

    def run(*extra: str) -> str:
        return subprocess.run([sys.executable, "-m", "provgraph", "--store", str(path), "impact",
                               "--agent", "m", "--json", *extra],
                              capture_output=True, text=True, check=True).stdout
    first, kept, recomputed = run(), run(), run("--recompute")
    assert json.loads(first) and first == kept == recomputed
    assert list((path / "index").glob("impact-v1-*.json"))
    world.store = EmbeddedStore(path)


def test_a_statement_the_ledger_cannot_read_back_makes_the_store_read_anew(world, monkeypatch):
    """A blank node labelled with ':' (N-Triples allows it, the engine takes it, its
    N-Quads parser refuses it) is refused by the store now, naming the label and writing
    nothing; a ledger line an older provgraph wrote with one, in a ``pg:supportAgent``
    statement after the index was kept, makes impact and stale read the store (impact used
    to fail with 'nquads: the document does not parse' while --recompute answered)."""
    from provgraph import _oxrdf, staleness
    from provgraph.errors import StoreError

    kept = analytics.impact(world.store, "lines")
    stale_rows = staleness.stale(world.store)
    assert list((world.path / "index").glob("impact-v1-*.json"))
    head = world.store.ledger_mark()
    with pytest.raises(StoreError, match="blank node label 'tool:1' holds ':'"):
        world.store.add([(IRI("urn:x:c"), PG.supportAgent, BNode("tool:1"), world.runs[0])])
    assert world.store.ledger_mark() == head
    real = _oxrdf._to_ox

    def older(term):  # as provgraph wrote before the label was refused
        return _oxrdf.ox.BlankNode(str(term)) if isinstance(term, BNode) else real(term)
    monkeypatch.setattr(_oxrdf, "_to_ox", older)
    world.store.add([(IRI("urn:x:c"), PG.supportAgent, BNode("tool:1"), world.runs[0]),
                     (IRI("urn:x:c"), PG.citedSnapshot, BNode("tool:2"), world.runs[0])])
    monkeypatch.setattr(_oxrdf, "_to_ox", real)
    assert analytics.impact(world.store, "lines") == kept
    assert analytics.impact(world.store, "lines") == analytics.impact(world.store, "lines",
                                                                       index=False)
    assert staleness.stale(world.store) == staleness.stale(world.store, index=False) == stale_rows


def test_an_index_nested_too_deep_to_read_is_read_anew_and_verify_goes_on(world):
    """An index file of JSON nested deeper than Python's recursion limit: impact and
    verify used to end in a RecursionError traceback."""
    kept = analytics.impact(world.store, "lines")
    paths = list((world.path / "index").glob("impact-v1-*.json"))
    for path in paths:
        path.write_bytes(b"[" * 200_000)
    assert analytics.impact(world.store, "lines") == kept  # read anew, and kept again
    for path in paths:
        path.write_bytes(b"[" * 200_000)
    world.store.close()
    try:
        report = verify_store(world.path)
        assert not [f for f in report.findings if f.kind == "impact-index"]
        store = EmbeddedStore(world.path, read_only=True)
        try:
            assert analytics.impact(store, "lines") == kept
        finally:
            store.close()
    finally:
        world.store = EmbeddedStore(world.path)


def test_a_write_the_engine_refuses_after_its_ledger_line_leaves_the_index_right(world):
    """Deleting a run that holds a blank node: the engine refuses ``DELETE DATA`` with a
    blank node after the ledger line was appended. The line stayed (and was marked durable
    at the next flush), so impact replayed a removal that never happened: no claims in a
    run whose claims --recompute listed, and verify called the store changed outside
    provgraph. A ``recover`` line now records the refusal at once."""
    lines_agent = next(IRI(q[0]) for q in world.store.quads(None, PG.agentName,
                                                             Literal("lines")))
    run = IRI("urn:x:run-with-a-blank-node")
    world.store.add([(IRI("urn:x:claim-b"), PG.supportAgent, lines_agent, run),
                     (BNode("b1"), RDFS.label, Literal("anonymous"), run)])
    kept = analytics.impact(world.store, "lines", run=str(run))
    assert [r.claim for r in kept] == ["urn:x:claim-b"]
    analytics.impact(world.store, "lines")  # keeps the index
    with pytest.raises(ProvgraphError, match="does not parse"):
        delete_run(world.store, str(run), reason="test")
    assert world.store.has_graph(run)
    assert analytics.impact(world.store, "lines", run=str(run)) == kept
    assert analytics.impact(world.store, "lines") == analytics.impact(world.store, "lines",
                                                                       index=False)
    world.store.close()
    try:
        assert verify_store(world.path).findings == []
    finally:
        world.store = EmbeddedStore(world.path)


def test_a_reader_the_store_moved_on_from_answers_from_the_state_it_reads(world):
    """A long-lived read-only open (``provgraph ui`` holds one) beside a writer: once
    another process kept the index after a write, the reader replayed the ledger past the
    state it reads, and ``impact`` listed a claim that ``index=False`` on the same open
    did not (and that the reader's other reads do not know)."""
    lines_agent = next(IRI(q[0]) for q in world.store.quads(None, PG.agentName,
                                                             Literal("lines")))
    world.store.close()
    reader = EmbeddedStore(world.path, read_only=True)
    try:
        before = analytics.impact(reader, "lines")
        writer = EmbeddedStore(world.path)
        try:
            writer.add([(IRI("urn:x:late-claim"), PG.supportAgent, lines_agent,
                         IRI(pipeline.RUN))])
        finally:
            writer.close()
        later = EmbeddedStore(world.path, read_only=True)  # as a later impact command
        try:
            assert len(analytics.impact(later, "lines")) == len(before) + 1
            [path] = list((world.path / "index").glob("impact-v1-*.json"))
            kept = json.loads(path.read_text(encoding="utf-8"))
            assert kept["token"] == later.state_token() != reader.state_token()  # kept anew
        finally:
            later.close()
        assert analytics.impact(reader, "lines", index=False) == before
        assert analytics.impact(reader, "lines") == before
    finally:
        reader.close()
        world.store = EmbeddedStore(world.path)


def test_a_run_graph_named_by_a_blank_node_is_read_as_impact_rq_reads_it(world):
    """A ``pg:supportAgent`` statement in a graph named by a blank node: the index keeps
    IRIs only, so impact reads ``impact.rq`` and agrees with ``--recompute``."""
    agent = next(IRI(q[0]) for q in world.store.quads(None, PG.agentName, Literal("lines")))
    world.store.add([(IRI("urn:x:c-in-bnode-graph"), PG.supportAgent, agent, BNode("g1"))])
    rows = analytics.impact(world.store, "lines")
    assert any(r.claim == "urn:x:c-in-bnode-graph" for r in rows)
    assert rows == analytics.impact(world.store, "lines", index=False)
    assert not list((world.path / "index").glob("impact-v1-*.json"))  # nothing kept
