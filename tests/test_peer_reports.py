"""Public bug reports of peer tools, replayed against provgraph (issue 15).

Each test cites the report it replays (https://github.com/OWNER/REPO/issues/N, or the pull
request that describes the bug where the tracker has no issue for it) and says what
provgraph must do with the same input. The table of every report read, whether it applies
and why, and the result before the fixes is docs/peer-reports.md. trungdong/prov's
reports were replayed earlier (tests/test_io_fidelity.py, tests/test_prov_constraints.py).

Trackers: lucmoreau/ProvToolbox (PROV-N, PROV-JSON, PROV-XML semantics), RDFLib/rdflib
(the SPARQL parser behind provgraph's query checks and update reading, and the literals
of the graphs pyshacl validates), oxigraph/oxigraph (the store, its parsers and SPARQL),
RDFLib/pySHACL (results on ontologies/rag-shapes.ttl).
"""

from __future__ import annotations

import datetime as dt

import pytest

from provgraph import io as pio
from provgraph.errors import QueryRefused, QuerySyntaxError, SerializationError
from provgraph.io.bundle import export
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, BNode, Literal

from .conftest import shared_cases
from .io_helpers import canon

X = "http://www.w3.org/2001/XMLSchema#"
EX = "http://example.org/"
PROV_DM = ("prov-json", "provn", "prov-xml")
RDF_OUT = ("trig", "nquads", "json-ld", "turtle")


def _store(doc: str | bytes, fmt: str) -> EmbeddedStore:
    store = EmbeddedStore()
    import_document(store, doc.encode() if isinstance(doc, str) else doc, fmt)
    return store


def _literals(store: EmbeddedStore, predicate: str | None = None) -> set[Literal]:
    return {q[2] for q in store.quads(None, IRI(predicate) if predicate else None)
            if isinstance(q[2], Literal)}


def _round_trips(store: EmbeddedStore, formats: tuple[str, ...] = PROV_DM + RDF_OUT) -> None:
    """Every export of ``store`` reads back to the same statements."""
    original = canon(store.quads())
    for fmt in formats:
        back = pio.read(export(store, fmt, everything=True).data, fmt).quads
        assert canon(back) == original, fmt


# =========================================================================================
# lucmoreau/ProvToolbox
# =========================================================================================

def test_provtoolbox_111_an_attribute_list_without_brackets_is_refused():
    """https://github.com/lucmoreau/ProvToolbox/issues/111: the PROV-N parser accepted
    ``entity(ex:a, ex:b='ex:c')`` (no ``[ ]``) with a warning. PROV-N §3 requires the
    brackets: provgraph refuses it, naming the line and column, and stores nothing."""
    store = EmbeddedStore()
    with pytest.raises(SerializationError, match=r"line 3, column \d+"):
        import_document(store, b"document\nprefix ex <http://example.com/>\n"
                               b"entity(ex:a, ex:b='ex:c')\nendDocument\n", "provn")
    assert len(store) == 0


def test_provtoolbox_175_an_unclosed_record_is_refused_not_half_read():
    """https://github.com/lucmoreau/ProvToolbox/issues/175: a record missing its ``])``
    validated, and its ``prov:label`` was silently dropped. provgraph refuses the
    document (line and column named) and stores nothing."""
    doc = ("document\n  prefix var <http://openprovenance.org/var#>\n"
           '  entity(var:entity1, [prov:label = "label1"\n'
           '  entity(var:entity2, [prov:label = "label2"])\nendDocument\n')
    store = EmbeddedStore()
    with pytest.raises(SerializationError, match=r"line 4, column \d+"):
        import_document(store, doc.encode(), "provn")
    assert len(store) == 0


def test_provtoolbox_87_wasGeneratedBy_with_two_arguments_is_refused_by_name():
    """https://github.com/lucmoreau/ProvToolbox/issues/87: ``wasGeneratedBy(ex:e1, ex:a1)``
    failed to parse, and the reporter expected the time's ``-`` to be optional. PROV-N
    §3.2.1 (generationExpression) takes the entity alone or entity, activity and time:
    two arguments are not PROV-N. provgraph refuses them with the line, the column and
    the counts PROV-N allows, and stores nothing; the three-argument form reads."""
    head = "document\n  prefix ex <http://example.com#>\n  entity(ex:e1)\n  activity(ex:a1)\n"
    store = EmbeddedStore()
    with pytest.raises(SerializationError, match=r"line 5, column 3: 'wasGeneratedBy' takes 1 "
                                                 r"or 3 arguments, got 2"):
        import_document(store, (head + "  wasGeneratedBy(ex:e1, ex:a1)\nendDocument\n").encode(),
                        "provn")
    assert len(store) == 0
    store = _store(head + "  wasGeneratedBy(ex:e1, ex:a1, -)\nendDocument\n", "provn")
    assert (IRI("http://example.com#e1"), IRI("http://www.w3.org/ns/prov#wasGeneratedBy"),
            IRI("http://example.com#a1"), None) in set(store.quads())
    _round_trips(store)


def test_provtoolbox_132_provn_export_declares_no_wrong_xsd_prefix():
    """https://github.com/lucmoreau/ProvToolbox/issues/132: PROV-N export declared
    ``prefix xsd <http://www.w3.org/2001/XMLSchema>`` (no ``#``), which PROV-N predefines
    and which then resolves ``xsd:int`` wrongly. provgraph's PROV-N declares no ``xsd``
    prefix, and its typed values read back with the right datatype."""
    store = _store(f'document prefix ex <{EX}> entity(ex:e, [ex:v="7" %% xsd:int, '
                   'ex:w="2.0" %% xsd:decimal]) endDocument', "provn")
    text = export(store, "provn", everything=True).data.decode()
    assert "prefix xsd" not in text
    assert _literals(_store(text, "provn"), EX + "v") == {Literal("7", X + "int")}


