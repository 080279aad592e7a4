"""Claim and run bundles exported from the recorded fixture pipeline (tests/pipeline.py)."""

from __future__ import annotations

import io
import json
import os
import stat
import warnings

import prov
import pytest
from prov.constants import PROV_TYPE

from provgraph.cli import cli
from provgraph.errors import NotFound, SerializationError
from provgraph.io.bundle import export, lineage_closure, verify_bundle
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI
from provgraph.vocab import PROV

from . import pipeline
from .io_helpers import canon

RDFS_RESOURCE = "http://www.w3.org/2000/01/rdf-schema#Resource"


def one(store, subject, prop):
    got = [q[2] for q in store.quads(IRI(subject), prop)]
    assert len(got) == 1, (subject, prop, got)
    return str(got[0])


def expected_lineage(store, r):
    """The claim_quote lineage, written out from the pipeline's records (ground truth)."""
    entities = {
        r["claim_quote"].iri, r["answer"].iri, r["cit1"].iri,
        r["input"].iri, r["query"].iri, r["prefix"].iri, r["hyde"].iri,
        r["c_interval"].iri, r["c_engineer"].iri, r["c_faq_a"].iri,
        r["ext_policy"].text_iri, r["ext_faq"].text_iri,
        r["policy_v1"].iri, r["faq"].iri, r["policy_v1"].document, r["faq"].document,
    }
    chunkings = {one(store, c.iri, PROV.wasGeneratedBy)
                 for c in (r["c_interval"], r["c_engineer"], r["c_faq_a"])}
    activities = {
        r["answer"].generation, r["input"].packing, r["retrieval"].iri,
        r["ext_policy"].iri, r["ext_faq"].iri,
        one(store, r["policy_v1"].iri, PROV.wasGeneratedBy), one(store, r["faq"].iri, PROV.wasGeneratedBy),
        one(store, r["prefix"].iri, PROV.wasGeneratedBy), one(store, r["hyde"].iri, PROV.wasGeneratedBy),
    } | chunkings
    agents = {
        r["answer"].model.iri, r["retrieval"].retriever.iri, r["ext_policy"].parser.iri,
        r["prefix"].model.iri, r["hyde"].model.iri,
        one(store, r["input"].packing, PROV.wasAssociatedWith),
    } | {one(store, c, PROV.wasAssociatedWith) for c in chunkings}
    describing = {f"{c.iri}#position" for c in (r["c_interval"], r["c_engineer"], r["c_faq_a"])}
    describing |= {f"{r['cit1'].iri}#quote"} | {f"{r['input'].iri}#segment-{i}" for i in range(4)}
    return {str(x) for x in entities}, {str(x) for x in activities}, {str(x) for x in agents}, describing


def records_of(doc):
    (bundle,) = list(doc.bundles)
    ents, acts, agents, aux = set(), set(), set(), set()
    for rec in bundle.get_records():
        kind = type(rec).__name__
        uri = rec.identifier.uri if rec.identifier is not None else None
        if kind == "ProvEntity":
            types = {getattr(v, "uri", None) for k, v in rec.attributes if k == PROV_TYPE}
            (aux if RDFS_RESOURCE in types else ents).add(uri)
        elif kind == "ProvActivity":
            acts.add(uri)
        elif kind == "ProvAgent":
            agents.add(uri)
    return bundle, ents, acts, agents, aux


def test_claim_bundle_read_by_prov_holds_exactly_the_claims_lineage(rag_store):
    store, r = rag_store
    result = export(store, "prov-json", claim=r["claim_quote"].iri)
    with warnings.catch_warnings():
        warnings.simplefilter("error", prov.model.ProvWarning)
        doc = prov.read(io.BytesIO(result.data), format="json")
    bundle, ents, acts, agents, aux = records_of(doc)
    want_e, want_a, want_g, want_aux = expected_lineage(store, r)
    assert ents == want_e
    assert acts == want_a
    assert agents == want_g
    assert aux == want_aux
    # no more: the other claims, citations, the later revision and the run are absent
    absent = {r["claim_para"].iri, r["claim_bad"].iri, r["cit2"].iri, r["cit4"].iri,
              r["policy_v2"].iri, r["run"]}
    assert not absent & (ents | acts | agents | aux)
    # the bundle's description (outside the bundle) records the digest of its content
    (desc,) = doc.get_records()
    assert desc.identifier.uri == str(result.bundle) == str(bundle.identifier.uri)
    attrs = {k.uri: v for k, v in desc.attributes}
    assert attrs["https://w3id.org/provgraph/ns#sha256"] == result.digest
    assert attrs["http://www.w3.org/2000/01/rdf-schema#seeAlso"].uri == r["claim_quote"].iri
    assert verify_bundle(result.data, "prov-json").ok


