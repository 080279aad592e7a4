"""EmbeddedStore.bulk_load streams line-based files in windows (issue 8): the result is
the same as one load, a file with blank nodes keeps one node per label, and a syntax
error names its line in the whole file."""

from __future__ import annotations

import pytest

import provgraph.embedded as embedded_mod
from provgraph import EmbeddedStore, SerializationError, StoreError
from provgraph.terms import IRI

class CountingStore:
    """Delegates to a pyoxigraph Store and counts bulk_load calls."""

    def __init__(self, inner):
        self.inner, self.bulk_loads = inner, 0

    def bulk_load(self, *a, **k):
        self.bulk_loads += 1
        return self.inner.bulk_load(*a, **k)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def __len__(self):
        return len(self.inner)


PLAIN = [f'<urn:x:s{i}> <urn:x:p> "value {i} café" <urn:x:g{i % 3}> .\n' for i in range(60)]

LINES = [
    f'<urn:x:s{i}> <urn:x:p> "value {i} café" <urn:x:g{i % 3}> .\n' for i in range(60)
] + ['_:shared <urn:x:p> "first" <urn:x:g0> .\n'] + [
    f"<urn:x:s{i}> <urn:x:q> <urn:x:o{i}> <urn:x:g1> .\n" for i in range(60)
] + ['_:shared <urn:x:q> "second" <urn:x:g0> .\n']


@pytest.fixture
def small_windows(monkeypatch):
    monkeypatch.setattr(embedded_mod, "_BULK_WINDOW_BYTES", 300)


def test_windowed_bulk_load_equals_one_load(tmp_path, small_windows):
    path = tmp_path / "data.nq"
    path.write_text("".join(PLAIN), encoding="utf-8")
    windowed = EmbeddedStore(tmp_path / "a")
    windowed._store = CountingStore(windowed._store)
    windowed.bulk_load(path, "nquads")
    assert windowed._store.bulk_loads == 10  # 300 bytes + the rest of a line: 6 lines each
    whole = EmbeddedStore()
    whole.load(path.read_bytes(), "nquads")
    assert len(windowed) == 60
    assert windowed.canonical_nquads() == whole.canonical_nquads()
    windowed._store = windowed._store.inner
    windowed.close()
    whole.close()


def test_a_file_with_blank_nodes_is_loaded_whole(tmp_path, small_windows):
    path = tmp_path / "data.nq"
    path.write_text("".join(LINES), encoding="utf-8")
    # the engine's own loader (a store with a ledger parses such a file itself, so that the
    # ledger names the blank nodes the store holds: tests/test_ledger.py)
    s = EmbeddedStore(tmp_path / "a", ledger=False)
    s._store = CountingStore(s._store)
    s.bulk_load(path, "nquads")
    assert s._store.bulk_loads == 1
    assert len(s) == len(LINES) == 122
    rows = s.select("SELECT (COUNT(DISTINCT ?b) AS ?n) WHERE { ?b <urn:x:p> \"first\" ; "
                    "<urn:x:q> \"second\" }")
    assert rows[0]["n"].value == "1"  # the label used on lines 61 and 122 is one node
    s._store = s._store.inner
    s.close()


def test_ntriples_windows_go_to_the_given_graph(tmp_path, small_windows):
    path = tmp_path / "data.nt"
    path.write_text("".join(f"<urn:x:s{i}> <urn:x:p> \"{i}\" .\n" for i in range(40)), encoding="utf-8")
    s = EmbeddedStore(tmp_path / "a")
    s.bulk_load(path, "ntriples", graph=IRI("urn:x:g"))
    assert len(s) == 40
    assert s.named_graphs() == [IRI("urn:x:g")]
    s.close()


def test_syntax_error_in_a_later_window_names_the_line_in_the_file(tmp_path, small_windows):
    good = [f"<urn:x:s{i}> <urn:x:p> \"{i}\" <urn:x:g> .\n" for i in range(50)]
    path = tmp_path / "bad.nq"
    path.write_text("".join(good) + '<urn:x:s> <urn:x:p> "unterminated <urn:x:g> .\n', encoding="utf-8")
    s = EmbeddedStore(tmp_path / "a")
    with pytest.raises(SerializationError, match=r"between line 51 column \d+ and line 52"):
        s.bulk_load(path, "nquads")
    s.close()


