"""An answer plus its sources: quotations and numbers checked (fc0web/grounded examples)."""

from __future__ import annotations

import json
import shutil

import pytest

from provgraph import EmbeddedStore
from provgraph.cli import cli
from provgraph.errors import ImportFailed
from provgraph.importers import import_file
from provgraph.importers.answer import find_quote, quotations

from .conftest import shared_cases
from .importers_support import answers, citations, claims, rows, snapshot_bytes, snapshots


def _import(store, answer: str, partial: bool = False):
    base = shared_cases("real-rag/grounded")
    return import_file(store, "answer", (base / answer).read_bytes(), answer,
                       sources=[base / "source.md"], partial=partial)


def _quotes(store, run):
    return [c for c in claims(store, run) if c["kind"] == "quotation"]


@pytest.mark.shared
def test_fabricated_answer_invented_quotation_is_not_in_the_source(store):
    source = (shared_cases("real-rag/grounded") / "source.md").read_text()
    r = _import(store, "answer_fabricated.md")
    quotes = _quotes(store, r.run)
    assert [(q["text"], q["status"]) for q in quotes] == [
        ("use of secure, computer-generated,\ntime-stamped audit trails to independently record "
         "the date and time of\noperator entries and actions that create, modify, or delete "
         "electronic\nrecords.", "supported"),
        ("users should not be able to amend or switch off the audit trail.", "supported"),
        ("audit trail review shall be completed within 24 hours of batch\nmanufacture",
         "unsupported"),
    ]
    invented = quotes[2]
    assert invented["text"] not in source
    assert find_quote(invented["text"], source) is None  # not even with white space normalised
    [cit] = citations(store, invented["claim"])
    assert cit["exact"] == invented["text"] and cit["unit"] is None
    assert snapshot_bytes(store, cit["target"]) == (shared_cases("real-rag/grounded") / "source.md").read_bytes()
    # the fabricated answer copied the first two quotations exactly, line breaks included
    assert [find_quote(q["text"], source) for q in quotes[:2]] == ["verbatim", "verbatim"]


@pytest.mark.shared
def test_grounded_answer_quotations_are_all_in_the_source(store):
    source = (shared_cases("real-rag/grounded") / "source.md").read_text()
    r = _import(store, "answer_grounded.md")
    quotes = _quotes(store, r.run)
    assert [q["status"] for q in quotes] == ["supported"] * 3
    # "should be switched on" is verbatim; the two long ones wrap lines where the source does not
    assert [find_quote(q["text"], source) for q in quotes] == ["whitespace", "verbatim", "whitespace"]
    assert quotes[1]["text"] == "should be switched on"
    for q in quotes:
        [cit] = citations(store, q["claim"])
        assert cit["exact"] == q["text"]
        assert " ".join(q["text"].split()) in " ".join(source.split())


@pytest.mark.shared
def test_numbers_absent_from_the_source_are_unsupported_claims(store):
    r = _import(store, "answer_fabricated.md")
    nums = [c for c in claims(store, r.run) if c["kind"] == "paraphrase"]
    assert [c["text"] for c in nums if c["status"] == "unsupported"] == ["2.3", "2024", "2401.99887"]
    assert len(nums) == 19 and all(not citations(store, c["claim"]) for c in nums)
    r2 = _import(store, "answer_grounded.md")
    nums2 = [c for c in claims(store, r2.run) if c["kind"] == "paraphrase"]
    assert len(nums2) == 32 and {c["status"] for c in nums2} == {"supported"}
    # "24" sits inside the invented quotation: checked as part of it, not as a number claim
    assert "24" not in [c["text"] for c in nums]


@pytest.mark.shared
def test_source_snapshot_and_answer_are_recorded(store):
    base = shared_cases("real-rag/grounded")
    r = _import(store, "answer_grounded.md")
    assert answers(store, r.run) == [(base / "answer_grounded.md").read_text()]
    [snap] = snapshots(store).values()
    assert snap["uri"] == (base / "source.md").resolve().as_uri()
    assert snap["media"] == "text/markdown; charset=utf-8"
    assert (r.answers, r.snapshots, r.claims, r.citations) == (1, 1, 35, 3)


