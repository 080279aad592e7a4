"""The importer registry, the all-or-nothing rule, and the offset-unit helpers."""

from __future__ import annotations

import dataclasses
import json

import pytest

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed, ProvgraphError, RecordError, UnsupportedFormat
from provgraph.importers import FORMATS, ImportReport, import_file
from provgraph.importers._spans import (
    SpanError, claim_before, find_normalized, match_span, segment_claims, sentences, to_codepoints,
)

from .importers_support import fixture, fixture_json, slice_unit, snapshots


def test_registry_names_every_format_and_each_module_imports():
    assert list(FORMATS) == ["anthropic", "cohere", "bedrock", "openai", "vertex", "ragchecker",
                             "alce", "answer", "otlp"]
    import importlib
    for name in FORMATS:
        module = importlib.import_module(f"provgraph.importers.{name}")
        assert callable(module.parse) and module.GENERATOR_INPUT


def test_unknown_format_and_misplaced_sources():
    with pytest.raises(UnsupportedFormat) as info:
        import_file(EmbeddedStore(), "langchain", b"{}", "x.json")
    assert info.value.known == list(FORMATS)
    with pytest.raises(RecordError, match="sources apply only to the answer format"):
        import_file(EmbeddedStore(), "cohere", b"{}", "x.json", sources=["a.txt"])


def test_import_failed_is_a_provgraph_error_carrying_a_frozen_report():
    with pytest.raises(ProvgraphError) as info:
        import_file(EmbeddedStore(), "vertex", b"not json at all", "x.json")
    assert isinstance(info.value, ImportFailed)
    report = info.value.report
    assert isinstance(report, ImportReport) and report.run is None
    [err] = report.errors
    assert (err.item, err.path) == (None, "$")
    assert err.message == ("is not JSON (Expecting value at line 1 column 1); the vertex format "
                           "expects JSON or JSON Lines")
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.stored = 3  # type: ignore[misc]


def test_partial_with_no_valid_item_still_fails_and_stores_nothing():
    store = EmbeddedStore()
    lines = b'{"response": {"message": {"content": []}}}\n{not json}\n'
    with pytest.raises(ImportFailed) as info:
        import_file(store, "cohere", lines.replace(b'{"response"', b'{"oops"'), "x.jsonl", partial=True)
    errs = info.value.report.errors
    assert [(e.item, e.path) for e in errs] == [(0, "line 1"), (1, "line 2")]
    assert errs[1].message == "is not JSON (Expecting property name enclosed in double quotes at column 2)"
    assert len(store) == 0 and store.named_graphs() == []


def test_reimport_makes_a_second_run_over_the_same_snapshots():
    store = EmbeddedStore()
    a = import_file(store, "cohere", fixture("cohere_v1.json"), "cohere_v1.json")
    before = set(snapshots(store))
    b = import_file(store, "cohere", fixture("cohere_v1.json"), "cohere_v1.json")
    assert a.run != b.run and set(snapshots(store)) == before
    assert sorted(store.named_graphs())[-2:] == sorted([a.run, b.run])


def test_run_configuration_names_the_input_and_its_digest():
    store = EmbeddedStore()
    data = fixture("cohere_v1.json")
    r = import_file(store, "cohere", data, "cohere_v1.json")
    [row] = store.select("PREFIX pg: <https://w3id.org/provgraph/ns#> "
                         "SELECT ?run ?c WHERE { GRAPH ?run { ?run pg:configuration ?c } }",
                         {"run": r.run})
    config = row["c"].to_python()
    import hashlib
    assert config["input_sha256"] == hashlib.sha256(data).hexdigest()
    assert store.originals.get(config["input_sha256"]) == data
    assert (config["importer"], config["input"], config["items"]) == ("cohere", "cohere_v1.json", 1)
    assert config["generator_input"].startswith("reconstructed:")


# --------------------------------------------------------------------------- _spans

TEXT = "Café 😋 naïve ok"


