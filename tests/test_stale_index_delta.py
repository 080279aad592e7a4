"""The stale index kept current across writes (issue 16, item 1): after any sequence of
writes, ``stale`` answered from the index brought up to date through the ledger
(:mod:`provgraph._stale_delta`) gives the rows computing anew gives, for the whole store
and for each run; and writes that touch few snapshots (a recorded answer, a revision, a
deletion) are brought up to date, not computed anew."""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from provgraph import EmbeddedStore, Recorder
from provgraph import staleness
from provgraph import _stale_compute, _stale_delta, _stale_index
from provgraph.ledger import LedgerMark
from provgraph.terms import IRI, Literal
from provgraph.vocab import PG, PROV, RDFS, XSD

from . import pipeline

T0 = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)

_OPS = st.one_of(
    st.tuples(st.just("answer"), st.lists(st.integers(0, 30), min_size=1, max_size=3),
              st.sampled_from(["quote", "range", "none", "missing"]), st.booleans()),
    st.tuples(st.just("derive"), st.integers(0, 30), st.integers(0, 30)),
    st.tuples(st.just("revise"), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("delete"), st.integers(0, 2)),
    st.tuples(st.just("reextract"), st.integers(0, 5)),
    st.tuples(st.just("retarget"), st.integers(0, 30), st.integers(0, 30)),
    st.tuples(st.just("resolve"),),
    st.tuples(st.just("link"), st.integers(0, 30), st.integers(0, 30)),
    st.tuples(st.just("noise"), st.integers(0, 30)),
    st.tuples(st.just("recite"), st.integers(0, 30), st.integers(0, 30)),
    st.tuples(st.just("chain"), st.integers(0, 2), st.integers(0, 2)),
)


