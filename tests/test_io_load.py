"""provgraph.io.load: the check a bulk load runs before it stores anything."""

from __future__ import annotations

import pytest

from provgraph.errors import SerializationError
from provgraph.io import load
from provgraph.io.load import check_bulk_file
from provgraph.store import graph_names

_P = "<http://www.w3.org/ns/prov#wasDerivedFrom>"


@pytest.mark.parametrize("graph, parsed", [
    ("<urn:provgraph:graph:ontolog\\u0079>", "urn:provgraph:graph:ontology"),
    ("<urn:provgraph:graph:ontolog\\U00000079>", "urn:provgraph:graph:ontology"),
    ("<urn\\u003Aprovgraph:graph:ontology>", "urn:provgraph:graph:ontology"),
    ("<urn:provgraph:graph:ontolog%79>", "urn:provgraph:graph:ontolog%79"),  # not decoded
    ("<urn:provgraph:graph:ontolog\\y>", None),  # no other escape
    ("<ontology>", None),  # no relative IRI
    ("<urn:provgraph:graph:ontology> . <urn:x:c> <urn:x:p> <urn:x:d>", None),  # one a line
])
def test_the_engine_writes_a_graph_name_only_as_the_check_expects(graph, parsed):
    """What check_bulk_file's byte search rests on (load._MARKS): pyoxigraph gives a
    statement the ontology graph only when its line holds the IRI as written or an escape."""
    line = f"<urn:x:a> {_P} <urn:x:b> {graph} .\n".encode()
    if parsed is None:
        with pytest.raises(SerializationError):
            graph_names(line, "nquads")
    else:
        assert graph_names(line, "nquads") == {parsed}


def test_a_refused_statement_is_found_in_any_window_by_its_line(tmp_path, monkeypatch):
    """Windows of a few lines: the line number counts from the start of the file; a line
    that does not parse, in the same window, before it, is passed over (the load refuses
    it), and literals with escapes are parsed and let through."""
    monkeypatch.setattr(load, "_SCAN_WINDOW", 200)
    good = f'<urn:x:a> {_P} <urn:x:b> <urn:x:g> .\n'
    escaped_literal = f'<urn:x:a> <urn:x:label> "caf\\u00E9" <urn:x:g> . # <urn:x:c>\n'
    bad = "<urn:x:a> <urn:x:p> <urn:x:\\u0062 .\n"
    refused = f"<urn:x:a> {_P} <urn:x:b> <urn:provgraph:graph:ontolog\\u0079> . # <urn:x:g>\n"
    nq = tmp_path / "big.nq"
    nq.write_text((good + escaped_literal) * 20 + bad + refused + good, encoding="utf-8")
    with pytest.raises(SerializationError, match=r"^big\.nq:42: the document writes into "
                                                 r"<urn:provgraph:graph:ontology>"):
        check_bulk_file(nq, "nquads", name="big.nq")
    nq.write_text((good + escaped_literal) * 20 + bad + good, encoding="utf-8")
    check_bulk_file(nq, "nquads")  # nothing refused: the load reports the bad line
