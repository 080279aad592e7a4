"""SHACL validation of recorded provenance against the bundled shapes.

This module owns :func:`validate_shapes`: it reads the graphs asked for through the
:class:`~provgraph.store.ProvStore` interface (never pyoxigraph directly), as N-Triples
text the store layer writes (each literal's lexical form as stored), and validates it against
``ontologies/rag-shapes.ttl`` with pyshacl-turbo (a Rust SHACL engine with
pyshacl's API and report, MIT/Apache-2.0), with ``ontologies/rag-prov.ttl``
mixed into the data graph as pyshacl's ``ont_graph`` does, so that ``sh:class``
and ``sh:targetClass`` follow ``rdfs:subClassOf`` (a ``pg:ContextualPrefix`` is a
``pg:GeneratedAid``).

Why that engine (issue 16, item 2): pyshacl over an rdflib copy of the 44,499-statement
demo store took about 5 s of validate's 6.8 s, evaluating each core constraint once per
focus node in Python (52,746 shape evaluations); pyshacl-turbo evaluates the same
shapes, core and SPARQL-based constraints alike, in Rust, about ten times faster, from
text rather than an rdflib graph. It is held to pyshacl: ``_reference_report`` keeps
the pyshacl path (every constraint in pyshacl over an rdflib graph), and the agreement
tests compare the two reports result by result on the demo store, the shared cases and
graphs broken for each shape.

Recorded data is untrusted input: validation never fetches anything. The
shapes and ontology are the bundled files, ``owl:imports`` are not followed,
and no RDFS/OWL inference runs over the data.

References: W3C SHACL (https://www.w3.org/TR/shacl/), §3 (validation and
graphs), §3.6 (validation report), §4 (core constraint components), §5
(SPARQL-based constraints).
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any

from .errors import VocabularyError
from .resources import ontology_text
from .terms import IRI, XSD, BNode, Literal, Term, term_from_json, term_to_json
from .vocab import GRAPH

if TYPE_CHECKING:
    # rdflib and pyshacl-turbo are imported where used: the command's own process never
    # needs them; nor does the engine's process need the store layer (pyoxigraph), which
    # is imported where used as well (issue 16, item 2: the engine's start-up)
    import rdflib

    from .store import ProvStore

__all__ = ["ShaclReport", "ShapesData", "Violation", "validate_shapes", "SHAPES_FILE",
           "ONTOLOGY_FILE"]

SHAPES_FILE = "rag-shapes.ttl"
"""The bundled SHACL shapes file (in ``ontologies/``)."""
ONTOLOGY_FILE = "rag-prov.ttl"
"""The bundled ontology, used for ``rdfs:subClassOf`` during validation."""

_XSD_STRING = XSD + "string"


@dataclass(frozen=True, slots=True, kw_only=True)
class Violation:
    """One SHACL validation result (W3C SHACL §3.6.2).

    Attributes:
        focus_node: the node that failed (``sh:focusNode``): an IRI or blank node
            (a literal only for shapes applied to values, e.g. through ``sh:node``).
        path: the property path (``sh:resultPath``) in SPARQL property path syntax
            with full IRIs, e.g. ``<https://w3id.org/provgraph/ns#target>`` or
            ``^<http://www.w3.org/ns/prov#wasGeneratedBy>``; ``None`` for node-level
            constraints.
        value: the offending value (``sh:value``), or ``None`` when the constraint
            is about a missing value (e.g. ``sh:minCount``).
        message: the shape's ``sh:message`` (or pyshacl's own text when a shape has none).
        severity: ``"Violation"``, ``"Warning"`` or ``"Info"`` (local name of
            ``sh:resultSeverity``).
        shape: the shape that produced the result (``sh:sourceShape``): the IRI of a
            named shape such as ``pgsh:Citation-target``, or a blank node.
    """

    focus_node: Term
    path: str | None
    value: Term | None
    message: str
    severity: str
    shape: IRI | BNode | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ShaclReport:
    """The outcome of :func:`validate_shapes` (W3C SHACL §3.6.1 validation report).

    Attributes:
        conforms: ``True`` when the data produced no validation result at all
            (``sh:conforms``).
        violations: every result, sorted by focus node, path and message;
            empty when ``conforms`` is ``True``.
    """

    conforms: bool
    violations: list[Violation] = field(default_factory=list)

    def messages(self) -> list[str]:
        """One line per result: ``<focus> <path>: message``."""
        return [f"{v.focus_node} {v.path or '-'}: {v.message}" for v in self.violations]


def validate_shapes(store: ProvStore, graphs: Iterable[IRI | None] | None = None) -> ShaclReport:
    """Validate recorded provenance against the bundled SHACL shapes.

    Args:
        store: any :class:`~provgraph.store.ProvStore`; read only through
            :meth:`~provgraph.store.ProvStore.serialize` (``"ntriples"``, graph by graph).
        graphs: names of the graphs whose union is validated: IRIs (a run graph,
            :data:`provgraph.vocab.GRAPH.INGESTION`), or ``None`` for the default
            graph. ``graphs=None`` (the default) validates the union of every
            graph in the store, the default graph included, except the ontology
            graph :data:`provgraph.vocab.GRAPH.ONTOLOGY`. The shapes check class
            membership only of resources in the same graph as the focus node, so
            a run graph, or the ingestion graph, also validates on its own. An
            empty ``graphs`` validates nothing and conforms.

    Returns:
        :class:`ShaclReport`: ``conforms`` and the list of :class:`Violation`
        results. A result of any severity makes ``conforms`` false (SHACL §3.6.1).

    Raises:
        VocabularyError: the bundled shapes or ontology do not parse (a broken install).
        ProvgraphError: the bundled ``ontologies/`` folder is missing (from
            :mod:`provgraph.resources`).
        StoreError: the store cannot be read, or returns a term that is not valid RDF
            (an IRI that is not absolute: a remote endpoint may hold one).

    The selected statements are copied into memory as N-Triples text and then into the
    engine's own graph, so memory grows with the number validated (about 1 KB a
    statement at the peak). Validation never fetches anything: no
    ``owl:imports`` are followed and no inference runs over the data (pyshacl
    ``inference="none"``, ``do_owl_imports=False``).

    Reference: W3C SHACL §3 (https://www.w3.org/TR/shacl/#validation-definition).

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> from provgraph.recorder import Recorder
        >>> store = EmbeddedStore()
        >>> rec = Recorder(store, packages=[])
        >>> snap = rec.snapshot(b"Water boils at 100 C.", uri="file:///facts.txt",
        ...                     media_type="text/plain")
        >>> validate_shapes(store).conforms
        True
        >>> store.remove(list(store.quads(snap.iri, IRI("https://w3id.org/provgraph/ns#sha256"))))
        >>> [v.path for v in validate_shapes(store).violations]
        ['<https://w3id.org/provgraph/ns#sha256>']
    """
    data = ShapesData()
    for g in _graphs_of(store, graphs):
        data.add_ntriples(store.serialize("ntriples", graph=g))  # type: ignore[arg-type]
    return data.validate()


class ShapesData:
    """The statements a SHACL validation reads, gathered graph by graph, then validated
    once as one data graph (their union; W3C SHACL §3.1 data graph).

    :func:`validate_shapes` reads a store through it; ``provgraph.validate.validate``
    adds each graph's triples as it checks PROV-CONSTRAINTS, so the store is read once.
    The statements are held as N-Triples text (about 150 bytes a statement), written by
    the store layer's serializer with each literal's lexical form as stored.

    Example:
        >>> from provgraph.terms import IRI, Literal
        >>> data = ShapesData()
        >>> pg = "https://w3id.org/provgraph/ns#"
        >>> rdf_type = IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
        >>> at = IRI("http://www.w3.org/ns/prov#generatedAtTime")
        >>> data.add([(IRI("urn:x:q"), rdf_type, IRI(pg + "Query")),
        ...           (IRI("urn:x:q"), IRI(pg + "text"), Literal("", None)),
        ...           (IRI("urn:x:q"), at, Literal("2026-01-05T10:00:00Z", XSD + "dateTime"))])
        >>> [v.path for v in data.validate().violations]
        ['<https://w3id.org/provgraph/ns#text>']
    """

    def __init__(self) -> None:
        self._engine: subprocess.Popen[bytes] | None = None
        self._errors: IO[bytes] | None = None
        self._closed = False

    def add(self, triples: Iterable[tuple[Term, Term, Term]]) -> None:
        """Add statements (subject, predicate, object as :mod:`provgraph.terms` terms);
        a statement given twice, or in two graphs, is one statement of the data graph.
        The first call starts the engine's process, which loads and compiles the shapes
        while the caller goes on.

        Raises:
            StoreError: a term that is not valid RDF (an IRI that is not absolute).
            VocabularyError: the engine's process cannot be started or has failed.
            ValueError: called after :meth:`close`.
        """
        from .store import serialize_quads

        text = serialize_quads(((s, p, o, None) for s, p, o in triples), "ntriples")  # type: ignore[misc]
        self._send(text)

    def add_ntriples(self, text: bytes) -> None:
        """Add statements written as N-Triples (UTF-8; a store's
        ``serialize("ntriples", graph=...)``), as :meth:`add` does, without their terms
        going through Python. Raises as :meth:`add`; text that does not parse is
        reported by :meth:`validate` (:class:`~provgraph.errors.VocabularyError`)."""
        self._send(text if text.endswith(b"\n") or not text else text + b"\n")

    def close(self) -> None:
        """No more statements: the engine starts validating them at once, in its own
        process, while the caller goes on (``provgraph validate`` checks PROV-CONSTRAINTS
        meanwhile); :meth:`validate` then waits for its report. :meth:`validate` closes
        the data itself when it is not closed yet. Raises as :meth:`add`."""
        if self._closed:
            return
        # the ontology is mixed into the data graph, as pyshacl's ont_graph does (inplace)
        self._send(_ontology_ntriples().encode())
        self._closed = True
        assert self._engine is not None and self._engine.stdin is not None
        try:
            self._engine.stdin.close()
        except BrokenPipeError:
            pass  # the engine ended early: validate() says why

    def validate(self) -> ShaclReport:
        """Validate the statements added so far against the bundled shapes; see
        :func:`validate_shapes` for the report and the errors raised. Use it once.

        Ctrl-C (KeyboardInterrupt) while the engine runs stops its process at once and
        is raised here (the engine holds the interpreter lock while it validates, so in
        this process an interrupt would wait for it: 31 s at 279,000 statements)."""
        self.close()
        engine, errors = self._engine, self._errors
        assert engine is not None and engine.stdout is not None
        self._engine = self._errors = None
        try:
            out = engine.stdout.read()
            engine.wait()
        except BaseException:  # Ctrl-C included: the engine stops with the command
            engine.kill()
            engine.wait()
            raise
        finally:
            engine.stdout.close()
        problem = _engine_problem(engine.returncode, errors)
        if problem:
            raise VocabularyError(f"the SHACL engine failed: {problem}")
        return _report_from_json(out)

    def start(self) -> ShapesData:
        """Start the engine's process now, if it has not started: it loads and compiles the
        shapes while the caller goes on (``provgraph validate`` starts it before it opens
        the store; issue 16, item 2). :meth:`add` starts it otherwise. Returns ``self``.

        Raises:
            VocabularyError: the engine's process cannot be started.
            ValueError: called after :meth:`close` or :meth:`kill`.
        """
        if self._closed:
            raise ValueError("ShapesData: started after close()")
        if self._engine is None:
            # standard error to a file, not a pipe: a pipe the engine filled while this
            # process writes its standard input would stop both
            self._errors = tempfile.TemporaryFile()
            try:
                self._engine = subprocess.Popen(
                    [sys.executable, "-m", "provgraph._shacl_engine"], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=self._errors)
            except OSError as exc:
                self._errors.close()
                self._errors = None
                raise VocabularyError(f"the SHACL engine cannot be started ({sys.executable} "
                                      f"-m provgraph._shacl_engine): {exc}") from exc
        return self

    def _send(self, text: bytes) -> None:
        if self._closed:
            raise ValueError("ShapesData: statements added after close()")
        self.start()
        assert self._engine is not None and self._engine.stdin is not None
        try:
            self._engine.stdin.write(text)
        except BrokenPipeError:  # the engine ended early: say why
            self._engine.wait()
            raise VocabularyError("the SHACL engine failed: " + (_engine_problem(
                self._engine.returncode, self._errors) or "it stopped reading")) from None

    def kill(self) -> None:
        """Stop the engine's process at once, if it runs (a caller interrupted, or failing,
        before :meth:`validate`): it validates from :meth:`close` on, and would go on
        after the caller ended. The statements are dropped; use the object no more."""
        if self._engine is not None:
            if self._engine.poll() is None:
                self._engine.kill()
            self._engine.wait()
            for pipe in (self._engine.stdin, self._engine.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
            self._engine = None
        if self._errors is not None:
            self._errors.close()
            self._errors = None
        self._closed = True

    def __del__(self) -> None:  # an instance dropped unvalidated (an error while reading)
        if self._engine is not None and self._engine.poll() is None:
            self._engine.kill()
            self._engine.wait()


def _engine_problem(returncode: int, errors: IO[bytes] | None) -> str:
    """What went wrong in the engine's process, from its exit status and standard error
    (its last line, a Python exception); ``""`` when it ended normally."""
    text = ""
    if errors is not None:
        errors.seek(0)
        text = errors.read().decode(errors="replace").strip()
        errors.close()
    if returncode == 0:
        return ""
    last = text.splitlines()[-1] if text else ""
    return f"exit status {returncode}" + (f": {last}" if last else "")


def validate_text(text: str) -> tuple[bool, list[Violation]]:
    """Validate N-Triples ``text`` (the data graph, the ontology mixed in) against the
    bundled shapes with pyshacl-turbo in this process: ``(conforms, violations)``.
    :mod:`provgraph._shacl_engine` runs it for :class:`ShapesData`."""
    from pyshacl_turbo.rdf import Input

    conforms, results_graph, _text = _compiled_shapes().validate(
        Input(text, "nt", None, {}, preserve_ids=True),
        inference="none", abort_on_first=False, allow_infos=False, allow_warnings=False)
    return bool(conforms), _violations(results_graph)


def report_to_json(conforms: bool, violations: list[Violation]) -> bytes:
    """``(conforms, violations)`` as the engine's process hands them back: JSON, terms in
    the SPARQL 1.1 Query Results JSON form (:func:`provgraph.terms.term_to_json`)."""
    def term(t: Term | None) -> dict[str, str] | None:
        return None if t is None else term_to_json(t)
    return json.dumps({"conforms": conforms, "violations": [
        {"focus_node": term(v.focus_node), "path": v.path, "value": term(v.value),
         "message": v.message, "severity": v.severity, "shape": term(v.shape)}
        for v in violations]}).encode()


def _report_from_json(data: bytes) -> ShaclReport:
    def term(obj: Any) -> Any:
        return None if obj is None else term_from_json(obj)
    doc = json.loads(data)
    return ShaclReport(conforms=bool(doc["conforms"]), violations=[
        Violation(focus_node=term(v["focus_node"]), path=v["path"], value=term(v["value"]),
                  message=v["message"], severity=v["severity"], shape=term(v["shape"]))
        for v in doc["violations"]])


@lru_cache(maxsize=1)
def _compiled_shapes() -> Any:
    """The bundled shapes compiled by pyshacl-turbo, once per process (from the same parse
    as :func:`_shapes_graph`'s copies, so blank-node shapes keep their labels)."""
    import pyshacl_turbo

    return pyshacl_turbo.compile_shapes(_shapes_parsed())  # type: ignore[no-untyped-call]


@lru_cache(maxsize=1)
def _ontology_ntriples() -> str:
    from .store import parse_rdf, serialize_quads

    quads = parse_rdf(ontology_text(ONTOLOGY_FILE), "turtle")
    return serialize_quads(quads, "ntriples").decode()


def _pyshacl(data: rdflib.Graph, shapes: rdflib.Graph, ontology: rdflib.Graph | None
             ) -> tuple[bool, rdflib.Graph]:
    """pyshacl over ``data`` as the reference path runs it: no inference, no owl:imports,
    every result (not the first), ``ontology`` mixed into ``data`` in place (provgraph's
    own fresh copy). Returns ``(conforms, results graph)``."""
    import pyshacl

    conforms, results_graph, _text = pyshacl.validate(
        data, shacl_graph=shapes, ont_graph=ontology, inference="none", abort_on_first=False,
        allow_infos=False, allow_warnings=False, advanced=False, meta_shacl=False,
        do_owl_imports=False, inplace=True)
    return bool(conforms), results_graph


def _reference_report(triples: Iterable[tuple[Term, Term, Term]]) -> ShaclReport:
    """The single-engine validation (every constraint in pyshacl, on rdflib's default
    store): what :class:`ShapesData` must agree with. For the agreement tests."""
    data = _data_graph((s, p, o, None) for s, p, o in triples)
    shapes = _shapes_graph()
    ontology = _bundled_graph(ONTOLOGY_FILE)
    with _quiet_rdflib():
        conforms, results_graph = _pyshacl(data, shapes, ontology)
    violations = _violations(results_graph)
    return ShaclReport(conforms=bool(conforms), violations=violations)


# ---------------------------------------------------------------------------
# the bundled shapes


@lru_cache(maxsize=1)
def _shapes_parsed() -> rdflib.Graph:
    return _bundled_graph(SHAPES_FILE)


def _shapes_graph() -> rdflib.Graph:
    """A fresh copy of the bundled shapes (one parse per process: the copies share their
    blank nodes, so results of the two engines name the same shapes)."""
    import rdflib

    copy = rdflib.Graph()
    for triple in _shapes_parsed():
        copy.add(triple)
    return copy


# ---------------------------------------------------------------------------
# reading the store


def _graphs_of(store: ProvStore, graphs: Iterable[IRI | None] | None) -> list[IRI | None]:
    """The graphs :func:`validate_shapes` reads, once each: ``graphs``, or every graph but
    the ontology graph (the default graph first)."""
    if graphs is None:
        return [None, *(g for g in store.named_graphs() if g != GRAPH.ONTOLOGY)]
    return list(dict.fromkeys(graphs))


def _quads_of(store: ProvStore, graphs: Iterable[IRI | None] | None) -> Iterator[Any]:
    from .store import ANY_GRAPH

    if graphs is None:
        for quad in store.quads(graph=ANY_GRAPH):
            if quad[3] != GRAPH.ONTOLOGY:
                yield quad
        return
    seen: set[IRI | None] = set()
    for g in graphs:
        if g in seen:
            continue
        seen.add(g)
        yield from store.quads(graph=g)


def _to_rdflib(term: Term) -> Any:
    import rdflib

    if isinstance(term, IRI):
        return rdflib.URIRef(term)
    if isinstance(term, BNode):
        return rdflib.BNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return rdflib.Literal(term.value, lang=term.language)
        if term.datatype is None or term.datatype == _XSD_STRING:
            # a plain literal: rdflib tells Literal("a") from "a"^^xsd:string, and the
            # shapes' sh:in values are written plain
            return rdflib.Literal(term.value)
        # as stored: rdflib would write the canonical form of the value ("05" as "5",
        # Z as +00:00), merging statements the store keeps apart (RDFLib/rdflib#3426)
        return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype), normalize=False)
    if isinstance(term, str):
        return rdflib.URIRef(term)
    raise TypeError(f"not an RDF term: {term!r}")