def test_claim_bundle_keeps_attributes_and_qualified_relations(rag_store):
    store, r = rag_store
    text = export(store, "prov-json", claim=r["claim_quote"].iri).data.decode()
    doc = json.loads(text)
    (content,) = doc["bundle"].values()
    usages = [u for u in content["used"].values() if "pg:rank" in u]
    assert sorted((u["pg:rank"]["$"], u["pg:score"]["$"]) for u in usages) == [
        ("1", "3.5"), ("2", "2.25"), ("3", "1")]  # the stored lexical form (the store keeps 1.0 as "1")
    assert {u["pg:score"]["type"] for u in usages} == {"xsd:double"}
    snapshot = content["entity"][r["policy_v1"].iri.replace("ni:///sha-256;", "ni:")]
    assert snapshot["pg:observedAt"] == {"$": "2026-03-01T09:00:00Z", "type": "xsd:dateTime"}
    assert snapshot["pg:sha256"] == r["policy_v1"].sha256
    assert pipeline.PREFIX_TEXT in text and '"The inspection interval is not specified."' in text


@pytest.mark.parametrize("fmt", ["prov-json", "provn", "prov-xml", "trig", "nquads", "json-ld",
                                 "turtle", "rdf-xml"])
def test_every_bundle_format_verifies_and_detects_tampering(rag_store, fmt):
    store, r = rag_store
    result = export(store, fmt, claim=r["claim_quote"].iri)
    check = verify_bundle(result.data)
    assert check.ok and check.recorded == result.digest and check.statements == result.statements
    assert check.subject == r["claim_quote"].iri
    tampered = result.data.replace(b"certified engineer", b"certified plumber", 1)
    assert tampered != result.data
    bad = verify_bundle(tampered, fmt)
    assert not bad.ok and bad.recorded == result.digest


def test_bundle_statements_equal_the_lineage_closure(rag_store):
    store, r = rag_store
    closure = lineage_closure(store, [IRI(r["claim_quote"].iri)])
    result = export(store, "nquads", claim=r["claim_quote"].iri)
    again = EmbeddedStore()
    import_document(again, result.data, "nquads")
    content = [q for q in again.quads() if q[0] != result.bundle]
    assert canon((s, p, o, None) for s, p, o, _ in content) == \
        canon((s, p, o, None) for s, p, o, _ in closure)
    assert result.statements == len({(s, p, o) for s, p, o, _ in closure})
    assert all(q[1] not in (PROV.wasInvalidatedBy, PROV.invalidatedAtTime) for q in closure)


def test_run_bundle_and_full_export(rag_store):
    store, r = rag_store
    run = export(store, "trig", run=r["run"])
    assert verify_bundle(run.data).ok
    again = EmbeddedStore()
    import_document(again, run.data)
    run_graph = {(q[0], q[1], q[2]) for q in store.quads(graph=IRI(r["run"]))}
    got = {(q[0], q[1], q[2]) for q in again.quads(graph=run.bundle)}
    assert run_graph <= got  # the whole run graph, plus the ingestion lineage it rests on
    assert (IRI(r["policy_v1"].iri), PROV.specializationOf, IRI(r["policy_v1"].document)) in got
    everything = export(store, "trig", everything=True)
    assert everything.statements == len(store)
    copy = EmbeddedStore()
    import_document(copy, everything.data)
    assert canon(copy.quads()) == canon(store.quads())


def test_export_errors(rag_store):
    store, _ = rag_store
    with pytest.raises(NotFound):
        export(store, "prov-json", claim="urn:uuid:nope")
    with pytest.raises(NotFound):
        export(store, "prov-json", run="urn:uuid:nope")
    with pytest.raises(ValueError):
        export(store, "prov-json")
    with pytest.raises(SerializationError, match="no bundle with a pg:sha256 digest"):
        verify_bundle(export(store, "trig", everything=True).data)


