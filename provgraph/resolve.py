"""The citation resolver: every citation checked against the retained original bytes.

:func:`resolve` checks one citation; :func:`resolve_run` checks every citation
of a run (or of all runs) and records the outcomes in the store. The matching
rules for one text are those of :mod:`provgraph.matching`; this module finds
the text a citation addresses and maps the resolved span back to the bytes of
the original snapshot:

    target -> chunk (pg:text, pg:start) -> extracted text (retained, digest-checked)
           -> offset map (pg:offsetMap) -> snapshot bytes (retained, digest-checked)

What a citation's range is relative to: its target's own text. A snapshot:
its bytes (``utf8_byte``, BOM counted) or decoded text (``codepoint``,
``utf16_unit``, ``page``, ``block``). An extracted text or chunk: its text. A
generator input or indexed representation: its ``pg:text``, whose segments say
which ranges are original (mapped on into the chunk) and which generated. A
document: its newest revision.

Snapshots by media type (:mod:`provgraph.media`):

* a block document (``application/vnd.provgraph.blocks+json``, the JSON array
  of block texts an importer retains for Anthropic content-block and search
  result documents): ``block`` ranges index the array, a quote (with a block
  range or none) is searched in the blocks' joined text, and the resolved span
  maps exactly to the bytes of the JSON string literals (the reason says when
  it crosses the JSON punctuation between two blocks);
* bytes that are not text (``application/pdf``, images, office documents):
  never searched as text, even when they happen to decode. A ``page`` or
  ``block`` range is located in the snapshot's one recorded extraction (form
  feeds separate its pages), a quote alone is looked for in its extractions, and
  without any extraction the outcome is ``unresolved_range`` with the reason
  "no text layer recorded for application/pdf; pages cannot be located" (or
  "the quote cannot be checked against its bytes"): nothing could be checked,
  which is not a misquote. A citation with neither range nor quote is
  ``located`` on the whole bytes. A PDF's extracted text has no offset map (its
  text is not in its bytes): a quote verified in it is located by page and the
  quoted words' box through the recorded page layout (``pg:pageNumber``,
  ``pg:bbox``, precision ``page``), or in a table's region (precision ``table``)
  when that box lies inside a table the parser found (issue 21);
* PDF tables (:mod:`provgraph._region_resolver`): a citation whose target is a
  ``pg:TableCell`` or ``pg:Table`` is checked against the cell's text (a table:
  each cell, then each row, then the words inside its box), after the PDF's
  retained bytes are read and their digest checked; the precision reached
  (``cell``, ``row``, ``table``) is recorded, never finer than the extraction.

Outcomes (:data:`provgraph.vocab.OUTCOMES`), beyond those of the matcher:

* ``generated_target`` - the target is a generated aid (or an answer or
  claim), or the range falls in a generated segment of indexed or prompt text,
  or the quote occurs only in generated text (aids derived from the cited
  chunks, aids shown to the generator or used for retrieval); the Resolution's
  ``generated_source`` names the aid. Generated text is never a quotation source.
* ``snapshot_mismatch`` - the citation is pinned to a digest that is not the
  retained bytes' (nor the extracted text's), or a retained original is
  missing or altered, or a chunk's text is not its recorded extraction's: a
  citation never addresses a rendering other than the one recorded.
* ``orphaned`` - a citation of a *document* (its IRI or source URI) whose quote
  is absent from the document's newest revision (or the document was deleted)
  but present in an older snapshot; reported for the newest revision.
  Citations of a specific snapshot, extraction or chunk are checked against
  that content (content-addressed, so pinned by construction); the ``stale``
  query reports which of them have newer revisions.
* ``unresolved_id`` - the target names no recorded resource (or one that is
  not source text, such as a query).
* ``located`` - no quote to check: the target (and range) resolve to retained
  original text and nothing was verified. A quotation claim's citation
  without ``oa:exact`` is checked with the claim's own text instead.
* ``context_not_extracted`` - the quote matches a cited PDF table cell, but its
  table has no extracted header row (``header_not_extracted``) or words level
  with the cell lie outside the extracted table (``row_context_not_extracted``:
  a column was not kept); the gaps are recorded as ``pg:contextGap``. Not a
  verified quotation: the cell cannot show what it qualifies.

Offset-map segments whose source bytes decode to exactly their text map every
position; other segments (markup rewritten by the parser) map only their
boundaries, and a span inside one is widened to the segment, which the reason
says. Text the parser produced (outside every segment) has no source bytes: a
quote that starts or ends in it does not resolve.

Policies: a citation may declare the normalization policy its quote is to be
compared under (``pg:policy "name@version"`` on its ``oa:TextQuoteSelector``,
written by ``Recorder.citation(policy=...)``, the event log's ``policy`` field,
or an importer: the ``answer`` importer declares ``whitespace`` because a
Markdown soft line break is not content). The declared policy wins; the policy
passed to :func:`resolve` or :func:`resolve_run` (``provgraph resolve
--policy``) applies to the citations that declare none. A declared policy this
provgraph does not have gives ``unresolved_range`` with the reason.

Write-back (:func:`resolve_run`): the outcome statements of each citation are
replaced, never added to; only ``quote_match`` and ``normalized_match`` write
``claim prov:wasQuotedFrom snapshot``, ``claim prov:wasDerivedFrom snapshot``
and a qualified ``prov:Quotation`` with ``oa:TextPositionSelector`` and
``oa:TextQuoteSelector``. Running it twice changes nothing (no timestamps; IRIs
are content-derived). Reference: PROV-O §3.3 (qualified terms), W3C Web
Annotation Data Model §4.2.4 and §4.2.5 (selectors).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import ids
from ._resolver import _Resolver
from .errors import NotFound
from .kinds import require_run
from .matching import Resolution, check_quote
from .schema import citation as citation_schema
from .schema import claim as claim_schema
from .schema.citation import OUTCOME_PREDICATES, Citation, quotation_nodes, verdict_quads
from .schema.claim import ClaimRecord
from .normalize import Policy, get_policy
from .store import ProvStore
from .terms import IRI, BNode, Literal, Quad, Term, lit
from .vocab import OUTCOMES, PG, PROV, RDF, RDFS

__all__ = ["Citation", "Resolution", "RunResolution", "load_citations", "resolve",
           "resolve_run", "check_quote", "resolver_agent"]


@dataclass(frozen=True, slots=True)
class RunResolution:
    """What :func:`resolve_run` did.

    Attributes:
        items: ``(citation, resolution)`` pairs, ordered by graph and citation IRI.
        added, removed: statements written and withdrawn (both 0 on a re-run).
        damaged: retained originals found missing or corrupt (their citations are
            ``snapshot_mismatch``): sha-256 digest -> the error, naming the blob (issue 20:
            a corrupt original was only an outcome). ``provgraph resolve`` exits 1 on it.
    """

    items: tuple[tuple[Citation, Resolution], ...]
    added: int
    removed: int
    damaged: dict[str, str] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Citations per outcome, every outcome of :data:`~provgraph.vocab.OUTCOMES` listed."""
        out = dict.fromkeys(OUTCOMES, 0)
        for _, res in self.items:
            out[res.outcome] = out.get(res.outcome, 0) + 1
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One row per citation: citation, claim, target_id and the resolution's fields."""
        return [{"citation": c.iri, "claim": c.claim, "target_id": c.target_id, **r.to_dict()}
                for c, r in self.items]