def test_provtoolbox_209_time_zone_offsets_are_kept():
    """https://github.com/lucmoreau/ProvToolbox/issues/209: an activity's times read with
    ``-04:00``/``-02:00`` were written back in the system's zone. provgraph keeps each
    time as written (offset and fraction), in PROV-N and PROV-JSON-LD alike, whatever the
    local zone (the ProvToolbox test pair toolbox/dates/date_with_tz_offset.*)."""
    import os
    import time

    root = shared_cases("prov/provtoolbox/toolbox/dates")
    old = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Kolkata"
    time.tzset()
    try:
        for name, fmt in (("date_with_tz_offset.provn", "provn"),
                          ("date_with_tz_offset.jsonld", "json-ld")):
            store = _store((root / name).read_bytes(), fmt)
            assert {o.value for o in _literals(store) if o.datatype == X + "dateTime"} == {
                "2023-09-08T20:12:45.109-04:00", "2023-10-15T20:35:06.793-02:00"}, name
            _round_trips(store)
    finally:
        if old is None:
            os.environ.pop("TZ")
        else:
            os.environ["TZ"] = old
        time.tzset()


def test_provtoolbox_generatedAtTime_case_keeps_the_time_as_written():
    """The ProvToolbox test document misc/generatedAtTime.provn
    (``wasGeneratedBy(ex:e1,-,2014-05-19T10:30:00.000+01:00)``, same bug class as
    https://github.com/lucmoreau/ProvToolbox/issues/209): the generation without an
    activity is ``prov:generatedAtTime`` in PROV-O, and the ``.000`` fraction stays."""
    store = _store((shared_cases("prov/provtoolbox/misc") / "generatedAtTime.provn").read_bytes(),
                   "provn")
    assert Literal("2014-05-19T10:30:00.000+01:00", X + "dateTime") in _literals(
        store, "http://www.w3.org/ns/prov#generatedAtTime")
    _round_trips(store)


def test_provtoolbox_40_multi_line_strings_round_trip():
    """https://github.com/lucmoreau/ProvToolbox/issues/40: the PROV-N writer did not
    triple-quote multi-line strings, so its output did not parse. A label with line
    breaks, quotes and a backslash comes back exactly from every format (the ProvToolbox
    case prov-n/issues/issue-string.provn, ``"J\\"org "``, included)."""
    value = 'line one\nline "two" \\ end\n'
    store = EmbeddedStore()
    store.add([(IRI(EX + "e"), IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                IRI("http://www.w3.org/ns/prov#Entity"), None),
               (IRI(EX + "e"), IRI("http://www.w3.org/2000/01/rdf-schema#label"),
                Literal(value), None)])
    _round_trips(store)
    case = _store((shared_cases("prov/provtoolbox/prov-n/issues") / "issue-string.provn")
                  .read_bytes(), "provn")
    assert _literals(case, EX + "attr1") == {Literal('J"org ')}
    _round_trips(case)


def test_provtoolbox_35_and_109_qualified_name_values_stay_qualified_names():
    """https://github.com/lucmoreau/ProvToolbox/issues/35 (a ``'ex:foo'`` attribute value
    was written as ``{http://...}foo`` text) and
    https://github.com/lucmoreau/ProvToolbox/issues/109 (``"ex:bar" %%
    prov:QUALIFIED_NAME`` literals were not expanded): both forms denote the IRI
    ``ex:foo``/``ex:bar``; provgraph stores IRIs and every format keeps them (the
    ProvToolbox case prov-n/issues/issue-qualified-name.provn)."""
    store = _store((shared_cases("prov/provtoolbox/prov-n/issues") / "issue-qualified-name.provn")
                   .read_bytes(), "provn")
    objects = {q[1]: q[2] for q in store.quads(IRI(EX + "e"))}
    assert objects[IRI(EX + "attr1")] == IRI(EX + "foo")
    assert objects[IRI(EX + "attr2")] == IRI(EX + "bar")
    _round_trips(store)


def test_provtoolbox_104_a_qualified_name_label_is_kept_and_warned_about():
    """https://github.com/lucmoreau/ProvToolbox/issues/104: ``prov:label='cas:View'`` (a
    qualified name where PROV-DM §5.7.2.1 wants a string) came out as the garbage
    ``"'cas:{http://...}View'"``. provgraph keeps what was written (the IRI), writes it
    back unchanged in every format, and ``validate`` warns that the label is not a
    string."""
    from provgraph.validate import validate

    store = _store("document prefix cas <http://smartsociety-project.github.io/cas/#> "
                   "prefix var <http://openprovenance.org/var#> "
                   "entity(var:view, [prov:type='cas:View', prov:label='cas:View']) endDocument",
                   "provn")
    label = {q[2] for q in store.quads(None, IRI("http://www.w3.org/2000/01/rdf-schema#label"))}
    assert label == {IRI("http://smartsociety-project.github.io/cas/#View")}
    for fmt in PROV_DM:
        assert b"{http" not in export(store, fmt, everything=True).data, fmt
    _round_trips(store)
    assert any("label" in w.message for w in validate(store, shapes=False).warnings)


