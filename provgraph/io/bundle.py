"""Exports from a store: self-contained claim and run bundles with a digest, or everything.

A **claim bundle** holds a claim's whole lineage closure: the claim and every
resource upstream of it, each with all its statements (attributes included),
in one PROV bundle (a named graph) named ``urn:provgraph:bundle:<hash of the
claim IRI>``. Upstream means what ``provgraph lineage`` lists
(:func:`provgraph.analytics.lineage`, ``queries/lineage.rq``): the resources
reachable from the claim along :data:`provgraph.relations.UPSTREAM`, the relations
of the one relation table that point to the past (``wasGeneratedBy``, ``used``,
``wasDerivedFrom`` and its subtypes, ``wasInformedBy``, ``wasStartedBy``,
``wasEndedBy``, ``wasAssociatedWith``, ``actedOnBehalfOf``, ``wasAttributedTo``,
``wasInfluencedBy``, ``specializationOf``, ``hadMember``, ``mentionOf``/``asInBundle``,
and provgraph's ``pg:answer``, ``pg:citation``, ``pg:target``, ``pg:resolvedSnapshot``,
``pg:segmentSource``, ``pg:aidUsed``).

**The one difference from the lineage, by design** (a bundle must be
self-contained PROV): a bundle also carries the nodes that only describe those
resources, reached from them along :data:`provgraph.relations.DESCRIBING`
(qualified influence nodes, and the generation and usage nodes a qualified
derivation names; Web Annotation selectors; ``pg:Segment`` nodes), with all their
statements. Those nodes are not lineage nodes, and nothing is walked *from* them:
a resource named only by a describing node (a ``prov:hadPlan`` plan, a
``prov:hadActivity`` activity, a segment's ``pg:segmentSource``) that is not
upstream by itself appears in the bundle as a reference, undescribed, as it is
absent from the lineage. So the bundle's resources (its subjects and the objects of
its upstream relations, less the describing nodes) are exactly the lineage's nodes
(tests/test_io_bundle_closure.py).

Nothing else is included: not the other claims of the same answer, not a later
revision of a cited snapshot, not the run resource (``pg:run`` stays as a
reference), not what a shortcut (``pg:supportAgent``, ``pg:citedSnapshot``),
``prov:alternateOf`` or a property outside the relation table points to, and no
invalidation (:data:`provgraph.relations.BUNDLE_LEFT_OUT`: ``wasInvalidatedBy``,
``invalidatedAtTime``): a bundle records where a claim came from; whether its
sources went stale is ``provgraph stale``'s question.

A **run bundle** is the same closure seeded with every resource described in
the run's graph (so describing nodes recorded in the run graph are seeds too).

Store cost: a claim bundle is read with :data:`CLAIM_EXPORT_READS` store reads,
whatever the number of citations or statements: one pattern lookup (the claim's types:
it exists and is no run, :mod:`provgraph.kinds`) and one SPARQL query (:func:`lineage_closure`: the closure path over
:data:`~provgraph.relations.UPSTREAM`, the describing path, and every statement of
each node reached, in one batch). A run bundle in PROV-JSON reads its subjects in
batches of up to 4,096 (:meth:`~provgraph.store.ProvStore.subject_pairs_batch`), level by
level along the closure (6 reads for the demo run's 2,200 subjects); in the other formats,
subject by subject.

Outside the bundle, the document describes it: ``<bundle> a prov:Entity,
prov:Bundle``, an ``rdfs:label``, ``rdfs:seeAlso`` the claim or run, and
``pg:sha256``: the SHA-256 (hex) of **every statement of the file except that one
``pg:sha256`` statement**, the description of the bundle included (the claim it
names, its label, anything else said about it), as RDFC-1.0 canonical N-Quads
with graph names dropped and each literal in the canonical form of its value
(:func:`provgraph.xsd.canonical`). The digest is computed on the statements the
exported file reads back as, so :func:`verify_bundle` recomputes it from the
file alone; the canonical literal forms make it the same in every format
(PROV-JSON, PROV-N and PROV-XML read times back as ``+00:00`` where the RDF
syntaxes keep ``Z``). Turtle and RDF/XML hold no named graphs: there the
bundle's statements and its description share the default graph. In the
formats that hold named graphs, :func:`verify_bundle` also checks that the
description is in the default graph and everything else in the bundle's graph.
DOT and SVG drawings carry no digest.

How a bundle is written: in PROV-JSON, statements of the shapes provgraph itself
records go through :mod:`provgraph.io.provjson_stream`, subject by subject, in
bounded memory (record text and the digest's sorted lines spill to temporary
files), and the digest is computed from the statements as the file reads back
(that module's docstring says why that is exact); anything else, and every
other format, is mapped in memory by :func:`provgraph.io.provo.quads_to_document`
(or serialized by pyoxigraph), written, and read back to compute the digest.
Both give the same digest for the same bundle (tests/test_io_provjson_stream.py).
"""

