"""Validation: a PROV-CONSTRAINTS subset over stored PROV-O, plus the SHACL shapes.

:func:`validate` checks every graph of the store (or one run's graph) on its
own, as PROV-CONSTRAINTS validates each bundle separately (an IRI may be an
entity in one bundle and an activity in another). Checked, with the W3C
PROV-CONSTRAINTS (https://www.w3.org/TR/prov-constraints/) constraint numbers:

* **C22 key-object**: an activity with two different start or end times.
* **C23 key-properties**: a relation id (a qualified influence node named by an
  IRI) with two different values for one argument, or qualifying two subjects;
  a derivation id given both imprecise and precise (marked ``pg:imprecise`` on
  import, :func:`provgraph.io.provo.imprecise_conflicts`).
* **C24/C25 unique-generation/-invalidation** (§6.1): two differently named
  generations (invalidations) of one entity by one activity.
* **C26/C27 unique-wasStartedBy/-wasEndedBy** (§6.1): two differently named starts
  (ends) of one activity by one starter (ender) activity, or, once they are one start
  (C23 after C26), two different triggers or times.
* **C28/C29 unique-startTime/-endTime** (§6.1): an activity whose start (end) times
  and the times of its starts (ends) are not one instant.
* **C30-C49 event ordering** (§5.2, checked as §7 "Definition: valid" says): the
  starts and ends of activities and the generations, usages and invalidations of
  entities, ordered by *precedes* and *strictly precedes* after the inferences of §4
  that add events (activity and entity events, Inference 7 and 8; a trigger's
  generation by the starter or ender, 9 and 10; a derivation's generation and usage,
  11; a delegation's associations, 14) and with the events the uniqueness constraints
  make one instant (C24-C29, C31, C32, C39, C40) taken as one; a cycle through a
  strictly-precedes edge is a violation, reported with its events, the constraint of
  each edge and the statements behind it (:mod:`provgraph.ordering` owns the events and
  edges, Constraints 30-49 one by one). Without time values only C42
  derivation-generation-generation-ordering is strict: a cycle of ``wasDerivedFrom`` /
  ``wasRevisionOf`` / ``wasQuotedFrom`` / ``hadPrimarySource``, also through
  ``specializationOf`` (C45 specialization-generation-ordering), is reported as **C42
  derivation acyclicity**; a cycle through other edges too under the most specific
  constraint on it (C43 wasStartedBy-ordering when the trigger of an activity's start
  is derived from what the activity generated).
  **Time values** (an extension: PROV-CONSTRAINTS validity does not use them) order two
  events strictly when both are given and differ, as instants (a zone-less time read
  as UTC), so an activity that ends before it starts (C30), an entity used or
  invalidated before it is generated (C37, C36), used after it is invalidated (C38),
  two generations of one entity at different times (C39)... are violations, and so is an
  invalidation outside its activity (PROV-DM §5.1.6, §5.1.7, which PROV-CONSTRAINTS
  states for usage and generation only: ``PROV-DM invalidation-within-activity``); equal
  times order nothing, and a time in a key conflict (C22-C29, reported as such) orders
  nothing.
* **C51 impossible-unspecified-derivation-generation-use** (§6.4): a derivation
  with a generation or usage but no activity.
* **C52 impossible-specialization-reflexive** (§6.4): ``specializationOf`` a resource
  of itself, directly or through a cycle (Inference 19 specialization-transitive).
* **mandatory argument** (PROV-DM §5; PROV-CONSTRAINTS §5.1 Table 3 lists the
  arguments that may be ``-``): a qualified influence node without its object
  (an attribution without ``prov:agent``, a communication without
  ``prov:activity``, ``wasInfluencedBy(id; e, -)``...). Which objects may be left
  out is the relation table's ``object_expandable`` (:mod:`provgraph.relations`).
* **C50 typing with C53, C54, C55, C56 disjointness**: an id that is an entity
  and an activity (asserted, or inferred from the relations it takes part in,
  ``prov:hadActivity`` included),
  an id that is both an element and a relation, one relation id used for two
  kinds of relation, a member of a ``prov:EmptyCollection``.

Also checked, because they break every later use of the value (PROV exports,
time comparisons):

* **ill-typed literal** (RDF 1.1 Concepts §3.3): a literal whose lexical form is
  not in its datatype's lexical space (``"2026-02-30T00:00:00Z"^^xsd:dateTime``,
  ``"abc"^^xsd:integer``); see :func:`provgraph.xsd.ill_typed` for the datatypes
  checked.
* **PROV-O range xsd:dateTime**: ``prov:startedAtTime``, ``endedAtTime``,
  ``generatedAtTime``, ``invalidatedAtTime`` and ``atTime`` with a value that is
  not an ``xsd:dateTime`` literal (``prov:startedAtTime "yesterday"``).

Each violation carries the statements involved (N-Triples text, plus the graph).

Warnings (:class:`AttributeWarning`, ``ValidationReport.warnings``) report what
PROV-DM allows to be asserted but gives no meaning, per attribute (PROV-DM §5.7.2),
each with its statement's subject, predicate and graph; they do not make a report
fail:

* ``prov:label`` (``rdfs:label`` in PROV-O) whose value is not a string (§5.7.2.1);
* ``prov:role`` (``prov:hadRole``) on anything but a usage, generation,
  invalidation, association, start or end (§5.7.2.3; the relation table's ``role``);
* ``prov:value`` more than once on one entity, or on an activity, an agent or a
  relation (§5.7.2.5).
The SHACL shapes are checked through :func:`provgraph.shacl.validate_shapes` when
that module is installed; otherwise the report says they were not checked.

:func:`check_document` finds key conflicts between records of one ``prov``
document that share an id (C22/C23) before import, including an imprecise
derivation (no activity, generation or usage) and a precise one under the same
id (PROV-CONSTRAINTS Definition 4 keeps the ``-`` markers of an imprecise
derivation; they do not unify with values), and likewise a ``-`` given for a
non-expandable argument (§5.1 Table 3: an association's plan, a delegation's
activity) and a value under the same id. PROV-O alone cannot show those;
the import keeps the derivation's as ``pg:imprecise true`` on the node, which
:func:`validate` reports; the others are reported by the import only.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import io
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .relations import PROV_RELATIONS
from .store import ProvStore, iter_rdf
from .terms import IRI, XSD, BNode, Literal, Term
from .vocab import GRAPH, PG, PROV, RDF, RDFS
from .xsd import ill_typed, instant

if TYPE_CHECKING:
    from .ordering import EventOrder
    from .shacl import ShapesData

__all__ = ["ConstraintViolation", "AttributeWarning", "ValidationReport", "validate",
           "check_graph", "check_attributes", "check_document", "event_order"]


@dataclass(frozen=True)
class ConstraintViolation:
    """One PROV-CONSTRAINTS violation.

    Attributes:
        constraint: e.g. ``"C55 entity-activity-disjoint"``.
        message: what is wrong, naming the resources.
        statements: the statements involved, as N-Triples text.
        graph: the graph (``None``: default graph; for :func:`check_document`, the
            bundle id or ``None`` for the top level).
    """

    constraint: str
    message: str
    statements: tuple[str, ...] = ()
    graph: str | None = None

    def __str__(self) -> str:
        where = f" in graph <{self.graph}>" if self.graph else ""
        stmts = "".join(f"\n    {s}" for s in self.statements)
        return f"{self.constraint}{where}: {self.message}{stmts}"


@dataclass(frozen=True)
class AttributeWarning:
    """A PROV-DM attribute used where PROV-DM gives it no meaning (PROV-DM §5.7.2), or
    a value provgraph reads with an assumption (a zone-less ``xsd:dateTime``, read as UTC).

    Not a violation: PROV-DM lets a document assert it, and a report with only
    warnings conforms.

    Attributes:
        rule: e.g. ``"PROV-DM 5.7.2.1 prov:label"``.
        message: what is wrong, naming the resource.
        subject: the statement's subject, N-Triples text.
        predicate: the statement's predicate, N-Triples text.
        graph: the graph (``None``: default graph).
        statements: the statements involved, as N-Triples text.
    """

    rule: str
    message: str
    subject: str
    predicate: str
    graph: str | None = None
    statements: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f" in graph <{self.graph}>" if self.graph else ""
        stmts = "".join(f"\n    {s}" for s in self.statements)
        return (f"warning {self.rule}{where}: {self.message} (subject {self.subject}, "
                f"predicate {self.predicate}){stmts}")


@dataclass
class ValidationReport:
    """The result of :func:`validate`.

    Attributes:
        violations: PROV-CONSTRAINTS violations, in graph order.
        shacl: the ``provgraph.shacl`` report (``.conforms``, ``.violations``), or
            ``None`` when the shapes were not checked.
        shacl_note: why the shapes were not checked, or ``""``.
        graphs: the graphs checked (``None`` is the default graph).
        warnings: what PROV-DM allows but provgraph reads with an assumption or
            without a meaning (:class:`AttributeWarning`: PROV-DM attribute warnings,
            and zone-less ``xsd:dateTime`` values, read as UTC), in graph order, each
            with its statement and graph; they do not affect :attr:`conforms`.
        originals: one message per retained original (``pg:sha256`` of a snapshot or an
            extracted text in the graphs checked) whose bytes no longer hash to its
            digest (issue 20: validate did not look); each is a violation.
    """

    violations: list[ConstraintViolation] = field(default_factory=list)
    originals: list[str] = field(default_factory=list)
    shacl: Any = None
    shacl_note: str = ""
    graphs: list[IRI | None] = field(default_factory=list)
    warnings: list[AttributeWarning] = field(default_factory=list)

    @property
    def conforms(self) -> bool:
        """``True`` when no constraint is violated and the shapes (if checked) conform;
        warnings do not count."""
        return not self.violations and not self.originals and (
            self.shacl is None or bool(self.shacl.conforms))

    def messages(self) -> list[str]:
        """One message per violation (PROV-CONSTRAINTS, then retained originals, then SHACL)."""
        out = [str(v) for v in self.violations] + list(self.originals)
        if self.shacl is not None:
            for v in self.shacl.violations:
                msg = getattr(v, "message", str(v))
                focus = getattr(v, "focus_node", None)
                path = getattr(v, "path", None)
                out.append(f"SHACL {getattr(v, 'severity', 'Violation')}: {msg}"
                           + (f" (focus {_n3(focus)}" if focus is not None else "")
                           + (f", path {path})" if path else (")" if focus is not None else "")))
        return out


def validate(store: ProvStore, run: IRI | str | None = None, *, shapes: bool = True,
             progress: Callable[[str, int, int], None] | None = None,
             shapes_data: ShapesData | None = None) -> ValidationReport:
    """Check the store (or one run's graph) against the PROV-CONSTRAINTS subset
    above and the SHACL shapes.

    Args:
        store: the store.
        run: a run IRI: check only that graph. ``None``: every graph except the
            ontology graph.
        shapes: also run the SHACL shapes when available.
        progress: called as ``progress(stage, done, total)``: ``("read", i, n)`` after
            each graph is read for the SHACL engine (with ``shapes``), ``("shapes", 0,
            1)`` when the engine starts validating their union (in its own process,
            while the checks go on), ``("graphs", i, n)`` after each graph's
            PROV-CONSTRAINTS check, ``("shapes", 1, 1)`` when the engine's report is in.
            ``None``: no calls.
        shapes_data: a :class:`provgraph.shacl.ShapesData` with nothing added yet, usually
            started already (:meth:`~provgraph.shacl.ShapesData.start`: ``provgraph
            validate`` starts the SHACL engine before it opens the store, so the engine
            loads its shapes meanwhile); validate takes it over and stops its process on
            any error, Ctrl-C included. ``None``: validate makes one (with ``shapes``).
            Given with ``shapes=False``, it is stopped unused.

    Returns:
        :class:`ValidationReport`: violations (PROV-CONSTRAINTS numbers), PROV-DM
        attribute warnings, the SHACL report.

    Raises:
        NotFound: ``run`` names no graph of the store (:class:`~provgraph.errors.WrongKind`
            when it names a claim or other resource).

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> from provgraph.terms import IRI
        >>> s = EmbeddedStore()
        >>> e, a = IRI("http://example.org/e"), IRI("http://example.org/a")
        >>> s.add([(e, RDF.type, PROV.Entity, None), (e, RDF.type, PROV.Activity, None)])
        >>> [v.constraint for v in validate(s, shapes=False).violations]
        ['C55 entity-activity-disjoint']
    """
    try:
        report = ValidationReport()
        if shapes and shapes_data is None:
            try:
                from .shacl import ShapesData
            except ImportError:
                report.shacl_note = ("SHACL shapes not checked: provgraph.shacl is not "
                                     "installed in this build")
            else:  # the shapes validate the union of the same graphs (issue 16: read once)
                shapes_data = ShapesData().start()
        elif not shapes and shapes_data is not None:
            shapes_data.kill()
            shapes_data = None
        if run is not None:
            from .kinds import require_run

            report.graphs = [require_run(store, str(run))]
        else:
            report.graphs = [None] + [g for g in store.named_graphs() if g != GRAPH.ONTOLOGY]
        # The SHACL engine gets every graph first, as the store writes it, and validates
        # their union in its own process while this one checks PROV-CONSTRAINTS graph by
        # graph (issue 16, item 2). The text of a graph is kept, to be read here too, while
        # the kept texts stay under _KEPT_TEXT bytes; a graph past that is read again.
        _run_checks(store, report.graphs, report, shapes_data, progress)
    except BaseException:  # Ctrl-C included: the engine's process stops with the command
        if shapes_data is not None:
            shapes_data.kill()
        raise
    return report


def _run_checks(store: ProvStore, graphs: list[IRI | None], report: ValidationReport,
                shapes_data: Any, progress: Callable[[str, int, int], None] | None) -> None:
    """:func:`validate`'s work into ``report``: the graphs to the SHACL engine
    (``shapes_data``, or ``None``), the PROV-CONSTRAINTS checks beside it, its report."""
    kept: dict[IRI | None, bytes] = {}
    if shapes_data is not None:
        room = _KEPT_TEXT
        for i, g in enumerate(graphs, 1):
            text = store.serialize("ntriples", graph=g)
            assert text is not None
            shapes_data.add_ntriples(text)
            if len(text) <= room:
                kept[g], room = text, room - len(text)
            if progress is not None:
                progress("read", i, len(graphs))
        shapes_data.close()
        if progress is not None:
            progress("shapes", 0, 1)
    with _collector_paused():
        _check_graphs(store, graphs, kept, report, progress)
    if shapes_data is not None:
        report.shacl = shapes_data.validate()
        if progress is not None:
            progress("shapes", 1, 1)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while the checks build their indexes: they
    make no reference cycles, and each full collection walks every object the indexes
    hold (issue 16, item 2: a fifth of the checks' time on the demo store). It is back
    on, as it was, when the block ends."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _check_graphs(store: ProvStore, graphs: list[IRI | None], kept: dict[IRI | None, bytes],
                  report: ValidationReport,
                  progress: Callable[[str, int, int], None] | None) -> None:
    """The PROV-CONSTRAINTS checks, the retained originals and the warnings of each graph,
    into ``report``: from its N-Triples text in ``kept`` when there, else from the store."""
    for i, g in enumerate(graphs, 1):
        text = kept.pop(g, None)
        triples = (_parsed_triples(text) if text is not None
                   else [(q[0], q[1], q[2]) for q in store.quads(graph=g)])
        del text
        violations, warnings = _check(triples, g)
        if g == GRAPH.REMOVALS:
            report.violations.extend(_outdated_removals(triples))
        report.violations.extend(violations)
        report.warnings.extend(warnings)
        report.warnings.extend(zone_less_times(triples, g))
        report.originals.extend(_corrupt_originals(store, triples, g))
        if progress is not None:
            progress("graphs", i, len(graphs))


def _outdated_removals(triples: list[tuple[Any, Any, Any]]) -> list[ConstraintViolation]:
    """The removal records an older provgraph wrote (:func:`provgraph.schema.removal.outdated`,
    the reader ``provgraph upgrade`` fixes them with), one violation each, naming the fix,
    before the generic violations the same statements cause."""
    from .schema.removal import outdated

    return [ConstraintViolation("outdated removal record", o.message(),
                                tuple(_st(q[0], q[1], q[2]) for q in o.remove),
                                str(GRAPH.REMOVALS))
            for o in outdated(triples)]


_KEPT_TEXT = 256 << 20
"""Bytes of N-Triples text :func:`validate` keeps after handing it to the SHACL engine, to
read the statements from again (parsing the text costs about half of reading the store
again); the graphs past it are read from the store, so a large store holds no more than
this much text."""


def _parsed_triples(text: bytes) -> list[tuple[Any, Any, Any]]:
    """The statements of one graph's N-Triples text (as the store wrote them) as terms, as
    :meth:`~provgraph.store.ProvStore.quads` gives them."""
    return [(s, p, o) for s, p, o, _ in iter_rdf(io.BytesIO(text), "ntriples")]


def _corrupt_originals(store: ProvStore, triples: list[tuple[Any, Any, Any]],
                       graph: IRI | None) -> list[str]:
    """Messages for the retained originals of one graph's snapshots and extracted texts
    whose bytes do not hash to their recorded ``pg:sha256`` (a missing one is not
    reported here: a snapshot may be recorded without its bytes; ``provgraph verify``
    checks those against the ledger)."""
    from .errors import OriginalCorruptError, OriginalMissingError

    kinds = {s for s, p, o in triples if p == RDF.type and o in (PG.SourceSnapshot, PG.ExtractedText)}
    out = []
    for s, p, o in triples:
        if p == PG.sha256 and s in kinds and isinstance(o, Literal):
            try:
                store.originals.get(str(o.value))
            except OriginalCorruptError as exc:
                where = f"graph <{graph}>" if graph is not None else "the default graph"
                out.append(f"retained original of <{s}> ({where}) is corrupt: {exc}")
            except (OriginalMissingError, ValueError):
                pass
    return out


def zone_less_times(triples: Iterable[tuple[Any, Any, Any]], graph: IRI | None = None
                    ) -> list[AttributeWarning]:
    """The ``xsd:dateTime`` values without a time zone in one graph, as warnings.

    PROV-DM allows them; provgraph reads them as UTC (:func:`provgraph.xsd.instant`, the
    one ordering rule), which may not be what the source meant (issue 15).

    Args:
        triples: ``(subject, predicate, object)`` terms of one graph.
        graph: that graph, named in each warning (``None``: the default graph).

    Returns:
        ``list[AttributeWarning]`` with rule ``"zone-less xsd:dateTime"``, one per
        statement, in statement order.
    """
    out = []
    # only the time statements are sorted (sorting every statement by its N-Triples text
    # was 0.3 s on the demo store; issue 16, item 2)
    times = {(s, p, o) for s, p, o in triples
             if isinstance(o, Literal) and o.datatype == XSD + "dateTime"}
    for s, p, o in sorted(times, key=lambda t: tuple(_n3(x) for x in t)):
        if ill_typed(o) is None and not _has_zone(o.value.strip()):
            out.append(AttributeWarning(
                rule="zone-less xsd:dateTime", message=f'"{o.value}" has no time zone; '
                'provgraph reads it as UTC. Give the zone (Z or +hh:mm) in the source document',
                subject=_n3(s), predicate=_n3(p),
                graph=None if graph is None else str(graph), statements=(_st(s, p, o),)))
    return out


def _has_zone(value: str) -> bool:
    return value.endswith("Z") or (len(value) > 6 and value[-6] in "+-" and value[-3] == ":")

# ---------------------------------------------------------------------------

_ENTITY_CLASSES = {PROV.Entity, PROV.Plan, PROV.Bundle, PROV.Collection, PROV.EmptyCollection}
_ELEMENT_CLASSES = _ENTITY_CLASSES | {PROV.Activity, PROV.Agent, PROV.Person,
                                      PROV.Organization, PROV.SoftwareAgent}
_TYPE = {"E": "E", "A": "A", "Ag": "G", None: None}
# binary property -> (type of subject, type of object); "E" entity, "A" activity, "G" agent.
# From the relation table's PROV-DM rows (PROV-CONSTRAINTS constraint 50 types those;
# mentionOf is PROV-Links, not PROV-DM), plus the time properties.
_POSITIONS: dict[str, tuple[str | None, str | None]] = {
    r.property: (_TYPE[r.subject], _TYPE[r.object]) for r in PROV_RELATIONS
    if r.record != "Mention" and (r.subject or r.object)}
_POSITIONS.update({r.time_shortcut: (_TYPE[r.subject], None)
                   for r in PROV_RELATIONS if r.time_shortcut is not None})
_POSITIONS.update({PROV.startedAtTime: ("A", None), PROV.endedAtTime: ("A", None),
                   # a start's starter, an end's ender, a derivation's and a delegation's
                   # activity (C50; PROV-O's range of prov:hadActivity)
                   PROV.hadActivity: (None, "A")})
# qualified property -> (kind, subject type, slot on the node, slot type)
_QUALIFIED: dict[str, tuple[str, str | None, IRI, str | None]] = {
    r.qualified: (str(r.record), _TYPE[r.subject], r.influencer, _TYPE[r.object])
    for r in PROV_RELATIONS if r.qualified is not None and r.influencer is not None}
# class of a qualified node -> its kind; prov:Influence is left out: every influence class
# is a subclass of it (PROV-O), so a node typed with both is one relation, not two
_KIND_OF_CLASS: dict[str, str] = {
    r.qualified_class: str(r.record) for r in PROV_RELATIONS
    if r.qualified_class is not None and r.record != "Influence"}
# kind -> the property naming its mandatory object (PROV-DM §5; the relation table's
# object_expandable, after PROV-CONSTRAINTS §5.1 Table 3): a node of that kind without it
# stands for a relation whose mandatory argument is missing
_MANDATORY_OBJECT: dict[str, tuple[IRI, str]] = {
    str(r.record): (r.influencer, str(r.object_attr)) for r in PROV_RELATIONS
    if r.qualified is not None and r.influencer is not None and not r.object_expandable}
# prov:entity, prov:activity and prov:agent are sub-properties of prov:influencer (PROV-O):
# a node may name its object by prov:influencer, and a wasInfluencedBy node by any of them
_INFLUENCERS = (PROV.influencer, PROV.entity, PROV.activity, PROV.agent)
# kinds that may carry prov:role (PROV-DM §5.7.2.3; the relation table's role)
_ROLE_KINDS = frozenset(str(r.record) for r in PROV_RELATIONS if r.role)
_PRECISE_SLOTS = (PROV.hadActivity, PROV.hadGeneration, PROV.hadUsage)
_SLOTS = (PROV.entity, PROV.activity, PROV.agent, PROV.hadActivity, PROV.hadPlan,
          PROV.hadGeneration, PROV.hadUsage, PROV.atTime, PROV.influencer)


def _n3(t: Any) -> str:
    return t.n3() if hasattr(t, "n3") else f"<{t}>"


def _sorted(triples: Iterable[tuple[Any, Any, Any]]) -> list[tuple[Any, Any, Any]]:
    """``triples`` without repeats, sorted by their N-Triples text, term by term (the
    order every check reports in). Each IRI's text is made once (issue 16: the sort key
    was a third of the checks' time on the demo store); a blank node's is never taken
    from that cache, as an IRI and a blank node of one label are equal strings."""
    texts: dict[Any, str] = {}

    def n3(t: Any) -> str:
        if type(t) is not IRI:
            return _n3(t)
        text = texts.get(t)
        if text is None:
            text = texts[t] = f"<{t}>"
        return text
    return sorted(set(triples), key=lambda t: (n3(t[0]), n3(t[1]), n3(t[2])))


def _st(s: Any, p: Any, o: Any) -> str:
    return f"{_n3(s)} {_n3(p)} {_n3(o)} ."


def _time(t: Term) -> _dt.datetime | None:
    # the one ordering rule (issue 15): provgraph.xsd.instant, a zone-less time read as UTC
    return instant(t) if isinstance(t, Literal) else None


def _differ(values: Iterable[Term], times: bool = False) -> bool:
    """Whether ``values`` hold two different values; times are compared as instants, and
    a time without a zone only with another without one."""
    if not times:
        return len(set(values)) > 1
    aware: set[_dt.datetime] = set()
    naive: set[_dt.datetime] = set()
    other: set[Term] = set()
    for x in values:
        t = _time(x)
        if t is None:
            other.add(x)
        elif t.utcoffset() is None:
            naive.add(t)
        else:
            aware.add(t.astimezone(_dt.timezone.utc))
    return len(aware) > 1 or len(naive) > 1 or len(other) > 1 or bool(other and (aware or naive))


def check_graph(triples: Iterable[tuple[Any, Any, Any]], graph: IRI | None = None
                ) -> list[ConstraintViolation]:
    """The PROV-CONSTRAINTS checks of this module on the triples of one graph.

    Returns:
        ``list[ConstraintViolation]``, empty when the graph passes.
    """
    return _check(triples, graph)[0]


def check_attributes(triples: Iterable[tuple[Any, Any, Any]], graph: IRI | None = None
                     ) -> list[AttributeWarning]:
    """The PROV-DM attribute warnings (§5.7.2) of this module on the triples of one graph.

    Returns:
        ``list[AttributeWarning]``, empty when every ``prov:label``, ``prov:role`` and
        ``prov:value`` is where PROV-DM gives it a meaning.
    """
    return _check(triples, graph)[1]


def _check(triples: Iterable[tuple[Any, Any, Any]], graph: IRI | None
           ) -> tuple[list[ConstraintViolation], list[AttributeWarning]]:
    ts = _sorted(triples)
    g = str(graph) if graph is not None else None
    out: list[ConstraintViolation] = []

    def v(constraint: str, message: str, *stmts: str) -> None:
        out.append(ConstraintViolation(constraint, message, tuple(stmts), g))

    by_sp, by_p = _indexes(ts)

    # C22: activity start / end times
    for prop in (PROV.startedAtTime, PROV.endedAtTime):
        seen: dict[Any, list[Any]] = defaultdict(list)
        for s, o in by_p.get(prop, ()):
            seen[s].append(o)
        for s, vals in seen.items():
            if len({_time(x) or x for x in vals}) > 1:
                v("C22 key-object", f"activity {_n3(s)} has {len(vals)} different "
                  f"{prop.rsplit('#', 1)[1]} values; one activity has one", *(_st(s, prop, x) for x in vals))

    # qualified nodes: kinds, subjects, slots
    node_kinds: dict[Any, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    node_subjects: dict[Any, set[Any]] = defaultdict(set)
    for qprop, (kind, _, _, _) in _QUALIFIED.items():
        for s, node in by_p.get(qprop, ()):
            if isinstance(node, Literal):
                continue
            node_kinds[node][kind].append(_st(s, qprop, node))
            node_subjects[node].add((s, kind))
    for s, o in by_p.get(RDF.type, ()):
        if o in _KIND_OF_CLASS:
            node_kinds[s][_KIND_OF_CLASS[o]].append(_st(s, RDF.type, o))
    for node, kinds in node_kinds.items():
        if len(kinds) > 1:
            v("C53 impossible-property-overlap", f"{_n3(node)} is the id of relations of "
              f"different kinds ({', '.join(sorted(kinds))})", *(x for k in sorted(kinds) for x in kinds[k][:1]))
        for kind in sorted(kinds):
            mandatory = _MANDATORY_OBJECT.get(kind)
            accepted = (_INFLUENCERS if mandatory is None or mandatory[0] == PROV.influencer
                        else (mandatory[0], PROV.influencer))
            if (mandatory is not None and node in node_subjects
                    and not any(by_sp.get((node, p)) for p in accepted)):
                v("PROV-DM mandatory-argument", f"{kind} {_n3(node)} has no {mandatory[1]} "
                  f"({_n3(mandatory[0])}); PROV-DM requires it, and '-' may stand only for "
                  "the arguments PROV-CONSTRAINTS §5.1 Table 3 lists", *kinds[kind][:1])
        if isinstance(node, BNode):
            continue
        for slot in _SLOTS:
            vals = by_sp.get((node, slot), [])
            distinct = {(_time(x) or x) if slot == PROV.atTime else x for x in vals}
            if len(distinct) > 1:
                v("C23 key-properties", f"relation {_n3(node)} has {len(vals)} different values "
                  f"of {slot.rsplit('#', 1)[1]}; a relation id names one relation",
                  *(_st(node, slot, x) for x in vals))
        precise = [_st(node, slot, x) for slot in _PRECISE_SLOTS for x in by_sp.get((node, slot), [])]
        imprecise = [x for x in by_sp.get((node, PG.imprecise), [])
                     if isinstance(x, Literal) and x.value in ("true", "1")]
        if "Derivation" in kinds and imprecise and precise:
            v("C23 key-properties", f"derivation {_n3(node)} is given once without activity, "
              "generation and usage (pg:imprecise) and once with them; the '-' markers of an "
              "imprecise derivation do not unify with values (PROV-CONSTRAINTS Definition 4)",
              _st(node, PG.imprecise, imprecise[0]), *precise)
        # C51 impossible-unspecified-derivation-generation-use (§6.4): a derivation whose
        # activity is '-' names no generation or usage
        if "Derivation" in kinds and not by_sp.get((node, PROV.hadActivity)):
            named_events = [_st(node, slot, x) for slot in (PROV.hadGeneration, PROV.hadUsage)
                            for x in by_sp.get((node, slot), [])]
            if named_events:
                v("C51 impossible-unspecified-derivation-generation-use", f"derivation "
                  f"{_n3(node)} names a generation or usage but no activity", *named_events)
        subjects = {s for s, _ in node_subjects.get(node, ())}
        if len(subjects) > 1:
            v("C23 key-properties", f"relation {_n3(node)} qualifies {len(subjects)} different "
              "subjects; a relation id names one relation", *(x for k in kinds for x in kinds[k]))

    # C24 / C25 unique generation and invalidation
    for qprop, name, num in ((PROV.qualifiedGeneration, "generation", "C24 unique-generation"),
                             (PROV.qualifiedInvalidation, "invalidation", "C25 unique-invalidation")):
        groups: dict[tuple[Any, Any], list[Any]] = defaultdict(list)
        for e, node in by_p.get(qprop, ()):
            for a in by_sp.get((node, PROV.activity), []):
                groups[(e, a)].append(node)
        for (e, a), nodes in groups.items():
            named = sorted({n for n in nodes if not isinstance(n, BNode)})
            if len(named) > 1:
                v(num, f"{_n3(e)} has {len(named)} {name}s by {_n3(a)} with different ids "
                  f"({', '.join(_n3(n) for n in named)}); they are one {name}",
                  *(_st(e, qprop, n) for n in named))
            times = {t for n in nodes for t in by_sp.get((n, PROV.atTime), [])}
            if len({_time(t) or t for t in times}) > 1:
                v(num, f"the {name} of {_n3(e)} by {_n3(a)} has {len(times)} different times",
                  *(_st(n, PROV.atTime, t) for n in nodes for t in by_sp.get((n, PROV.atTime), [])))

    _starts_and_ends(by_sp, by_p, v)
    typing: list[tuple[str, ...]] = []  # reported after the ordering, as before
    kinds_of = _typing(ts, by_p, by_sp, node_kinds, lambda *args: typing.append(args))
    # §5.2 ordering (C30-C49, C42 acyclicity among them); a time the key and uniqueness
    # checks above found in conflict orders nothing
    contested = {st for x in out if x.constraint.split()[0] in _UNIFYING for st in x.statements}
    from .ordering import EventOrder  # imported here: after the SHACL engine has its data

    order = EventOrder.build(by_sp, by_p, kinds_of["E"], kinds_of["A"], contested)
    for cycle in order.cycles():
        v(cycle.constraint, cycle.message, *cycle.statements)
    _specialization_cycles(by_p, v)
    for s, o in by_p.get(PROV.specializationOf, ()):
        if s == o:
            v("C52 impossible-specialization-reflexive",
              f"{_n3(s)} is a specialization of itself", _st(s, PROV.specializationOf, o))
    for args in typing:
        v(*args)
    _literals(ts, v)
    return out, _attributes(by_p, node_kinds, kinds_of, g)


def _starts_and_ends(by_sp: Any, by_p: Any, v: Any) -> None:
    """PROV-CONSTRAINTS §6.1 Constraints 26-29 on the qualified starts and ends."""
    for qprop, tprop, what, unique, unique_time in (
            (PROV.qualifiedStart, PROV.startedAtTime, "start", "C26 unique-wasStartedBy",
             "C28 unique-startTime"),
            (PROV.qualifiedEnd, PROV.endedAtTime, "end", "C27 unique-wasEndedBy",
             "C29 unique-endTime")):
        # C26/C27: the starts of activity a by starter a0 are one start (their ids are one
        # id), so once merged (C23) they have one trigger and one time. A start without a
        # starter has an unknown one (Table 3: expandable) and joins no group.
        groups: dict[tuple[Any, Any], set[Any]] = defaultdict(set)
        timed: dict[Any, list[tuple[Any, str]]] = defaultdict(list)
        for a, node in by_p.get(qprop, ()):
            for a0 in by_sp.get((node, PROV.hadActivity), []):
                groups[(a, a0)].add(node)
            for t in by_sp.get((node, PROV.atTime), []):
                timed[a].append((t, _st(node, PROV.atTime, t)))
        for (a, a0), nodes in sorted(groups.items(), key=lambda kv: (_n3(kv[0][0]), _n3(kv[0][1]))):
            if len(nodes) < 2:
                continue
            ordered = sorted(nodes, key=_n3)
            named = [n for n in ordered if not isinstance(n, BNode)]
            if len(named) > 1:
                v(unique, f"activity {_n3(a)} has {len(named)} {what}s by {_n3(a0)} with "
                  f"different ids ({', '.join(_n3(n) for n in named)}); they are one {what}",
                  *(_st(a, qprop, n) for n in named))
            for slot, label in ((PROV.entity, "trigger"), (PROV.atTime, "time")):
                vals = [(x, _st(n, slot, x)) for n in ordered for x in by_sp.get((n, slot), [])]
                if _differ((x for x, _ in vals), times=slot == PROV.atTime):
                    v(unique, f"the {what}s of activity {_n3(a)} by {_n3(a0)} are one {what} "
                      f"({unique.split()[0]}), which then has {len(vals)} different {label}s "
                      "(C23 key-properties)", *(st for _, st in vals))
        # C28/C29: activity(a, t1, t2) and wasStartedBy(_; a, _, _, t) give t1 = t; an
        # activity described (typed, or given a time) has one start time, so every start
        # of it happens at that instant
        for a, events in sorted(timed.items(), key=lambda kv: _n3(kv[0])):
            own = [(t, _st(a, tprop, t)) for t in by_sp.get((a, tprop), [])]
            if not own and PROV.Activity not in by_sp.get((a, RDF.type), []):
                continue
            if len(own) + len(events) > 1 and _differ((t for t, _ in own + events), times=True):
                v(unique_time, f"activity {_n3(a)} has one {what} time, but its {what}s and "
                  f"{_n3(tprop)} give different times", *(st for _, st in own + events))


_UNIFYING = {"C22", "C23", "C24", "C25", "C26", "C27", "C28", "C29"}
"""Key and uniqueness constraints: a conflict they report is a unification failure
(PROV-CONSTRAINTS §6.1), whose values order no events."""


def _indexes(ts: Iterable[tuple[Any, Any, Any]]
             ) -> tuple[dict[tuple[Any, Any], list[Any]], dict[Any, list[tuple[Any, Any]]]]:
    """The statements by ``(subject, predicate)`` (objects) and by predicate (pairs)."""
    by_sp: dict[tuple[Any, Any], list[Any]] = defaultdict(list)
    by_p: dict[Any, list[tuple[Any, Any]]] = defaultdict(list)
    for s, p, o in ts:
        by_sp[(s, p)].append(o)
        by_p[p].append((s, o))
    return by_sp, by_p


def event_order(triples: Iterable[tuple[Any, Any, Any]]) -> EventOrder:
    """The events of one graph and their precedence (PROV-CONSTRAINTS §5.2, Constraints
    30-49), as :func:`validate` orders them: see :mod:`provgraph.ordering`.

    Args:
        triples: ``(subject, predicate, object)`` terms of one graph.

    Returns:
        :class:`provgraph.ordering.EventOrder`: ``.cycles()`` are the ordering violations
        (without the check that a time statement is in a key conflict, which
        :func:`check_graph` does), ``.precedes(id1, id2)`` how two relations' events are
        ordered.

    Example:
        >>> ex = "http://example.org/"
        >>> order = event_order([(IRI(ex + "e2"), PROV.wasDerivedFrom, IRI(ex + "e1")),
        ...                      (IRI(ex + "e1"), PROV.qualifiedGeneration, IRI(ex + "g1")),
        ...                      (IRI(ex + "e2"), PROV.qualifiedGeneration, IRI(ex + "g2"))])
        >>> order.precedes(IRI(ex + "g1"), IRI(ex + "g2"))
        Precedence(strict=True, constraints=('C42 derivation-generation-generation-ordering',))
        >>> order.precedes(IRI(ex + "g2"), IRI(ex + "g1")) is None
        True
    """
    ts = _sorted(triples)
    by_sp, by_p = _indexes(ts)
    kinds_of = _typing(ts, by_p, by_sp, {}, lambda *args: None)
    from .ordering import EventOrder

    return EventOrder.build(by_sp, by_p, kinds_of["E"], kinds_of["A"])


def _specialization_cycles(by_p: Any, v: Any) -> None:
    """C52 impossible-specialization-reflexive through a cycle: ``specializationOf`` is
    transitive (Inference 19 specialization-transitive), so each resource of a cycle is
    a specialization of itself."""
    ids: dict[Any, int] = {}
    pairs = [(s, o) for s, o in by_p.get(PROV.specializationOf, ())
             if not isinstance(o, Literal) and s != o]  # s == o: reported on its own
    for s, o in pairs:
        ids.setdefault(s, len(ids))
        ids.setdefault(o, len(ids))
    succ: list[list[int]] = [[] for _ in ids]
    for s, o in pairs:
        succ[ids[s]].append(ids[o])
    from .ordering import strongly_connected

    comp = strongly_connected(succ)
    members: dict[int, list[Any]] = defaultdict(list)
    for x, n in ids.items():
        members[comp[n]].append(x)
    for group in members.values():
        if len(group) < 2:
            continue
        inside = set(group)
        names = ", ".join(_n3(m) for m in sorted(group, key=_n3))
        v("C52 impossible-specialization-reflexive", f"specialization cycle through {names}: "
          "each is a specialization of itself (Inference 19 specialization-transitive)",
          *(_st(s, PROV.specializationOf, o) for s, o in sorted(pairs, key=lambda p: _n3(p[0]))
            if s in inside and o in inside))


def _typing(ts: list[tuple[Any, Any, Any]], by_p: Any, by_sp: Any,
            node_kinds: dict[Any, Any], v: Any) -> dict[str, dict[Any, str]]:
    """Constraint 50 typing with 53-56; returns, per kind ("E", "A", "G"), the resources
    of that kind with the statement that says so."""
    why: dict[str, dict[Any, str]] = {"E": {}, "A": {}, "G": {}}
    # the first statement that says so, its text made only then (issue 16, item 2: a
    # setdefault made the text of every typing statement, 28,000 on the demo store)
    for s, p, o in ts:
        if p == RDF.type:
            if o in _ENTITY_CLASSES:
                if s not in why["E"]:
                    why["E"][s] = _st(s, p, o)
            elif o == PROV.Activity:
                if s not in why["A"]:
                    why["A"][s] = _st(s, p, o)
            elif o in (PROV.Agent, PROV.Person, PROV.Organization, PROV.SoftwareAgent):
                if s not in why["G"]:
                    why["G"][s] = _st(s, p, o)
            continue
        pos = _POSITIONS.get(p)
        if pos is not None:
            if pos[0] and s not in why[pos[0]]:
                why[pos[0]][s] = _st(s, p, o)
            if pos[1] and not isinstance(o, Literal) and o not in why[pos[1]]:
                why[pos[1]][o] = _st(s, p, o)
        q = _QUALIFIED.get(p)
        if q is not None and not isinstance(o, Literal):
            _, subj_t, slot, slot_t = q
            if subj_t and s not in why[subj_t]:
                why[subj_t][s] = _st(s, p, o)
            for x in by_sp.get((o, slot), []):
                if slot_t and not isinstance(x, Literal) and x not in why[slot_t]:
                    why[slot_t][x] = _st(o, slot, x)
    for x in sorted(set(why["E"]) & set(why["A"]), key=_n3):
        v("C55 entity-activity-disjoint", f"{_n3(x)} is both an entity and an activity "
          "(typing, PROV-CONSTRAINTS constraint 50)", why["E"][x], why["A"][x])
    for node in sorted(node_kinds, key=_n3):
        for t in ("E", "A", "G"):
            if node in why[t]:
                kinds = node_kinds[node]
                first = next(iter(kinds.values()))[0]
                v("C54 impossible-object-property-overlap", f"{_n3(node)} is the id of a "
                  f"{next(iter(kinds))} and also an {dict(E='entity', A='activity', G='agent')[t]}",
                  first, why[t][node])
                break
    empties = {s for s, o in by_p.get(RDF.type, ()) if o == PROV.EmptyCollection}
    for c, e in by_p.get(PROV.hadMember, ()):
        if c in empties:
            v("C56 membership-empty-collection", f"{_n3(c)} is a prov:EmptyCollection but has "
              f"member {_n3(e)}", _st(c, RDF.type, PROV.EmptyCollection), _st(c, PROV.hadMember, e))
    return why


_STRINGS = (XSD + "string", RDF.langString)


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _attributes(by_p: Any, node_kinds: dict[Any, Any], kinds_of: dict[str, dict[Any, str]],
                graph: str | None) -> list[AttributeWarning]:
    """PROV-DM §5.7.2 attribute warnings, each at its statement (subject, predicate, graph)."""
    out: list[AttributeWarning] = []

    def w(rule: str, message: str, s: Any, p: Any, *stmts: str) -> None:
        out.append(AttributeWarning(rule, message, _n3(s), _n3(p), graph, stmts))

    # §5.7.2.1: "The value associated with the attribute prov:label MUST be a string"
    for s, o in by_p.get(RDFS.label, ()):
        if not isinstance(o, Literal) or o.datatype_iri not in _STRINGS:
            w("PROV-DM 5.7.2.1 prov:label", f"the label of {_n3(s)} is {_n3(o)}, not a string",
              s, RDFS.label, _st(s, RDFS.label, o))
    # §5.7.2.3: prov:role is allowed in usage, generation, invalidation, association, start
    # and end only
    for s, o in by_p.get(PROV.hadRole, ()):
        kinds = sorted(node_kinds.get(s, {}))
        if not kinds or any(k not in _ROLE_KINDS for k in kinds):
            what = _a("/".join(k.lower() for k in kinds)) if kinds else "no qualified influence"
            w("PROV-DM 5.7.2.3 prov:role", f"{_n3(s)} is {what}: prov:role belongs to a usage, "
              "generation, invalidation, association, start or end", s, PROV.hadRole,
              _st(s, PROV.hadRole, o))
    # §5.7.2.5: prov:value occurs at most once, and only in entities
    values: dict[Any, list[Any]] = defaultdict(list)
    for s, o in by_p.get(PROV.value, ()):
        values[s].append(o)
    for s, vals in values.items():
        if len(vals) > 1:
            w("PROV-DM 5.7.2.5 prov:value", f"{_n3(s)} has {len(vals)} prov:value values; an "
              "entity has at most one", s, PROV.value, *(_st(s, PROV.value, o) for o in vals))
        if s in node_kinds:
            what = _a("/".join(k.lower() for k in sorted(node_kinds[s])))
        elif s in kinds_of["A"] and s not in kinds_of["E"]:
            what = "an activity"
        elif s in kinds_of["G"] and s not in kinds_of["E"]:
            what = "an agent"
        else:
            continue
        w("PROV-DM 5.7.2.5 prov:value", f"{_n3(s)} is {what}: prov:value belongs to entities "
          "only", s, PROV.value, *(_st(s, PROV.value, o) for o in vals))
    return out


_TIME_PROPERTIES = (PROV.startedAtTime, PROV.endedAtTime, PROV.generatedAtTime,
                    PROV.invalidatedAtTime, PROV.atTime)
_XSD_DATETIME = XSD + "dateTime"


def _literals(ts: list[tuple[Any, Any, Any]], v: Any) -> None:
    for s, p, o in ts:
        if not isinstance(o, Literal):
            if p in _TIME_PROPERTIES:
                v("PROV-O range xsd:dateTime", f"{_n3(p)} takes an xsd:dateTime literal, "
                  f"not the resource {_n3(o)}", _st(s, p, o))
            continue
        why = ill_typed(o)
        if why is not None:
            v("ill-typed literal", f"{_n3(o)} is not a valid value of its datatype: {why}",
              _st(s, p, o))
        elif p in _TIME_PROPERTIES and o.datatype not in (_XSD_DATETIME, XSD + "dateTimeStamp"):
            v("PROV-O range xsd:dateTime", f"{_n3(p)} takes an xsd:dateTime literal, not "
              f"{_n3(o)}", _st(s, p, o))


# ---------------------------------------------------------------------------
# document level


def check_document(doc: Any) -> list[ConstraintViolation]:
    """Key conflicts between records of a ``prov`` document that share an id.

    Args:
        doc: a :class:`prov.model.ProvDocument`.

    Returns:
        ``list[ConstraintViolation]`` (C22 for elements, C23 for relations: two values
        for one argument; a ``-`` and a value for a non-expandable argument, §5.1
        Table 3; an imprecise and a precise derivation, Definition 4).
    """
    from prov.constants import (PROV_ATTR_ACTIVITY, PROV_ATTR_GENERATION, PROV_ATTR_USAGE,
                                PROV_DERIVATION)

    out: list[ConstraintViolation] = []
    for bundle in [doc, *doc.bundles]:
        g = None if bundle is doc else str(bundle.identifier.uri)
        groups: dict[Any, list[Any]] = defaultdict(list)
        for rec in bundle.get_records():
            if rec.identifier is not None:
                groups[(rec.identifier.uri, rec.get_type())].append(rec)
        for (ident, rtype), recs in groups.items():
            if len(recs) < 2:
                continue
            num = "C22 key-object" if recs[0].is_element() else "C23 key-properties"
            provn = tuple(r.get_provn() for r in recs)
            for attr, _ in recs[0].formal_attributes:
                vals = {_value_key(dict(r.formal_attributes).get(attr)) for r in recs} - {None}
                if len(vals) > 1:
                    out.append(ConstraintViolation(num, f"records with id <{ident}> give "
                               f"{attr.localpart} {len(vals)} different values", provn, g))
            # §5.1 Table 3: a '-' in a non-expandable position means "none", which does
            # not merge with a value (Constraint 23)
            for role in _NON_EXPANDABLE.get(rtype.localpart, ()):
                given = [dict((a.localpart, x) for a, x in r.formal_attributes).get(role)
                         is not None for r in recs]
                if any(given) and not all(given):
                    out.append(ConstraintViolation(
                        num, f"{rtype.localpart.lower()} <{ident}> is given once with {role} "
                        f"'-' and once with a {role}; in this position '-' means no {role}, "
                        "which does not merge with one (PROV-CONSTRAINTS §5.1 Table 3, "
                        "non-expandable)", provn, g))
            if rtype == PROV_DERIVATION:
                slots = (PROV_ATTR_ACTIVITY, PROV_ATTR_GENERATION, PROV_ATTR_USAGE)
                precise = [any(dict(r.formal_attributes).get(a) is not None for a in slots)
                           for r in recs]
                if any(precise) and not all(precise):
                    out.append(ConstraintViolation(
                        num, f"derivation <{ident}> is given once without activity, generation "
                        "and usage and once with them; the '-' markers of an imprecise "
                        "derivation do not unify with values (PROV-CONSTRAINTS Definition 4)",
                        provn, g))
    return out


_NON_EXPANDABLE: dict[str, tuple[str, ...]] = {
    str(r.record): r.non_expandable for r in PROV_RELATIONS if r.non_expandable}


def _value_key(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, _dt.datetime):
        return ("t", v if v.utcoffset() is None else v.astimezone(_dt.timezone.utc), v.utcoffset() is None)
    return ("v", str(getattr(v, "uri", v)))