def test_cli_export_and_verify_bundle(rag_store, runner, tmp_path, monkeypatch):
    store, r = rag_store
    import provgraph.cli as cli_mod

    monkeypatch.setattr(cli_mod._Ctx, "store", lambda self, **kw: store)
    monkeypatch.setattr(cli_mod._Ctx, "close", lambda self: None)
    out = tmp_path / "claim.provn"
    res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri, "-o", str(out)],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "as provn to" in res.stderr and "sha256 " in res.stderr
    res = runner.invoke(cli, ["verify-bundle", str(out)], catch_exceptions=False)
    assert res.exit_code == 0 and "verified: sha256 " in res.stdout
    out.write_bytes(out.read_bytes().replace(b"rank-bm25", b"rank-bm26"))
    res = runner.invoke(cli, ["verify-bundle", str(out)])
    assert res.exit_code == 1 and "was altered: recorded sha256" in res.stderr
    res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri])
    assert res.exit_code == 2 and "--format is required" in res.stderr
    res = runner.invoke(cli, ["export", "--all", "--format", "nquads"], catch_exceptions=False)
    assert res.exit_code == 0 and res.stdout.count("\n") == len(store)
    res = runner.invoke(cli, ["export", "--all", "--claim", "urn:x:c", "--format", "nquads"])
    assert res.exit_code == 2 and "exactly one of" in res.stderr


def test_cli_export_writes_the_whole_file_or_nothing(rag_store, runner, tmp_path, monkeypatch):
    store, r = rag_store
    import provgraph.cli as cli_mod

    monkeypatch.setattr(cli_mod._Ctx, "store", lambda self, **kw: store)
    monkeypatch.setattr(cli_mod._Ctx, "close", lambda self: None)
    out = tmp_path / "claim.json"
    out.write_bytes(b"an earlier export")
    res = runner.invoke(cli, ["export", "--claim", "urn:x:no-such-claim", "-o", str(out)])
    assert res.exit_code == 2 and "urn:x:no-such-claim" in res.stderr
    assert out.read_bytes() == b"an earlier export" and sorted(tmp_path.iterdir()) == [out]
    res = runner.invoke(cli, ["export", "--run", r["run"], "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0 and sorted(tmp_path.iterdir()) == [out]
    assert verify_bundle(out.read_bytes()).ok
    res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri, "--format", "prov-json"],
                        catch_exceptions=False)
    assert res.exit_code == 0 and verify_bundle(res.stdout_bytes).ok

def _claim_json(store, r):
    result = export(store, "prov-json", claim=r["claim_quote"].iri)
    doc = json.loads(result.data)
    (key,) = [k for k in doc["entity"] if k.startswith("bundle:")]
    return result, doc, key


def test_the_bundle_description_is_covered_by_the_digest(rag_store, runner, tmp_path):
    store, r = rag_store
    result, doc, key = _claim_json(store, r)
    assert verify_bundle(result.data).ok
    # point the bundle at another claim: the file then claims to be cl3's lineage
    doc["entity"][key]["rdfs:seeAlso"]["$"] = "uuid:" + r["claim_bad"].iri[len("urn:uuid:"):]
    t3 = tmp_path / "t3.json"
    t3.write_text(json.dumps(doc))
    check = verify_bundle(t3.read_bytes())
    assert check.subject == r["claim_bad"].iri and not check.ok
    assert check.recorded == result.digest != check.actual
    res = runner.invoke(cli, ["verify-bundle", str(t3)])
    assert res.exit_code == 1
    assert res.stderr.startswith(f"Error: {t3}: bundle <{result.bundle}> was altered: recorded "
                                 f"sha256 {result.digest}, content hashes to ")
    # anything else said about the bundle node is covered too
    for change in ({"prov:value": "forged"}, {"prov:label": "lineage of something else"}):
        _, doc, key = _claim_json(store, r)
        doc["entity"][key].update(change)
        assert not verify_bundle(json.dumps(doc).encode(), "prov-json").ok, change
    _, doc, key = _claim_json(store, r)
    del doc["entity"][key]["prov:label"]
    assert not verify_bundle(json.dumps(doc).encode(), "prov-json").ok


def test_statements_about_the_bundle_added_in_rdf_are_detected(rag_store):
    store, r = rag_store
    result = export(store, "turtle", claim=r["claim_quote"].iri)
    evil = (f"\n<{result.bundle}> <http://www.w3.org/ns/prov#wasDerivedFrom> "
            "<http://evil.example/x> .\n").encode()
    check = verify_bundle(result.data + evil, "turtle")
    assert not check.ok and check.recorded == result.digest
    # the digest statement itself is the one statement left out: a second value is refused
    second = f'\n<{result.bundle}> <https://w3id.org/provgraph/ns#sha256> "{"0" * 64}" .\n'
    with pytest.raises(SerializationError, match=r"records 2 pg:sha256 values .*the file was "
                       "altered"):
        verify_bundle(result.data + second.encode(), "turtle")