from __future__ import annotations

import hashlib
import heapq
import io
import tempfile
from bisect import bisect_left
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import Any, BinaryIO, TypeGuard

from ..errors import NotFound, SerializationError
from ..kinds import require_lineage_start, require_run
from ..ids import content_iri
from ..relations import BUNDLE_LEFT_OUT, DESCRIBING, PROV_RELATIONS, UPSTREAM, closure_path
from ..store import ANY_GRAPH, ProvStore, iri_error, rdfc_canonical_nquads
from ..terms import IRI, BNode, Literal, Quad, Term
from ..vocab import GRAPH, PG, PROV, RDF, RDFS
from ..xsd import canonical
from . import get, read, write
from .provjson_stream import NotStreamable, PROVJSONStream, nt_line

__all__ = ["ExportResult", "BundleCheck", "export", "lineage_closure", "bundle_digest",
           "verify_bundle", "LINEAGE_PROPERTIES", "CLAIM_EXPORT_READS"]

LINEAGE_PROPERTIES = frozenset(UPSTREAM)
"""Properties followed from a resource to the resources upstream of it:
:data:`provgraph.relations.UPSTREAM`, the relations ``provgraph lineage`` follows."""
_DESCRIBING = frozenset(DESCRIBING)
_LEFT_OUT = BUNDLE_LEFT_OUT
CLAIM_EXPORT_READS = 2
"""Store reads of one claim export (:func:`export` with ``claim=``), in every format and
for any number of citations or statements: ``has_subject`` and one closure query."""

def _closure_query(default_graph_branch: bool) -> str:
    union = ("\n  UNION { ?s ?p ?o FILTER NOT EXISTS { GRAPH ?h { ?s ?p ?o } } }"
             if default_graph_branch else "")
    return f"""SELECT DISTINCT ?s ?p ?o ?g WHERE {{
  ?seed {closure_path(UPSTREAM)}* ?node .
  ?node {closure_path(DESCRIBING)}* ?s .
  {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(?g != <{GRAPH.ONTOLOGY}>) }}{union}
  FILTER(?p NOT IN ({", ".join(f"<{p}>" for p in sorted(BUNDLE_LEFT_OUT))}))
}}"""


_CLOSURE_QUERY = _closure_query(True)
"""The closure of ``?seed`` (module docstring) with the graph of each statement; a
statement of the default graph only has ``?g`` unbound. The query's default graph is
the union of all graphs (:mod:`provgraph.store`), which the closure paths walk; the
ontology graph holds no instance relations, and its statements are left out."""
_CLOSURE_QUERY_NAMED = _closure_query(False)
""":data:`_CLOSURE_QUERY` for a store whose every statement is in a named graph
(``ProvStore.default_graph_iri``): no default-graph-only branch, which Virtuoso 7.2
answers with no rows at all (its claim exports were empty, issue 13)."""


@dataclass
class ExportResult:
    """An export.

    Attributes:
        data: the file's bytes.
        format: the format written.
        statements: statements exported: the bundle's content (its description
            not counted), or everything.
        bundle: the bundle IRI (claim and run exports), else ``None``.
        digest: the recorded ``pg:sha256`` (hex), or ``None`` (``--all``, DOT, SVG).
    """

    data: bytes
    format: str
    statements: int
    bundle: IRI | None = None
    digest: str | None = None