def test_curly_quotes_blockquotes_and_non_ascii(store, tmp_path):
    src = tmp_path / "sources"
    src.mkdir()
    (src / "menu.txt").write_text("Le chef dit : « la crème brûlée 🍮 est faite maison ».\n"
                                  "Prix : 7,50 €.\n", encoding="utf-8")
    (src / ".hidden.txt").write_text("ignored", encoding="utf-8")
    answer = ("Selon le menu, “la crème brûlée 🍮 est faite maison” et coûte 7,50 €.\n\n"
              "> Le chef dit : « la crème brûlée 🍮 est faite maison ».\n\n"
              "Il a aussi dit “tout est bio”, pour 9 € (`code 12` ignoré).\n")
    r = import_file(store, "answer", answer.encode(), "reponse.md", sources=[src])
    got = claims(store, r.run)
    assert [(c["kind"], c["text"], c["status"]) for c in got] == [
        ("quotation", "la crème brûlée 🍮 est faite maison", "supported"),
        ("paraphrase", "7,50", "supported"),
        ("quotation", "Le chef dit : « la crème brûlée 🍮 est faite maison ».", "supported"),
        ("quotation", "tout est bio", "unsupported"),
        ("paraphrase", "9", "unsupported"),
    ]
    assert r.snapshots == 1  # the hidden file is skipped
    assert got[0]["start"] == answer.index("la crème")


def test_quotations_helper_skips_code():
    text = 'Use `"not a quote"` and\n```\n"fenced"\n```\nbut "this" counts.'
    assert [q for _, _, q in quotations(text)] == ["this"]


def test_bad_sources_are_reported(tmp_path):
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "answer", b"An answer.", "a.md", sources=[tmp_path / "nope"])
    [err] = info.value.report.errors
    assert err.item is None and err.message == "source does not exist or is not a file or directory"
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(b"%PDF-1.4\n\xff\xfe\x00")
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "answer", b"An answer.", "a.md", sources=[pdf])
    assert "source is not UTF-8 text (byte 9)" in str(info.value)


def _outcomes(store, run):
    from provgraph.resolve import resolve_run

    got = resolve_run(store, run)  # the default policy: exact, for citations declaring none
    return [(c.quote, r.outcome, r.policy) for c, r in got.items]


@pytest.mark.shared
def test_grounded_answer_has_no_mismatch_under_plain_resolve(store):
    # QA 4: the importer declares the whitespace policy on quotations it takes from a
    # Markdown answer (a soft line break is not content), and the resolver applies it
    r = _import(store, "answer_grounded.md")
    got = _outcomes(store, r.run)
    assert sorted(o for _, o, _ in got) == ["normalized_match", "normalized_match", "quote_match"]
    for quote, outcome, policy in got:
        assert policy == ("exact" if outcome == "quote_match" else "whitespace"), quote
    [declared] = {row["policy"] for row in rows(store, """SELECT ?run ?policy WHERE { GRAPH ?run {
        ?cit oa:hasSelector ?sel . ?sel a oa:TextQuoteSelector ; pg:policy ?policy } }""",
                                               {"run": r.run})}
    assert declared == "whitespace@1"
    # a second resolve changes nothing: the declared policy is not an outcome statement
    from provgraph.resolve import resolve_run

    again = resolve_run(store, r.run)
    assert (again.added, again.removed) == (0, 0)


@pytest.mark.shared
def test_fabricated_answer_invented_quotation_is_still_a_mismatch(store):
    r = _import(store, "answer_fabricated.md")
    got = _outcomes(store, r.run)
    assert [(q.split()[0], o) for q, o, _ in got] == [
        ("use", "quote_match"), ("users", "quote_match"), ("audit", "quote_mismatch")]
    invented = got[2]
    assert invented[0].startswith("audit trail review shall be completed within 24 hours")