@pytest.mark.parametrize("unit, start, end", [
    ("codepoint", 5, 7), ("utf16_unit", 5, 8), ("utf8_byte", 6, 11)])
def test_units_agree_with_encoding_slices(unit, start, end):
    assert slice_unit(TEXT, start, end, unit) == "😋 "
    s, e = to_codepoints(TEXT, start, end, unit)
    assert TEXT[s:e] == "😋 "
    s, e = to_codepoints(TEXT, start, end - 1, unit, end_inclusive=True)
    assert TEXT[s:e] == "😋 "


@pytest.mark.parametrize("unit, offset, message", [
    ("utf16_unit", 6, "UTF-16 offset 6 falls inside a surrogate pair"),
    ("utf8_byte", 4, "byte offset 4 falls inside a multi-byte UTF-8 sequence"),
    ("codepoint", 99, "offset 99 is past the text (15 code points)"),
    ("utf8_byte", -1, "offset -1 is negative"),
])
def test_offsets_inside_characters_or_past_the_text_are_errors(unit, offset, message):
    with pytest.raises(SpanError) as info:
        to_codepoints(TEXT, offset, 15 if offset < 15 else offset, unit)
    assert str(info.value) == message


def test_match_span_reports_what_the_range_holds():
    with pytest.raises(SpanError) as info:
        match_span("abc def", 0, 3, "def", ("codepoint",))
    assert str(info.value) == ("range [0, 3) holds 'abc', not the cited text 'def', counted in "
                               "codepoint")


def test_sentences_keep_abbreviations_decimals_and_trailing_markers():
    t = "Dr. Who paid 3.5 €. Then he left. [2] Fin"
    assert [t[s:e] for s, e, _ in sentences(t)] == ["Dr. Who paid 3.5 €.", "Then he left.", "Fin"]
    assert [t[s:r] for s, _, r in sentences(t)][1] == "Then he left. [2]"
    assert [(t[s:e], g.numbers if g else None) for s, e, g in segment_claims(t)] == [
        ("Dr. Who paid 3.5 €.", None), ("Then he left.", (2,)), ("Fin", None)]
    assert claim_before("One. Two ([a](b)) three.", 9) == (5, 8)


def test_find_normalized():
    assert find_normalized("a\n  b c", "a b") == (0, 5)
    assert find_normalized("abc", "   ") is None


def test_fixtures_are_payload_shaped_json():
    for name in ("anthropic_citations.json", "cohere_v2.json", "cohere_v1.json", "bedrock_rag.json",
                 "openai_responses.json", "vertex_grounding.json"):
        assert isinstance(fixture_json(name), dict)
        json.loads(fixture(name).decode("utf-8"))


def test_a_recording_failure_stores_nothing_or_only_the_other_items(monkeypatch):
    from provgraph.importers import cohere
    from provgraph.importers._common import ClaimSpec, ItemSpec, text_doc

    def parse(data, name, sources=()):
        good = ItemSpec(docs=[text_doc("d", "Water boils.", "x#d")], answer="Water boils.",
                        claims=[ClaimSpec(start=0, end=12)])
        bad = ItemSpec(docs=[], answer="abc", claims=[ClaimSpec(start=0, end=9)])
        return [good, bad], []

    monkeypatch.setattr(cohere, "parse", parse)
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "cohere", b"{}", "x.json")
    [err] = info.value.report.errors
    assert (err.item, err.path) == (1, "$")
    assert err.message == ("could not be recorded: claim span [0, 9) is outside the answer "
                           "(0..3 code points)")
    assert len(store) == 0
    r = import_file(store, "cohere", b"{}", "x.json", partial=True)
    assert (r.items_ok, r.answers, r.claims, r.snapshots, len(r.errors)) == (1, 1, 1, 1, 1)
    assert r.stored == len(store) > 50  # a fresh store holds exactly what was stored


