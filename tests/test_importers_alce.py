"""ALCE prompt files (princeton-nlp/ALCE prompts/*_default.json) and [n] markers."""

from __future__ import annotations

import json
import re

import pytest

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed
from provgraph.importers import import_file
from provgraph.terms import IRI

from .conftest import shared_cases
from .importers_support import answers, citations, claims, hits, rows, snapshot_text, snapshots

FILES = {  # file: (claims, citations, distinct passages)
    "asqa_default.json": (9, 9, 20),
    "eli5_default.json": (13, 21, 20),
    "qampari_default.json": (30, 30, 19),
}


def _load(name: str) -> tuple[dict, bytes]:
    raw = (shared_cases("real-rag/alce") / name).read_bytes()
    return json.loads(raw), raw


@pytest.mark.shared
@pytest.mark.parametrize("name", sorted(FILES))
def test_prompt_files_import_with_exact_counts(store, name):
    data, raw = _load(name)
    r = import_file(store, "alce", raw, name)
    n_claims, n_cits, n_docs = FILES[name]
    demos = data["demos"]
    markers = sum(len(re.findall(r"\[\d+\]", d["answer"])) for d in demos)
    distinct = {doc["text"] for d in demos for doc in d["docs"]}
    assert (markers, len(distinct)) == (n_cits, n_docs)
    assert (r.items_ok, r.answers, r.claims, r.citations, r.snapshots) == (4, 4, n_claims, n_cits, n_docs)
    assert answers(store, r.run) == sorted(d["answer"] for d in demos)
    assert {snapshot_text(store, s) for s in snapshots(store)} == distinct
    assert len(hits(store, r.run)) == sum(len(d["docs"]) for d in demos)
    for c in claims(store, r.run):
        assert c["answer"][c["start"]:c["end"]] == c["text"] and "[" not in c["text"]
        assert c["status"] == "supported"


@pytest.mark.shared
def test_qampari_each_answer_cites_its_own_document(store):
    data, raw = _load("qampari_default.json")
    r = import_file(store, "alce", raw, "qampari_default.json")
    demo = data["demos"][0]
    expected = [(m.group(1), demo["docs"][int(m.group(2)) - 1]["text"])
                for m in re.finditer(r"(?:^|, )([^,\[]+?) \[(\d+)\]", demo["answer"])]
    assert [e[0] for e in expected][:3] == ["Marazan", "Stephen Morris", "Beyond the Black Stump"]
    got = [c for c in claims(store, r.run) if c["answer"] == demo["answer"]]
    assert [(c["text"], [snapshot_text(store, x["target"]) for x in citations(store, c["claim"])])
            for c in got] == [(t, [doc]) for t, doc in expected]


@pytest.mark.shared
def test_asqa_claims_split_at_marker_groups(store):
    data, raw = _load("asqa_default.json")
    r = import_file(store, "alce", raw, "asqa_default.json")
    demo = data["demos"][0]
    got = [c for c in claims(store, r.run) if c["answer"] == demo["answer"]]
    a = demo["answer"]
    assert [c["text"] for c in got] == [
        a[:a.index(" [3]. However")],
        "However, the official record is held by Mawsynram, India with an average annual "
        "rainfall of 11,872 mm",
        a[a.index("although nearby"):a.index(" [1].")],
    ]
    assert [[snapshot_text(store, x["target"]) for x in citations(store, c["claim"])] for c in got] == [
        [demo["docs"][2]["text"]], [demo["docs"][2]["text"]], [demo["docs"][0]["text"]]]


@pytest.mark.shared
def test_generator_input_is_the_alce_prompt(store):
    data, raw = _load("eli5_default.json")
    r = import_file(store, "alce", raw, "eli5_default.json")
    demo = data["demos"][1]
    # ALCE run.py make_demo / make_doc_prompt for a test item, written out independently
    docs = "".join(data["doc_prompt"].replace("{T}", d["title"]).replace("{P}", d["text"])
                   .replace("{ID}", str(i + 1)) for i, d in enumerate(demo["docs"]))
    prompt = (data["demo_prompt"].replace("{INST}", data["instruction"])
              .replace("{Q}", demo["question"]).replace("{D}", docs).replace("{A}", "").rstrip())
    inputs = rows(store, """SELECT ?run ?gi ?text WHERE { GRAPH ?run {
        ?gi a pg:GeneratorInput ; pg:text ?text } }""", {"run": r.run})
    [gi] = [x for x in inputs if x["text"] == prompt]
    segs = rows(store, """SELECT ?gi ?start ?end ?origin WHERE {
        ?gi pg:segment ?s . ?s pg:start ?start ; pg:end ?end ; pg:origin ?origin }""",
                {"gi": IRI(gi["gi"])})
    got = sorted((s["start"], s["end"], s["origin"]) for s in segs)
    assert [(prompt[s:e], o) for s, e, o in got] == (
        [(data["instruction"], "instruction"), (demo["question"], "query")]
        + [(d["text"], "original") for d in demo["docs"]])


def test_marker_after_the_period_and_uncited_sentences(store):
    item = {"question": "Where?", "output": "It rains in Mawsynram. [1][2] Nobody knows why. "
                                            "Sohra holds the July record [2].",
            "docs": [{"title": "A", "text": "Mawsynram is wet."}, {"title": "B", "text": "Sohra."}]}
    r = import_file(store, "alce", json.dumps({"data": [item], "args": {"model": "m1"}}).encode(),
                    "run.json")
    got = claims(store, r.run)
    assert [(c["text"], c["status"], len(citations(store, c["claim"]))) for c in got] == [
        ("It rains in Mawsynram.", "supported", 2),
        ("Nobody knows why.", "unsupported", 0),
        ("Sohra holds the July record", "supported", 1),
    ]
    model = rows(store, "SELECT ?n WHERE { ?g a pg:Generation ; prov:wasAssociatedWith ?m . "
                        "?m pg:agentName ?n }")
    assert model == [{"n": "m1"}]


def test_marker_past_the_documents_is_an_item_error():
    items = [{"question": "q", "output": "A [1].", "docs": [{"title": "t", "text": "A."}]},
             {"question": "q", "output": "B [3].", "docs": [{"title": "t", "text": "B."}]}]
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "alce", json.dumps(items).encode(), "items.json")
    [err] = info.value.report.errors
    assert (err.item, err.path) == (1, "$[1].output")
    assert err.message == ("citation [3] at code point 2 points past the 1 documents "
                           "(markers are 1-based: [n] is docs[n-1])")
    assert len(store) == 0
    r = import_file(store, "alce", json.dumps(items).encode(), "items.json", partial=True)
    assert (r.items_ok, r.claims, len(r.errors)) == (1, 1, 1)