def test_provtoolbox_190_identifiers_ending_in_equals_signs():
    """https://github.com/lucmoreau/ProvToolbox/issues/190: PROV-JSON identifiers whose
    local part ends in ``=`` (base64 ids from CamFlow) raised an exception. provgraph
    reads them and keeps them in PROV-JSON, PROV-N and the RDF formats; PROV-XML, whose
    names are XML NCNames, refuses them by name."""
    ident = "EAAAAAAAABQFFQAAAAAAACAAAAA+KXBJAQAAAAAAAAA="
    doc = ('{"prefix": {"cf": "http://www.camflow.org/"}, "agent": {"cf:%s": '
           '{"cf:id": "5381", "prov:type": "machine"}}}' % ident)
    store = _store(doc, "prov-json")
    assert IRI("http://www.camflow.org/" + ident) in {q[0] for q in store.quads()}
    _round_trips(store, ("prov-json", "provn") + RDF_OUT)
    with pytest.raises(SerializationError, match=r"KXBJ"):
        export(store, "prov-xml", everything=True)


def test_provtoolbox_96_a_bundle_uses_the_documents_prefixes():
    """https://github.com/lucmoreau/ProvToolbox/issues/96: a PROV-JSON bundle whose
    records use prefixes declared only at the document level was read, but writing it
    back failed. provgraph resolves them, and every dataset format writes it back."""
    doc = ('{"prefix": {"b": "https://example.org/bundles/", "people": "http://example.org/p/"},'
           ' "bundle": {"b:b1": {"prefix": {"doi": "http://dx.doi.org/"}, '
           '"wasAttributedTo": {"_:a": {"prov:entity": "doi:10.1/x", '
           '"prov:agent": "people:Oscar"}}, "agent": {"people:Oscar": {}}}}}')
    store = _store(doc, "prov-json")
    g = IRI("https://example.org/bundles/b1")
    assert (IRI("http://dx.doi.org/10.1/x"), IRI("http://www.w3.org/ns/prov#wasAttributedTo"),
            IRI("http://example.org/p/Oscar"), g) in set(store.quads())
    _round_trips(store, PROV_DM + ("trig", "nquads", "json-ld"))  # Turtle holds one graph


def test_provtoolbox_215_prov_xml_default_namespace():
    """https://github.com/lucmoreau/ProvToolbox/issues/215 (and trungdong/prov#70): a
    PROV-XML ``prov:id="e"`` without a prefix is in the document's default namespace
    (``xmlns="https://default.org/"``), not the PROV namespace of the element."""
    doc = ('<?xml version="1.0"?><prov:document xmlns:ex="https://example.org/" '
           'xmlns="https://default.org/" xmlns:prov="http://www.w3.org/ns/prov#">'
           '<prov:entity prov:id="e"/></prov:document>')
    store = _store(doc, "prov-xml")
    assert {q[0] for q in store.quads()} == {IRI("https://default.org/e")}


def test_provtoolbox_145_an_xml_literal_attribute_round_trips_or_is_refused():
    """https://github.com/lucmoreau/ProvToolbox/issues/145: an ``rdf:XMLLiteral``
    attribute value converted PROV-N to PROV-N but failed PROV-N to PROV-XML. provgraph
    keeps it in every format, PROV-XML included."""
    store = _store('document prefix rdf <http://www.w3.org/1999/02/22-rdf-syntax-ns#> '
                   'prefix ex <http://example.org/> entity(ex:en_o42, [ex:tag2 = '
                   '"<ap:aaa xmlns:ap=\\"http://app/\\"><ap:bbb><ap:ccc/></ap:bbb></ap:aaa>" '
                   "%% rdf:XMLLiteral]) endDocument", "provn")
    (value,) = _literals(store, EX + "tag2")
    assert value.datatype == "http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral"
    _round_trips(store)


def test_provtoolbox_64_a_derivations_generation_survives_export():
    """https://github.com/lucmoreau/ProvToolbox/issues/64: a qualified derivation's
    ``prov:hadGeneration`` was read but not written back. provgraph writes it in every
    format (``wasDerivedFrom(e2, e1, -, gen, -)`` in PROV-N)."""
    ttl = (f"@prefix prov: <http://www.w3.org/ns/prov#> . @prefix ex: <{EX}> .\n"
           "ex:bar_chart a prov:Entity ; prov:wasDerivedFrom ex:aggregated ; "
           "prov:qualifiedDerivation [ a prov:Derivation ; prov:entity ex:aggregated ; "
           "prov:hadGeneration ex:illustration ] .")
    store = _store(ttl, "turtle")
    assert IRI(EX + "illustration") in {q[2] for q in store.quads(
        None, IRI("http://www.w3.org/ns/prov#hadGeneration"))}
    provn = export(store, "provn", everything=True).data.decode()
    assert ", -, " in provn and ":illustration, -)" in provn
    _round_trips(store)


