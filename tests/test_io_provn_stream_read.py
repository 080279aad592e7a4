"""The streamed PROV-N import (provgraph.io.provn_stream_read) agrees with the
whole-document one (provgraph.io.load.import_document): same statements stored (blank
nodes canonicalized), same report (warnings included, with their lines), same refusals;
a document it does not stream is left to the whole read, whose error names the file and
line, and nothing is stored (issue 16, item 6)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provgraph.errors import SerializationError
from provgraph.io import provn_stream_read as streamed_read
from provgraph.io.load import import_document
from provgraph.io.provn_stream_read import import_provn_stream, statements
from provgraph.io.stream_load import NotStreamed
from provgraph.store import EmbeddedStore

from .stream_agreement import (agree_on_every_document, both_ways, documents, labels,
                               refusals)


def _both(data: bytes, name: str, graph: str | None = None):
    return both_ways(data, name, "provn", import_provn_stream, graph=graph)


def _documents() -> list[tuple[str, bytes]]:
    """Every PROV-N case (shared and the project's own), and every other readable PROV
    case written as PROV-N (bundles, blank nodes, qualified relations, typed values)."""
    return documents("provn", ".provn", lambda path, data: path.suffix == ".provn")


@pytest.mark.parametrize("chunk", [streamed_read.CHUNK_RECORDS, 1])
def test_every_readable_provn_case_streams_to_the_same_statements_and_report(chunk,
                                                                            monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", chunk)
    docs = _documents()
    assert len(docs) >= 300
    seen, not_streamed = agree_on_every_document(docs, "provn", import_provn_stream,
                                                 bundle=b"bundle", left_is_refused=True)
    assert seen["compared"] > 250 and seen["refused"] >= 3 and seen["warned"] >= 5, seen
    assert seen["bundles"] >= 5 and seen["blank"] >= 5, seen
    assert sorted(not_streamed) == NOT_STREAMED, sorted(not_streamed)


NOT_STREAMED = ["bundle-fail1.provn", "syntax_error.provn", "undeclared_prefix.provn"]
"""Cases the whole read refuses (a syntax error, a prefix no one declares, a bundle in a
bundle): left to it, so its message is the one given."""


@pytest.mark.parametrize("block", [64, 200, 4096])
def test_small_blocks_split_the_same_statements(block):
    """Statements cut by a block's end (strings with escapes and parentheses, comments,
    long strings over several lines) are split where one whole read of the text splits."""
    doc = ('document\n  prefix ex <urn:ex:>  // a comment with ) and "\n'
           '  default <urn:d:>\n'
           '  entity(ex:e, [ex:v="a \\"quoted\\" ) string", ex:w="""long\n ) string\n"""])\n'
           '  /* a ( block\n comment */ activity(a1, 2024-01-01T00:00:00Z, -)\n'
           '  bundle ex:b prefix ex <urn:other:>\n'
           '    wasGeneratedBy(ex:g; ex:e, a1, -, [ex:note=\'ex:q\'])\n'
           '  endBundle\n'
           'endDocument\n').encode()
    whole = list(statements(io.BytesIO(doc), block=1 << 20))
    got = list(statements(io.BytesIO(doc), block=block))
    assert got == whole
    assert [s.kind for s in whole] == ["document", "prefix", "default", "record", "record",
                                       "bundle", "prefix", "record", "endBundle", "endDocument"]
    assert whole[3].line == 4 and whole[4].line == 8 and whole[4].times == ("2024-01-01T00:00:00Z",)
    assert whole[4].key == (None, "urn:d:a1") and whole[7].key == ("ex:b", "urn:other:g")


_BAD = [
    pytest.param('entity(ex:e, [ex:v="no end])\n', "line 303, column 22: unterminated string",
                 id="unterminated-string"),
    pytest.param("entity(ex:e, [ex:v=1]\n", "line 304, column 1: expected ')', found "
                 "'endDocument'", id="unbalanced"),
    pytest.param("entity(ex:e)\n", "line 304, column 1: expected 'endDocument', found end of "
                 "input", id="no-endDocument"),
    pytest.param("entity(ex:e) /* never closed\n", "line 303, column 16: unterminated comment",
                 id="unterminated-comment"),
]


def _bad(text: str, what: str) -> bytes:
    body = "".join(f"  entity(ex:e{i}, [ex:v=\"({i})\"])\n" for i in range(300))
    end = "" if "expected 'endDocument'" in what else "endDocument\n"
    return ("document\n  prefix ex <urn:ex:>\n" + body + "  " + text + end).encode()


@pytest.mark.parametrize("text, what", _BAD)
def test_bad_input_is_left_to_the_whole_read_which_names_the_line(text, what, tmp_path,
                                                                  monkeypatch):
    """A document the split cannot finish is left to the whole read (NotStreamed), after
    the statements before the fault were stored and undone; the whole read's error names
    the file and the line."""
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", 10)
    data = _bad(text, what)
    store = EmbeddedStore(tmp_path / "s")
    with pytest.raises(NotStreamed):
        import_provn_stream(store, io.BytesIO(data), name="bad.provn")
    assert len(store) == 0
    store.close()
    with pytest.raises(SerializationError) as whole:
        import_document(EmbeddedStore(), data, "provn", name="bad.provn")
    assert str(whole.value).startswith("bad.provn: ") and what in str(whole.value)


@pytest.mark.parametrize("text, what", _BAD)
def test_the_cli_gives_the_whole_reads_error_and_keeps_the_store(text, what, runner, tmp_path):
    """``provgraph import bad.provn`` into a store holding statements: exit 2, the whole
    read's message (file, line, column), and the store as it was."""
    from provgraph.cli import cli

    store = tmp_path / "s"
    good = tmp_path / "good.provn"
    good.write_text("document prefix ex <urn:ex:> entity(ex:kept) endDocument\n")
    assert runner.invoke(cli, ["--store", str(store), "import", str(good)]).exit_code == 0
    bad = tmp_path / "bad.provn"
    bad.write_bytes(_bad(text, what))
    got = runner.invoke(cli, ["--store", str(store), "import", str(bad)])
    assert got.exit_code == 2, got.output  # bad input (InputError)
    assert f"Error: {bad}: not a PROV-N document" in got.output and what in got.output
    s = EmbeddedStore(store)
    assert [q[0] for q in s.quads()] == ["urn:ex:kept"]
    s.close()


