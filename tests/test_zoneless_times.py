"""Times without a zone (issue 15): every reader compares recorded times by the one rule,
:func:`provgraph.xsd.instant` (a time without a zone is read as UTC), and ``validate``
flags each zone-less ``xsd:dateTime`` as a warning with its statement and graph."""

from __future__ import annotations

import datetime as dt

from provgraph.cli import cli
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore
from provgraph.terms import XSD, Literal
from provgraph.validate import check_graph, validate

MIXED_TTL = b"""@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
ex:a a prov:Activity ; prov:startedAtTime "2026-03-01T12:00:00Z"^^xsd:dateTime ;
    prov:endedAtTime "2026-03-01T10:00:00"^^xsd:dateTime .
ex:b a prov:Activity ; prov:startedAtTime "2026-03-01T08:00:00+01:00"^^xsd:dateTime .
"""
_TIME = "<http://www.w3.org/2001/XMLSchema#dateTime>"


def _store(data: bytes) -> EmbeddedStore:
    store = EmbeddedStore()
    import_document(store, data, "turtle")
    return store


def test_a_zone_less_time_is_read_as_utc_by_literal_to_python():
    # the record decoders (schema/) read times through to_python: a naive datetime there
    # could not be compared with an aware one (TypeError) by any reader that orders them
    got = Literal("2026-03-02T09:00:00", XSD + "dateTime").to_python()
    assert got == dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
    assert got > Literal("2026-03-02T10:00:00+05:00", XSD + "dateTime").to_python()


def test_validate_orders_a_zone_less_end_against_a_zoned_start_as_utc():
    # the constraint checks had their own rule and skipped the comparison
    store = _store(MIXED_TTL)
    triples = [(q[0], q[1], q[2]) for q in store.quads()]
    assert [v.constraint for v in check_graph(triples)] == ["C30 start-precedes-end"]


def test_validate_warns_about_each_zone_less_time_with_its_statement():
    store = _store(MIXED_TTL)
    report = validate(store, shapes=False)
    assert [(w.rule, w.statements, w.graph) for w in report.warnings] == [
        ("zone-less xsd:dateTime",
         (f'<http://example.org/a> <http://www.w3.org/ns/prov#endedAtTime> '
          f'"2026-03-01T10:00:00"^^{_TIME} .',), None)]
    assert report.warnings[0].message == (
        '"2026-03-01T10:00:00" has no time zone; provgraph reads it as UTC. Give the zone '
        "(Z or +hh:mm) in the source document")


def test_cli_validate_prints_the_warnings_on_stderr(runner, tmp_path):
    src = tmp_path / "mixed.ttl"
    src.write_bytes(MIXED_TTL.replace(b"12:00:00Z", b"09:00:00Z"))  # ordered: no violation
    store = str(tmp_path / "s")
    assert runner.invoke(cli, ["--store", store, "import", str(src)]).exit_code == 0
    res = runner.invoke(cli, ["--store", store, "validate"])
    assert res.exit_code == 0, res.output
    assert ("warning zone-less xsd:dateTime: \"2026-03-01T10:00:00\" has no time zone"
            in res.stderr)
    assert "1 warning(s)" in res.stderr