def load_citations(store: ProvStore, run: str | None = None, *,
                   citation: str | None = None) -> list[Citation]:
    """The recorded citations of one run (``run`` = its IRI, the name of its graph), or
    of every run (``run=None``), or the one citation ``citation``; ordered by run
    and citation IRI. Read through :mod:`provgraph.schema.citation` (two queries).

    Raises:
        NotFound: ``run`` is not a graph of the store, or ``citation`` is not recorded.
    """
    if citation is not None:
        got = citation_schema.load(store, [IRI(citation)])
        if IRI(citation) not in got or got[IRI(citation)].claim is None:
            raise NotFound(citation, "citation")
        return [got[IRI(citation)]]
    if run is not None:
        return citation_schema.citations_of_runs(store, [require_run(store, run)])
    return citation_schema.citations_of_runs(store)


def _claims_of(store: ProvStore, cits: list[Citation]) -> dict[IRI, ClaimRecord]:
    return claim_schema.load(store, sorted({c.claim for c in cits if c.claim is not None}))


def resolve(store: ProvStore, citation: Citation | str, *,
            policy: str | Policy = "exact") -> Resolution:
    """Resolve one citation against the retained originals; write nothing.

    Args:
        store: the store holding the citation's target and the retained bytes.
        citation: a :class:`Citation`, a :class:`~provgraph.model.CitationRecord`,
            or the IRI of a recorded citation (its claim's kind and text are read too).
        policy: normalization policy tried after exact comparison: ``exact``
            (default), ``nfc``, ``whitespace`` or ``fold`` (``name@version`` accepted),
            for a citation that declares none; a citation's declared policy
            (``Recorder.citation(policy=...)``) wins.

    Returns:
        :class:`~provgraph.matching.Resolution`: outcome, reason, policy, and the
        resolved span as end-exclusive byte and code point offsets into the
        original snapshot (``None`` when nothing resolved).

    Raises:
        ResolutionError: an unknown policy.
        NotFound: ``citation`` is an IRI of no recorded citation.

    Example:
        >>> from provgraph import EmbeddedStore, Recorder
        >>> store = EmbeddedStore()
        >>> rec = Recorder(store, packages=[])
        >>> snap = rec.snapshot("Café prices rose 3%.".encode(), uri="file:///p.txt",
        ...                     media_type="text/plain")
        >>> r = resolve(store, Citation(target_id=snap.iri, target=snap.iri, quote="prices rose"))
        >>> r.outcome, r.byte_start, r.byte_end, r.codepoint_start, r.codepoint_end
        ('quote_match', 6, 17, 5, 16)
    """
    pol = get_policy(policy)
    if isinstance(citation, str):
        citation = load_citations(store, citation=citation)[0]
    claim = _claims_of(store, [citation]).get(citation.claim) if citation.claim else None
    return _Resolver(store, pol).resolve_many([(citation, claim)])[0]