class _World:
    """An on-disk store with the fixture pipeline recorded, and what later ops pick from."""

    def __init__(self, root: Path) -> None:
        self.store = EmbeddedStore(root / "store")
        self.rec = Recorder(self.store, label="fixture", packages=[], run_iri=pipeline.RUN,
                            started_at=pipeline.t(0))
        self.r = pipeline.record(self.rec)
        self.minute = 500
        self.targets: list[Any] = [self.r[k] for k in ("c_interval", "c_engineer", "c_faq_a",
                                                        "policy_v1", "faq", "ext_policy",
                                                        "prefix", "input")]
        self.docs = [self.r["policy_v2"], self.r["faq"], None]
        self.claims: list[Any] = [self.r[k] for k in ("claim_quote", "claim_para", "claim_bad")]
        self.citations: list[Any] = [self.r[k] for k in ("cit1", "cit2", "cit3", "cit4")]
        self.runs = 0

    def now(self) -> dt.datetime:
        self.minute += 1
        return pipeline.t(self.minute)

    def apply(self, op: tuple[Any, ...]) -> None:
        rec, kind = self.rec, op[0]
        if kind == "answer":
            _, picks, how, new_run = op
            if new_run:
                self.runs += 1
                rec = Recorder(self.store, label=f"run{self.runs}", packages=[],
                               started_at=self.now())
            q = rec.query("q?", at=self.now())
            gi = rec.context_packing(text="context", segments=[], at=self.now())
            text = "The inspection interval is not specified. Boilers are inspected."
            ans = rec.generation(gi, model=("m", "1"), text=text, started_at=self.now(),
                                 ended_at=self.now())
            del q
            claim = rec.claim(ans, start=0, end=10, kind="quotation")
            self.claims.append(claim)
            for p in picks:
                target = self.targets[p % len(self.targets)]
                if how == "quote":
                    cit = rec.citation(claim, target=target, quote="inspected")
                elif how == "range":
                    cit = rec.citation(claim, target=target, start=0, end=5, unit="codepoint")
                elif how == "missing":
                    cit = rec.citation(claim, target=target, quote="seventy-three days")
                else:
                    cit = rec.citation(claim, target=target)
                self.citations.append(cit)
        elif kind == "derive":
            _, a, b = op
            base = self.claims[a % len(self.claims)]
            ans = rec.generation(rec.context_packing(text="c", segments=[], at=self.now()),
                                 model=("m", "1"), text="derived text here",
                                 started_at=self.now(), ended_at=self.now())
            extra = self.targets[b % len(self.targets)]
            claim = rec.claim(ans, start=0, end=7, kind="derivation",
                              derived_from=[base, extra], warrant="sum")
            self.claims.append(claim)
            if b % 2:  # and cites what it rests on, so it has rows of its own
                self.citations.append(rec.citation(claim, target=extra, quote="inspected"))
        elif kind == "revise":
            _, d, changed = op
            doc = self.docs[d % 2]
            body = (pipeline.POLICY_V2 if d % 2 == 0 else pipeline.FAQ)
            if changed:
                body = body.replace("e", "E", 1) + f"\nrev {self.minute}"
            else:
                body = body + f"\n\nappendix {self.minute}"
            self.docs[d % 2] = rec.snapshot(body.encode(), uri=f"https://example.org/doc{d % 2}",
                                            media_type="text/plain", observed_at=self.now(),
                                            revision_of=doc)
        elif kind == "delete":
            doc = self.docs[op[1] % 2]
            rec.deletion(doc, at=self.now())
        elif kind == "reextract":
            snap = self.targets[3 + op[1] % 2]
            raw = self.store.originals.get(str(snap.sha256)).decode("utf-8")
            ext = rec.extraction(snap, parser=("plain-utf8", f"2.{self.minute}"), text=raw,
                                 ended_at=self.now())
            chunks = rec.chunking(ext, chunker=("lines", "2.0"), ranges=[(0, min(20, len(raw)))],
                                  parameters={}, ended_at=self.now())
            self.targets.append(chunks[0])
        elif kind == "retarget":  # a second target for an existing citation, written raw
            _, c, t = op
            cit = self.citations[c % len(self.citations)]
            target = self.targets[t % len(self.targets)]
            self.store.add([(IRI(cit.iri), PG.target, IRI(target.iri), IRI(pipeline.RUN))])
        elif kind == "link":  # an existing claim now derived from another one, written raw
            _, a, b = op
            derived, base = self.claims[a % len(self.claims)], self.claims[b % len(self.claims)]
            if derived.iri != base.iri:
                self.store.add([(IRI(derived.iri), PROV.wasDerivedFrom, IRI(base.iri),
                                 IRI(pipeline.RUN))])
        elif kind == "recite":  # an existing claim now also has an existing citation
            _, a, c = op
            self.store.add([(IRI(self.claims[a % len(self.claims)].iri), PG.citation,
                             IRI(self.citations[c % len(self.citations)].iri), IRI(pipeline.RUN))])
        elif kind == "chain":  # a revision written raw, with no derivation beside it
            newer, older = self.docs[op[1] % 2], self.docs[op[2] % 2]
            if newer.iri != older.iri:
                self.store.add([(IRI(newer.iri), PROV.wasRevisionOf, IRI(older.iri),
                                 IRI(pipeline.RUN))])
        elif kind == "noise":  # a statement no stale query reads
            self.store.add([(IRI(self.claims[op[1] % len(self.claims)].iri), RDFS.label,
                             Literal(f"label {self.minute}"), IRI(pipeline.RUN))])
            self.minute += 1
        elif kind == "resolve":
            from provgraph.resolve import resolve_run
            resolve_run(self.store)


def _check(store: EmbeddedStore) -> None:
    """stale from the index equals computing anew, times' zones included (repr)."""
    live = staleness.stale(store, index=False)
    assert [repr(r) for r in staleness.stale(store)] == [repr(r) for r in live]
    for run in sorted({r.run for r in live}):
        assert staleness.stale(store, run=run) == [r for r in live if r.run == run]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_OPS, min_size=1, max_size=6))
