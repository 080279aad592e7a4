"""The schema layer: every record type round-trips through its statements
(``load(to_quads(r)) == r``), its tables match the ontology in both directions, and
its batch reads cost a fixed number of store queries."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest
import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provgraph import ids
from provgraph.schema import (
    agent, aid, all_tables, chunk, citation, claim, extraction, generation, indexed, prompt,
    query, retrieval, run, snapshot,
)
from provgraph.schema.agent import Agent
from provgraph.schema.segment import Segment
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI
from provgraph.vocab import AGENT_ROLES, AID_KINDS, GRAPH, OA, PG, PROV, UNITS

# Texts with the characters that break offset arithmetic: a byte-order mark, CRLF,
# decomposed (NFD) accents, astral characters (two UTF-16 units), and the empty text.
HARD = ["\ufeff", "\r\n", "e\u0301", "\U0001F600", "\u00e9", "a", " ", "\n", "\u0000", "\u2028"]
texts = st.lists(st.sampled_from(HARD) | st.text(max_size=4), max_size=8).map("".join)
opt_texts = st.none() | texts.filter(bool)
iris = st.integers(0, 10**6).map(lambda n: IRI(f"urn:uuid:00000000-0000-7000-8000-{n:012d}"))
times = st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1),
                     timezones=st.sampled_from([dt.timezone.utc, dt.timezone(dt.timedelta(hours=5)),
                                                dt.timezone(dt.timedelta(hours=-7, minutes=-30))]))
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
json_obj = st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3)
agents = st.builds(lambda role, name, version: Agent(
    role=role, name=name, version=version, iri=ids.content_iri("agent", role, name, version)),
    st.sampled_from(sorted(AGENT_ROLES)), words.filter(bool), words)
RUN = IRI("urn:uuid:00000000-0000-7000-8000-00000000aaaa")
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _stored(quads):
    s = EmbeddedStore()
    s.add(quads)
    return s


def _role(a: Agent, role: str) -> Agent:
    return Agent(role=role, name=a.name, version=a.version,
                 iri=ids.content_iri("agent", role, a.name, a.version))


@SETTINGS
@given(agents)
def test_agent_round_trip(a):
    assert agent.load_agents(_stored(agent.agent_quads(a, RUN)), [a.iri]) == {a.iri: a}


@SETTINGS
@given(iris, words, times, st.none() | json_obj, st.none() | json_obj.filter(bool),
       st.none() | words.filter(bool), st.dictionaries(words, words, max_size=3))
def test_run_round_trip(iri, label, started, config, models, code, packages):
    r = run.RunRecord(iri=iri, label=label, started_at=started, packages=packages, config=config,
                      models=models, code_revision=code)
    assert run.load(_stored(run.to_quads(r)), [iri]) == [r]


@SETTINGS
@given(st.binary(max_size=40), words.filter(bool), words.filter(bool), times, st.booleans())
def test_snapshot_round_trip(data, uri, media, observed, revised):
    sha = hashlib.sha256(data).hexdigest()
    prev = ids.snapshot_iri("0" * 64) if revised else None
    s = snapshot.SnapshotRecord(iri=ids.snapshot_iri(sha), document=ids.content_iri("document", uri),
                                sha256=sha, byte_size=len(data), media_type=media, source_uri=uri,
                                observed_at=observed, revision_of=prev)
    store = _stored(snapshot.to_quads(s, GRAPH.INGESTION, run=RUN))
    assert snapshot.load(store, [s.iri]) == {s.iri: s}


def _extraction(store: EmbeddedStore, text: str, parser: Agent, started, ended, config):
    snap = ids.snapshot_iri("1" * 64)
    iri = ids.content_iri("extraction", snap, parser.name, parser.version, config)
    sha = store.originals.put(text.encode("utf-8"))
    n = len(text)
    return extraction.ExtractionRecord(
        iri=iri, text_iri=extraction.text_iri_of(iri), snapshot=snap, parser=parser, text=text,
        text_sha256=sha, offset_map=((0, n, 0, len(text.encode("utf-8"))),) if n else (),
        config=config, started_at=started, ended_at=ended)


@SETTINGS
@given(texts, agents, st.none() | times, st.none() | times, json_obj)
def test_extraction_round_trip(text, parser, started, ended, config):
    store = EmbeddedStore()
    e = _extraction(store, text, _role(parser, "parser"), started, ended, config)
    store.add(extraction.to_quads(e, GRAPH.INGESTION, run=RUN))
    assert extraction.load(store, [e.iri]) == {e.iri: e}


@SETTINGS
@given(texts, st.data())
def test_chunk_round_trip(text, data):
    store = EmbeddedStore()
    e = _extraction(store, text, Agent(role="parser", name="p", iri=IRI("urn:x:p")), None, None, {})
    store.add(extraction.to_quads(e, GRAPH.INGESTION, run=RUN))
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))  # empty spans included
    act = chunk.chunking_iri(e.text_iri, "c", "1", {})
    c = chunk.ChunkRecord(iri=chunk.chunk_iri(e.text_iri, "c", "1", start, end), extraction=e.iri,
                          text_iri=e.text_iri, snapshot=e.snapshot, start=start, end=end,
                          text=text[start:end], chunking=act)
    store.add(chunk.to_quads(c, GRAPH.INGESTION))
    assert chunk.load(store, [c.iri]) == {c.iri: c}


@SETTINGS
@given(st.sampled_from(sorted(AID_KINDS)), texts, agents, st.lists(iris, min_size=1, max_size=3),
       st.none() | times)
def test_aid_round_trip(kind, text, model, sources, at):
    m = _role(model, "model")
    srcs = tuple(sorted(set(sources)))
    a = aid.AidRecord(iri=ids.content_iri("aid", kind, text, m.name, m.version, list(srcs)),
                      kind=kind, text=text, model=m, derived_from=srcs, at=at)
    assert aid.load(_stored(aid.to_quads(a, RUN, run=RUN)), [a.iri]) == {a.iri: a}


segments = st.lists(st.builds(lambda s, n, o, src: Segment(start=s, end=s + n, origin=o, source=src),
                              st.integers(0, 20), st.integers(0, 5),
                              st.sampled_from(["original", "generated", "instruction", "query"]),
                              st.none() | iris), max_size=4).map(tuple)


@SETTINGS
@given(texts, iris, segments)
def test_indexed_round_trip(text, ch, segs):
    r = indexed.IndexedRecord(iri=indexed.indexed_iri(ch, text), text=text, chunk=ch, segments=segs)
    store = _stored(indexed.to_quads(r, GRAPH.INGESTION, run=RUN))
    assert indexed.load(store, [r.iri]) == {r.iri: r}


@SETTINGS
@given(iris, texts, st.none() | times)
def test_query_round_trip(iri, text, at):
    q = query.QueryRecord(iri=iri, text=text, at=at)
    assert query.load(_stored(query.to_quads(q, RUN)), [iri]) == {iri: q}


@SETTINGS
@given(iris, iris, agents, st.lists(st.tuples(iris, st.none() | st.floats(allow_nan=False)),
                                     max_size=4), words, st.lists(iris, max_size=2), st.none() | times)
def test_retrieval_round_trip(iri, q, retriever, hits, index_version, aids, at):
    hs = tuple(retrieval.Hit(target=t, rank=i + 1, score=s) for i, (t, s) in enumerate(hits))
    aids_ = tuple(sorted(set(aids) - {q} - {t for t, _ in hits}))
    r = retrieval.RetrievalRecord(iri=iri, query=q, hits=hs, retriever=_role(retriever, "retriever"),
                                  index_version=index_version, aids=aids_, started_at=at,
                                  ended_at=at, run=RUN)
    if q in {t for t, _ in hits}:
        return  # a query that is also a hit target is not a retrieval anyone records
    assert retrieval.load(_stored(retrieval.to_quads(r, RUN)), [iri]) == {iri: r}


@SETTINGS
@given(iris, texts, segments, st.none() | iris, st.none() | agents, st.lists(iris, max_size=2),
       st.none() | st.integers(0, 10**6), st.none() | times)
def test_prompt_round_trip(iri, text, segs, ret, template, omitted, budget, at):
    p = prompt.InputRecord(iri=iri, packing=prompt.packing_iri(iri), text=text, segments=segs,
                           retrieval=ret, template=_role(template, "prompt_template") if template else None,
                           omitted=tuple(sorted(set(omitted))), token_budget=budget, at=at, run=RUN)
    assert prompt.load(_stored(prompt.to_quads(p, RUN)), [iri]) == {iri: p}


@SETTINGS
@given(iris, texts, agents, iris, json_obj, st.none() | times, times)
def test_answer_round_trip(iri, text, model, gi, settings_, started, ended):
    a = generation.AnswerRecord(iri=iri, generation=generation.generation_iri(iri), text=text,
                                model=_role(model, "model"), generator_input=gi,
                                settings=settings_, started_at=started, ended_at=ended, run=RUN)
    assert generation.load(_stored(generation.to_quads(a, RUN)), [iri]) == {iri: a}


@SETTINGS
@given(iris, iris, texts, st.data(), st.sampled_from(["quotation", "paraphrase", "derivation"]),
       st.sampled_from(["supported", "uncertain"]), st.lists(iris, max_size=3), opt_texts,
       st.lists(iris, max_size=2), st.lists(iris, max_size=2))
def test_claim_round_trip(iri, ans, text, data, kind, status, operands, warrant, agents_, snaps):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    c = claim.ClaimRecord(iri=iri, answer=ans, start=start, end=end, text=text[start:end], kind=kind,
                          status=status, run=RUN, generation=generation.generation_iri(ans),
                          derivations=tuple(claim.Derivation(entity=o, warrant=warrant) for o in operands),
                          support_agents=tuple(sorted(set(agents_))),
                          cited_snapshots=tuple(sorted(set(snaps))))
    assert claim.load(_stored(claim.to_quads(c, RUN)), [iri]) == {iri: c}


@SETTINGS
@given(iris, iris, words, st.none() | iris, st.data(), st.sampled_from(UNITS), st.booleans(),
       opt_texts, opt_texts, opt_texts, st.none() | st.just("a" * 64),
       st.none() | st.sampled_from(["exact@1", "whitespace@1"]))
def test_citation_round_trip(iri, cl, tid, target, data, unit, incl, quote, prefix, suffix, pin, pol):
    ranged = data.draw(st.booleans())
    start = data.draw(st.integers(0, 50)) if ranged else None
    end = data.draw(st.integers(start, 60)) if ranged and start is not None else None
    c = citation.Citation(iri=iri, claim=cl, target_id=tid, target=target, start=start, end=end,
                          unit=unit if ranged else None, end_inclusive=incl if ranged else False,
                          quote=quote, prefix=prefix if quote else None,
                          suffix=suffix if quote else None, pinned_sha256=pin,
                          policy=pol if quote else None, graph=RUN)
    got = citation.load(_stored(citation.to_quads(c, RUN)), [iri])
    assert got == {iri: c}
    assert citation.citations_of_runs(_stored(citation.to_quads(c, RUN)), [RUN]) == [c]


# ------------------------------------------------------------------ the ontology, both ways

ONTOLOGY = Path(__file__).resolve().parents[1] / "ontologies" / "rag-prov.ttl"
# pg: properties the schema tables do not own, and the module that writes each.
NOT_IN_TABLES = {
    PG.imprecise: "io/provo.py: PROV-N import marks an imprecise qualified node",
    PG.document: "declared in the ontology, written by no module (reserved)",
    PG.signature: "io/bundle.py: an exported bundle's signature (provgraph.signing, issue 20)",
    PG.signingKey: "io/bundle.py: the key id of an exported bundle's signature (issue 20)",
}


def _ontology_properties() -> set[str]:
    g = rdflib.Graph().parse(ONTOLOGY)
    out = set()
    for cls in (rdflib.OWL.DatatypeProperty, rdflib.OWL.ObjectProperty, rdflib.RDF.Property):
        out |= {str(s) for s in g.subjects(rdflib.RDF.type, cls)}
    return {p for p in out if p.startswith(str(PG._base))}


def test_every_table_predicate_is_a_known_term():
    used = set().union(*(t.predicates() for t in all_tables()))
    declared = _ontology_properties()
    for p in used:
        if p.startswith(PG._base):
            assert p in declared, f"{p} is used by a schema table but not declared in {ONTOLOGY.name}"
        else:
            assert p in PROV or p in OA or p.startswith("http://www.w3.org/"), p


def test_every_ontology_property_has_an_owner():
    used = set().union(*(t.predicates() for t in all_tables()))
    missing = sorted(_ontology_properties() - used - set(NOT_IN_TABLES))
    assert not missing, f"pg: properties no schema table reads or writes: {missing}"


def test_batch_read_is_one_query_for_any_number_of_subjects():
    calls = []

    class Counting(EmbeddedStore):
        def select(self, *a, **k):  # type: ignore[no-untyped-def]
            calls.append(a[0])
            return super().select(*a, **k)

    store = Counting()
    cits = [citation.Citation(iri=IRI(f"urn:x:c{i}"), claim=IRI("urn:x:claim"), target_id="t",
                              quote=f"q{i}", graph=RUN) for i in range(50)]
    for c in cits:
        store.add(citation.to_quads(c, RUN))
    for n in (1, 50):
        calls.clear()
        got = citation.load(store, [c.iri for c in cits[:n]])  # type: ignore[misc]
        assert len(got) == n and len(calls) == 1


def test_snapshot_states_order_newer_revisions_by_instant_and_see_deletions():
    from provgraph import Recorder

    store = EmbeddedStore()
    rec = Recorder(store, packages=[])
    plus5 = dt.timezone(dt.timedelta(hours=5))
    old = rec.snapshot(b"v1", uri="file:///d.txt", media_type="text/plain",
                       observed_at=dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc))
    a = rec.snapshot(b"v2a", uri="file:///d.txt", media_type="text/plain", revision_of=old,
                     observed_at=dt.datetime(2026, 3, 2, 10, 0, tzinfo=plus5))  # 05:00Z
    b = rec.snapshot(b"v2b", uri="file:///d.txt", media_type="text/plain", revision_of=old,
                     observed_at=dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc))
    got = snapshot.states(store, [old.iri, b.iri])
    assert got[old.iri].newer == (b.iri, a.iri) and not got[old.iri].deleted
    rec.deletion(b)
    assert snapshot.states(store, [b.iri])[b.iri].deleted


def test_extractions_of_snapshots_in_one_batch():
    from provgraph import Recorder

    store = EmbeddedStore()
    rec = Recorder(store, packages=[])
    s1 = rec.snapshot(b"one", uri="file:///1", media_type="text/plain")
    s2 = rec.snapshot(b"two", uri="file:///2", media_type="text/plain")
    e1 = rec.extraction(s1, parser=("p", "1"), text="one")
    e2 = rec.extraction(s1, parser=("p", "2"), text="one")
    got = extraction.of_snapshots(store, [s1.iri, s2.iri])
    assert got[s2.iri] == [] and {e.iri for e in got[s1.iri]} == {e1.iri, e2.iri}
    assert {(e.parser.version, e.text) for e in got[s1.iri]} == {("1", "one"), ("2", "one")}