def test_provtoolbox_57_collection_is_not_a_provn_keyword():
    """https://github.com/lucmoreau/ProvToolbox/issues/57: a document written by another
    tool used ``collection(...)``, which PROV-N does not have; provconvert reported
    "missing 'endDocument'". provgraph refuses it with the line and column, stores
    nothing (PROV-N writes a collection as ``entity(id, [prov:type='prov:Collection'])``)."""
    store = EmbeddedStore()
    with pytest.raises(SerializationError, match=r"line 3, column \d+"):
        import_document(store, b"document\n  prefix fs <http://surfer.nmr.mgh.harvard.edu/fswiki/#>\n"
                               b"  collection(fs:dir, [prov:type='fs:directory'])\nendDocument\n",
                        "provn")
    assert len(store) == 0


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # rdflib's JSON-LD parser internals
def test_provtoolbox_214_json_ld_export_reads_the_same_in_another_processor():
    """https://github.com/lucmoreau/ProvToolbox/issues/214: ProvToolbox's JSON-LD used
    terms other JSON-LD processors could not expand (``entity``/``activity`` of a
    ``prov:Generation`` were lost in Jena). provgraph's JSON-LD export, read by a second,
    independent processor (rdflib's JSON-LD parser), gives the same statements as the
    store holds."""
    import rdflib

    store = _store("document prefix exa <https://example.com/> activity(exa:run) "
                   "wasGeneratedBy(exa:g; exa:file, exa:run, -) used(exa:run, exa:in, -) "
                   "endDocument", "provn")
    data = export(store, "json-ld", everything=True).data
    ds = rdflib.Dataset()
    ds.parse(data=data, format="json-ld")
    theirs = {(str(s), str(p), str(o)) for s, p, o, _g in ds.quads()}
    ours = {(str(q[0]), str(q[1]), str(q[2])) for q in store.quads()
            if not isinstance(q[0], BNode) and not isinstance(q[2], BNode)}
    assert ours <= theirs
    assert ("https://example.com/g", "http://www.w3.org/ns/prov#activity",
            "https://example.com/run") in theirs


# =========================================================================================
# RDFLib/rdflib: the SPARQL parser of sparql_guard (query checks, update reading) and the
# literals of the graph pyshacl validates (provgraph.shacl)
# =========================================================================================

@pytest.mark.parametrize("query", [
    "SELECT * WHERE { VALUES ?x { -1.5 } }",
    "SELECT * WHERE { ?s ?p -1.50 }",
], ids=["values", "pattern"])
def test_rdflib_2962_a_bare_negative_decimal_is_a_syntax_error_with_the_fix(query):
    """https://github.com/RDFLib/rdflib/issues/2962: ``Literal.__neg__`` does not support
    decimals, and rdflib's SPARQL parser negates a bare ``-1.5`` in a data position: the
    query checker (provgraph.sparql_guard, which every user query passes) raised a raw
    ``TypeError``, a traceback for ``provgraph query``. It is a syntax error naming the
    source and the fix (quote the number) now; the engine never sees the text."""
    from provgraph.sparql_guard import check_untrusted

    with pytest.raises(QuerySyntaxError, match=r"q\.rq.*-1\.50?\"\^\^xsd:decimal"):
        check_untrusted(query, "q.rq")


def test_rdflib_1282_update_reading_and_query_checks_share_one_parser_lock():
    """https://github.com/RDFLib/rdflib/issues/1282: rdflib's SPARQL parser (pyparsing) is
    not thread-safe. ``provgraph serve`` checks queries and reads updates in request
    threads; both go through one lock (sparql_guard), so concurrent parses agree (the
    query checks alone: tests/test_sparql_guard.py::test_checks_from_many_threads_at_once_agree)."""
    import threading

    from provgraph.sparql_guard import check_untrusted, read_update

    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for _ in range(40):
                if i % 2:
                    check_untrusted("SELECT ?s WHERE { ?s ?p ?o FILTER(?o > 3) } LIMIT 5")
                else:
                    got = read_update(f'INSERT DATA {{ <urn:s> <urn:p> "0{i}"^^<{X}int> }}')
                    assert got.written[0][1] == Literal(f"0{i}", X + "int")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def test_rdflib_2530_a_blank_node_property_list_in_a_query_is_accepted():
    """https://github.com/RDFLib/rdflib/issues/2530: ``[ tr:from :a1 ; tr:to :a2 ] tr:in
    ?t`` failed in rdflib's parser. The query checker passes it, and the engine runs it."""
    from provgraph.sparql_guard import check_untrusted

    q = ("PREFIX tr: <http://example.org/trace#> PREFIX : <http://example.org#> SELECT ?t "
         "WHERE { [ tr:from :a1 ; tr:to :a2 ] tr:in ?t . }")
    check_untrusted(q)
    store = EmbeddedStore()
    store.update("PREFIX tr: <http://example.org/trace#> PREFIX : <http://example.org#> "
                 "INSERT DATA { _:x tr:from :a1 ; tr:to :a2 ; tr:in :t1 }")
    assert [r["t"] for r in store.select(q)] == [IRI("http://example.org#t1")]


def test_rdflib_886_a_labelled_blank_node_in_insert_data_keeps_one_node():
    """https://github.com/RDFLib/rdflib/pull/886: rdflib kept ``_:`` in the label of a
    blank node parsed from INSERT DATA, so writing it back gave ``_:_:blankA``. provgraph
    writes INSERT DATA back (literal fidelity) from rdflib's reading: the two statements
    of ``_:blankA`` stay on one node, with the literal as written."""
    store = EmbeddedStore()
    store.update(f'INSERT DATA {{ _:blankA a <urn:Bla> ; <urn:p> "01"^^<{X}int> }}')
    (node,) = {q[0] for q in store.quads()}
    assert isinstance(node, BNode)
    assert set(store.quads(node, IRI("urn:p"))) == {(node, IRI("urn:p"), Literal("01", X + "int"), None)}