# each after a write no stale query reads, so that the index's mark (before the last
# line) re-reads nothing that touches the snapshot anyway
@example([("noise", 0), ("link", 1, 0)])  # an old claim derived from a changed one
@example([("noise", 0), ("retarget", 1, 0)])  # an old citation's new target
@example([("noise", 0), ("recite", 1, 0)])  # an old claim's new (old) citation
@example([("noise", 0), ("chain", 1, 0)])  # a newer revision, and nothing derived from it
@example([("chain", 0, 1), ("chain", 1, 0)])  # a revision cycle: revised, but no newest one
@example([("noise", 0), ("answer", [0], "range", False), ("noise", 1), ("link", 4, 0)])
@example([("noise", 0), ("derive", 0, 1), ("noise", 1), ("answer", [2], "quote", True)])
@example([("noise", 0), ("reextract", 0), ("noise", 1), ("answer", [8], "quote", False)])
def test_the_index_brought_up_to_date_gives_the_computed_rows(ops):
    root = Path(tempfile.mkdtemp(prefix="pg-delta-"))
    try:
        w = _World(root)
        _check(w.store)  # computes and keeps the index
        for op in ops:
            w.apply(op)
            _check(w.store)
        w.store.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_new_answer_is_brought_up_to_date_not_computed_anew(tmp_path, monkeypatch):
    w = _World(tmp_path)
    _check(w.store)
    calls: list[str] = []
    real_full, real_some = _stale_compute._computed, _stale_compute._recomputed
    monkeypatch.setattr(_stale_compute, "_computed",
                        lambda *a, **k: calls.append("all") or real_full(*a, **k))
    monkeypatch.setattr(_stale_compute, "_recomputed",
                        lambda *a, **k: calls.append("some") or real_some(*a, **k))
    w.apply(("answer", [0, 2], "quote", True))  # cites a changed chunk and a kept one
    calls.clear()
    rows = staleness.stale(w.store)
    assert calls == ["some"]
    assert rows == real_full(w.store, None).rows
    assert any(r.claim == IRI(w.claims[-1].iri) for r in rows)
    for op in (("revise", 0, True), ("delete", 1)):  # revisions and invalidations read
        w.apply(op)                                   # anew, the snapshots they changed
        calls.clear()                                 # computed anew
        assert staleness.stale(w.store) == real_full(w.store, None).rows
        assert calls == ["some"]
    rows = staleness.stale(w.store)
    assert {r.kind for r in rows} == {"updated", "deleted"}
    w.store.add([(IRI(w.claims[0].iri), PG.citedSnapshot, IRI(w.r["faq"].iri), IRI(pipeline.RUN))])
    w.store.remove([(IRI(w.claims[0].iri), PG.citedSnapshot, IRI(w.r["faq"].iri), IRI(pipeline.RUN))])
    calls.clear()
    assert staleness.stale(w.store) == rows and calls == ["all"]  # a removal: all anew
    w.store.close()


def test_a_writer_without_the_ledger_stops_the_index_being_brought_up_to_date(tmp_path):
    w = _World(tmp_path)
    _check(w.store)
    w.store.close()
    s = EmbeddedStore(tmp_path / "store", ledger=False)
    s.add([(IRI("urn:x:c"), PG.citedSnapshot, IRI(w.r["policy_v1"].iri), IRI("urn:x:run"))])
    s.close()
    s = EmbeddedStore(tmp_path / "store", read_only=True)
    assert s.ledger_mark() is None and s.ledger_lines_since(
        LedgerMark(0, "0" * 64, 0)) is None
    rows = staleness.stale(s)
    assert any(r.claim == IRI("urn:x:c") for r in rows)
    assert rows == staleness.stale(s, index=False)
    s.close()


def test_every_predicate_a_stale_query_reads_has_a_rule():
    """_stale_delta.READ names every predicate and class the stale queries name, so a
    query that starts reading another one fails here until a rule maps it."""
    import re

    from provgraph._rows import PREFIXES, _catalog

    named: set[str] = set()
    for name in _stale_index._INDEX_QUERIES:
        text = "\n".join(line for line in _catalog().get(name).text.splitlines()
                         if not line.lstrip().startswith(("#", "PREFIX")))
        for prefix, local in re.findall(r"\b(prov|pg|oa|rdf|rdfs):([A-Za-z][A-Za-z0-9]*)", text):
            named.add(PREFIXES[prefix] + local)
        named |= set(re.findall(r"<(http[^>]+)>", text))
        if re.search(r"\sa\s", text):
            named.add(PREFIXES["rdf"] + "type")
    known = {str(p) for p in _stale_delta.READ} | {str(c) for c in _stale_delta.TYPES}
    assert named <= known, sorted(named - known)


