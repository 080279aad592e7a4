"""Vocabulary: the PROV-O, RAG extension (``pg:``), Web Annotation and helper namespaces.

Each namespace is a *closed* class: ``PG.Chunk`` is an :class:`~provgraph.terms.IRI`,
and a misspelt term (``PG.Chunck``) raises ``AttributeError`` naming the closest
term, like rdflib's ``DefinedNamespace`` with ``_fail = True``.

The ``PG`` terms mirror ``ontologies/rag-prov.ttl`` exactly; ``tests/test_vocab.py``
checks both directions (every term here is declared there with a label and a
comment, and every term declared there is listed here).

References: PROV-O (https://www.w3.org/TR/prov-o/), Web Annotation Vocabulary
(https://www.w3.org/TR/annotation-vocab/).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .terms import IRI

__all__ = ["PROV", "PG", "OA", "DCTERMS", "RDF", "RDFS", "XSD", "SH", "GRAPH", "UNITS", "CLAIM_KINDS",
           "CLAIM_STATUSES", "OUTCOMES", "VERIFIED_OUTCOMES", "PRECISIONS", "CONTEXT_GAPS", "AID_KINDS", "AGENT_ROLES", "ClosedNamespace",
           "RESERVED_GRAPHS", "own_graph_error"]


class _ClosedMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        import difflib  # only for the error message

        close = difflib.get_close_matches(name, cls._terms, n=1)
        hint = f" Did you mean {cls.__name__}.{close[0]}?" if close else ""
        raise AttributeError(f"{cls.__name__} has no term {name!r}.{hint}")

    def __contains__(cls, iri: object) -> bool:
        return isinstance(iri, str) and iri.startswith(cls._base) and iri[len(cls._base):] in cls._terms

    def __iter__(cls) -> Iterator[IRI]:
        return (IRI(cls._base + t) for t in cls._terms)


class ClosedNamespace(metaclass=_ClosedMeta):
    """Base for closed namespaces; subclasses set ``_base`` and ``_terms``."""

    _base: str = ""
    _terms: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        for term in cls._terms:
            setattr(cls, term, IRI(cls._base + term))


class PROV(ClosedNamespace):
    """PROV-O terms (W3C Recommendation, 30 April 2013), starting point,
    expanded and qualified terms."""

    _base = "http://www.w3.org/ns/prov#"
    _terms = (
        # classes
        "Entity", "Activity", "Agent", "SoftwareAgent", "Person", "Organization",
        "Bundle", "Collection", "EmptyCollection", "Plan", "Location", "Role",
        "Influence", "EntityInfluence", "ActivityInfluence", "AgentInfluence",
        "Usage", "Generation", "Invalidation", "Start", "End", "Communication",
        "Association", "Attribution", "Delegation", "Derivation", "Revision",
        "Quotation", "PrimarySource", "InstantaneousEvent",
        # starting point and expanded properties
        "wasGeneratedBy", "used", "wasInformedBy", "startedAtTime", "endedAtTime",
        "wasDerivedFrom", "wasAttributedTo", "wasAssociatedWith", "actedOnBehalfOf",
        "wasRevisionOf", "wasQuotedFrom", "hadPrimarySource", "wasInvalidatedBy",
        "invalidatedAtTime", "generatedAtTime", "specializationOf", "alternateOf",
        "hadMember", "wasStartedBy", "wasEndedBy", "wasInfluencedBy", "atLocation",
        "value",
        # qualified terms
        "qualifiedUsage", "qualifiedGeneration", "qualifiedDerivation",
        "qualifiedQuotation", "qualifiedRevision", "qualifiedPrimarySource",
        "qualifiedAssociation", "qualifiedAttribution", "qualifiedInvalidation",
        "qualifiedStart", "qualifiedEnd", "qualifiedCommunication",
        "qualifiedDelegation", "qualifiedInfluence",
        "entity", "activity", "agent", "hadRole", "hadPlan", "hadActivity",
        "hadUsage", "hadGeneration", "atTime", "influencer",
    )


class PG(ClosedNamespace):
    """The RAG extension of PROV-O (``ontologies/rag-prov.ttl``)."""

    _base = "https://w3id.org/provgraph/ns#"
    _terms = (
        # --- classes: bundles and ingestion
        "Run", "Removal", "RemovedRun", "Document", "SourceSnapshot", "Observation", "Reobservation", "Deletion",
        "Extraction", "ExtractedText", "Chunking", "Chunk",
        # --- classes: generated retrieval aids and indexing
        "GeneratedAid", "HypotheticalDocument", "ContextualPrefix", "GeneratedQuestion",
        "AidGeneration", "IndexedRepresentation", "Indexing", "Segment",
        # --- classes: request time
        "Query", "Retrieval", "ContextPacking", "GeneratorInput", "Generation",
        "Answer", "Claim", "Citation", "Resolution", "Revalidation", "Review", "Adjudication",
        "Verdict",
        # --- classes: agents
        "Parser", "Chunker", "Embedder", "Retriever", "Model", "PromptTemplate",
        "Resolver", "Reviewer", "Pipeline",
        # --- classes: PDF tables (issue 21)
        "Table", "TableCell",
        # --- datatype properties
        "sha256", "byteSize", "mediaType", "sourceUri", "observedAt", "notRetained", "text",
        "agentName", "agentVersion", "configuration", "offsetUnit", "offsetMap",
        "start", "end", "endInclusive", "origin", "rank", "score", "indexVersion",
        "settings", "claimKind", "claimStatus", "targetId", "pinnedSha256", "outcome", "reason", "policy", "resolvedByteStart",
        "resolvedByteEnd", "resolvedCodepointStart", "resolvedCodepointEnd", "warrant",
        "imprecise", "verdictKind", "verdictValue",
        "packageVersions", "codeRevision", "modelIds", "tokenBudget", "removedStatements",
        "pageNumber", "tableIndex", "bbox", "rowCount", "columnCount", "headerRows", "rowIndex",
        "columnIndex", "cellText", "isHeader", "headerPath", "pageMap", "boxMap", "precision",
        "contextGap",
        "signature", "signingKey",
        # --- object properties
        "document", "answer", "citation", "target", "resolvedSnapshot", "segment",
        "segmentSource", "omitted", "aidUsed", "extractedText", "run", "reviewOf", "sawSnapshot",
        "inTable", "resolvedRegion",
        # --- provenance shortcuts written at record time (kept consistent with PROV)
        "citedSnapshot", "supportAgent",
    )


class OA(ClosedNamespace):
    """W3C Web Annotation Vocabulary terms used to locate text (§4.2 Selectors)."""

    _base = "http://www.w3.org/ns/oa#"
    _terms = ("TextQuoteSelector", "TextPositionSelector", "FragmentSelector", "hasSelector",
              "exact", "prefix", "suffix", "start", "end")


class DCTERMS(ClosedNamespace):
    """DCMI Metadata Terms used by provgraph (a fragment selector's ``dcterms:conformsTo``)."""

    _base = "http://purl.org/dc/terms/"
    _terms = ("conformsTo",)


class RDF(ClosedNamespace):
    """RDF 1.1 terms used by provgraph."""

    _base = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    _terms = ("type", "JSON", "langString", "Property", "value")


class RDFS(ClosedNamespace):
    """RDF Schema terms used by provgraph."""

    _base = "http://www.w3.org/2000/01/rdf-schema#"
    _terms = ("label", "comment", "subClassOf", "subPropertyOf", "domain", "range",
              "Class", "seeAlso")


class XSD(ClosedNamespace):
    """XML Schema datatypes used by provgraph literals."""

    _base = "http://www.w3.org/2001/XMLSchema#"
    _terms = ("string", "integer", "nonNegativeInteger", "double", "decimal", "boolean",
              "dateTime", "anyURI")


class SH(ClosedNamespace):
    """SHACL terms (W3C Recommendation 2017) used in reports."""

    _base = "http://www.w3.org/ns/shacl#"
    _terms = ("NodeShape", "PropertyShape", "path", "targetClass", "minCount", "maxCount",
              "datatype", "class", "in", "message", "severity", "Violation")


class GRAPH:
    """Names of provgraph's fixed named graphs."""

    INGESTION = IRI("urn:provgraph:graph:ingestion")
    """Ingestion facts shared by all runs: documents, snapshots, extractions, chunks, aids."""
    ONTOLOGY = IRI("urn:provgraph:graph:ontology")
    """The bundled ontology and shapes, loaded by ``provgraph init``."""
    REMOVALS = IRI("urn:provgraph:graph:removals")
    """The audit trail of deleted runs: each ``pg:Removal`` and what it invalidated
    (:mod:`provgraph.schema.removal`, ``provgraph delete-run``)."""


RESERVED_GRAPHS = frozenset({GRAPH.INGESTION, GRAPH.ONTOLOGY, GRAPH.REMOVALS})
"""provgraph's own graphs (:class:`GRAPH`), which provgraph itself fills: never a run,
never the graph an import names (:func:`own_graph_error`)."""

_RESERVED_LIST = ", ".join(sorted(RESERVED_GRAPHS))


def own_graph_error(graph: str, *, writer: str) -> str | None:
    """Why ``writer`` may not put statements into the named graph ``graph``, or ``None``
    when it may: the one rule on provgraph's own graphs (:data:`RESERVED_GRAPHS`).

    A run is a named graph that ``runs`` lists, ``export`` and ``validate`` read and
    ``delete-run`` removes; statements written into one of provgraph's own graphs under a
    run's name would be none of that. So:

    * ``writer="run"`` (a :class:`~provgraph.recorder.Recorder`'s ``run_iri``, the ``iri``
      of an event log's ``run`` line): every reserved graph is refused;
    * ``writer="target"`` (an import's ``graph``, ``import --graph``): every reserved
      graph is refused;
    * ``writer="document"`` (a named graph, or PROV bundle, that an imported document
      holds, bulk loads included): only :data:`GRAPH.ONTOLOGY` is refused, which only
      ``provgraph init`` fills; the ingestion and removals graphs are how the output of
      ``provgraph export --all`` is restored.

    Args:
        graph: the graph's IRI (any string: compared as it is).
        writer: ``"run"``, ``"target"`` or ``"document"``.

    Returns:
        ``None``, or a message that names ``graph``, says why and what to give instead
        (the caller adds which input it came from).

    Raises:
        ValueError: an unknown ``writer``.

    Example:
        >>> own_graph_error("urn:example:g1", writer="run") is None
        True
        >>> own_graph_error("urn:provgraph:graph:ingestion", writer="document") is None
        True
        >>> own_graph_error("urn:provgraph:graph:ontology", writer="run")[:52]
        'urn:provgraph:graph:ontology is a graph provgraph re'
    """
    if writer not in ("run", "target", "document"):
        raise ValueError(f"writer={writer!r}: give 'run', 'target' or 'document'")
    if writer == "document":
        if graph != GRAPH.ONTOLOGY:
            return None
        return (f"the document writes into <{GRAPH.ONTOLOGY}>, the graph of provgraph's "
                "bundled ontology and shapes, which only 'provgraph init' fills; rename that "
                "bundle/graph")
    if graph not in RESERVED_GRAPHS:
        return None
    why = f"{graph} is a graph provgraph reserves for itself (reserved: {_RESERVED_LIST})"
    if writer == "run":
        return (f"{why}, not a run: 'provgraph runs' would not list a run recorded there, "
                "nor 'delete-run' remove it; give the run another IRI (a urn:uuid:, say), or "
                "leave it out to mint one")
    return (f"{why}; name another graph, such as urn:example:g1. To restore 'provgraph "
            "export --all' output, import the TriG or N-Quads file without --graph: its "
            "graphs are kept")


UNITS = ("utf8_byte", "codepoint", "utf16_unit", "page", "block")
"""Offset units; every stored offset carries one (DESIGN.md, Citation outcomes)."""

CLAIM_KINDS = ("quotation", "paraphrase", "derivation", "abstention")
CLAIM_STATUSES = ("supported", "partially_supported", "unsupported", "uncertain")
OUTCOMES = ("quote_match", "normalized_match", "quote_mismatch", "generated_target",
            "snapshot_mismatch", "unresolved_range", "unresolved_id", "ambiguous", "orphaned",
            "located", "context_not_extracted")
"""Resolver outcomes (provgraph.resolve). ``located`` (issue 3): the citation quotes no
text, and its target (and range) resolve to retained original text; nothing was verified.
``context_not_extracted`` (issue 21): the quote matches a cited table cell, but the
extraction lost what the cell's meaning depends on (:data:`CONTEXT_GAPS`); not verified."""
PRECISIONS = ("cell", "row", "table", "page")
"""How precisely a citation of a PDF region was located (``pg:precision``), finest first;
never more than the extraction had (issue 21)."""
CONTEXT_GAPS = ("header_not_extracted", "row_context_not_extracted")
"""What an extraction did not keep around a cited cell (``pg:contextGap``): no header row
was extracted for its table; text on its row lies outside the extracted table (a column was
lost)."""
VERIFIED_OUTCOMES = ("quote_match", "normalized_match")
"""The outcomes of :data:`OUTCOMES` that verify a quotation: only these write
``prov:wasQuotedFrom`` (DESIGN.md, Quotation versus derivation) and keep a citation
eligible evidence; every other outcome is a failure. The one definition that
:data:`provgraph.matching.VERIFIED` and :data:`provgraph.analytics.SUCCESS_OUTCOMES` name."""
REVIEW_VERDICTS: dict[str, tuple[str, ...]] = {
    "answerability": ("answerable", "unanswerable"),
    "origin": ("original", "generated", "mixed", "unknown"),
    "quotation": ("faithful", "unfaithful", "not_applicable"),
    "derivation": ("warranted", "unwarranted", "not_applicable"),
    "coverage": CLAIM_STATUSES,
}
"""Reviewer verdict kinds (issue 18 part 4) and the values each takes (``pg:verdictKind``,
``pg:verdictValue``; the SHACL shape ``pgsh:Verdict-value`` holds the same table):
answerability of the question, origin of the claim's support (retained original or generated
text), fidelity of a quotation, warrant of a derivation, and how well the claim is covered
(the claim statuses)."""
AID_KINDS = {"hypothetical_document": PG.HypotheticalDocument,
             "contextual_prefix": PG.ContextualPrefix,
             "generated_question": PG.GeneratedQuestion}
AGENT_ROLES = {"parser": PG.Parser, "chunker": PG.Chunker, "embedder": PG.Embedder,
               "retriever": PG.Retriever, "model": PG.Model,
               "prompt_template": PG.PromptTemplate, "resolver": PG.Resolver,
               "reviewer": PG.Reviewer, "pipeline": PG.Pipeline}