def test_rdflib_381_871_blank_node_property_lists_in_insert_data():
    """https://github.com/RDFLib/rdflib/issues/381 and https://github.com/RDFLib/rdflib/issues/871:
    rdflib's algebra raised "these aint triples" for ``[ a rdfs:Class; ]`` (a spurious
    ``;``) and nested ``[ ... ]`` lists. provgraph reads INSERT DATA with that algebra
    (literal fidelity): both forms are read, written back with the literal as given."""
    store = EmbeddedStore()
    store.update(f'INSERT DATA {{ [ a <{EX}C> ; ] . <{EX}s> <{EX}p> <{EX}T> , '
                 f'[ <{EX}q> [] ; <{EX}v> "01"^^<{X}int> ] }}')
    assert _literals(store) == {Literal("01", X + "int")}
    assert len(store) == 5


def test_rdflib_3426_shacl_sees_the_stored_lexical_forms(recorded):
    """https://github.com/RDFLib/rdflib/issues/3426: rdflib builds a literal in the
    canonical form of its value (``Z`` becomes ``+00:00``, ``"05"^^xsd:integer`` ``"5"``).
    provgraph copied the store into an rdflib graph for pyshacl: two values that differ
    only in form (two statements in the store) became one, so ``sh:maxCount 1`` missed
    them, and a violation's ``value`` showed a form the store does not hold (failed
    before). The copy the SHACL engine reads (N-Triples text now) keeps every literal as
    stored."""
    from provgraph.shacl import validate_shapes
    from provgraph.vocab import PG

    store, _rec, r = recorded
    cit = r["cit_quote"].iri
    (start,) = list(store.quads(cit, PG.start))
    store.add([(cit, PG.start, Literal("0" + start[2].value, X + "integer"), start[3])])
    report = validate_shapes(store)
    hits = [v for v in report.violations if v.focus_node == cit and v.path == PG.start.n3()]
    assert hits, report.messages()
    store.remove([(cit, PG.start, Literal("0" + start[2].value, X + "integer"), start[3])])
    snap = r["faq"].iri
    bad = Literal("many", X + "integer")
    old = list(store.quads(snap, PG.byteSize))
    store.remove(old)
    store.add([(snap, PG.byteSize, Literal("0010", X + "int"), old[0][3])])
    values = {v.value for v in validate_shapes(store).violations if v.focus_node == snap}
    assert values == {Literal("0010", X + "int")}, values
    assert bad not in values


def test_rdflib_1773_ill_typed_literals_are_sh_datatype_violations(recorded):
    """https://github.com/RDFLib/rdflib/issues/848 and https://github.com/RDFLib/rdflib/pull/1773:
    SHACL's sh:datatype fails ill-typed literals only when rdflib tells them apart
    (``Literal.ill_typed``); pyshacl relies on it. An ill-typed ``xsd:integer`` and an
    impossible ``xsd:dateTime`` in the store are violations; a well-typed one is not
    (with the store's forms kept, rdflib#3426 above)."""
    from provgraph.shacl import validate_shapes
    from provgraph.vocab import PG

    store, _rec, r = recorded
    cit = r["cit_quote"].iri
    (start,) = list(store.quads(cit, PG.start))
    store.remove([start])
    store.add([(cit, PG.start, Literal("zero", X + "integer"), start[3])])
    q = r["query"].iri
    (when,) = list(store.quads(q, IRI("http://www.w3.org/ns/prov#generatedAtTime")))
    store.remove([when])
    store.add([(q, when[1], Literal("2026-02-30T00:00:00Z", X + "dateTime"), when[3])])
    bad = {(v.focus_node, v.value) for v in validate_shapes(store).violations}
    assert (cit, Literal("zero", X + "integer")) in bad
    assert (q, Literal("2026-02-30T00:00:00Z", X + "dateTime")) in bad


def test_rdflib_and_pyshacl_do_not_check_rdf_json_so_validate_does():
    """rdflib does not know ``rdf:JSON`` (JSON-LD 1.1 §10.2; RDF 1.2: rdflib gives
    ``ill_typed`` None, the same gap as https://github.com/RDFLib/rdflib/issues/2475 for
    ``rdf:HTML``), so the shapes' ``sh:datatype rdf:JSON`` accepts a value that is not
    JSON. ``provgraph validate`` reports such a literal as ill-typed itself
    (provgraph.xsd.ill_typed)."""
    from provgraph.validate import validate

    store = EmbeddedStore()
    json_dt = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"
    store.add([(IRI(EX + "g"), IRI("https://w3id.org/provgraph/ns#settings"),
                Literal("{not json", json_dt), IRI(EX + "run"))])
    report = validate(store, shapes=False)
    assert any("{not json" in str(v) for v in report.violations), report.messages()


# =========================================================================================
# RDFLib/pySHACL: results on ontologies/rag-shapes.ttl
# =========================================================================================

from .test_shacl import recorded  # noqa: E402,F401 - the recorded pipeline fixture


def _shapes(report) -> set[str]:  # type: ignore[no-untyped-def]
    return {str(v.shape).rsplit("#", 1)[-1] for v in report.violations}


def test_pyshacl_116_a_language_tagged_text_is_not_an_xsd_string(recorded):
    """https://github.com/RDFLib/pySHACL/issues/116: a language-tagged string failed
    ``sh:datatype xsd:string``; pySHACL's answer (SHACL §4.1.2 via SPARQL DATATYPE) is
    that its datatype is ``rdf:langString``. provgraph's shapes want plain strings for
    recorded text: an imported ``pg:text "..."@en`` is reported, and that is correct."""
    from provgraph.shacl import validate_shapes
    from provgraph.vocab import PG

    store, _rec, r = recorded
    aid = r["hyde"].iri
    (text,) = list(store.quads(aid, PG.text))
    store.remove([text])
    store.add([(aid, PG.text, Literal(text[2].value, None, "en"), text[3])])
    report = validate_shapes(store)
    assert "GeneratedAid-text" in _shapes(report)