def test_a_refusal_after_stored_chunks_undoes_them(tmp_path, monkeypatch):
    """A record the PROV-O mapping refuses, late in the document, after chunks were
    stored: the same error as the whole read, nothing stored, no journal left."""
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", 10)
    monkeypatch.setattr("provgraph.io.stream_load.STREAM_BATCH", 20)
    body = "".join(f"  entity(ex:e{i}, [prov:label=\"e\"])\n" for i in range(300))
    data = ("document\n  prefix ex <urn:ex:>\n" + body
            + "  wasInformedBy(ex:a2, -)\nendDocument\n").encode()
    path = tmp_path / "late.provn"
    path.write_bytes(data)
    store = EmbeddedStore(tmp_path / "s")
    got, whole = refusals(store, path, data, "provn", import_provn_stream, "late.provn")
    assert labels(got) == labels(whole)
    assert len(store) == 0
    assert not (tmp_path / "s" / "journal.nq").exists()
    store.close()


def test_records_sharing_an_id_far_apart_are_checked_together(monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", 1)
    data = (b"document prefix ex <urn:ex:>\n"
            b"wasDerivedFrom(ex:d; ex:b, ex:a)\n"
            b"activity(ex:x, 2024-01-01T00:00:00Z, -)\n"
            b"entity(ex:a)\nentity(ex:b)\n"
            b"activity(ex:x, 2024-01-02T00:00:00+00:00, -)\n"
            b"wasDerivedFrom(ex:d; ex:b, ex:a, ex:y, -, -)\n"
            b"endDocument\n")
    whole, streamed = _both(data, "k.provn")
    assert streamed == whole
    warnings = whole[0][5]
    assert any("C22" in w for w in warnings) and any("Definition 4" in w for w in warnings)


_NAME = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)
_VALUE = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)
    .map(lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'),
    st.integers(-5, 5).map(str),
    st.just("'ex:q'"))


@st.composite
def _provn(draw):
    lines = ["document", "  prefix ex <urn:ex:>"]
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["entity", "activity", "used", "bundle", "comment"]))
        if kind == "comment":
            lines.append("  // ) ( \" " + draw(_NAME))
            continue
        attrs = draw(st.lists(st.tuples(_NAME, _VALUE), max_size=2))
        attr = ", [" + ", ".join(f"ex:{k}={v}" for k, v in attrs) + "]" if attrs else ""
        ident = "ex:" + draw(_NAME)
        if kind == "bundle":
            lines += [f"  bundle ex:b{draw(_NAME)}", f"    entity({ident}{attr})", "  endBundle"]
        elif kind == "used":
            lines.append(f"  used(ex:u{draw(_NAME)}; {ident}, ex:e{attr})")
        else:
            lines.append(f"  {kind}({ident}{attr})")
    lines.append("endDocument")
    return "\n".join(lines).encode()


@settings(max_examples=60, deadline=None)
@given(_provn())
def test_generated_documents_stream_alike(doc):
    streamed_read_chunk = streamed_read.CHUNK_RECORDS
    try:
        streamed_read.CHUNK_RECORDS = 2
        whole, streamed = _both(doc, "g.provn")
    finally:
        streamed_read.CHUNK_RECORDS = streamed_read_chunk
    if streamed[0][0] == "not streamed":
        assert whole[0][0] == "error"
    else:
        assert streamed == whole


def test_the_cli_streams_a_provn_file(runner, tmp_path, monkeypatch):
    from provgraph.cli import cli

    calls = []
    real = streamed_read.ProvChunks.store
    monkeypatch.setattr(streamed_read.ProvChunks, "store",
                        lambda self, *a, **k: calls.append(k["reader"]) or real(self, *a, **k))
    body = "".join(f"  entity(ex:e{i})\n" for i in range(40))
    path = tmp_path / "doc.provn"
    path.write_text("document\n  prefix ex <urn:ex:>\n" + body + "endDocument\n")
    got = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", str(path)],
                        catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert f"imported {path} (provn): 40 statements stored (40 new, 0 inferred)" in got.output
    assert len(calls) == 1 and "streamed" in calls[0]


@pytest.mark.parametrize("second", ["ex:ba", "e2:ba"])
def test_two_bundles_with_one_identifier_are_left_to_the_whole_read_which_refuses_them(second):
    # found by the generated-documents test: the streamed read stored such a document
    doc = ("document prefix ex <urn:ex:> prefix e2 <urn:ex:> bundle ex:ba entity(ex:a) "
           f"endBundle bundle {second} entity(ex:a) endBundle endDocument").encode()
    whole, streamed = _both(doc, "twice.provn")
    assert streamed[0][0] == "not streamed" and "earlier bundle" in streamed[0][1]
    assert whole[0][0] == "error" and "A bundle with that identifier already exists" in whole[0][1]