@pytest.mark.shared
def test_cli_resolve_after_importing_the_grounded_answer(runner, tmp_path):
    # QA 9: --source takes a directory too (searched recursively)
    base = shared_cases("real-rag/grounded")
    sources = tmp_path / "sources" / "regulations"
    sources.mkdir(parents=True)
    shutil.copyfile(base / "source.md", sources / "source.md")  # a temporary copy, not in the repo
    store_dir = str(tmp_path / "store")
    result = runner.invoke(cli, ["--store", store_dir, "import", "--format", "answer",
                                 str(base / "answer_grounded.md"), "--source",
                                 str(tmp_path / "sources")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["--store", store_dir, "resolve", "--nl"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    counts = {row["outcome"]: row["citations"] for row in map(json.loads, result.stdout.splitlines())}
    assert (counts["quote_mismatch"], counts["quote_match"], counts["normalized_match"]) == (0, 1, 2)


def test_cli_answer_import_without_sources_or_with_an_empty_answer_fails(runner, tmp_path):
    # QA 17: nothing to check is an error (exit 1), not a successful import
    answer = tmp_path / "answer.md"
    answer.write_text('It says "hello".\n', encoding="utf-8")
    source = tmp_path / "source.txt"
    source.write_text("It says hello.\n", encoding="utf-8")
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    (empty_dir / ".hidden").write_text("skipped", encoding="utf-8")
    empty = tmp_path / "empty.md"
    empty.write_text(" \n\n", encoding="utf-8")
    store_dir = str(tmp_path / "store")
    for args, message in (
            ([str(answer)], "the answer format needs the source files the answer draws on: "
                            "give --source FILE_OR_DIR (repeatable)"),
            ([str(empty), "--source", str(source)], "the answer is empty: there is nothing to check"),
            ([str(answer), "--source", str(empty_dir)], "no source files found")):
        result = runner.invoke(cli, ["--store", store_dir, "import", "--format", "answer", *args])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("Error: ") and message in result.output
        assert "nothing was stored" in result.output and "Traceback" not in result.output
    result = runner.invoke(cli, ["--store", store_dir, "import", "--format", "answer", str(answer),
                                 "--source", str(source)], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_answer_import_errors_in_the_library(tmp_path):
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "answer", b"An answer with 12 items.", "a.md")
    [err] = info.value.report.errors
    assert (err.item, err.path) == (None, "$")
    assert err.message.startswith("the answer format needs the source files")
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "answer", b"\xef\xbb\xbf  \n", "a.md", sources=[tmp_path])
    assert info.value.report.errors[0].message == "the answer is empty: there is nothing to check"


@pytest.mark.shared
def test_stale_reads_a_normalized_quotation_where_the_resolver_found_it(tmp_path):
    """A quotation the resolver matched only under its declared policy (white space: the
    answer wraps lines where the source does not) rests on the passage it matched, not on
    the whole source: a revision that changes only other text leaves its span unchanged,
    one that changes a word of the passage does not (the break test found every such
    claim reported changed)."""
    from provgraph.resolve import resolve_run
    from provgraph.staleness import stale

    for name in ("answer_grounded.md", "answer_fabricated.md", "source.md"):
        shutil.copy(shared_cases("real-rag/grounded") / name, tmp_path / name)
    source = (tmp_path / "source.md").read_text()
    store = EmbeddedStore()
    first = import_file(store, "answer", (tmp_path / "answer_grounded.md").read_bytes(),
                        "answer_grounded.md", sources=[tmp_path / "source.md"])
    resolve_run(store)
    quotes = _quotes(store, first.run)
    assert [find_quote(q["text"], source) for q in quotes] == ["whitespace", "verbatim", "whitespace"]

    def revise(text: str) -> dict:
        (tmp_path / "source.md").write_text(text)
        import_file(store, "answer", (tmp_path / "answer_fabricated.md").read_bytes(),
                    "answer_fabricated.md", sources=[tmp_path / "source.md"])
        return {r.claim: r.span_unchanged for r in stale(store) if r.run == first.run}

    title = source.replace("Source document", "Source Document", 1)
    assert title != source
    assert revise(title) == {q["claim"]: True for q in quotes}
    word = quotes[0]["text"].split()[3]  # a word inside the first normalized passage
    changed = title.replace(word, word.upper(), 1)
    assert changed != title
    got = revise(changed)
    assert got[quotes[0]["claim"]] is False and got[quotes[1]["claim"]] is True