@pytest.mark.parametrize("fmt", ["anthropic", "cohere", "openai", "vertex"])
def test_a_truncated_pretty_printed_document_is_one_json_error_not_line_items(fmt):
    # a pretty-printed response cut short was read as JSON Lines: "item 0 at line 1: is not
    # JSON (Expecting property name ...); item 1 at line 2: ... and 7 more"
    store = EmbeddedStore()
    text = json.dumps({"id": "msg_1", "content": [{"type": "text", "text": "a"}],
                       "model": "m", "role": "assistant", "usage": {"a": 1}}, indent=2)
    cut = text[:text.index('"model"') + 5].encode()
    with pytest.raises(ImportFailed) as info:
        import_file(store, fmt, cut, "resp.json")
    errs = info.value.report.errors
    assert len(errs) == 1 and errs[0].path == "$", errs
    assert errs[0].message.startswith("is not JSON (Unterminated string starting at line 9 column 3)"), \
        errs[0].message
    assert len(store) == 0


@pytest.mark.parametrize("fmt", ["anthropic", "bedrock", "cohere"])
@pytest.mark.parametrize("data", [b"", b"\n  \n", b"\xef\xbb\xbf"])
def test_an_empty_file_is_empty_not_a_json_syntax_error(data, fmt):
    # it said "is not JSON (Expecting value at line 1 column 1)", where the plain import
    # of the same file says "is empty"
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), fmt, data, "x.json")
    [err] = info.value.report.errors
    assert err.message == "is empty: there is nothing to import", err.message


def test_a_lone_surrogate_escape_is_a_payload_error_not_a_traceback():
    # found by fuzzing (tests/test_fuzz_parsers.py, issue 20): a Cohere document titled
    # "Horaires\ud800" was UnicodeEncodeError when its text was retained; every JSON reader
    # now refuses it in provgraph.limits.loads_json, with its line and column
    doc = fixture_json("cohere_v2.json")
    data = json.dumps(doc).replace('"title": "Horaires"', '"title": "Horaires\\ud800"').encode()
    assert b"\\ud800" in data
    store = EmbeddedStore()
    with pytest.raises(ImportFailed, match=r"is not JSON \(a lone UTF-16 surrogate escape "
                                           r"\(\\ud800\), which is not Unicode text at line 1"):
        import_file(store, "cohere", data, "horaires.json")
    assert len(store) == 0