def test_pyshacl_286_an_explicit_xsd_string_is_a_plain_string(recorded):
    """https://github.com/RDFLib/pySHACL/issues/286: ``"EPL-2.0"^^xsd:string`` failed an
    ``sh:in`` of plain strings. RDF 1.1 makes them one literal; provgraph stores it plain
    and the copy pyshacl validates says so: ``"codepoint"^^xsd:string`` is an allowed
    offset unit."""
    from provgraph.shacl import validate_shapes
    from provgraph.vocab import PG

    store, _rec, r = recorded
    cit = r["cit_quote"].iri
    (unit,) = list(store.quads(cit, PG.offsetUnit))
    store.remove([unit])
    store.add([(cit, PG.offsetUnit, Literal("codepoint", X + "string"), unit[3])])
    assert validate_shapes(store).conforms


def test_pyshacl_122_a_derived_integer_type_is_not_xsd_integer(recorded):
    """https://github.com/RDFLib/pySHACL/pull/122: detection of integer types other than
    ``xsd:integer``. ``sh:datatype xsd:integer`` matches the datatype IRI (SHACL §4.1.2):
    ``"5"^^xsd:int`` on a citation's ``pg:start`` is a violation (provgraph keeps
    ``xsd:int``, where the engine alone would have made it ``xsd:integer`` and hidden it),
    and a negative ``xsd:integer`` breaks ``sh:minInclusive 0``."""
    from provgraph.shacl import validate_shapes
    from provgraph.vocab import PG

    store, _rec, r = recorded
    cit, cit2 = r["cit_quote"].iri, r["cit_snapshot"].iri
    for c, value in ((cit, Literal("5", X + "int")), (cit2, Literal("-1", X + "integer"))):
        (start,) = list(store.quads(c, PG.start))
        store.remove([start])
        store.add([(c, PG.start, value, start[3])])
    report = validate_shapes(store)
    got = {(v.focus_node, v.value) for v in report.violations if v.path == PG.start.n3()}
    assert got == {(cit, Literal("5", X + "int")), (cit2, Literal("-1", X + "integer"))}


def test_pyshacl_148_target_class_follows_the_ontologys_subclasses(recorded):
    """https://github.com/RDFLib/pySHACL/issues/148: ``sh:targetClass`` did not follow an
    ``rdfs:subClassOf`` given in the ontology graph. provgraph passes rag-prov.ttl as
    pyshacl's ontology: a ``pg:ContextualPrefix`` (a subclass of ``pg:GeneratedAid``)
    without its text is a GeneratedAidShape violation."""
    from provgraph.shacl import validate_shapes
    from provgraph.vocab import PG

    store, _rec, r = recorded
    aid = r["prefix"].iri
    store.remove(list(store.quads(aid, PG.text)))
    report = validate_shapes(store)
    assert any(v.focus_node == aid and v.shape == IRI("https://w3id.org/provgraph/shapes#"
                                                      "GeneratedAid-text")
               for v in report.violations), report.messages()


def test_pyshacl_167_a_date_time_stamp_is_not_an_xsd_date_time(recorded):
    """https://github.com/RDFLib/pySHACL/issues/167: ``xsd:dateTimeStamp`` values failed
    ``sh:datatype xsd:dateTime``. SHACL matches the datatype IRI, not the XSD type
    hierarchy, so that is the result: provgraph keeps ``xsd:dateTimeStamp`` (the engine
    alone would have stored ``xsd:dateTime``), and a query's ``prov:generatedAtTime``
    typed so is reported. provgraph's Recorder writes ``xsd:dateTime``."""
    from provgraph.shacl import validate_shapes

    store, _rec, r = recorded
    q = r["query"].iri
    (when,) = list(store.quads(q, IRI("http://www.w3.org/ns/prov#generatedAtTime")))
    store.remove([when])
    store.add([(q, when[1], Literal(when[2].value, X + "dateTimeStamp"), when[3])])
    report = validate_shapes(store)
    assert "Query-generatedAtTime" in _shapes(report)


def test_pyshacl_272_every_sparql_constraint_declares_its_prefixes():
    """https://github.com/RDFLib/pySHACL/issues/272: a SPARQL-based constraint that uses
    prefixes without ``sh:prefixes`` declarations works in pyshacl (which borrows the
    shapes graph's own prefixes) but fails in other SHACL-SPARQL engines (SHACL §5.2.1).
    Every ``sh:select`` of rag-shapes.ttl has ``sh:prefixes``, and every prefix its text
    uses is declared there with ``sh:declare``."""
    import re

    import rdflib
    from rdflib.namespace import SH

    from provgraph.resources import ontology_text

    g = rdflib.Graph().parse(data=ontology_text("rag-shapes.ttl"), format="turtle")
    selects = list(g.subject_objects(SH.select))
    assert selects
    for constraint, text in selects:
        declared = {str(g.value(d, SH.prefix)): str(g.value(d, SH.namespace))
                    for src in g.objects(constraint, SH.prefixes)
                    for d in g.objects(src, SH.declare)}
        used = set(re.findall(r"\b([A-Za-z][\w-]*):[A-Za-z_]", str(text)))
        assert used and used <= set(declared), (constraint, used - set(declared))


# =========================================================================================
# oxigraph/oxigraph: the embedded store, its parsers and its SPARQL engine (pyoxigraph)
# =========================================================================================

