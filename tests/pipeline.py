"""A small but complete recorded RAG pipeline with known ground truth, shared by tests.

Two sources (one revised), a hypothetical document, a contextual prefix, a
retrieval, context packing, a generation, three claims and four citations.
The same pipeline is written twice: through the Python API (:func:`record`)
and as JSONL events (:func:`events`), with identical IRIs and times so the
two recordings can be compared graph for graph.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from provgraph import Recorder, Segment
from provgraph.model import Hit

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
RUN = "urn:uuid:01900000-0000-7000-8000-00000000000a"

POLICY_V1 = ("# Inspection policy\n\nThe inspection interval is not specified.\n"
             "Boilers are inspected by a certified engineer.\n")
POLICY_V2 = ("# Inspection policy\n\nThe inspection interval is 12 months.\n"
             "Boilers are inspected by a certified engineer.\n")
FAQ = "Q: Who inspects boilers?\nA: A certified engineer from the registry.\n"
PREFIX_TEXT = "The inspection interval is 73 days, effective 2031-04-17."
HYDE_TEXT = "Boilers must be inspected every year by an engineer."


def t(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def iri(name: str) -> str:
    return f"urn:uuid:01900000-0000-7000-8000-{name:0>12}"


def record(rec: Recorder) -> dict[str, Any]:
    """Record the pipeline through the Python API; return its records by name."""
    r: dict[str, Any] = {}
    r["policy_v1"] = rec.snapshot(POLICY_V1.encode(), uri="https://example.org/policy.md",
                                  media_type="text/markdown", observed_at=t(0))
    r["faq"] = rec.snapshot(FAQ.encode(), uri="https://example.org/faq.txt",
                            media_type="text/plain", observed_at=t(1))
    r["ext_policy"] = rec.extraction(r["policy_v1"], parser=("plain-utf8", "1.0"), text=POLICY_V1,
                                     ended_at=t(2))
    r["ext_faq"] = rec.extraction(r["faq"], parser=("plain-utf8", "1.0"), text=FAQ, ended_at=t(2))
    policy_chunks = rec.chunking(r["ext_policy"], chunker=("lines", "1.0"),
                                 ranges=[(0, 19), (21, 63), (63, 110)], parameters={"by": "line"},
                                 ended_at=t(3))
    faq_chunks = rec.chunking(r["ext_faq"], chunker=("lines", "1.0"), ranges=[(0, 25), (25, 68)],
                              parameters={"by": "line"}, ended_at=t(3))
    r["c_interval"], r["c_engineer"] = policy_chunks[1], policy_chunks[2]
    r["c_faq_a"] = faq_chunks[1]
    r["prefix"] = rec.aid("contextual_prefix", text=PREFIX_TEXT, model=("ctx-gen", "0.1"),
                          derived_from=[r["c_interval"]], at=t(4))
    # the revision arrives later; the run still cites v1
    r["policy_v2"] = rec.snapshot(POLICY_V2.encode(), uri="https://example.org/policy.md",
                                  media_type="text/markdown", observed_at=t(60),
                                  revision_of=r["policy_v1"])
    r["query"] = rec.query("How often are boilers inspected, and by whom?", at=t(10), iri=iri("q1"))
    r["hyde"] = rec.aid("hypothetical_document", text=HYDE_TEXT, model=("hyde-gen", "0.1"),
                        derived_from=[r["query"]], at=t(10))
    r["retrieval"] = rec.retrieval(
        r["query"], retriever=("rank-bm25", "0.2.2"), index_version="idx-1",
        hits=[Hit(target=r["c_interval"], rank=1, score=3.5),
              Hit(target=r["c_engineer"], rank=2, score=2.25),
              Hit(target=r["c_faq_a"], rank=3, score=1.0)],
        aids=[r["hyde"]], started_at=t(11), ended_at=t(11), iri=iri("r1"))
    prompt = ("Answer from the context.\n" + PREFIX_TEXT + "\n" + r["c_interval"].text + "\n"
              + r["c_engineer"].text)
    a = len("Answer from the context.\n")
    b = a + len(PREFIX_TEXT) + 1
    c = b + len(r["c_interval"].text)
    r["input"] = rec.context_packing(
        text=prompt, retrieval=r["retrieval"], template=("qa-template", "3"),
        segments=[Segment(start=0, end=a, origin="instruction"),
                  Segment(start=a, end=a + len(PREFIX_TEXT), origin="generated", source=r["prefix"]),
                  Segment(start=b, end=c, origin="original", source=r["c_interval"]),
                  Segment(start=c + 1, end=len(prompt), origin="original", source=r["c_engineer"])],
        omitted=[r["c_faq_a"]], token_budget=512, at=t(12), iri=iri("gi1"))
    answer = ('"The inspection interval is not specified." Boilers are inspected by a '
              'certified engineer. The interval is 73 days.')
    r["answer"] = rec.generation(r["input"], model=("extractive", "1.0"), text=answer,
                                 settings={"temperature": 0}, started_at=t(13), ended_at=t(13),
                                 iri=iri("a1"))
    r["claim_quote"] = rec.claim(r["answer"], start=1, end=42, kind="quotation", iri=iri("cl1"))
    s2 = answer.index("Boilers")
    r["claim_para"] = rec.claim(r["answer"], start=s2, end=s2 + len("Boilers are inspected by a certified engineer."),
                                kind="paraphrase", iri=iri("cl2"))
    s3 = answer.index("The interval is 73")
    r["claim_bad"] = rec.claim(r["answer"], start=s3, end=len(answer), kind="paraphrase",
                               status="unsupported", iri=iri("cl3"))
    r["cit1"] = rec.citation(r["claim_quote"], target=r["c_interval"], start=0, end=41,
                             unit="codepoint", quote="The inspection interval is not specified.",
                             iri=iri("ct1"))
    r["cit2"] = rec.citation(r["claim_para"], target=r["c_engineer"], iri=iri("ct2"))
    r["cit3"] = rec.citation(r["claim_para"], target=r["c_faq_a"], quote="A certified engineer",
                             iri=iri("ct3"))
    r["cit4"] = rec.citation(r["claim_bad"], target=r["prefix"],
                             quote="The inspection interval is 73 days", iri=iri("ct4"))
    return r


def events() -> list[str]:
    """The same pipeline as JSONL event lines (ids refer back; IRIs and times pinned)."""
    def ts(m: int) -> str:
        return t(m).isoformat().replace("+00:00", "Z")

    a = len("Answer from the context.\n")
    interval = POLICY_V1[21:63]
    engineer = POLICY_V1[63:110]
    b = a + len(PREFIX_TEXT) + 1
    c = b + len(interval)
    prompt = "Answer from the context.\n" + PREFIX_TEXT + "\n" + interval + "\n" + engineer
    answer = ('"The inspection interval is not specified." Boilers are inspected by a '
              'certified engineer. The interval is 73 days.')
    s2 = answer.index("Boilers")
    s3 = answer.index("The interval is 73")
    ev: list[dict[str, Any]] = [
        {"event": "run", "iri": RUN, "label": "fixture", "packages": [], "started_at": ts(0)},
        {"event": "snapshot", "id": "p1", "uri": "https://example.org/policy.md",
         "media_type": "text/markdown", "content": POLICY_V1, "observed_at": ts(0)},
        {"event": "snapshot", "id": "faq", "uri": "https://example.org/faq.txt",
         "media_type": "text/plain", "content": FAQ, "observed_at": ts(1)},
        {"event": "extraction", "id": "xp", "snapshot": "p1",
         "parser": {"name": "plain-utf8", "version": "1.0"}, "text": POLICY_V1, "ended_at": ts(2)},
        {"event": "extraction", "id": "xf", "snapshot": "faq",
         "parser": {"name": "plain-utf8", "version": "1.0"}, "text": FAQ, "ended_at": ts(2)},
        {"event": "chunking", "extraction": "xp", "chunker": {"name": "lines", "version": "1.0"},
         "ranges": [[0, 19], [21, 63], [63, 110]], "ids": ["cp0", "cp1", "cp2"],
         "parameters": {"by": "line"}, "ended_at": ts(3)},
        {"event": "chunking", "extraction": "xf", "chunker": {"name": "lines", "version": "1.0"},
         "ranges": [[0, 25], [25, 68]], "ids": ["cf0", "cf1"], "parameters": {"by": "line"},
         "ended_at": ts(3)},
        {"event": "aid", "id": "prefix", "kind": "contextual_prefix", "text": PREFIX_TEXT,
         "model": {"name": "ctx-gen", "version": "0.1"}, "derived_from": ["cp1"], "at": ts(4)},
        {"event": "snapshot", "id": "p2", "uri": "https://example.org/policy.md",
         "media_type": "text/markdown", "content": POLICY_V2, "observed_at": ts(60),
         "revision_of": "p1"},
        {"event": "query", "id": "q", "text": "How often are boilers inspected, and by whom?",
         "at": ts(10), "iri": iri("q1")},
        {"event": "aid", "id": "hyde", "kind": "hypothetical_document", "text": HYDE_TEXT,
         "model": {"name": "hyde-gen", "version": "0.1"}, "derived_from": ["q"], "at": ts(10)},
        {"event": "retrieval", "id": "r", "query": "q",
         "retriever": {"name": "rank-bm25", "version": "0.2.2"}, "index_version": "idx-1",
         "hits": [{"target": "cp1", "rank": 1, "score": 3.5}, {"target": "cp2", "rank": 2, "score": 2.25},
                  {"target": "cf1", "rank": 3, "score": 1.0}],
         "aids": ["hyde"], "started_at": ts(11), "ended_at": ts(11), "iri": iri("r1")},
        {"event": "context_packing", "id": "gi", "text": prompt, "retrieval": "r",
         "template": {"name": "qa-template", "version": "3"},
         "segments": [{"start": 0, "end": a, "origin": "instruction"},
                      {"start": a, "end": a + len(PREFIX_TEXT), "origin": "generated", "source": "prefix"},
                      {"start": b, "end": c, "origin": "original", "source": "cp1"},
                      {"start": c + 1, "end": len(prompt), "origin": "original", "source": "cp2"}],
         "omitted": ["cf1"], "token_budget": 512, "at": ts(12), "iri": iri("gi1")},
        {"event": "generation", "id": "a", "input": "gi", "model": {"name": "extractive", "version": "1.0"},
         "text": answer, "settings": {"temperature": 0}, "started_at": ts(13), "ended_at": ts(13),
         "iri": iri("a1")},
        {"event": "claim", "id": "cl1", "answer": "a", "start": 1, "end": 42, "kind": "quotation",
         "iri": iri("cl1")},
        {"event": "claim", "id": "cl2", "answer": "a", "start": s2,
         "end": s2 + len("Boilers are inspected by a certified engineer."), "kind": "paraphrase",
         "iri": iri("cl2")},
        {"event": "claim", "id": "cl3", "answer": "a", "start": s3, "end": len(answer),
         "kind": "paraphrase", "status": "unsupported", "iri": iri("cl3")},
        {"event": "citation", "claim": "cl1", "target": "cp1", "start": 0, "end": 41,
         "unit": "codepoint", "quote": "The inspection interval is not specified.", "iri": iri("ct1")},
        {"event": "citation", "claim": "cl2", "target": "cp2", "iri": iri("ct2")},
        {"event": "citation", "claim": "cl2", "target": "cf1", "quote": "A certified engineer",
         "iri": iri("ct3")},
        {"event": "citation", "claim": "cl3", "target": "prefix",
         "quote": "The inspection interval is 73 days", "iri": iri("ct4")},
    ]
    return [json.dumps(e) for e in ev]