@lru_cache(maxsize=1)
def _data_graph_class() -> Any:
    """:class:`_DataGraph`, made when first needed (rdflib is imported only then)."""
    import rdflib

    class _DataGraph(rdflib.Graph):
        """An rdflib graph that parses each SPARQL text once.

        pyshacl evaluates a SPARQL-based constraint once per focus node (SHACL §5.3)
        with the same text and ``$this`` pre-bound, and rdflib would re-parse the
        text every time (about 30 ms each): thousands of claims would take minutes.
        """

        def query(self, query_object: Any, processor: Any = "sparql", result: Any = "sparql",
                  initNs: Any = None, initBindings: Any = None,  # noqa: N803 (rdflib's names)
                  use_store_provided: bool = True, **kwargs: Any) -> Any:
            if isinstance(query_object, str) and not initNs:
                query_object = _prepared(query_object)
            return super().query(query_object, processor, result, initNs, initBindings,
                                 use_store_provided, **kwargs)
    return _DataGraph


@lru_cache(maxsize=64)
def _prepared(text: str) -> Any:
    from rdflib.plugins.sparql import prepareQuery

    return prepareQuery(text)


def _data_graph(quads: Iterable[Any]) -> rdflib.Graph:
    graph: rdflib.Graph = _data_graph_class()()
    with _quiet_rdflib():
        for s, p, o, _g in quads:
            graph.add((_to_rdflib(s), _to_rdflib(p), _to_rdflib(o)))
    return graph


