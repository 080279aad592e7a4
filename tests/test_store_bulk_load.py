"""EmbeddedStore.bulk_load streams line-based files in windows (issue 8): the result is
the same as one load, a file with blank nodes keeps one node per label, and a syntax
error names its line in the whole file."""

from __future__ import annotations

import pytest

import provgraph.store as store_mod
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
    monkeypatch.setattr(store_mod, "_BULK_WINDOW_BYTES", 300)


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
    s = EmbeddedStore(tmp_path / "a")
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