def resolve_run(store: ProvStore, run: str | None = None, *,
                policy: str | Policy = "exact") -> RunResolution:
    """Resolve every citation of ``run`` (``None``: of every run) and record the outcomes.

    In the citation's own graph (the run's bundle) it writes ``pg:outcome``,
    ``pg:reason``, ``pg:policy`` (``name@version``), ``pg:resolvedSnapshot``,
    ``pg:resolvedByteStart/End`` and ``pg:resolvedCodepointStart/End``
    (end-exclusive), ``prov:wasInfluencedBy`` the aid for ``generated_target``,
    and a ``pg:Resolution`` activity that ``prov:used`` each citation and
    ``prov:wasAssociatedWith`` the ``pg:Resolver`` agent (provgraph, its version).
    Only ``quote_match`` and ``normalized_match`` add ``claim prov:wasQuotedFrom
    snapshot``, ``claim prov:wasDerivedFrom snapshot`` and ``claim
    prov:qualifiedQuotation <citation#quotation>`` (a ``prov:Quotation`` with
    ``prov:entity``, and ``oa:hasSelector`` an ``oa:TextPositionSelector`` in
    code points of the snapshot's text and an ``oa:TextQuoteSelector`` with the
    original text). Statements from an earlier resolution are replaced in the
    same transaction, so a second run with the same data changes nothing.

    Args:
        store: the store; written in one transaction.
        run: a run IRI, or ``None`` for all runs.
        policy: normalization policy for the citations that declare none; a
            citation's declared policy wins (see :func:`resolve`). The
            ``pg:Resolution`` activity records this one; each citation's
            ``pg:policy`` is the policy its own verdict was made under.

    Returns:
        :class:`RunResolution` with every citation's resolution and the numbers of
        statements added and removed.

    Raises:
        NotFound: ``run`` is not in the store.
        ResolutionError: an unknown policy.
        StoreError: the store cannot be written.
    """
    pol = get_policy(policy)
    cits = load_citations(store, run)
    claims = _claims_of(store, cits)
    resolver = _Resolver(store, pol)
    pairs = [(c, claims.get(c.claim) if c.claim else None) for c in cits]
    items = tuple(zip(cits, resolver.resolve_many(pairs)))
    added, removed = write_back(store, items, pol)
    return RunResolution(items, added, removed, dict(sorted(resolver.damaged.items())))