def test_missing_file_is_a_store_error(tmp_path):
    s = EmbeddedStore(tmp_path / "a")
    with pytest.raises(StoreError, match="missing.nq"):
        s.bulk_load(tmp_path / "missing.nq", "nquads")
    s.close()


# -- literal fidelity on the bulk path (issue 15) -----------------------------------------

X = "http://www.w3.org/2001/XMLSchema#"
CHANGED = [('"7"', "int"), ('"2.0"', "decimal"), ('"2024-01-01T10:00:16.000+00:00"', "dateTime"),
           ('"1.0E0"', "double"), ('"1"', "boolean"), ('"007"', "integer")]
"""Literals pyoxigraph's own loader would store in another form (tests/test_store_literals.py)."""


def _typed_lines(n: int, blank: bool = False) -> list[str]:
    subject = "_:shared" if blank else "<urn:x:s{i}>"
    out = []
    for i in range(n):
        lex, dt = CHANGED[i % len(CHANGED)]
        out.append(f"{subject.format(i=i)} <urn:x:p{i}> {lex}^^<{X}{dt}> <urn:x:g> .\n")
        out.append(f"<urn:x:s{i}> <urn:x:q> \"plain {i}\" <urn:x:g> .\n")
    return out


@pytest.mark.parametrize("blank", [False, True], ids=["windows", "whole-file"])
def test_bulk_load_keeps_datatype_and_lexical_form(tmp_path, small_windows, blank):
    """The bulk path applies the same literal encoding as load(): "7"^^xsd:int stays
    xsd:int, "2.0" stays "2.0" (it kept the engine's canonical forms before: failed)."""
    lines = _typed_lines(40, blank)
    path = tmp_path / "data.nq"
    path.write_text("".join(lines), encoding="utf-8")
    bulk = EmbeddedStore(tmp_path / "a")
    bulk.bulk_load(path, "nquads")
    plain = EmbeddedStore()
    plain.load(path.read_bytes(), "nquads")
    assert bulk.canonical_nquads() == plain.canonical_nquads()
    got = {q[2] for q in bulk.quads(predicate=None) if q[1].startswith("urn:x:p")}
    from provgraph.terms import Literal
    assert Literal("7", X + "int") in got and Literal("2.0", X + "decimal") in got
    assert Literal("2024-01-01T10:00:16.000+00:00", X + "dateTime") in got
    bulk.close()
    plain.close()


def test_bulk_load_of_ntriples_and_turtle_keeps_literal_forms(tmp_path, small_windows):
    from provgraph.terms import Literal

    nt = tmp_path / "data.nt"
    nt.write_text("".join(f"<urn:x:s{i}> <urn:x:p> \"0{i}\"^^<{X}int> .\n" for i in range(30)),
                  encoding="utf-8")
    ttl = tmp_path / "data.ttl"
    ttl.write_text(f"@prefix xsd: <{X}> .\n<urn:x:t> <urn:x:p> \"1.50\"^^xsd:decimal, 1.0e0, "
                   "\"+5\"^^xsd:short .\n", encoding="utf-8")
    s = EmbeddedStore(tmp_path / "a")
    s.bulk_load(nt, "ntriples", graph=IRI("urn:x:g"))
    s.bulk_load(ttl, "turtle")
    values = {q[2] for q in s.quads()}
    assert {Literal(f"0{i}", X + "int") for i in range(30)} <= values
    assert {Literal("1.50", X + "decimal"), Literal("1.0e0", X + "double"),
            Literal("+5", X + "short")} <= values
    assert s.named_graphs() == [IRI("urn:x:g")]
    s.close()


def test_a_syntax_error_after_encoded_lines_still_names_its_line(tmp_path, small_windows):
    """Encoding rewrites lines in place: the engine's line numbers stay the file's."""
    lines = _typed_lines(25)
    path = tmp_path / "bad.nq"
    path.write_text("".join(lines) + '<urn:x:s> <urn:x:p> "unterminated <urn:x:g> .\n',
                    encoding="utf-8")
    s = EmbeddedStore(tmp_path / "a")
    with pytest.raises(SerializationError, match=r"between line 51 column \d+ and line 52"):
        s.bulk_load(path, "nquads")
    s.close()