def test_a_failed_import_removes_the_originals_it_wrote_and_only_those(monkeypatch, tmp_path,
                                                                       runner):
    """A failed import stored no statement but left the originals it retained (the input
    file, each passage): unreferenced blobs, evidence of nothing. It now removes those it
    wrote; an original an earlier import retained (the same passage) stays, and the store
    still verifies."""
    from provgraph.cli import cli
    from provgraph.importers import cohere
    from provgraph.importers._common import ClaimSpec, ItemSpec, text_doc
    from provgraph.originals import Originals, sha256_hex

    kept, passage = "Water boils.", "Ice melts at zero."
    bad_item = [False]

    def parse(data, name, sources=()):
        good = ItemSpec(docs=[text_doc("d", kept, "x#d")], answer=kept,
                        claims=[ClaimSpec(start=0, end=len(kept))])
        if not bad_item[0]:
            return [good], []
        more = ItemSpec(docs=[text_doc("e", passage, "x#e")], answer=passage,
                        claims=[ClaimSpec(start=0, end=len(passage))])
        bad = ItemSpec(docs=[], answer="abc", claims=[ClaimSpec(start=0, end=9)])
        return [good, more, bad], []

    monkeypatch.setattr(cohere, "parse", parse)
    store = tmp_path / "store"
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_bytes(b'{"first": 1}')
    second.write_bytes(b'{"second": 2}')
    base = ["--store", str(store), "import", "--format", "cohere"]
    ok = runner.invoke(cli, [*base, str(first)], catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    blobs = Originals(store / "originals")
    before = set(blobs.digests())
    assert {sha256_hex(kept.encode()), sha256_hex(first.read_bytes())} <= before
    bad_item[0] = True
    failed = runner.invoke(cli, [*base, str(second)])
    assert failed.exit_code == 2, failed.output
    assert "second.json: nothing was stored: item 2 at $: could not be recorded: claim span " \
           "[0, 9) is outside the answer" in failed.stderr, failed.stderr
    after = set(blobs.digests())
    assert sha256_hex(passage.encode()) not in after  # written by the failed import: removed
    assert sha256_hex(second.read_bytes()) not in after
    assert after == before  # what the first import retained (the shared passage too) stays
    verified = runner.invoke(cli, ["--store", str(store), "verify"])
    assert verified.exit_code == 0, verified.output
    assert "not listed in the ledger" not in verified.stderr


def test_a_discarded_original_is_not_listed_by_the_next_ledger_line(monkeypatch, tmp_path):
    """In one process, the originals a failed import wrote were pending in the ledger and
    went on the next write's line; removed, verify would report them missing. Discarding
    one drops it from the pending list, so the store verifies after a later import."""
    from provgraph.importers import cohere
    from provgraph.importers._common import ClaimSpec, ItemSpec, text_doc
    from provgraph.verify import verify_store

    def parse(data, name, sources=()):
        text = data.decode()
        good = ItemSpec(docs=[text_doc("d", text, "x#d")], answer=text,
                        claims=[ClaimSpec(start=0, end=len(text))])
        bad = ItemSpec(docs=[], answer="abc", claims=[ClaimSpec(start=0, end=9)])
        return ([good, bad] if text.startswith("bad") else [good]), []

    monkeypatch.setattr(cohere, "parse", parse)
    path = tmp_path / "store"
    store = EmbeddedStore(path)
    with pytest.raises(ImportFailed):
        import_file(store, "cohere", b"bad: never stored", "bad.json")
    import_file(store, "cohere", b"Water boils.", "good.json")
    store.close()
    report = verify_store(path)
    assert report.ok, report.findings


def test_a_partial_import_removes_the_originals_of_the_items_it_rolled_back(monkeypatch, tmp_path,
                                                                            runner):
    """--partial kept the originals an item wrote before it failed (the item's statements
    were rolled back): evidence of nothing. They are now removed with the item; the
    originals of the items kept, one of them also cited by a failed item, stay, and the
    store verifies."""
    from provgraph.cli import cli
    from provgraph.importers import cohere
    from provgraph.importers._common import ClaimSpec, ItemSpec, text_doc
    from provgraph.originals import Originals, sha256_hex

    kept, shared, lost = "Water boils.", "Ice melts at zero.", "Only a failed item cites this."

    def parse(data, name, sources=()):
        def item(key, text, end=None):
            return ItemSpec(docs=[text_doc(key, text, f"x#{key}")], answer=text[:3] if end else text,
                            claims=[ClaimSpec(start=0, end=end or len(text))])
        # the failing items retain their passage, then fail on a claim outside the answer
        return [item("a", kept), item("b", lost, end=9), item("c", shared, end=9),
                item("d", shared)], []

    monkeypatch.setattr(cohere, "parse", parse)
    store, doc = tmp_path / "store", tmp_path / "in.json"
    doc.write_bytes(b'{"in": 1}')
    done = runner.invoke(cli, ["--store", str(store), "import", "--format", "cohere", "--partial",
                               str(doc)])
    assert done.exit_code == 0, done.output
    assert "item 1 at $: could not be recorded" in done.stderr, done.stderr  # from 0
    assert "item 2 at $: could not be recorded" in done.stderr, done.stderr
    blobs = set(Originals(store / "originals").digests())
    assert sha256_hex(lost.encode()) not in blobs  # only the rolled-back item cited it
    assert {sha256_hex(kept.encode()), sha256_hex(shared.encode()),
            sha256_hex(doc.read_bytes())} <= blobs
    verified = runner.invoke(cli, ["--store", str(store), "verify"])
    assert verified.exit_code == 0, verified.output