def test_oxigraph_526_literals_keep_their_form():
    """https://github.com/oxigraph/oxigraph/issues/526: Oxigraph normalizes literals when
    it stores them (``"+1"^^xsd:int`` as ``"1"^^xsd:integer``), with no option to turn
    that off. provgraph stores such a literal under a private datatype and decodes it on
    every read (provgraph._lexical; every XSD datatype PROV-DM lists, every path that
    writes: tests/test_store_literals.py, tests/test_store_bulk_load.py)."""
    store = EmbeddedStore()
    value = Literal("+1", X + "int")
    store.add([(IRI(EX + "s"), IRI(EX + "p"), value, None)])
    store.update(f'INSERT DATA {{ <{EX}s> <{EX}q> "+1"^^<{X}int> }}')
    assert _literals(store) == {value}


def test_oxigraph_317_an_optional_path_does_not_invent_terms():
    """https://github.com/oxigraph/oxigraph/issues/317: ``VALUES ?v { 1 } ?v <p>? ?v``
    returned ``1`` on an empty dataset. provgraph's ``closure`` builds ``p/p?/p?``
    paths from bound start nodes (``VALUES``); a start the store does not hold reaches
    nothing, and the zero-length step adds no node."""
    store = EmbeddedStore()
    assert store.select("SELECT * WHERE { VALUES ?v { 1 } ?v <http://example.com/p>? ?v }") == []
    p = IRI(EX + "p")
    store.add([(IRI(EX + "a"), p, IRI(EX + "b"), None), (IRI(EX + "b"), p, IRI(EX + "c"), None)])
    assert store.closure([IRI(EX + "nowhere")], [p], max_depth=2) == set()
    assert store.closure([IRI(EX + "a")], [p], max_depth=1) == {IRI(EX + "b")}
    assert store.closure([IRI(EX + "a")], [p]) == {IRI(EX + "b"), IRI(EX + "c")}


@pytest.mark.parametrize("query,expected", [
    ("SELECT ?g ?o WHERE { GRAPH ?g { <urn:s> <urn:p>/<urn:q> ?o } }", {("urn:g", "urn:o")}),
    ("SELECT ?g ?s WHERE { GRAPH ?g { ?s <urn:p>/<urn:q> <urn:o> } }", {("urn:g", "urn:s")}),
    ("SELECT ?g ?s WHERE { GRAPH ?g { ?s !(<urn:x>) <urn:o> } }", {("urn:g", "urn:a")}),
    ("SELECT ?g ?s WHERE { GRAPH ?g { ?s <urn:p>+ <urn:a> } }", {("urn:g", "urn:s")}),
], ids=["sequence-object-free", "sequence-object-bound", "negated-set", "one-or-more"])
def test_oxigraph_308_991_1008_paths_inside_graph_patterns(query, expected):
    """https://github.com/oxigraph/oxigraph/issues/308, https://github.com/oxigraph/oxigraph/pull/991,
    https://github.com/oxigraph/oxigraph/pull/1008: property paths inside ``GRAPH ?g``
    failed or were evaluated wrongly with ``?g`` unbound. provgraph keeps each run in its
    own graph and its lineage queries walk paths: each form gives the one right row."""
    store = EmbeddedStore()
    g = IRI("urn:g")
    store.add([(IRI("urn:s"), IRI("urn:p"), IRI("urn:a"), g),
               (IRI("urn:a"), IRI("urn:q"), IRI("urn:o"), g)])
    rows = {tuple(str(v) for v in row.values()) for row in store.select(query)}
    assert rows == expected


def test_oxigraph_1678_a_filter_in_optional_sees_the_outer_binding():
    """https://github.com/oxigraph/oxigraph/pull/1718 (issue 1678): a FILTER inside
    OPTIONAL is the left join's condition and sees the variables bound outside it
    (SPARQL 1.1 §18.2.2.6)."""
    rows = EmbeddedStore().select('SELECT ?x ?y WHERE { VALUES ?x { 1 2 } OPTIONAL { '
                                  'VALUES ?y { "OK" } FILTER(?x >= 2) } }')
    got = {(r["x"].value, None if r["y"] is None else r["y"].value) for r in rows}  # type: ignore[union-attr]
    assert got == {("1", None), ("2", "OK")}


def test_oxigraph_463_a_long_decimal_reads_back_as_written():
    """https://github.com/oxigraph/oxigraph/issues/463: a decimal with 19 or more fraction
    digits was parsed as 0. provgraph's literal stays as written, and the engine does not
    see it as 0 in a query."""
    store = EmbeddedStore()
    value = Literal("0.1000000000000000055", X + "decimal")
    store.add([(IRI(EX + "s"), IRI(EX + "p"), value, None)])
    assert _literals(store) == {value}
    assert not store.ask(f"ASK {{ ?s <{EX}p> ?v FILTER(?v = 0) }}")


def test_oxigraph_1440_1444_digits_in_language_tags():
    """https://github.com/oxigraph/oxigraph/pull/1440 and https://github.com/oxigraph/oxigraph/pull/1444:
    ``es-419`` and ``de-CH-1996`` (BCP 47 subtags with digits) were refused. They import
    from Turtle and PROV-N and come back from every format (tags in lower case: see the
    README, "Literal fidelity")."""
    store = _store(f'@prefix ex: <{EX}> . ex:e a <http://www.w3.org/ns/prov#Entity> ; '
                   'ex:v "hola"@es-419, "Gruezi"@de-CH-1996 .', "turtle")
    assert _literals(store, EX + "v") == {Literal("hola", None, "es-419"),
                                           Literal("Gruezi", None, "de-ch-1996")}
    _round_trips(store)


