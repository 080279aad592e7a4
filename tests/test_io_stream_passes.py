"""A streamed import reads its file more than once (a check pass, then the pass that
stores): the file must be the same in every pass, else nothing is stored
(provgraph.io.stream_load.PassReader)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from provgraph.errors import SerializationError
from provgraph.io import provjson_stream_read, provn_stream_read, provxml_stream_read
from provgraph.io import rdf_stream_read
from provgraph.io.stream_load import PassReader
from provgraph.store import EmbeddedStore

_P = "http://www.w3.org/ns/prov#"

# (reader module, import function, the function of its first whole pass, document);
# each document names urn:ex:e1 once, which the test rewrites in place as urn:ex:e2
_READERS = {
    "prov-json": (provjson_stream_read, "import_provjson_stream", "scan",
                  b'{"prefix": {"ex": "urn:ex:"}, "entity": {"ex:e1": {}}}'),
    "prov-xml": (provxml_stream_read, "import_provxml_stream", "refuse_lexical",
                 b'<prov:document xmlns:prov="http://www.w3.org/ns/prov#" '
                 b'xmlns:ex="urn:ex:"><prov:entity prov:id="ex:e1"/></prov:document>'),
    "provn": (provn_stream_read, "import_provn_stream", "refuse_lexical",
              b"document prefix ex <urn:ex:> entity(ex:e1) endDocument"),
    "rdf-xml": (rdf_stream_read, "import_rdfxml_stream", "_screen_xml",
                b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                b'<rdf:Description rdf:about="urn:ex:e1"><rdf:type rdf:resource="'
                + _P.encode() + b'Entity"/></rdf:Description></rdf:RDF>'),
    "json-ld": (rdf_stream_read, "import_jsonld_stream", "_scan_json",
                b'{"@type": "' + _P.encode() + b'Entity", "@id": "urn:ex:e1"}'),
}


def _subjects(store: EmbeddedStore) -> set[str]:
    return {str(q[0]) for q in store.quads()}


@pytest.mark.parametrize("fmt", sorted(_READERS))
def test_a_file_rewritten_after_the_check_pass_is_refused_and_nothing_is_stored(
        fmt, tmp_path, monkeypatch):
    module, function, first_pass, document = _READERS[fmt]
    path = tmp_path / f"doc.{fmt}"
    path.write_bytes(document)
    original = getattr(module, first_pass)

    def then_rewrite(*args, **kwargs):
        result = original(*args, **kwargs)
        with open(path, "r+b") as f:  # in place: the reader's open file sees it
            f.write(document.replace(b"e1", b"e2"))
        return result

    monkeypatch.setattr(module, first_pass, then_rewrite)
    store = EmbeddedStore(tmp_path / "store")
    with pytest.raises(SerializationError, match="changed while it was imported") as exc:
        getattr(module, function)(store, path, name=str(path))
    assert str(path) in str(exc.value) and "nothing from it was stored" in str(exc.value)
    assert len(store) == 0
    assert not list((tmp_path / "store").glob("**/journal*"))


@pytest.mark.parametrize("fmt", sorted(_READERS))
def test_the_same_file_read_in_every_pass_is_stored(fmt, tmp_path):
    module, function, _, document = _READERS[fmt]
    path = tmp_path / f"doc.{fmt}"
    path.write_bytes(document)
    store = EmbeddedStore(tmp_path / "store")
    report = getattr(module, function)(store, path, name=str(path))
    assert report.stored >= 1
    assert "urn:ex:e1" in _subjects(store)


def test_pass_reader_compares_only_passes_read_from_the_start_to_the_end():
    data = io.BytesIO(b"0123456789")
    f = PassReader(data, "doc")
    assert f.read(4) == b"0123"
    f.seek(0)  # a partial pass: nothing compared, nothing kept
    assert f.read() == b"0123456789"
    f.seek(0)  # the first whole pass
    data.getbuffer()[2] = ord("X")  # the file changes under the reader
    f.seek(5)  # a seek elsewhere makes this pass partial
    assert f.read() == b"56789"
    f.seek(0)
    assert f.read(3) == b"01X"
    with pytest.raises(SerializationError, match="doc: the file changed"):
        list(f.verified(iter(())))  # the rest is read, and this pass compared


def test_pass_reader_passes_bytes_through_readinto_and_read1(tmp_path):
    path = Path(tmp_path / "f")
    path.write_bytes(b"abcdef")
    with open(path, "rb") as raw:
        f = PassReader(raw, "f")
        buf = bytearray(4)
        assert f.readinto(buf) == 4 and bytes(buf) == b"abcd"
        assert f.read1(10) == b"ef"
        f.seek(0)
        assert f.read() == b"abcdef"
        assert list(f.verified(iter(()))) == []


@pytest.mark.parametrize("fmt", ["provn", "prov-json"])
def test_the_import_command_never_reads_a_changed_file_again_whole(fmt, tmp_path, monkeypatch):
    """Under --format auto a streamed reader's refusal used to hand the file to the whole
    read, which then stored whatever was on disk: the change is reported instead."""
    from click.testing import CliRunner

    from provgraph.cli import cli

    module, _, first_pass, document = _READERS[fmt]
    path = tmp_path / ("doc.provn" if fmt == "provn" else "doc.json")
    path.write_bytes(document)
    original = getattr(module, first_pass)

    def then_rewrite(*args, **kwargs):
        result = original(*args, **kwargs)
        with open(path, "r+b") as f:
            f.write(document.replace(b"e1", b"e2"))
        return result

    monkeypatch.setattr(module, first_pass, then_rewrite)
    store = tmp_path / "store"
    got = CliRunner().invoke(cli, ["--store", str(store), "import", str(path)])
    assert got.exit_code != 0 and "changed while it was imported" in got.output, got.output
    check = EmbeddedStore(store) if store.exists() else None
    assert check is None or len(check) == 0