def _bundled_graph(name: str) -> rdflib.Graph:
    """Parse a bundled Turtle file; never fetch (Turtle parsing resolves nothing)."""
    import rdflib

    text = ontology_text(name)
    graph = rdflib.Graph()
    try:
        graph.parse(data=text, format="turtle", publicID=f"urn:provgraph:ontology:{name}")
    except Exception as exc:  # rdflib raises several unrelated parser exception types
        raise VocabularyError(f"bundled {name} does not parse: {exc}") from exc
    return graph


@contextlib.contextmanager
def _quiet_rdflib() -> Iterator[None]:
    """Silence rdflib's per-literal warnings for ill-typed values (``"x"^^xsd:integer``):
    SHACL reports them as ``sh:datatype`` results instead."""
    logger = logging.getLogger("rdflib.term")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


# ---------------------------------------------------------------------------
# reading the report


def _from_rdflib(node: Any) -> Term | None:
    """A report or data term as a provgraph term (:func:`provgraph._rdflib_terms.from_rdflib`)."""
    from ._rdflib_terms import from_rdflib

    term: Term | None = from_rdflib(node)
    return term


def _path_text(g: rdflib.Graph, node: Any) -> str | None:
    """A SHACL property path (SHACL §2.3.1) as SPARQL 1.1 property path text."""
    import rdflib
    from rdflib.collection import Collection
    from rdflib.namespace import SH as _SH

    if node is None:
        return None
    if isinstance(node, rdflib.URIRef):
        return f"<{node}>"
    inverse = g.value(node, _SH.inversePath)
    if inverse is not None:
        return f"^{_group(g, inverse)}"
    alternatives = g.value(node, _SH.alternativePath)
    if alternatives is not None:
        return "|".join(_group(g, n) for n in Collection(g, alternatives))
    for prop, suffix in ((_SH.zeroOrMorePath, "*"), (_SH.oneOrMorePath, "+"),
                         (_SH.zeroOrOnePath, "?")):
        inner = g.value(node, prop)
        if inner is not None:
            return f"{_group(g, inner)}{suffix}"
    if g.value(node, rdflib.RDF.first) is not None:
        return "/".join(_group(g, n) for n in Collection(g, node))
    return str(node)


def _group(g: rdflib.Graph, node: Any) -> str:
    import rdflib

    text = _path_text(g, node) or ""
    return text if isinstance(node, rdflib.URIRef) else f"({text})"


def _violations(results: rdflib.Graph) -> list[Violation]:
    import rdflib
    from rdflib.namespace import SH as _SH

    out = []
    for result in results.subjects(rdflib.RDF.type, _SH.ValidationResult):
        focus = _from_rdflib(results.value(result, _SH.focusNode))
        severity = results.value(result, _SH.resultSeverity)
        messages = sorted(str(m) for m in results.objects(result, _SH.resultMessage))
        shape = _from_rdflib(results.value(result, _SH.sourceShape))
        out.append(Violation(
            focus_node=focus if focus is not None else BNode(""),
            path=_path_text(results, results.value(result, _SH.resultPath)),
            value=_from_rdflib(results.value(result, _SH.value)),
            message="; ".join(messages),
            severity=str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation",
            shape=shape if isinstance(shape, (IRI, BNode)) else None,
        ))
    out.sort(key=_violation_order)
    return out


def _violation_order(v: Violation) -> tuple[str, str, str]:
    return (str(v.focus_node), v.path or "", v.message)