@pytest.mark.parametrize("label", ["a_", "a.b.c", "0x"])
def test_oxigraph_996_1915_blank_node_labels_the_grammar_allows(tmp_path, label):
    """https://github.com/oxigraph/oxigraph/pull/996 (a label ending in ``_``) and
    https://github.com/oxigraph/oxigraph/pull/1915 (several dots): labels N-Quads allows
    were cut or refused. Both import paths keep one node per label."""
    text = (f"_:{label} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
            f'<http://www.w3.org/ns/prov#Entity> .\n_:{label} <{EX}q> "2" .\n')
    for store in (_store(text, "nquads"), EmbeddedStore(tmp_path / label)):
        if len(store) == 0:
            path = tmp_path / f"{label}.nq"
            path.write_text(text, encoding="utf-8")
            store.bulk_load(path, "nquads")
        assert len({q[0] for q in store.quads()}) == 1
        store.close()


def test_oxigraph_252_a_multi_line_turtle_literal_keeps_its_line_breaks():
    """https://github.com/oxigraph/oxigraph/issues/252: a literal over several lines came
    back without its line feed. provgraph reads it with pyoxigraph and keeps it."""
    store = _store(f'@prefix ex: <{EX}> . ex:e a <http://www.w3.org/ns/prov#Entity> ; '
                   'ex:v """ This value goes over \nseveral lines""" .', "turtle")
    assert _literals(store, EX + "v") == {Literal(" This value goes over \nseveral lines")}


def test_oxigraph_1127_a_character_reference_in_rdf_xml():
    """https://github.com/oxigraph/oxigraph/issues/1127: RDF/XML with the character
    reference ``&#xD;`` failed to parse. provgraph's XML screen refuses entities, not
    character references: the document imports and the carriage return is kept."""
    doc = ('<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
           f'xmlns:ex="{EX}" xmlns:prov="http://www.w3.org/ns/prov#">'
           f'<prov:Entity rdf:about="{EX}e"><ex:v>a&#xD;b</ex:v></prov:Entity></rdf:RDF>')
    assert _literals(_store(doc, "rdf-xml"), EX + "v") == {Literal("a\rb")}


def test_oxigraph_1072_blank_nodes_are_new_in_each_document():
    """https://github.com/oxigraph/oxigraph/issues/1072: two INSERT DATA with ``[ ... ]``
    gave two nodes; Oxigraph answered that this is SPARQL's meaning (a blank node is
    local to its request). The same holds for provgraph's imports: a document's blank
    nodes are fresh on every import, so importing it twice stores its blank-node
    statements twice, while statements about IRIs are stored once."""
    doc = (f'@prefix ex: <{EX}> . @prefix prov: <http://www.w3.org/ns/prov#> .\n'
           "ex:e a prov:Entity ; prov:qualifiedAttribution [ a prov:Attribution ; "
           "prov:agent ex:ag ] .")
    store = EmbeddedStore()
    first = import_document(store, doc.encode(), "turtle")
    second = import_document(store, doc.encode(), "turtle")
    blank = sum(1 for q in pio.read(doc.encode(), "turtle").quads
                if isinstance(q[0], BNode) or isinstance(q[2], BNode))
    assert first.new == first.stored and blank > 0
    assert second.new == blank


def test_oxigraph_220_construct_gives_each_solution_its_own_blank_node():
    """https://github.com/oxigraph/oxigraph/issues/220: unexpected CONSTRUCT results with
    blank nodes. A template blank node is a new node per solution (SPARQL 1.1 §16.2.1)."""
    store = EmbeddedStore()
    store.add([(IRI(EX + "a"), IRI(EX + "p"), Literal("1"), None),
               (IRI(EX + "b"), IRI(EX + "p"), Literal("2"), None)])
    triples = store.construct(f"CONSTRUCT {{ ?s <{EX}has> _:x . _:x <{EX}v> ?o }} "
                              f"WHERE {{ ?s <{EX}p> ?o }}")
    has = {t[0]: t[2] for t in triples if t[1] == IRI(EX + "has")}
    assert len(set(has.values())) == 2 and all(isinstance(n, BNode) for n in has.values())
    values = {t[0]: t[2] for t in triples if t[1] == IRI(EX + "v")}
    assert {s: values[n] for s, n in has.items()} == {IRI(EX + "a"): Literal("1"),
                                                      IRI(EX + "b"): Literal("2")}


@pytest.mark.parametrize("query", [
    "SELECT * WHERE { \\u0053ERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o # \\u000A SERVICE <http://127.0.0.1:9/> { ?s ?p ?o }\n}",
], ids=["escaped-keyword", "escaped-line-feed-in-a-comment"])
def test_oxigraph_376_codepoint_escapes_cannot_hide_a_service_clause(query):
    """https://github.com/oxigraph/oxigraph/issues/376: Oxigraph (0.4 and later) expands
    ``\\uXXXX`` only inside IRIs and strings, while SPARQL 1.1 §19.2 (and rdflib, which
    checks provgraph's queries) expands it everywhere first. The checker therefore reads
    at least what the engine reads: an escaped ``SERVICE`` keyword, or a line feed that
    ends a comment early, is refused before the engine sees the text."""
    from provgraph.sparql_guard import check_untrusted

    with pytest.raises((QueryRefused, QuerySyntaxError)):
        check_untrusted(query, "q.rq")