# ---------------------------------------------------------------- write-back
_OUTCOME_PREDICATES = OUTCOME_PREDICATES


def resolver_agent() -> tuple[IRI, list[tuple[IRI, IRI, Any]]]:
    """The ``pg:Resolver`` software agent (provgraph at its version): its IRI (minted as
    the Recorder mints agents) and its statements as ``(subject, predicate, object)``."""
    from . import __version__

    agent = ids.content_iri("agent", "resolver", "provgraph", __version__)
    return agent, [(agent, RDF.type, PROV.Agent), (agent, RDF.type, PROV.SoftwareAgent),
                   (agent, RDF.type, PG.Resolver), (agent, PG.agentName, lit("provgraph")),
                   (agent, PG.agentVersion, lit(__version__)),
                   (agent, RDFS.label, lit(f"provgraph {__version__}"))]


def _new_statements(g: IRI | None, items: list[tuple[Citation, Resolution]],
                    policy: Policy) -> set[Quad]:
    agent, agent_triples = resolver_agent()
    act = ids.content_iri("resolution", str(g), policy.label, str(agent))
    out: set[Quad] = {(s, p, o, g) for s, p, o in agent_triples}
    out |= {(act, RDF.type, PROV.Activity, g), (act, RDF.type, PG.Resolution, g),
            (act, PROV.wasAssociatedWith, agent, g), (act, PG.policy, lit(policy.label), g)}
    if g is not None:
        out.add((act, PG.run, g, g))
    for cit, res in items:
        if cit.iri is not None:
            out.add((act, PROV.used, cit.iri, g))
            out |= verdict_quads(cit, res, g)
    return out


_RESOLUTIONS = """SELECT ?s ?p ?o ?g WHERE { GRAPH ?g {
  ?act a <%s> .
  { ?act ?p ?o BIND(?act AS ?s) } UNION { ?act <%s> ?s . ?s ?p ?o } } }""" % (PG.Resolution,
                                                                         PROV.wasAssociatedWith)


