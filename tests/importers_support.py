"""Helpers for the importer tests: read back what an import recorded, and slice text
by offset unit independently of provgraph.importers._spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from provgraph.ids import digest_of_snapshot_iri
from provgraph.terms import IRI, term_value

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importers"

_PREFIX = """PREFIX pg: <https://w3id.org/provgraph/ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX oa: <http://www.w3.org/ns/oa#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
"""


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def fixture_json(name: str) -> Any:
    return json.loads(fixture(name))


def slice_unit(text: str, start: int, end: int, unit: str, end_inclusive: bool = False) -> str:
    """``text``'s range in ``unit``, by encoding (raises UnicodeDecodeError mid-character)."""
    if end_inclusive:
        end += 1
    if unit == "codepoint":
        return text[start:end]
    if unit == "utf8_byte":
        return text.encode("utf-8")[start:end].decode("utf-8")
    if unit == "utf16_unit":
        return text.encode("utf-16-le")[2 * start:2 * end].decode("utf-16-le")
    raise ValueError(unit)


def rows(store: Any, sparql: str, bindings: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [{k: term_value(v) for k, v in r.items()}
            for r in store.select(_PREFIX + sparql, bindings or {})]


def answers(store: Any, run: IRI) -> list[str]:
    got = rows(store, "SELECT ?run ?text WHERE { GRAPH ?run { ?a a pg:Answer ; pg:text ?text } }",
               {"run": run})
    return sorted(r["text"] for r in got)


def claims(store: Any, run: IRI) -> list[dict[str, Any]]:
    """Claims of ``run`` with their answer text, sorted by answer then span."""
    got = rows(store, """SELECT ?run ?claim ?text ?start ?end ?kind ?status ?label ?answer WHERE {
        GRAPH ?run { ?claim a pg:Claim ; pg:text ?text ; pg:start ?start ; pg:end ?end ;
                     pg:claimKind ?kind ; pg:claimStatus ?status ; pg:answer ?a .
                     ?a pg:text ?answer .
                     OPTIONAL { ?claim rdfs:label ?label } } }""", {"run": run})
    return sorted(got, key=lambda r: (r["answer"], r["start"], r["end"], r["label"] or ""))


def citations(store: Any, claim: str) -> list[dict[str, Any]]:
    """Citations of ``claim``, sorted by target id then range."""
    got = rows(store, """SELECT ?claim ?cit ?tid ?target ?start ?end ?unit ?inclusive ?exact WHERE {
        ?claim pg:citation ?cit . ?cit pg:targetId ?tid .
        OPTIONAL { ?cit pg:target ?target }
        OPTIONAL { ?cit pg:start ?start ; pg:end ?end ; pg:offsetUnit ?unit ;
                   pg:endInclusive ?inclusive }
        OPTIONAL { ?cit oa:hasSelector ?sel . ?sel oa:exact ?exact } }""", {"claim": IRI(claim)})
    return sorted(got, key=lambda r: (r["tid"], r["start"] if r["start"] is not None else -1))


def snapshot_bytes(store: Any, snapshot: str) -> bytes:
    digest = digest_of_snapshot_iri(snapshot)
    assert digest is not None, snapshot
    return store.originals.get(digest)


def snapshot_text(store: Any, snapshot: str) -> str:
    return snapshot_bytes(store, snapshot).decode("utf-8")


def snapshots(store: Any) -> dict[str, dict[str, Any]]:
    """Every recorded snapshot: IRI -> {uri, media, size}."""
    got = rows(store, """SELECT ?snap ?uri ?media ?size WHERE {
        ?snap a pg:SourceSnapshot ; pg:sourceUri ?uri ; pg:mediaType ?media ; pg:byteSize ?size }""")
    return {r["snap"]: r for r in got}


def hits(store: Any, run: IRI) -> list[tuple[int, str, float | None]]:
    """(rank, snapshot, score) of the run's retrieval hits, by rank."""
    got = rows(store, """SELECT ?run ?rank ?target ?score WHERE { GRAPH ?run {
        ?r a pg:Retrieval ; prov:qualifiedUsage ?u . ?u pg:rank ?rank ; prov:entity ?target .
        OPTIONAL { ?u pg:score ?score } } }""", {"run": run})
    return sorted((r["rank"], r["target"], r["score"]) for r in got)


def queries(store: Any, run: IRI) -> list[str]:
    got = rows(store, "SELECT ?run ?text WHERE { GRAPH ?run { ?q a pg:Query ; pg:text ?text } }",
               {"run": run})
    return sorted(r["text"] for r in got)