@dataclass
class BundleCheck:
    """The result of :func:`verify_bundle`.

    Attributes:
        bundle: the bundle IRI.
        recorded: the digest written in the file.
        actual: the digest of the statements found.
        statements: the bundle's content statements (as :attr:`ExportResult.statements`);
            the digest also covers its description.
        subject: the claim or run the bundle describes (``rdfs:seeAlso``), if given.
        signing_key, signature: the bundle's ``pg:signingKey`` and ``pg:signature``
            (:mod:`provgraph.signing`), or ``None`` for an unsigned bundle.
        misplaced: statements in the wrong graph (formats with named graphs): the
            bundle's description belongs in the default graph, everything else in
            the bundle's graph. Moving a statement between them changes no digest.
    """

    bundle: IRI
    recorded: str
    actual: str
    statements: int
    subject: str | None = None
    misplaced: list[str] = field(default_factory=list)
    signing_key: str | None = None
    signature: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the recorded digest matches the content and nothing is misplaced."""
        return self.recorded == self.actual and not self.misplaced

    @property
    def signed(self) -> bool:
        """Whether the bundle carries a signature (checked only by :meth:`signature_problem`)."""
        return self.signature is not None

    def signature_problem(self, public_key: Any) -> str | None:
        """Why the bundle is not signed by ``public_key`` over its recorded digest
        (:func:`provgraph.signing.check_bundle`), or ``None`` when it is."""
        from ..signing import check_bundle

        return check_bundle(public_key, str(self.bundle), self.recorded, self.signing_key,
                            self.signature)


def lineage_closure(store: ProvStore, seeds: Iterable[IRI | BNode]) -> list[Quad]:
    """The statements of ``seeds`` and of everything upstream of them, with the nodes
    that describe them (module docstring: the lineage's nodes plus describing nodes).

    Args:
        store: the store.
        seeds: IRIs (one claim, or a run's subjects); blank nodes too.

    Returns:
        ``list[Quad]`` keeping their graphs (``None`` for a statement of the default
        graph only), sorted; the ontology graph is never included and
        :data:`~provgraph.relations.BUNDLE_LEFT_OUT` statements are left out.

    Store cost: one SPARQL query for all the IRI seeds (``VALUES``, SPARQL 1.1
    §10.2.2), whatever the size of the closure; a blank-node seed (which ``VALUES``
    cannot hold) is walked statement lookup by statement lookup.

    See: PROV-O §4.1 (https://www.w3.org/TR/prov-o/#description-qualified-terms).
    """
    seeds = list(dict.fromkeys(seeds))
    iris = [x for x in seeds if isinstance(x, IRI)]
    out: set[Quad] = set()
    if iris:
        named = store.default_graph_iri
        rows = store.select(_CLOSURE_QUERY if named is None else _CLOSURE_QUERY_NAMED,
                            values=("seed", iris), source="(claim bundle closure)")
        out.update(_row_quad(r, named) for r in rows)
    blank = [x for x in seeds if isinstance(x, BNode)]
    if blank:
        out.update(_walk(store, blank))
    return sorted(out, key=lambda q: tuple("" if x is None else x.n3()
                                           if hasattr(x, "n3") else str(x) for x in q))


def _row_quad(r: dict[str, Term | None], default_graph_iri: IRI | None = None) -> Quad:
    s, p, o, g = r["s"], r["p"], r["o"], r["g"]
    if g is not None and g == default_graph_iri:
        g = None
    # ?s ?p ?o come from a matched pattern and ?g from a GRAPH clause or is unbound
    assert isinstance(s, (IRI, BNode)) and isinstance(p, IRI) and o is not None, r
    assert g is None or isinstance(g, IRI), r
    return s, p, o, g


def _walk(store: ProvStore, seeds: list[Any]) -> list[Quad]:
    """:func:`lineage_closure` one statement lookup per node (for blank-node seeds)."""
    todo: list[tuple[Any, bool]] = [(s, True) for s in seeds]
    seen: dict[Any, bool] = {}
    out: list[Quad] = []
    while todo:
        node, upstream = todo.pop()
        if seen.get(node) is True or (node in seen and not upstream):
            continue
        first = node not in seen
        seen[node] = upstream
        for q in store.quads(node, None, None, ANY_GRAPH):
            s, p, o, g = q
            if g == GRAPH.ONTOLOGY or p in _LEFT_OUT:
                continue
            if first:
                out.append(q)
            if isinstance(o, Literal):
                continue
            if upstream and p in LINEAGE_PROPERTIES:
                todo.append((o, True))
            elif p in _DESCRIBING:
                todo.append((o, False))
    return out


UNDIGESTED = frozenset({PG.sha256, PG.signature, PG.signingKey})
"""Properties of the bundle itself its digest does not cover: the digest, and the
signature over the digest (:mod:`provgraph.signing`; issue 20), added after it."""


def _signed(describe: list[Quad], bundle: IRI, digest: str, signing_key: Any) -> list[Quad]:
    """``describe`` with the digest, and the signature statements when a key is given."""
    out = [*describe, (bundle, PG.sha256, Literal(digest), None)]
    if signing_key is not None:
        from ..signing import sign_bundle

        kid, sig = sign_bundle(signing_key, str(bundle), digest)
        out += [(bundle, PG.signingKey, Literal(kid), None),
                (bundle, PG.signature, Literal(sig), None)]
    return out


def bundle_digest(quads: Iterable[Quad], bundle: IRI) -> tuple[str, int]:
    """The digest a bundle records (module docstring), and how many statements it covers.

    Args:
        quads: every statement of the bundle file, as :func:`provgraph.io.read` gives them.
        bundle: the bundle IRI; its ``pg:sha256`` statements are left out, and so are its
            signature statements (``pg:signature``, ``pg:signingKey``: :data:`UNDIGESTED`).

    Returns:
        ``(hex digest, statements)``: SHA-256 of the RDFC-1.0 canonical N-Quads of
        the statements with graph names dropped and literals in canonical form.
    """
    triples = {(s, p, canonical(o) if isinstance(o, Literal) else o, None)
               for s, p, o, _ in quads if not (s == bundle and p in UNDIGESTED)}
    text = rdfc_canonical_nquads(triples)
    return hashlib.sha256(text.encode("utf-8")).hexdigest(), len(triples)


def export(store: ProvStore, format: str, *, claim: str | None = None, run: str | None = None,
           everything: bool = False, out: BinaryIO | None = None,
           signing_key: Any = None) -> ExportResult:
    """Export a claim bundle, a run bundle, or the whole store.

    Args:
        store: the store.
        format: a format name (:data:`provgraph.io.FORMATS`).
        claim: IRI of a claim (or any recorded resource): export its lineage bundle.
        run: IRI of a run: export the run's lineage bundle.
        everything: export every graph except the ontology graph, as stored.
        out: a binary stream to write the file to; then :attr:`ExportResult.data`
            is empty. PROV-JSON claim and run bundles are written to it in bounded
            memory (:mod:`provgraph.io.provjson_stream`); the other formats, and
            statements outside that module's shapes, are built in memory first.
        signing_key: an Ed25519 private key (:func:`provgraph.signing.load_private_key`):
            a claim or run bundle is then signed (``pg:signingKey``, ``pg:signature`` over
            its digest); ``None``: unsigned. Ignored for ``everything`` and drawings.

    Exactly one of ``claim``, ``run``, ``everything`` must be given.

    Raises:
        ValueError: not exactly one selection, or a claim/run that is not an absolute IRI.
        NotFound: the claim has no statements, or the run is not a graph of the store.
        WrongKind: ``claim`` is a run or another bundle, or ``run`` is not a graph but a
            claim or other resource (:mod:`provgraph.kinds`).

    Store cost: a claim export issues :data:`CLAIM_EXPORT_READS` (2) store reads in
    every format, however many citations and statements the claim has (module
    docstring); a run export reads in batches (PROV-JSON) or subject by subject.
        UnsupportedFormat: unknown format; Turtle/RDF-XML for several graphs.
        SerializationError: the statements have no form in ``format``.

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> from provgraph.io.load import import_document
        >>> s = EmbeddedStore()
        >>> _ = import_document(s, b'document prefix ex <http://example.org/> '
        ...     b'entity(ex:b) entity(ex:a) wasDerivedFrom(ex:b, ex:a) endDocument')
        >>> r = export(s, "nquads", claim="http://example.org/b")
        >>> (r.statements, verify_bundle(r.data).ok)
        (3, True)
    """
    if (claim is not None) + (run is not None) + everything != 1:
        raise ValueError("give exactly one of claim, run, everything")
    spec = get(format)
    if everything:
        if spec.kind == "rdf" and spec.datasets:  # straight from the store (issue 16)
            from .names import prefixes_for_iris

            data, n = store.serialize_dataset(
                format, skip={GRAPH.ONTOLOGY},
                prefixes=prefixes_for_iris if format in ("turtle", "trig") else None)
            return _deliver(ExportResult(data, format, n), out)
        quads = [q for q in store.quads() if q[3] != GRAPH.ONTOLOGY]
        return _deliver(ExportResult(write(quads, format), format, len(quads)), out)
    for option, value in (("claim", claim), ("run", run)):
        if value is not None and (why := iri_error(str(value))) is not None:
            raise ValueError(f"{option} {value!r} is not an absolute IRI ({why})")
    if claim is not None:
        seed = require_lineage_start(store, claim, "claim")
        kind = "claim"
    else:
        seed = require_run(store, str(run))
        kind = "run"
    bundle = content_iri("bundle", kind, seed)
    describe: list[Quad] = [
        (bundle, RDF.type, PROV.Entity, None), (bundle, RDF.type, PROV.Bundle, None),
        (bundle, RDFS.label, Literal(f"lineage of {kind} <{seed}>"), None),
        (bundle, RDFS.seeAlso, seed, None)]
    if format == "prov-json":
        try:
            return _stream_provjson(store, kind, seed, bundle, describe, out, signing_key)
        except NotStreamable:
            pass  # the general mapping below handles every shape
    seeds: list[Any] = [seed] if kind == "claim" else _run_subjects(store, seed)
    content_graph = bundle if spec.datasets else None
    content = [(s, p, o, content_graph) for s, p, o, _ in lineage_closure(store, seeds)]
    content = list(dict.fromkeys(content))
    if spec.kind == "image":
        return _deliver(ExportResult(write(content + describe, format), format, len(content),
                                     bundle), out)
    readback = read(write(content + describe, format), format, name="(export)")
    digest, _ = bundle_digest(readback.quads, bundle)
    n = len({(s, p, o) for s, p, o, _ in readback.quads if s != bundle})
    describe = _signed(describe, bundle, digest, signing_key)
    data = write(content + describe, format)
    return _deliver(ExportResult(data, format, n, bundle, digest), out)


def _deliver(result: ExportResult, out: BinaryIO | None) -> ExportResult:
    if out is not None:
        out.write(result.data)
        result.data = b""
    return result


def _run_subjects(store: ProvStore, run: IRI) -> list[IRI | BNode]:
    # the graph as a VALUES row, not a projected binding: no graph name decoded per row
    rows = store.select("SELECT DISTINCT ?s WHERE { GRAPH ?g { ?s ?p ?o } }", values=("g", [run]),
                        source="(run bundle subjects)")
    subjects = [r["s"] for r in rows]
    return sorted(s for s in subjects if isinstance(s, IRI)) + sorted(
        s for s in subjects if isinstance(s, BNode))


# ---------------------------------------------------------------------------
# streaming PROV-JSON (provgraph.io.provjson_stream): claim and run bundles

_QUALIFIED_PROPS = frozenset(r.qualified for r in PROV_RELATIONS if r.qualified is not None)
_FOLLOW = LINEAGE_PROPERTIES | _DESCRIBING


_POs = list[tuple[IRI, Term]]
"""A subject's (predicate, object) pairs, in :func:`_pair_key` order."""

_Walk = Iterator[tuple[IRI, _POs, dict[IRI | BNode, _POs]]]
"""Subjects with their pairs and those of the qualified nodes that go with them."""


def _pos(store: ProvStore, s: IRI | BNode) -> _POs:
    """The (predicate, object) pairs of ``s`` a bundle holds: every graph but the
    ontology's, without invalidations, distinct, in a stable order."""
    got = store.subject_pairs(s, skip_graph=GRAPH.ONTOLOGY, skip_predicates=_LEFT_OUT)
    return sorted(got, key=_pair_key)


class _Reads:
    """:func:`_pos` for the run walk, read ahead in batches
    (:meth:`provgraph.store.ProvStore.subject_pairs_batch`). On a subject not read yet,
    that subject and others the walk will visit next (the top of its ``todo`` stack, up to
    ``limit // 4``) are read, then, level by level, the resources their upstream,
    describing and qualified relations name (the subjects the walk reaches from them)
    that are not ``seeds`` (the run graph's subjects, which come off the stack in order:
    expanding into them held thousands of seeds far ahead of the walk, and the chunks
    they name were read one by one), until nothing new is named or ``2 * limit``
    subjects are held. Each subject gets the pairs :func:`_pos` would give it; only the
    number of reads changes (issue 16, item 7: one read of 2,200 subjects costs the
    engine less than 2,200 reads of one; the demo run takes 6 reads, a 500-answer run 27).

    Memory: what is read ahead is held until the walk takes it (:meth:`pos`) or skips it
    (:meth:`drop`): at most ``2 * limit`` subjects, and the one asked for."""

    def __init__(self, store: ProvStore, todo: list[IRI | BNode], done: set[IRI | BNode],
                 waiting: dict[IRI | BNode, _POs], seeds: Collection[IRI | BNode] = (),
                 limit: int = 4096) -> None:
        self.store, self.todo, self.done, self.waiting = store, todo, done, waiting
        self.seeds = seeds
        self.limit = limit
        self.held: dict[IRI | BNode, _POs] = {}

    def pos(self, s: IRI | BNode) -> _POs:
        """The pairs of ``s`` (as :func:`_pos`), read now if they were not read ahead."""
        got = self.held.pop(s, None)
        if got is None:
            self._read(s)
            got = self.held.pop(s)
        return got

    def drop(self, s: IRI | BNode) -> None:
        """Forget the pairs read ahead for ``s`` (the walk skips it)."""
        self.held.pop(s, None)

    def _new(self, t: Any) -> TypeGuard[IRI]:
        return (type(t) is IRI and t not in self.held and t not in self.done
                and t not in self.waiting)

    def _read(self, s: IRI | BNode) -> None:
        # From the stack, up to a quarter of the limit and no more than leaves ``limit``
        # held; then what those subjects name, level by level, up to twice the limit: the
        # depth-first walk visits that before the stack's deeper entries. (With the stack
        # allowed the whole limit, a 500-answer run held 4,096 seeds and read the chunks
        # they name one by one: 1,341 reads; 5 now.)
        held = self.held
        room = self.limit - len(held)
        budget = max(2 * self.limit - len(held), 1)
        want: dict[IRI | BNode, None] = {s: None}
        for t in islice(reversed(self.todo), 2 * self.limit):  # bounded look at the stack
            if len(want) >= min(room, self.limit // 4):
                break
            if self._new(t):
                want[t] = None
        while want:
            subjects = list(want)
            got = [sorted(pos, key=_pair_key) for pos in self.store.subject_pairs_batch(
                subjects, skip_graph=GRAPH.ONTOLOGY, skip_predicates=_LEFT_OUT)]
            held.update(zip(subjects, got))
            budget -= len(subjects)
            want = {}
            for pos in got:  # s first: its closure before the others'
                for p, o in pos:
                    if len(want) >= budget:
                        break
                    if (p in _FOLLOW or p in _QUALIFIED_PROPS) and o not in self.seeds \
                            and self._new(o):
                        want[o] = None


def _pair_key(po: tuple[IRI, Term]) -> tuple[str, int, str, str, str]:
    p, o = po
    if isinstance(o, Literal):
        return (p, 1, o.value, o.datatype or "", o.language or "")
    return (p, 0, o, "", "")


def _upstream(pos: _POs) -> Iterator[IRI | BNode]:
    """The objects a run bundle walks to: upstream and describing relations (every
    subject of the run graph is a seed, describing nodes included)."""
    for p, o in pos:
        if not isinstance(o, Literal) and p in _FOLLOW:
            yield o


def _claim_walk(store: ProvStore, seeds: list[IRI]) -> _Walk:
    """A claim's closure (:func:`lineage_closure`, one query), subject by subject in IRI
    order; a qualified node goes with the subject that qualifies it."""
    closure: dict[IRI, set[tuple[IRI, Term]]] = {}
    for s, p, o, _ in lineage_closure(store, seeds):
        if isinstance(s, BNode):
            raise NotStreamable(f"blank node _:{s} in the closure")
        closure.setdefault(s, set()).add((p, o))
    pos_of = {s: sorted(pos, key=_pair_key) for s, pos in closure.items()}
    owners: dict[IRI | BNode, int] = {}
    for pos in pos_of.values():
        for p, o in pos:
            if p in _QUALIFIED_PROPS and not isinstance(o, Literal):
                owners[o] = owners.get(o, 0) + 1
    if any(n > 1 for n in owners.values()):
        raise NotStreamable("a qualified node qualifies more than one relation")
    for s in sorted(pos_of):
        if s in owners:
            continue
        pos = pos_of[s]
        yield s, pos, {o: pos_of.get(o, []) if isinstance(o, IRI) else [] for p, o in pos
                       if p in _QUALIFIED_PROPS and o in owners and not isinstance(o, Literal)}


def _run_walk(store: ProvStore, seeds: list[IRI | BNode]) -> _Walk:
    """A run's closure streamed from the store, each subject read once, in IRI
    order (depth first upstream); a qualified node goes with the subject that
    qualifies it. A subject shaped like a qualified node (typed with an influence
    class, or holding ``prov:entity``/``activity``/``agent``...) that comes before
    its owner waits for it; one nobody claims is written on its own at the end."""
    seen: set[IRI | BNode] = set(seeds)
    done: set[IRI | BNode] = set()
    waiting: dict[IRI | BNode, _POs] = {}
    todo: list[IRI | BNode] = list(reversed(seeds))
    reads = _Reads(store, todo, done, waiting, frozenset(seeds))
    final = False
    while True:
        if not todo:
            if final or not waiting:
                break
            final = True  # only unclaimed nodes are left: write them on their own
            todo[:] = sorted(waiting, reverse=True)  # in place: reads looks ahead in it
            continue
        s = todo.pop()
        if s in done:
            reads.drop(s)
            continue
        if isinstance(s, BNode):
            raise NotStreamable(f"blank node _:{s} in the closure")
        pos = waiting.pop(s, None) if final else None
        if pos is None:
            pos = reads.pos(s)
            if not final and _node_like(pos):
                waiting[s] = pos
                continue
        done.add(s)
        nodes: dict[IRI | BNode, _POs] = {}
        for p, o in pos:
            if p in _QUALIFIED_PROPS and not isinstance(o, Literal):
                if o in done:
                    raise NotStreamable(f"qualified node <{o}> qualifies more than one relation")
                done.add(o)
                got = waiting.pop(o, None)
                nodes[o] = got if got is not None else reads.pos(o)
        yield s, pos, nodes
        for part in (pos, *nodes.values()):
            for o in _upstream(part):
                if o not in seen:
                    seen.add(o)
                    todo.append(o)


_NODE_CLASSES = frozenset(r.qualified_class for r in PROV_RELATIONS if r.qualified_class)
_NODE_OBJECTS = frozenset(r.influencer for r in PROV_RELATIONS if r.influencer)


def _node_like(pos: list[tuple[IRI, Term]]) -> bool:
    """Whether ``pos`` (pairs in predicate order, as :func:`_pos` gives them) holds an
    influencer property or an influence class: set and bisect look-ups instead of a test
    per pair (a run export asks this of every subject; issue 16, item 7)."""
    if not _NODE_OBJECTS.isdisjoint(map(_PREDICATE, pos)):
        return True
    i, n = bisect_left(pos, RDF.type, key=_PREDICATE), len(pos)
    while i < n and pos[i][0] == RDF.type:
        if pos[i][1] in _NODE_CLASSES:
            return True
        i += 1
    return False


_PREDICATE = itemgetter(0)


_LITERAL_TEXT: dict[Term, str] = {}
"""Object term -> its canonical N-Quads text, shared by every digest (bounded)."""


def _object_text(o: Term) -> str:
    """The canonical N-Quads text of object ``o`` with the final `` .`` (cached)."""
    if len(_LITERAL_TEXT) > 65536:
        _LITERAL_TEXT.clear()
    text = _LITERAL_TEXT[o] = nt_line("", "", canonical(o) if isinstance(
        o, Literal) else o)[6:]  # the object after "<> <> "
    return text


class _Digest:
    """The bundle digest (module docstring) over statements fed one at a time, in
    bounded memory: canonical lines are sorted in runs of ``limit`` lines, spilled
    to temporary files and merged. Only for blank-node-free statements, whose
    RDFC-1.0 canonical form is their sorted, distinct N-Quads lines.

    :attr:`add` is the bound ``append`` of a list of statements (a call with no Python
    frame: a run export feeds 15,000 of them; issue 16, item 7); :meth:`take` turns what
    was added into lines, and must be called every few thousand statements to keep the
    memory bounded (:func:`_stream_provjson` calls it after each subject).

    Lines are kept as UTF-8 bytes, encoded one by one: UTF-8 sorts as the code points
    do, and one non-ASCII character (a chunk's euro sign) made the demo run's whole 2.5 MB
    text two bytes a character, which took 8-11 ms to encode; sorted through a dict
    (first-seen order keeps the runs the walk's order has) instead of a set (random order):
    46 ms became 18 ms (issue 16, item 7)."""

    def __init__(self, bundle: IRI, limit: int = 200_000) -> None:
        self.bundle = bundle
        self.limit = limit
        self.lines: list[bytes] = []
        self.runs: list[Any] = []
        self.pending: list[tuple[Any, IRI, Term]] = []
        self.add = self.pending.append
        self.take_at = min(limit, 4096)
        """Statements added after which the caller calls :meth:`take`."""
        self._skip = f"<{bundle}> <{PG.sha256}> ".encode()
        self._own = f"<{bundle}> ".encode()

    def take(self) -> None:
        """Turn the statements added so far into canonical lines (spilling a sorted run
        when there are ``limit`` of them)."""
        pending, text = self.pending, _LITERAL_TEXT
        self.lines.extend([(f"<{s}> <{p}> <{o}> ." if type(o) is IRI else
                            f"<{s}> <{p}> {text.get(o) or _object_text(o)}").encode()
                           for s, p, o in pending])
        pending.clear()  # in place: self.add appends to this list
        if len(self.lines) >= self.limit:
            self._spill()

    def _spill(self) -> None:
        f = tempfile.TemporaryFile("w+b")
        f.writelines(line + b"\n" for line in sorted(dict.fromkeys(self.lines)))
        f.seek(0)
        self.runs.append(f)
        self.lines = []

    def finish(self) -> tuple[str, int]:
        """``(hex digest, statements not about the bundle itself)``."""
        self.take()
        h = hashlib.sha256()
        if not self.runs:
            # all in memory, hashed in one call; sorting the lines without their "\n" gives
            # the same order (a canonical line holds no character below U+0020); the lines
            # of a prefix are a slice of the sorted list, found by bisection
            body = sorted(dict.fromkeys(self.lines))
            del body[slice(*_prefixed(body, self._skip))]
            if body:
                h.update(b"\n".join(body) + b"\n")
            own_lo, own_hi = _prefixed(body, self._own)
            return h.hexdigest(), len(body) - (own_hi - own_lo)
        mine = sorted(line + b"\n" for line in dict.fromkeys(self.lines))
        n = 0
        last = None
        try:
            for line in heapq.merge(mine, *self.runs):
                if line == last or line.startswith(self._skip):
                    continue
                last = line
                h.update(line)
                n += not line.startswith(self._own)
        finally:
            for f in self.runs:
                f.close()
        return h.hexdigest(), n


def _prefixed(lines: list[bytes], prefix: bytes) -> tuple[int, int]:
    """``(start, end)`` of the lines of sorted ``lines`` that start with ``prefix``."""
    after = prefix[:-1] + bytes([prefix[-1] + 1])  # the least bytes above every such line
    return bisect_left(lines, prefix), bisect_left(lines, after)


def _stream_provjson(store: ProvStore, kind: str, seed: IRI, bundle: IRI,
                     describe: list[Quad], out: BinaryIO | None,
                     signing_key: Any = None) -> ExportResult:
    digest = _Digest(bundle)
    stream = PROVJSONStream(bundle, digest.add)
    try:
        walk = _claim_walk(store, [seed]) if kind == "claim" else \
            _run_walk(store, _run_subjects(store, seed))
        take, pending = digest.take, digest.pending
        for s, pos, nodes in walk:
            stream.subject(s, pos, nodes)
            if len(pending) >= digest.take_at:
                take()
        for _, p, o, _ in describe:
            digest.add((bundle, p, o))
        hexdigest, n = digest.finish()
        stream.describe(bundle, [(p, o) for _, p, o, _ in
                                 _signed(describe, bundle, hexdigest, signing_key)], emit=False)
        if out is not None:
            stream.write(out)
            return ExportResult(b"", "prov-json", n, bundle, hexdigest)
        buf = io.BytesIO()
        stream.write(buf)
        return ExportResult(buf.getvalue(), "prov-json", n, bundle, hexdigest)
    finally:
        stream.close()


def verify_bundle(data: bytes, format: str = "auto", *, name: str = "<input>") -> BundleCheck:
    """Recompute the digest of a bundle written by :func:`export` and compare.

    Args:
        data: the bundle file's bytes.
        format: its format, or ``"auto"``.
        name: the file's name for messages.

    Returns:
        :class:`BundleCheck`; ``.ok`` tells whether the content is unchanged.

    Raises:
        SerializationError: the file is empty or does not read, holds no bundle
            with a ``pg:sha256`` digest (or more than one), or its bundle records
            more than one digest.
    """
    if not data.lstrip(b"\xef\xbb\xbf").strip():
        raise SerializationError(
            f"{name}: the bundle file is empty: there is no bundle to verify; export one "
            "with 'provgraph export --claim IRI -o FILE' (or '--run IRI')")
    result = read(data, format, name=name)
    quads = result.quads
    typed = {s for s, p, o, _ in quads if p == RDF.type and o == PROV.Bundle}
    bundles = sorted({s for s, p, o, _ in quads if p == PG.sha256 and isinstance(o, Literal)
                      and isinstance(s, IRI) and s in typed})
    if not bundles:
        raise SerializationError(
            f"{name}: no bundle with a pg:sha256 digest found (a resource typed prov:Bundle "
            "with pg:sha256); export one with 'provgraph export --claim IRI' or '--run IRI'")
    if len(bundles) > 1:
        raise SerializationError(f"{name}: {len(bundles)} digested bundles found "
                                 f"({', '.join(bundles)}); verify them one file at a time")
    bundle = bundles[0]
    recorded = sorted({o for s, p, o, _ in quads if s == bundle and p == PG.sha256},
                      key=lambda o: o.n3())
    if len(recorded) != 1 or not isinstance(recorded[0], Literal) or recorded[0].datatype \
            or recorded[0].language:
        raise SerializationError(
            f"{name}: bundle <{bundle}> records {len(recorded)} pg:sha256 values "
            f"({', '.join(o.n3() for o in recorded)}); an exported bundle records exactly one "
            "plain string: the file was altered")
    subject = next((str(o) for s, p, o, _ in quads if s == bundle and p == RDFS.seeAlso), None)
    actual, _ = bundle_digest(quads, bundle)
    n = len({(s, p, o) for s, p, o, _ in quads if s != bundle})
    misplaced: list[str] = []
    if get(result.format).datasets:
        misplaced = [f"{s.n3()} {p.n3()} {o.n3()} ." + (f" (graph <{g}>)" if g else
                                                        " (default graph)")
                     for s, p, o, g in quads
                     if not (g is None if s == bundle else g == bundle)]

    def one(prop: IRI) -> str | None:
        values = sorted(o.value if isinstance(o, Literal) else str(o)
                        for s, p, o, _ in quads if s == bundle and p == prop)
        if len(values) > 1:
            raise SerializationError(f"{name}: bundle <{bundle}> records {len(values)} "
                                     f"{prop} values; a signed bundle records one: the file "
                                     "was altered")
        return values[0] if values else None

    return BundleCheck(bundle, recorded[0].value, actual, n, subject, sorted(misplaced),
                       one(PG.signingKey), one(PG.signature))