def test_a_store_rebuilt_from_its_ledger_is_brought_up_to_date_again(tmp_path, monkeypatch):
    """rebuild_store replays the ledger into a store it writes without one, then copies the
    ledger: that store holds every write, so it is not marked written-without-ledger and
    its index is brought up to date from the ledger after the next write."""
    from provgraph.ledger import LEDGER_NAME
    from provgraph.verify import rebuild_store

    w = _World(tmp_path)
    w.store.close()
    rebuild_store(tmp_path / "store" / LEDGER_NAME, tmp_path / "rebuilt",
                  originals=tmp_path / "store" / "originals")
    s = EmbeddedStore(tmp_path / "rebuilt", read_only=True)
    assert s.ledger_mark() is not None
    rows = staleness.stale(s)  # computed and kept, with its ledger mark
    s.close()
    w2 = EmbeddedStore(tmp_path / "rebuilt")
    rec = Recorder(w2, label="after-rebuild", packages=[], started_at=pipeline.t(900))
    ans = rec.generation(rec.context_packing(text="c", segments=[], at=pipeline.t(901)),
                         model=("m", "1"), text="The inspection interval is not specified.",
                         started_at=pipeline.t(902), ended_at=pipeline.t(902))
    rec.citation(rec.claim(ans, start=0, end=10, kind="quotation"),
                 target=w.r["c_interval"], quote="inspection")
    w2.close()
    calls: list[str] = []
    real = _stale_compute._computed
    monkeypatch.setattr(_stale_compute, "_computed",
                        lambda *a, **k: calls.append("all") or real(*a, **k))
    s = EmbeddedStore(tmp_path / "rebuilt", read_only=True)
    got = staleness.stale(s)
    assert calls == [] and len(got) == len(rows) + 1
    assert got == real(s, None).rows
    s.close()


def test_one_instant_in_two_zones_reads_back_in_its_own_zone(tmp_path):
    """The index keeps each row's time in the zone it was recorded in, even when another
    time is the same instant in another zone (break test: the second took the first's
    text), and verify's check sees a zone changed in the index."""
    import datetime as dt
    import json

    w = _World(tmp_path)
    utc = dt.datetime(2024, 4, 15, 9, 0, tzinfo=dt.timezone.utc)
    plus2 = utc.astimezone(dt.timezone(dt.timedelta(hours=2)))
    for i, when in enumerate((utc, plus2)):
        old, new = IRI(f"urn:x:old{i}"), IRI(f"urn:x:new{i}")
        w.store.add([(new, PROV.wasRevisionOf, old, IRI("urn:x:rz")),
                     (new, PG.observedAt, Literal(when.isoformat(), datatype=XSD.dateTime),
                      IRI("urn:x:rz")),
                     (IRI(f"urn:x:c{i}"), PG.citedSnapshot, old, IRI("urn:x:rz"))])
    live = staleness.stale(w.store, index=False)
    texts = {str(r.claim): r.changed_at.isoformat() for r in live if r.changed_at is not None}
    assert texts["urn:x:c0"] != texts["urn:x:c1"]
    for _ in range(2):  # computed and kept, then read back
        assert [repr(r) for r in staleness.stale(w.store)] == [repr(r) for r in live]
    assert staleness.check_index(w.store) is None
    index = tmp_path / "store" / staleness.INDEX_FILE
    doc = json.loads(index.read_bytes())
    doc["newest"] = [[s, t, None if at is None else at.replace("+02:00", "+00:00").replace(
        "11:00:00", "09:00:00")] for s, t, at in doc["newest"]]
    index.write_text(json.dumps(doc))
    assert "another time zone" in (staleness.check_index(w.store) or "")
    w.store.close()


def test_a_last_ledger_line_edited_after_it_was_durable_is_not_trusted(tmp_path):
    """The chain cannot show an edited last line; the durable head can: an index is then
    computed anew, not brought up to date from what the edited line says."""
    import json

    from provgraph.ledger import LEDGER_NAME

    w = _World(tmp_path)
    w.store.add([(IRI("urn:x:new0"), PROV.wasRevisionOf, IRI("urn:x:old0"), IRI("urn:x:rz"))])
    w.apply(("noise", 0))
    w.apply(("noise", 1))
    _check(w.store)  # the index's mark: before the second noise, which touches nothing
    w.store.add([(IRI("urn:x:c2"), PG.citedSnapshot, IRI("urn:x:old0"), IRI("urn:x:run2"))])
    w.store.close()  # the head now names the last line
    path = tmp_path / "store" / LEDGER_NAME
    lines = path.read_bytes().splitlines(keepends=True)
    last = json.loads(lines[-1])
    last["added"] = []
    lines[-1] = json.dumps(last, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    s = EmbeddedStore(tmp_path / "store", read_only=True)
    got = staleness.stale(s)
    assert any(r.claim == IRI("urn:x:c2") for r in got)
    assert got == staleness.stale(s, index=False)
    s.close()
