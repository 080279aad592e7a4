"""The demo's own ground truth, read back from the recorded store.

These checks answer the auditor's questions for the demo directly from the
recorded statements and the retained originals, so the demo (and its tests) can
compare them with what provgraph's query library reports:

* :func:`claim_facts`: every claim of a run with its kind, status, citations
  (target, target types, quoted or cited text) and derivation operands;
* :func:`stale_claims`: claims whose cited snapshot was deleted, or has a newer
  revision whose text no longer contains the cited text (``updated``) or still
  contains it (``cited span unchanged``);
* :func:`parser_affected`: claims whose cited text the new parser no longer
  produces from the same snapshot;
* :func:`generated_targets` and :func:`abstentions`.

Text comparisons collapse runs of whitespace (the answers quote across line
breaks with a single space). Nothing here writes to the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..store import ProvStore
from ..terms import IRI, lit, term_value
from ..vocab import PG

__all__ = ["CitationFact", "ClaimFact", "claim_facts", "stale_claims", "parser_affected",
           "generated_targets", "abstentions", "STALE_CATEGORIES"]

STALE_CATEGORIES = ("updated", "deleted", "cited span unchanged")

_PREFIXES = """PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX pg: <https://w3id.org/provgraph/ns#>
PREFIX oa: <http://www.w3.org/ns/oa#>
"""

_CLAIMS = _PREFIXES + """SELECT ?run ?claim ?kind ?status ?text WHERE {
  ?claim pg:run ?run ; pg:claimKind ?kind ; pg:claimStatus ?status ; pg:text ?text .
}"""

_CITATIONS = _PREFIXES + """SELECT ?run ?claim ?cit ?tid ?target ?type ?exact ?start ?end ?ttext WHERE {
  ?claim pg:run ?run ; pg:citation ?cit .
  ?cit pg:targetId ?tid .
  OPTIONAL { ?cit pg:target ?target . OPTIONAL { ?target a ?type } OPTIONAL { ?target pg:text ?ttext } }
  OPTIONAL { ?cit oa:hasSelector ?sel . ?sel oa:exact ?exact }
  OPTIONAL { ?cit pg:start ?start ; pg:end ?end }
}"""

_OPERANDS = _PREFIXES + """SELECT ?run ?claim ?op WHERE {
  ?claim pg:run ?run ; prov:wasDerivedFrom ?op .
}"""

_CITED_SNAPSHOTS = _PREFIXES + """SELECT ?run ?claim ?snap WHERE {
  ?claim pg:run ?run ; pg:citedSnapshot ?snap .
}"""

_SNAPSHOT_STATE = _PREFIXES + """SELECT ?snap ?newer ?deletion WHERE {
  OPTIONAL { ?newer prov:wasRevisionOf ?snap }
  OPTIONAL { { ?snap prov:wasInvalidatedBy ?deletion }
             UNION { ?snap prov:specializationOf ?doc . ?doc prov:wasInvalidatedBy ?deletion } }
}"""

_EXTRACTED = _PREFIXES + """SELECT ?snap ?name ?version ?sha WHERE {
  ?ext prov:used ?snap ; pg:extractedText ?t ; prov:wasAssociatedWith ?agent .
  ?agent pg:agentName ?name ; pg:agentVersion ?version .
  ?t pg:sha256 ?sha .
}"""

_CHUNK_SNAPSHOT = _PREFIXES + """SELECT ?chunk ?snap WHERE {
  ?chunk prov:wasDerivedFrom ?t . ?t a pg:ExtractedText ; prov:wasDerivedFrom ?snap .
}"""


def _norm(text: str) -> str:
    return " ".join(text.split())


@dataclass(slots=True)
class CitationFact:
    """One citation as recorded: target (``None`` when it names nothing recorded), the
    target's RDF types, and the text it cites (the quote, else the cited range of the
    target's text, else ``None``)."""

    iri: str
    target_id: str
    target: str | None
    types: set[str] = field(default_factory=set)
    cited_text: str | None = None


@dataclass(slots=True)
class ClaimFact:
    """One claim as recorded, with its citations, operands and cited snapshots."""

    iri: str
    kind: str
    status: str
    text: str
    citations: list[CitationFact] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    snapshots: set[str] = field(default_factory=set)