def test_moving_a_statement_out_of_the_bundle_graph_is_detected(rag_store, runner, tmp_path):
    store, r = rag_store
    result = export(store, "nquads", claim=r["claim_quote"].iri)
    lines = result.data.decode().splitlines()
    i = next(i for i, line in enumerate(lines) if "certified engineer" in line)
    moved = lines[i].replace(f" <{result.bundle}> .", " .")
    assert moved != lines[i]
    lines[i] = moved
    check = verify_bundle(("\n".join(lines) + "\n").encode(), "nquads")
    assert check.recorded == check.actual  # the same triples ...
    assert not check.ok and check.misplaced == [moved + " (default graph)"]  # ... out of place
    f = tmp_path / "moved.nq"
    f.write_text("\n".join(lines) + "\n")
    res = runner.invoke(cli, ["verify-bundle", str(f)])
    assert res.exit_code == 1 and "1 statement(s) moved between graphs" in res.stderr


@pytest.mark.parametrize("fmt", ["prov-json", "provn", "prov-xml", "trig", "nquads", "json-ld",
                                 "turtle", "rdf-xml"])
def test_one_bundle_has_one_digest_in_every_format(rag_store, fmt):
    store, r = rag_store
    reference = export(store, "nquads", claim=r["claim_quote"].iri)
    result = export(store, fmt, claim=r["claim_quote"].iri)
    # PROV-JSON/N/XML read 2026-03-01T09:00:00Z back as +00:00; the digest does not see it
    assert result.digest == reference.digest
    assert result.statements == reference.statements
    check = verify_bundle(result.data)
    assert check.ok and check.recorded == check.actual == reference.digest


def test_verifying_an_empty_file_says_it_is_empty(runner, tmp_path):
    empty = tmp_path / "claim.json"
    empty.write_bytes(b"\n")
    res = runner.invoke(cli, ["verify-bundle", str(empty)])
    assert res.exit_code == 2
    assert res.stderr == (f"Error: {empty}: the bundle file is empty: there is no bundle to "
                          "verify; export one with 'provgraph export --claim IRI -o FILE' (or "
                          "'--run IRI')\n")


def _cli_on(store, monkeypatch):
    import provgraph.cli as cli_mod

    monkeypatch.setattr(cli_mod._Ctx, "store", lambda self, **kw: store)
    monkeypatch.setattr(cli_mod._Ctx, "close", lambda self: None)


def test_cli_export_file_gets_the_mode_a_plain_write_would_give(rag_store, runner, tmp_path,
                                                               monkeypatch):
    # the atomic write must not leave the temporary file's private 0600 mode on the export
    store, r = rag_store
    _cli_on(store, monkeypatch)
    old = os.umask(0o022)
    try:
        new = tmp_path / "new.json"
        res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri, "-o", str(new)],
                            catch_exceptions=False)
        assert res.exit_code == 0, res.output
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        kept = tmp_path / "kept.json"
        kept.write_bytes(b"an earlier export")
        kept.chmod(0o640)
        res = runner.invoke(cli, ["export", "--run", r["run"], "-o", str(kept)],
                            catch_exceptions=False)
        assert res.exit_code == 0, res.output
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640  # overwriting keeps the file's mode
        assert verify_bundle(kept.read_bytes()).ok
    finally:
        os.umask(old)


def test_cli_export_to_a_directory_or_into_a_missing_one_names_the_output(rag_store, runner,
                                                                         tmp_path, monkeypatch):
    store, r = rag_store
    _cli_on(store, monkeypatch)
    adir = tmp_path / "adir"
    adir.mkdir()
    res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri, "--format", "prov-json",
                              "-o", str(adir)])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit)
    assert f"{adir} is a directory" in res.stderr and "Traceback" not in res.output
    assert ".partial" not in res.stderr
    assert sorted(tmp_path.iterdir()) == [adir] and list(adir.iterdir()) == []  # nothing left
    missing = tmp_path / "missing" / "claim.json"
    res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri, "-o", str(missing)])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit)
    assert f"cannot write {missing}" in res.stderr and ".partial" not in res.stderr
    assert f"{missing.parent} does not exist" in res.stderr
    assert sorted(tmp_path.iterdir()) == [adir]
