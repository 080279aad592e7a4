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

from ..errors import OffsetError
from ..offsets import SourceText
from ..schema import chunk as chunk_schema
from ..schema import citation as citation_schema
from ..schema import claim as claim_schema
from ..schema import extraction as extraction_schema
from ..schema import snapshot as snapshot_schema
from ..schema.citation import Citation
from ..store import ProvStore
from ..terms import IRI, Term, term_value
from ..vocab import PG, RDF

__all__ = ["CitationFact", "ClaimFact", "claim_facts", "stale_claims", "parser_affected",
           "generated_targets", "abstentions", "STALE_CATEGORIES"]

STALE_CATEGORIES = ("updated", "deleted", "cited span unchanged")


def _norm(text: str) -> str:
    return " ".join(text.split())


@dataclass(slots=True)
class CitationFact:
    """One recorded citation (:class:`provgraph.schema.citation.Citation`, read through the
    schema layer) with what the demo's checks need beside it: its target's RDF types and
    the text it cites (the quote, else its range of the target's text read by
    :meth:`~provgraph.schema.citation.Citation.cited_text`, else ``None``)."""

    citation: Citation
    types: set[str] = field(default_factory=set)
    cited_text: str | None = None

    @property
    def iri(self) -> str:
        """The citation's IRI."""
        return str(self.citation.iri)

    @property
    def target(self) -> str | None:
        """The recorded resource it names, ``None`` when it names nothing recorded."""
        return str(self.citation.target) if self.citation.target is not None else None

    @property
    def target_id(self) -> str:
        """The identifier as the answer gave it."""
        return self.citation.target_id


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
    """Every claim of ``run`` (a run IRI), by claim IRI, read from ``store`` through the
    schema layer (claims, their citations, their targets' types and texts: four
    queries)."""
    claims = claim_schema.load(store, claim_schema.claims_of_runs(store, [IRI(run)]))
    cits = citation_schema.citations_of_claims(store, sorted(claims))
    targets = sorted({c.target for cs in cits.values() for c in cs if c.target is not None})
    described = store.describe(targets, predicates=[RDF.type, PG.text]) if targets else {}
    facts: dict[str, ClaimFact] = {}
    for iri, c in claims.items():
        fact = facts[str(iri)] = ClaimFact(iri=str(iri), kind=c.kind, status=c.status, text=c.text,
                                           snapshots={str(s) for s in c.cited_snapshots})
        for cit in cits.get(iri, []):
            props = described.get(cit.target, {}) if cit.target is not None else {}
            fact.citations.append(CitationFact(citation=cit, types={str(t) for t in props.get(RDF.type, [])},
                                               cited_text=_cited(cit, props.get(PG.text, []))))
    for f in facts.values():
        f.operands = sorted(str(o) for o in claims[IRI(f.iri)].derived_from if str(o) in facts)
        f.citations.sort(key=lambda c: c.iri)
    return facts


def _cited(cit: Citation, texts: list[Term]) -> str | None:
    if cit.quote is not None:
        return cit.quote
    if cit.has_range and texts:
        try:
            return cit.cited_text(SourceText.from_text(str(term_value(texts[0]))))
        except OffsetError:
            return None
    return None


def _cited_texts(facts: dict[str, ClaimFact], claim: ClaimFact) -> list[str]:
    texts = [c.cited_text for c in claim.citations if c.cited_text]
    for op in claim.operands:
        texts += _cited_texts(facts, facts[op])
    return texts


def _extracted_text(store: ProvStore, snap: str, parser: tuple[str, str]) -> str | None:
    for ext in extraction_schema.of_snapshots(store, [IRI(snap)]).get(IRI(snap), []):
        if (ext.parser.name, ext.parser.version) == parser:
            return ext.text
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
                st = snapshot_schema.states(store, [IRI(snap)])[IRI(snap)]
                state[snap] = ([str(n) for n in st.newer], st.deleted)
            newer, deleted = state[snap]
            if deleted:
                worst = "deleted"
                break
            if not newer:
                continue
            new_text = _norm(_extracted_text(store, newer[0], parser) or "")  # newest first
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
    targets = sorted({IRI(c.target) for f in facts.values() for c in f.citations if c.target})
    chunk_snap = {str(i): str(c.snapshot) for i, c in chunk_schema.load(store, targets).items()}
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