def _old_statements(store: ProvStore, g: IRI | None,
                    items: list[tuple[Citation, Resolution]]) -> set[Quad]:
    """What an earlier resolution wrote for these citations in graph ``g``: three store
    queries whatever the number of citations (their statements, their claims'
    derivation nodes, the graph's resolution activities and agents)."""
    if g is None:
        return _old_statements_default_graph(store, items)
    cits = [c for c, _ in items if c.iri is not None]
    nodes = {c.iri: quotation_nodes(c.iri) for c in cits if c.iri is not None}
    subjects = [IRI(x) for cit_iri, quotation in nodes.items() for x in (cit_iri, *quotation)]
    subjects += sorted({c.claim for c in cits if c.claim is not None})
    props = store.describe(subjects, graph=g)

    def quads_of(s: IRI) -> set[Quad]:
        return {(s, p, o, g) for p, objs in props.get(s, {}).items() for o in objs}

    derivation_nodes = sorted({IRI(d) for c in cits if c.claim is not None
                               for d in props.get(c.claim, {}).get(PROV.qualifiedDerivation, [])
                               if isinstance(d, IRI)})
    dprops = store.describe(derivation_nodes, graph=g) if derivation_nodes else {}
    old: set[Quad] = set()
    for cit in cits:
        c = IRI(cit.iri)
        old |= {q for q in quads_of(c) if q[1] in _OUTCOME_PREDICATES}
        qn, *selectors = nodes[c]
        quoted = props.get(qn, {}).get(PROV.entity, [])
        for node in (qn, *selectors):
            old |= quads_of(node)
        if cit.claim is None:
            continue
        claim = props.get(cit.claim, {})
        if qn in claim.get(PROV.qualifiedQuotation, []):
            old.add((cit.claim, PROV.qualifiedQuotation, qn, g))
        operands = {o for d in claim.get(PROV.qualifiedDerivation, []) if isinstance(d, IRI)
                    for o in dprops.get(d, {}).get(PROV.entity, [])}  # Recorder's operands stay
        for snap in quoted:
            if snap in claim.get(PROV.wasQuotedFrom, []):
                old.add((cit.claim, PROV.wasQuotedFrom, snap, g))
            if snap not in operands and snap in claim.get(PROV.wasDerivedFrom, []):
                old.add((cit.claim, PROV.wasDerivedFrom, snap, g))
    for row in store.select(_RESOLUTIONS, {"g": g}, source="provgraph.resolve (earlier resolutions)"):
        if isinstance(row["s"], IRI) and isinstance(row["p"], IRI) and row["o"] is not None:
            old.add((row["s"], row["p"], row["o"], g))
    return old


def _old_statements_default_graph(store: ProvStore,
                                  items: list[tuple[Citation, Resolution]]) -> set[Quad]:
    """:func:`_old_statements` for citations in the default graph (imported data; SPARQL
    over the union default graph cannot address it, so pattern lookups are used)."""
    g = None
    old: set[Quad] = set()
    for cit, _ in items:
        c = cit.iri
        if c is None:
            continue
        old |= {q for q in store.quads(c, None, None, g) if q[1] in _OUTCOME_PREDICATES}
        qn, *selectors = quotation_nodes(c)
        quoted = [q[2] for q in store.quads(qn, PROV.entity, None, g)]
        for node in (qn, *selectors):
            old |= set(store.quads(node, None, None, g))
        if cit.claim is None:
            continue
        old |= set(store.quads(cit.claim, PROV.qualifiedQuotation, qn, g))
        operands: set[Term] = set()
        for d in store.quads(cit.claim, PROV.qualifiedDerivation, None, g):
            if isinstance(d[2], (IRI, BNode)):
                operands |= {q[2] for q in store.quads(d[2], PROV.entity, None, g)}
        for snap in quoted:
            old |= set(store.quads(cit.claim, PROV.wasQuotedFrom, snap, g))
            if snap not in operands:
                old |= set(store.quads(cit.claim, PROV.wasDerivedFrom, snap, g))
    for act_quad in list(store.quads(None, RDF.type, PG.Resolution, g)):
        act = act_quad[0]
        for q in store.quads(act, None, None, g):
            old.add(q)
            if q[1] == PROV.wasAssociatedWith and not isinstance(q[2], Literal):  # an agent
                old |= set(store.quads(q[2], None, None, g))
    return old


def write_back(store: ProvStore, items: tuple[tuple[Citation, Resolution], ...],
               policy: Policy) -> tuple[int, int]:
    """Replace the recorded outcomes of ``items`` in one transaction; return
    ``(added, removed)`` statement counts (see :func:`resolve_run`)."""
    by_graph: dict[IRI | None, list[tuple[Citation, Resolution]]] = {}
    for cit, res in items:
        by_graph.setdefault(cit.graph, []).append((cit, res))
    remove: set[Quad] = set()
    add: set[Quad] = set()
    for g, group in by_graph.items():
        new = _new_statements(g, group, policy)
        old = _old_statements(store, g, group)
        remove |= old - new
        add |= new - old
    store.replace(remove, add)
    return len(add), len(remove)