def claim_facts(store: ProvStore, run: str) -> dict[str, ClaimFact]:
    """Every claim of ``run`` (a run IRI), by claim IRI, read from ``store``."""
    r = {"run": IRI(run)}
    facts = {str(row["claim"]): ClaimFact(iri=str(row["claim"]), kind=term_value(row["kind"]),
                                          status=term_value(row["status"]), text=term_value(row["text"]))
             for row in store.select(_CLAIMS, r)}
    cits: dict[str, CitationFact] = {}
    for row in store.select(_CITATIONS, r):
        claim = facts[str(row["claim"])]
        key = str(row["cit"])
        cit = cits.get(key)
        if cit is None:
            cited = None
            if row["exact"] is not None:
                cited = term_value(row["exact"])
            elif row["start"] is not None and row["ttext"] is not None:
                cited = term_value(row["ttext"])[term_value(row["start"]):term_value(row["end"])]
            cit = CitationFact(iri=key, target_id=term_value(row["tid"]),
                               target=str(row["target"]) if row["target"] is not None else None,
                               cited_text=cited)
            cits[key] = cit
            claim.citations.append(cit)
        if row["type"] is not None:
            cit.types.add(str(row["type"]))
    for row in store.select(_OPERANDS, r):
        if str(row["claim"]) in facts and str(row["op"]) in facts:
            facts[str(row["claim"])].operands.append(str(row["op"]))
    for row in store.select(_CITED_SNAPSHOTS, r):
        facts[str(row["claim"])].snapshots.add(str(row["snap"]))
    for f in facts.values():
        f.citations.sort(key=lambda c: c.iri)
        f.operands.sort()
    return facts


def _cited_texts(facts: dict[str, ClaimFact], claim: ClaimFact) -> list[str]:
    texts = [c.cited_text for c in claim.citations if c.cited_text]
    for op in claim.operands:
        texts += _cited_texts(facts, facts[op])
    return texts


def _extracted_text(store: ProvStore, snap: str, parser: tuple[str, str]) -> str | None:
    rows = store.select(_EXTRACTED, {"snap": IRI(snap), "name": lit(parser[0]),
                                     "version": lit(parser[1])})
    for row in rows:
        return store.originals.get(term_value(row["sha"])).decode("utf-8")
    return None


def stale_claims(store: ProvStore, facts: dict[str, ClaimFact],
                 parser: tuple[str, str]) -> dict[str, str]:
    """Stale claims by IRI, with one of :data:`STALE_CATEGORIES`.

    Args:
        facts: from :func:`claim_facts`.
        parser: ``(name, version)`` of the parser whose text of the newer revision
            is compared with the cited text.

    ``deleted`` wins over ``updated``, which wins over ``cited span unchanged``.
    """
    out: dict[str, str] = {}
    state: dict[str, tuple[list[str], bool]] = {}
    for claim in facts.values():
        worst = None
        for snap in sorted(claim.snapshots):
            if snap not in state:
                rows = store.select(_SNAPSHOT_STATE, {"snap": IRI(snap)})
                newer = sorted({str(r["newer"]) for r in rows if r["newer"] is not None})
                deleted = any(r["deletion"] is not None for r in rows)
                state[snap] = (newer, deleted)
            newer, deleted = state[snap]
            if deleted:
                worst = "deleted"
                break
            if not newer:
                continue
            new_text = _norm(_extracted_text(store, newer[-1], parser) or "")
            gone = [t for t in _cited_texts(facts, claim) if _norm(t) not in new_text]
            category = "updated" if gone else "cited span unchanged"
            if worst != "updated":
                worst = category
        if worst:
            out[claim.iri] = worst
    return out


def parser_affected(store: ProvStore, facts: dict[str, ClaimFact], new_parser: tuple[str, str]
                    ) -> set[str]:
    """Claims whose cited chunk text is not in the text ``new_parser`` extracts from the
    same snapshot (derivations inherit from their operands)."""
    chunk_snap = {str(r["chunk"]): str(r["snap"]) for r in store.select(_CHUNK_SNAPSHOT)}
    cache: dict[str, str] = {}

    def affected(claim: ClaimFact) -> bool:
        for c in claim.citations:
            snap = chunk_snap.get(c.target or "")
            if snap is None or not c.cited_text:
                continue
            if snap not in cache:
                cache[snap] = _norm(_extracted_text(store, snap, new_parser) or "")
            if _norm(c.cited_text) not in cache[snap]:
                return True
        return any(affected(facts[op]) for op in claim.operands)

    return {c.iri for c in facts.values() if affected(c)}


def generated_targets(facts: dict[str, ClaimFact]) -> set[str]:
    """Citations whose target is a generated aid (``pg:GeneratedAid``)."""
    return {c.iri for f in facts.values() for c in f.citations if str(PG.GeneratedAid) in c.types}


def abstentions(facts: dict[str, ClaimFact]) -> set[str]:
    """Claims of kind ``abstention``."""
    return {f.iri for f in facts.values() if f.kind == "abstention"}
