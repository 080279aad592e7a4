"""The streamed RDF import (provgraph.io.stream_load) agrees with the whole-document one
(provgraph.io.load.import_document): same statements stored (blank nodes canonicalized),
same report, same refusals, nothing left behind by a refusal (issue 16, item 6)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from provgraph.errors import SerializationError
from provgraph.io import read, write
from provgraph.io.load import import_document
from provgraph.io.stream_load import import_rdf_stream
from provgraph.store import EmbeddedStore

from .conftest import shared_cases
from .io_helpers import canon

_RDF_EXTENSIONS = {".ttl": "turtle", ".trig": "trig", ".nq": "nquads"}


def _both(data: bytes, fmt: str, name: str, graph: str | None = None, prior: bytes = b""):
    """(report, canonical statements) of the whole-document and the streamed import,
    each into a fresh store (holding the N-Quads ``prior`` first); an error is returned as
    ``("error", message)``."""
    out = []
    for how in ("whole", "streamed"):
        store = EmbeddedStore()
        if prior:
            store.load(prior, "nquads")
        try:
            if how == "whole":
                r = import_document(store, data, fmt, graph=graph, name=name)
            else:
                r = import_rdf_stream(store, io.BytesIO(data), fmt, graph=graph, name=name)
        except SerializationError as exc:
            # a fresh blank-node label differs from one import to the next
            out.append((("error", re.sub(r"_:b[0-9a-f]{32}", "_:b", str(exc))),
                        canon(store.quads())))
        else:
            out.append(((r.stored, r.new, r.inferred, r.graphs, r.format),
                        canon(store.quads())))
        store.close()
    return out


def _shared_documents() -> list[tuple[str, bytes]]:
    """Every readable shared PROV case, as TriG: the PROV-O the whole import reads from
    it (qualified nodes, bundles, blank nodes, typed literals), plus the RDF cases as
    they are written."""
    root = shared_cases("prov")
    docs: list[tuple[str, bytes]] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "SOURCES.md"):
        name = path.relative_to(root).as_posix()
        if path.suffix in _RDF_EXTENSIONS:
            docs.append((name, path.read_bytes()))
        try:
            quads = read(path.read_bytes(), name=name).quads
        except SerializationError:
            continue
        docs.append((name + ".trig", write(quads, "trig")))
    return docs


@pytest.mark.parametrize("entail_slice", [None, 2])
def test_every_shared_document_streams_to_the_same_statements_and_report(entail_slice,
                                                                         monkeypatch):
    if entail_slice:  # entailments and refusals worked out a few statements at a time
        monkeypatch.setattr("provgraph.io.stream_load._ENTAIL_SLICE", entail_slice)
    docs = _shared_documents()
    assert len(docs) > 60
    qualified = 0
    for name, data in docs:
        fmt = _RDF_EXTENSIONS[Path(name).suffix]
        whole, streamed = _both(data, fmt, name)
        assert streamed == whole, name
        qualified += b"qualified" in data
    assert qualified > 20  # the entailments of qualified nodes were exercised


def test_a_default_graph_goes_to_the_named_target_graph_alike():
    data = (shared_cases("prov/trungdong-prov/rdf") / "derivation12.ttl").read_bytes()
    whole, streamed = _both(data, "turtle", "d.ttl", graph="urn:example:g1")
    assert streamed == whole
    assert whole[0][3] == ["urn:example:g1"]


def test_the_benchmark_workload_streams_to_the_same_statements(tmp_path):
    from bench.bench_import import write_workload_nquads

    path = tmp_path / "w.nq"
    write_workload_nquads(path, 3_000)
    whole, streamed = _both(path.read_bytes(), "nquads", "w.nq")
    assert streamed == whole
    stored, _, inferred = whole[0][:3]
    assert stored == len(set(path.read_bytes().splitlines())) + inferred


def test_a_store_holding_part_of_the_document_counts_alike(tmp_path):
    """Into a store that is not empty the streamed import counts with a hash per
    statement; into an empty one, from the store itself: both agree with the whole
    import, repeats in the document and entailments it states itself included."""
    from bench.bench_import import write_workload_nquads

    path = tmp_path / "w.nq"
    write_workload_nquads(path, 2_000)
    lines = path.read_bytes().splitlines(keepends=True)
    p = _P.encode()
    own = (b"<urn:ex:u> <%squalifiedUsage> <urn:ex:q> .\n<urn:ex:q> <%sentity> <urn:ex:e> .\n"
           b"<urn:ex:u> <%sused> <urn:ex:e> .\n"
           b"<urn:ex:p> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <%sPerson> .\n"
           % (p, p, p, p))
    data = b"".join(lines) + b"".join(lines[:500]) + own + own
    # the prior store: a third of the document, and the prov:used it states
    for prior in (b"", b"".join(lines[::3]) + own.splitlines(keepends=True)[2]):
        whole, streamed = _both(data, "nquads", "w.nq", prior=prior)
        assert streamed == whole
        stored, new, inferred = whole[0][:3]
        assert inferred == 2  # the Usage type, the Agent type; not the stated prov:used
        assert stored == len(set(lines)) + 4 + inferred
        assert (new == stored) == (not prior)


_P = "http://www.w3.org/ns/prov#"
REFUSED = [
    pytest.param(b"<urn:e> <urn:p> <urn:o> .\n", "turtle", "none uses the PROV vocabulary",
                 id="no-prov"),
    pytest.param(b"", "nquads", "holds no PROV statements", id="empty"),
    pytest.param(b"<urn:e> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <%sEntity> "
                 b"<urn:provgraph:graph:ontology> .\n" % _P.encode(),
                 "nquads", "only 'provgraph init' fills", id="ontology-graph"),
    pytest.param(b"<urn:e> a <%sEntity> .\n<urn:e> <%squalifiedAttribution> _:q .\n"
                 b"_:q a <%sAttribution> .\n" % (_P.encode(), _P.encode(), _P.encode()),
                 "turtle", "has no agent", id="qualified-node-without-its-agent"),
]


@pytest.mark.parametrize("data, fmt, message", REFUSED)
def test_a_refused_document_is_refused_alike_and_stores_nothing(data, fmt, message):
    whole, streamed = _both(data, fmt, "doc")
    assert whole[0][0] == "error" and message in whole[0][1]
    assert streamed == whole  # same message, nothing stored by either


def _plain_rdf(path: Path, n: int) -> None:
    """``n`` statements of N-Quads, none with a PROV term."""
    path.write_text("".join(f'<urn:x:s{i}> <http://www.w3.org/2000/01/rdf-schema#label> '
                            f'"label {i}" <urn:x:g{i % 7}> .\n' for i in range(n)))


def test_plain_rdf_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """The PROV-vocabulary refusal is decided by a pass before the storing one: no
    journaled write opens, no statement is stored, no ledger line is written (it used to
    store the whole document, then undo it statement by statement: 13 s for 60,000)."""
    from provgraph.io.stream_load import STREAM_BATCH

    doc = tmp_path / "plain.nq"
    _plain_rdf(doc, 3 * STREAM_BATCH)
    store = EmbeddedStore(tmp_path / "pg")
    store.add([("urn:kept", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                _P + "Entity", None)])
    before, ledger = canon(store.quads()), store.ledger_path
    assert ledger is not None
    size = ledger.stat().st_size
    monkeypatch.setattr(store, "add", lambda quads: pytest.fail("a statement was written"))
    for source in (doc, io.BytesIO(doc.read_bytes())):
        with pytest.raises(SerializationError, match=r"plain.nq: 30000 statement\(s\) but none "
                                                  r"uses the PROV vocabulary"):
            import_rdf_stream(store, source, "nquads", name="plain.nq")
    assert ledger.stat().st_size == size
    assert canon(store.quads()) == before
    assert not (tmp_path / "pg" / "journal.nq").exists()
    store.close()


def test_the_cli_refuses_plain_rdf_without_reading_it_whole(runner, tmp_path, monkeypatch):
    """Under --format auto a streamed refusal used to send the file to the whole read,
    which held it in memory to refuse it again; a document parsed whole without a PROV
    term is refused once, and a store the import created is not left behind."""
    from provgraph.cli import cli
    from provgraph.io import load

    doc = tmp_path / "plain.nq"
    _plain_rdf(doc, 2_000)
    monkeypatch.setattr(load, "import_document",
                        lambda *a, **k: pytest.fail("the file was read again whole"))
    result = runner.invoke(cli, ["--store", str(tmp_path / "st"), "import", str(doc)])
    assert result.exit_code == 2, result.output
    assert ("Error: " + str(doc) + ": 2000 statement(s) but none uses the PROV vocabulary"
            in result.output)
    assert not (tmp_path / "st").exists()


def test_a_syntax_error_after_many_batches_undoes_them_all(tmp_path, monkeypatch):
    from bench.bench_import import write_workload_nquads
    from provgraph.io import load

    monkeypatch.setattr(load, "WRITE_BATCH", 500)
    monkeypatch.setattr("provgraph.io.stream_load.STREAM_BATCH", 500)
    path = tmp_path / "w.nq"
    write_workload_nquads(path, 3_000)
    with path.open("ab") as fh:
        fh.write(b"<urn:e> <urn:p> \"unterminated .\n")
    store = EmbeddedStore(tmp_path / "pg")
    store.add([("urn:kept", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                _P + "Entity", None)])
    before = canon(store.quads())
    with pytest.raises(SerializationError, match="w.nq: .*does not parse"):
        import_rdf_stream(store, path, "nquads", name="w.nq")
    assert canon(store.quads()) == before
    assert not (tmp_path / "pg" / "journal.nq").exists()
    store.close()


def test_a_format_that_is_not_streamed_is_refused_before_reading():
    with pytest.raises(ValueError, match="prov-json is not streamed"):
        import_rdf_stream(EmbeddedStore(), io.BytesIO(b"{}"), "prov-json")


def test_the_cli_streams_an_rdf_file_and_reads_a_misnamed_one_whole(runner, tmp_path):
    from provgraph.cli import cli

    trig = (shared_cases("prov/trungdong-prov/rdf") / "bundle1.trig").read_bytes()
    store = str(tmp_path / "pg")
    named = tmp_path / "b.trig"
    named.write_bytes(trig)
    res = runner.invoke(cli, ["--store", store, "import", str(named)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    whole = EmbeddedStore()
    report = import_document(whole, trig, name=str(named))
    assert f"imported {named} (trig): {report.stored} statements stored" in res.output
    with EmbeddedStore(tmp_path / "pg", read_only=True) as got:
        assert canon(got.quads()) == canon(whole.quads())
    # TriG content in a .ttl file: the Turtle stream refuses it, the whole read detects TriG
    misnamed = tmp_path / "b.ttl"
    misnamed.write_bytes(trig)
    res = runner.invoke(cli, ["--store", str(tmp_path / "pg2"), "import", str(misnamed)],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert f"imported {misnamed} (trig): {report.stored} statements stored" in res.output
