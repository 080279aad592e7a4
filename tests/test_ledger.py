"""The hash-chained ledger, verify, rebuild and signatures (issue 20).

Each test records the fixture pipeline (tests/pipeline.py) into a store on disk, then
alters one thing (a ledger line, a blob byte, a statement) the way an attacker or a
broken disk would, and checks that ``verify`` finds and names it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provgraph.cli import cli
from provgraph.io.bundle import bundle_digest, export, verify_bundle
from provgraph.io import read, write
from provgraph.io.load import import_document
from provgraph.ledger import LEDGER_NAME, GENESIS, LedgerWriter, check_chain, line_hash, read_lines
from provgraph.originals import Originals
from provgraph.recorder import Recorder
from provgraph.resolve import resolve_run
from provgraph.runs import delete_run
from provgraph.signing import generate_key, load_private_key, load_public_key, write_checkpoint
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, Literal
from provgraph.verify import rebuild_store, verify_store
from provgraph.vocab import PG, PROV, RDF

from . import pipeline


def _record(path: Path) -> dict:
    """The fixture pipeline, resolved (write-back), an imported PROV-N document and a
    deleted run: a ledger with Recorder, resolve, load, replace and removal lines."""
    store = EmbeddedStore(path)
    rec = Recorder(store, label="fixture", packages=[], run_iri=pipeline.RUN,
                   started_at=pipeline.t(0))
    records = pipeline.record(rec)
    resolve_run(store)
    import_document(store, b"document prefix ex <http://example.org/> entity(ex:b) "
                           b"entity(ex:a) wasDerivedFrom(ex:b, ex:a) endDocument")
    other = Recorder(store, label="other", packages=[])
    other.query("What is deleted?")
    delete_run(store, str(other.iri))
    store.close()
    return records


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, dict]:
    path = tmp_path / "store"
    return path, _record(path)


def _lines(path: Path) -> list[bytes]:
    return (path / LEDGER_NAME).read_bytes().splitlines(keepends=True)


def _write_lines(path: Path, lines: list[bytes]) -> None:
    (path / LEDGER_NAME).write_bytes(b"".join(lines))


def _claim_line(path: Path) -> int:
    """The number of a line in the middle of the ledger that adds a claim statement."""
    for line in read_lines(path / LEDGER_NAME):
        if line.n > 1 and any(str(PG.claimKind) in t for t in line.added):
            return line.n
    raise AssertionError("no line adds a claim")


def _only(report, kind):  # type: ignore[no-untyped-def]
    found = [f for f in report.findings if f.kind == kind]
    assert found, report.findings
    return found


def test_a_recorded_store_verifies_and_its_ledger_covers_every_write(recorded):
    path, _ = recorded
    report = verify_store(path)
    assert report.ok, report.findings
    lines = list(read_lines(path / LEDGER_NAME))
    assert report.lines == len(lines) and report.head == lines[-1].hash
    ops = {line.op for line in lines}
    assert {"add", "replace"} <= ops, ops  # record and import add; resolve and delete replace
    listed = {d for line in lines for d in line.blobs}
    assert listed == set(Originals(path / "originals").digests()) and listed
    assert report.statements == len(EmbeddedStore(path, read_only=True))


def test_an_edited_ledger_line_is_named_with_its_claims(recorded):
    path, records = recorded
    k = _claim_line(path)
    lines = _lines(path)
    obj = json.loads(lines[k - 1])
    obj["added"][0] = obj["added"][0].replace("urn:", "urn:x-", 1)
    lines[k - 1] = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    _write_lines(path, lines)
    report = verify_store(path)
    chain = _only(report, "chain")[0]
    assert chain.line == k and f"line {k} was edited" in chain.detail
    assert chain.claims, chain  # the claims whose statements the line wrote


@pytest.mark.parametrize("damage", ["garbled", "deleted"])
def test_verify_on_a_broken_ledger_reports_the_break_not_follow_on_noise(recorded, runner,
                                                                         damage):
    """A line cut in half (or deleted) is one chain finding naming it, the lines it leaves
    unvouched for and the claims that depend on it; the only other findings are the
    statements that line wrote (the store holds them, no line as it reads now does), each
    saying so. Before, the statements of every later line were reported as "added or
    changed outside provgraph" and their originals as "written by a write that failed"."""
    path, records = recorded
    k = _claim_line(path)
    lines = _lines(path)
    broken = json.loads(lines[k - 1])
    if damage == "garbled":
        lines[k - 1] = lines[k - 1][:len(lines[k - 1]) // 2] + b"\n"
    else:
        del lines[k - 1]
    _write_lines(path, lines)
    got = runner.invoke(cli, ["--store", str(path), "verify", "--json"])
    assert got.exit_code == 1, got.output
    report = json.loads(got.stdout)
    chain, *rest = report["findings"]
    total = len(lines)
    assert (chain["kind"], chain["line"]) == ("chain", k)
    assert f"the chain does not vouch for lines {k}..{total}" in chain["detail"]
    assert (f"line {k} cannot be read as a ledger line" in chain["detail"]) == (damage == "garbled")
    assert str(records["claim_quote"].iri) in chain["claims"], chain
    wrote = set(broken.get("added", ()))
    assert rest and {f["kind"] for f in rest} == {"statement-extra"}, rest
    assert {f["where"] for f in rest} <= wrote  # only what the broken line wrote
    assert all(f"the line broken at {k} may have" in f["detail"] for f in rest), rest
    only_there = set(broken.get("blobs", ())) - {d for i, raw in enumerate(lines)
                                                  if i != k - 1 or damage == "deleted"
                                                  for d in json.loads(raw).get("blobs", ())}
    unlisted = [n for n in report["notes"] if "not listed in the ledger" in n]
    assert unlisted == ([f"{len(only_there)} retained original(s) are not listed in the ledger "
                         "(written by a write that failed or was killed before its statements, "
                         f"or listed by the line broken at {k}); their bytes were checked"]
                        if only_there else []), report["notes"]
    assert not any("outside provgraph" in f["detail"] and "broken" not in f["detail"]
                   for f in report["findings"])


def test_a_deleted_ledger_line_is_named(recorded):
    path, _ = recorded
    lines = _lines(path)
    del lines[4]
    _write_lines(path, lines)
    chain = _only(verify_store(path), "chain")[0]
    assert chain.line == 5 and "numbered 6" in chain.detail and "deleted" in chain.detail


def test_an_inserted_ledger_line_is_named(recorded):
    path, _ = recorded
    lines = _lines(path)
    lines.insert(6, lines[2])
    _write_lines(path, lines)
    chain = _only(verify_store(path), "chain")[0]
    assert chain.line == 7 and "numbered 3" in chain.detail and "inserted" in chain.detail


def test_reordered_ledger_lines_are_named(recorded):
    path, _ = recorded
    lines = _lines(path)
    lines[3], lines[4] = lines[4], lines[3]
    _write_lines(path, lines)
    chain = _only(verify_store(path), "chain")[0]
    assert chain.line == 4 and "numbered 5" in chain.detail


def test_a_deleted_last_line_is_found_by_the_head_and_the_store(recorded):
    path, _ = recorded
    lines = _lines(path)
    last = json.loads(lines[-1])
    _write_lines(path, lines[:-1])
    report = verify_store(path)
    assert _only(report, "head")[0].line == last["n"]
    assert {f.kind for f in report.findings} >= {"head"}
    # the store's note on opening says what happened, without telling verify to run verify
    assert any("nothing was reconciled" in n for n in report.notes), report.notes
    assert not any("run 'provgraph verify'" in n for n in report.notes), report.notes


def _cited_blob(path: Path, records: dict) -> tuple[str, str]:
    """A retained original's digest and the snapshot a claim cites through it."""
    store = EmbeddedStore(path, read_only=True)
    try:
        snap = records["faq"].iri
        digest = next(iter(store.quads(snap, PG.sha256)))[2].value
    finally:
        store.close()
    return digest, str(snap)


def test_a_changed_blob_byte_is_named_with_its_snapshot_and_claims(recorded):
    path, records = recorded
    digest, snap = _cited_blob(path, records)
    blob = Originals(path / "originals").path_for(digest)
    os.chmod(blob, 0o644)
    data = bytearray(blob.read_bytes())
    data[3] ^= 0x20
    blob.write_bytes(bytes(data))
    found = _only(verify_store(path), "blob-corrupt")
    assert found[0].where == f"blob {digest}" and snap in found[0].snapshots
    assert found[0].claims and found[0].line is not None


def test_a_deleted_blob_is_named(recorded):
    path, records = recorded
    digest, snap = _cited_blob(path, records)
    Originals(path / "originals").path_for(digest).unlink()
    found = _only(verify_store(path), "blob-missing")
    assert found[0].where == f"blob {digest}" and snap in found[0].snapshots


def _raw(path: Path) -> EmbeddedStore:
    """The store opened past its ledger, as an editor of its files would write it."""
    return EmbeddedStore(path, ledger=False)


def test_a_statement_removed_from_the_store_is_named_with_its_line_and_claims(recorded):
    path, records = recorded
    claim = records["claim_quote"].iri
    store = _raw(path)
    victim = next(iter(store.quads(claim, PG.claimKind)))
    store.remove([victim])
    store.close()
    found = _only(verify_store(path), "statement-missing")
    assert len(found) == 1 and str(claim) in found[0].where and "claimKind" in found[0].where
    assert found[0].line is not None and str(claim) in found[0].claims


def test_a_statement_inserted_into_the_store_is_named(recorded):
    path, records = recorded
    snap = records["faq"].iri
    store = _raw(path)
    store.add([(snap, PG.mediaType, Literal("application/pdf"), None)])
    store.close()
    found = _only(verify_store(path), "statement-extra")
    assert len(found) == 1 and "application/pdf" in found[0].where
    assert str(snap) in found[0].snapshots and found[0].claims


def test_a_statement_changed_in_the_store_is_named_both_ways(recorded):
    path, records = recorded
    claim = records["claim_quote"].iri
    store = _raw(path)
    old = next(iter(store.quads(claim, PG.claimKind)))
    store.replace([old], [(old[0], old[1], Literal("paraphrase"), old[3])])
    store.close()
    report = verify_store(path)
    assert {f.kind for f in report.findings} == {"statement-missing", "statement-extra"}
    assert all(str(claim) in f.claims for f in report.findings)


def test_rebuild_gives_a_canonically_identical_store(recorded, tmp_path):
    path, _ = recorded
    result = rebuild_store(path / LEDGER_NAME, tmp_path / "new")
    a, b = EmbeddedStore(path, read_only=True), EmbeddedStore(tmp_path / "new", read_only=True)
    try:
        assert a.canonical_nquads() == b.canonical_nquads() and len(a) == result.statements
    finally:
        a.close()
        b.close()
    assert (sorted(Originals(path / "originals").digests())
            == sorted(Originals(tmp_path / "new" / "originals").digests()))
    assert verify_store(tmp_path / "new").ok
    with pytest.raises(Exception, match="not empty"):
        rebuild_store(path / LEDGER_NAME, tmp_path / "new")


def test_rebuild_refuses_a_broken_ledger(recorded, tmp_path):
    path, _ = recorded
    lines = _lines(path)
    del lines[2]
    _write_lines(path, lines)
    with pytest.raises(Exception, match="line 3 is numbered 4"):
        rebuild_store(path / LEDGER_NAME, tmp_path / "new")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("tamper", ["rewrite the last line", "cut the last line"])
def test_rebuild_refuses_a_ledger_whose_end_the_head_contradicts(recorded, tmp_path, tamper):
    # a last line has no successor to carry its hash: only ledger.head (or a checkpoint)
    # shows it was rewritten or cut; rebuild must not launder it (found by a break test)
    path, _ = recorded
    lines = _lines(path)
    if tamper == "cut the last line":
        del lines[-1]
    else:
        obj = json.loads(lines[-1])
        obj["time"] = "2000-01-01T00:00:00Z"
        lines[-1] = json.dumps(obj, separators=(",", ":")).encode() + b"\n"
    _write_lines(path, lines)
    with pytest.raises(Exception, match="ledger.head beside it names line .* its end was "
                                        "rewritten or cut"):
        rebuild_store(path / LEDGER_NAME, tmp_path / "new")
    assert not (tmp_path / "new").exists()


def test_rebuild_says_when_no_head_can_vouch_for_the_last_line(recorded, tmp_path):
    path, _ = recorded
    lone = tmp_path / "copied"
    lone.mkdir()
    (lone / LEDGER_NAME).write_bytes((path / LEDGER_NAME).read_bytes())
    result = rebuild_store(lone / LEDGER_NAME, tmp_path / "new", originals=path / "originals")
    assert any("no ledger.head beside the ledger" in n for n in result.notes)


def test_a_line_written_ahead_of_a_commit_that_never_happened_is_reconciled(recorded):
    path, _ = recorded
    before = len(_lines(path))
    # the state a SIGKILL between the ledger append and the engine's commit leaves
    led = LedgerWriter(path)
    led.append("add", added=["<urn:x:never> <urn:x:p> <urn:x:o>"])
    led.close()
    with open(path / LEDGER_NAME, "ab") as f:
        f.write(b'{"v":1,"n":')  # and a torn line after it
    report = verify_store(path)
    assert report.ok, report.findings
    assert any("not in the store" in n for n in report.notes), report.notes
    lines = list(read_lines(path / LEDGER_NAME))
    assert len(lines) == before + 2 and lines[-1].op == "recover"
    assert lines[-1].removed == ("<urn:x:never> <urn:x:p> <urn:x:o>",)


def test_a_committed_write_whose_head_was_not_recorded_is_kept(recorded):
    path, _ = recorded
    second = list(read_lines(path / LEDGER_NAME))[1]
    (path / "ledger.head").write_text(json.dumps({"n": 2, "hash": second.hash}))
    n = len(_lines(path))
    report = verify_store(path)
    assert report.ok and not report.notes and len(_lines(path)) == n  # nothing to recover
    assert json.loads((path / "ledger.head").read_text())["n"] == n


def test_a_head_the_ledger_does_not_hold_is_kept_as_evidence(recorded):
    path, _ = recorded
    (path / "ledger.head").write_text(json.dumps({"n": 2, "hash": "0" * 64}))
    store = EmbeddedStore(path)
    assert "cut or rewritten" in (store.ledger_recovered or "")
    store.add([(IRI("urn:x:a"), IRI("urn:x:p"), Literal("1"), None)])
    store.close()
    assert _only(verify_store(path), "head")[0].line == 2


def _files(path: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(path)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in path.rglob("*") if p.is_file()}


def _chmod_tree(path: Path, write: bool) -> None:
    for p in [path, *path.rglob("*")]:
        mode = p.stat().st_mode
        p.chmod(mode | 0o200 if write else mode & ~0o222)


def _without_write_permission(path: Path) -> list[str]:
    """A command prefix under which ``path`` (made a-w) may not be written: none for an
    ordinary user; for root, which writes past permissions, ``setpriv`` dropping
    CAP_DAC_OVERRIDE. Skips the test when neither makes it read-only."""
    probe = "import os, sys; sys.exit(1 if os.access(sys.argv[1], os.W_OK) else 0)"
    for prefix in ([], ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]):
        if prefix and shutil.which(prefix[0]) is None:
            continue
        if subprocess.run([*prefix, sys.executable, "-c", probe, str(path)]).returncode == 0:
            return prefix
    pytest.skip("cannot make a directory unwritable to this process (root without setpriv)")


@pytest.mark.parametrize("tampered", [False, True], ids=["intact", "statement-inserted"])
def test_verify_checks_a_copy_it_may_not_write(recorded, tmp_path, tampered):
    # an auditor's read-only copy: verify failed opening the writer ('rdf/LOCK: Permission
    # denied') where stale, lineage, validate and runs read it; reconciling is the only
    # write, so the checks run read-only and a note says what was not reconciled
    path, records = recorded
    if tampered:
        store = _raw(path)
        store.add([(records["faq"].iri, PG.mediaType, Literal("application/pdf"), None)])
        store.close()
    _chmod_tree(path, write=False)
    try:
        prefix = _without_write_permission(path)
        before = _files(path)
        got = subprocess.run([*prefix, sys.executable, "-m", "provgraph", "--store", str(path),
                              "verify", "--json"], capture_output=True, text=True)
        assert _files(path) == before  # nothing written
    finally:
        _chmod_tree(path, write=True)
    assert got.returncode == (1 if tampered else 0), got.stderr
    report = json.loads(got.stdout)
    assert [n for n in report["notes"] if "may not be written by this process" in n
            and "verify a writable copy" in n], report["notes"]
    kinds = [f["kind"] for f in report["findings"]]
    assert kinds == (["statement-extra"] if tampered else []), report["findings"]


def test_a_store_without_a_ledger_says_so(tmp_path, runner):
    path = tmp_path / "store"
    EmbeddedStore(path, ledger=False).close()
    result = runner.invoke(cli, ["--store", str(path), "verify"])
    assert result.exit_code == 1 and "no-ledger" in result.output
    assert "has no ledger" in result.output


def test_an_existing_store_is_adopted(tmp_path):
    path = tmp_path / "store"
    store = EmbeddedStore(path, ledger=False)
    store.originals.put(b"kept before the ledger")
    store.add([(IRI("urn:x:a"), IRI("urn:x:p"), Literal("007", datatype=IRI(
        "http://www.w3.org/2001/XMLSchema#int")), None)])
    store.close()
    EmbeddedStore(path).close()
    lines = list(read_lines(path / LEDGER_NAME))
    assert [line.op for line in lines] == ["adopt"] and len(lines[0].blobs) == 1
    assert lines[0].added == ('<urn:x:a> <urn:x:p> "007"^^<http://www.w3.org/2001/XMLSchema#int>',)
    assert verify_store(path).ok


def test_updates_graph_removals_bulk_loads_and_undone_writes_are_ledgered(tmp_path):
    path = tmp_path / "store"
    store = EmbeddedStore(path)
    g = IRI("urn:x:g")
    store.add([(IRI("urn:x:a"), IRI("urn:x:p"), Literal("1"), g)])
    store.update("DELETE { GRAPH ?g { ?s <urn:x:p> ?o } } INSERT { GRAPH ?g { ?s <urn:x:q> ?o } } "
                 "WHERE { GRAPH ?g { ?s <urn:x:p> ?o } }")
    store.update("INSERT DATA { <urn:x:b> <urn:x:p> _:n . }")
    nq = tmp_path / "data.nq"
    nq.write_text('_:b <urn:x:p> "x" <urn:x:h> .\n<urn:x:c> <urn:x:p> "2.0"^^'
                  '<http://www.w3.org/2001/XMLSchema#decimal> .\n')
    store.bulk_load(nq, "nquads")
    store.remove_graph(IRI("urn:x:h"))
    with pytest.raises(RuntimeError), store.journaled("test write"):
        store.add([(IRI("urn:x:undone"), IRI("urn:x:p"), Literal("u"), None)])
        raise RuntimeError("stop")
    store.close()
    report = verify_store(path)
    assert report.ok, report.findings
    ops = [line.op for line in read_lines(path / LEDGER_NAME)]
    assert ops == ["add", "update", "update", "bulk", "remove-graph", "add", "undo"], ops


def test_record_from_the_command_line_is_ledgered_and_verifies(tmp_path, runner):
    path = tmp_path / "store"
    got = runner.invoke(cli, ["--store", str(path), "record", "examples/events.jsonl"])
    assert got.exit_code == 0, got.output
    result = runner.invoke(cli, ["--store", str(path), "verify"], catch_exceptions=False)
    assert result.exit_code == 0 and "verified:" in result.output
    got = runner.invoke(cli, ["--store", str(path), "resolve"], catch_exceptions=False)
    assert got.exit_code == 0, got.output
    notes = [line.note for line in read_lines(path / LEDGER_NAME)]
    assert notes[0] in ("provgraph record", ) or notes[0].startswith("record "), notes
    assert notes[-1] == "provgraph resolve", notes


# ---------------------------------------------------------------- signatures


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    return generate_key(tmp_path / "signing.pem")


def test_keygen_writes_a_private_key_only_its_owner_reads(keys):
    priv, pub = keys
    assert priv.stat().st_mode & 0o777 == 0o600 and pub.read_text().startswith("-----BEGIN PUBLIC")
    with pytest.raises(Exception, match="never overwritten"):
        generate_key(priv)


def _bundle(recorded, keys, fmt="nquads"):  # type: ignore[no-untyped-def]
    path, records = recorded
    store = EmbeddedStore(path, read_only=True)
    try:
        return export(store, fmt, claim=str(records["claim_quote"].iri),
                      signing_key=load_private_key(keys[0]) if keys else None)
    finally:
        store.close()


@pytest.mark.parametrize("fmt", ["prov-json", "nquads", "turtle"])
def test_a_signed_bundle_verifies_with_its_key(recorded, keys, fmt, runner, tmp_path):
    result = _bundle(recorded, keys, fmt)
    check = verify_bundle(result.data, fmt)
    assert check.ok and check.signed and check.signature_problem(load_public_key(keys[1])) is None
    assert _bundle(recorded, None, fmt).digest == result.digest  # the signature is outside it
    f = tmp_path / f"bundle.{ {'prov-json': 'json', 'nquads': 'nq', 'turtle': 'ttl'}[fmt] }"
    f.write_bytes(result.data)
    got = runner.invoke(cli, ["verify-bundle", str(f), "--key", str(keys[1])],
                        catch_exceptions=False)
    assert got.exit_code == 0 and "signature by key" in got.output and "verified" in got.output


def _redigested(data: bytes, change: bool = True) -> bytes:
    """The bundle with one value changed and its digest recomputed, as a forger would."""
    doc = read(data, "nquads")
    bundle = next(s for s, p, o, _ in doc.quads if p == RDF.type and o == PROV.Bundle)
    quads = [(s, p, Literal("paraphrase") if change and p == PG.claimKind else o, g)
             for s, p, o, g in doc.quads if not (s == bundle and p == PG.sha256)]
    digest, _ = bundle_digest(quads, bundle)
    return write(quads + [(bundle, PG.sha256, Literal(digest), None)], "nquads")


def test_a_redigested_bundle_with_a_changed_value_fails_with_the_key(recorded, keys, tmp_path,
                                                                    runner):
    forged = _redigested(_bundle(recorded, keys).data)
    assert verify_bundle(forged, "nquads").ok  # the digest alone is fooled
    f = tmp_path / "forged.nq"
    f.write_bytes(forged)
    got = runner.invoke(cli, ["verify-bundle", str(f), "--key", str(keys[1])])
    assert got.exit_code == 1 and "re-digested" in got.output


def test_a_bundle_resigned_with_another_key_fails(recorded, keys, tmp_path, runner):
    data = _redigested(_bundle(recorded, keys).data)
    doc = read(data, "nquads")
    bundle = next(s for s, p, o, _ in doc.quads if p == RDF.type and o == PROV.Bundle)
    digest = next(o.value for s, p, o, _ in doc.quads if s == bundle and p == PG.sha256)
    other, _ = generate_key(tmp_path / "other.pem")
    from provgraph.signing import sign_bundle

    kid, sig = sign_bundle(load_private_key(other), str(bundle), digest)
    quads = [q for q in doc.quads if q[1] not in (PG.signature, PG.signingKey)]
    quads += [(bundle, PG.signingKey, Literal(kid), None), (bundle, PG.signature, Literal(sig), None)]
    f = tmp_path / "resigned.nq"
    f.write_bytes(write(quads, "nquads"))
    got = runner.invoke(cli, ["verify-bundle", str(f), "--key", str(keys[1])])
    assert got.exit_code == 1 and f"signed by key {kid}" in got.output


def test_an_unsigned_bundle_verifies_as_before_and_says_so(recorded, keys, tmp_path, runner):
    f = tmp_path / "plain.nq"
    f.write_bytes(_bundle(recorded, None).data)
    got = runner.invoke(cli, ["verify-bundle", str(f)], catch_exceptions=False)
    assert got.exit_code == 0 and "unsigned" in got.output
    got = runner.invoke(cli, ["verify-bundle", str(f), "--key", str(keys[1])])
    assert got.exit_code == 1 and "unsigned" in got.output


def test_export_signs_with_the_key_named_by_the_environment(recorded, keys, tmp_path, runner,
                                                            monkeypatch):
    path, records = recorded
    monkeypatch.setenv("PROVGRAPH_SIGNING_KEY", keys[0].read_text())
    out = tmp_path / "claim.json"
    got = runner.invoke(cli, ["--store", str(path), "export", "--claim",
                              str(records["claim_quote"].iri), "--sign", "-o", str(out)],
                        catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert verify_bundle(out.read_bytes()).signature_problem(load_public_key(keys[1])) is None


@pytest.mark.parametrize("where", ["export --sign-key", "checkpoint --sign-key",
                                   "verify --key", "verify-bundle --key",
                                   "$PROVGRAPH_SIGNING_KEY", "serve --token-file",
                                   "$PROVGRAPH_ENDPOINT_PASSWORD_FILE"])
def test_a_key_given_where_its_file_name_belongs_is_never_printed(keys, tmp_path, runner,
                                                                  monkeypatch, where):
    """A PEM pasted into a key file option (or the body of one into a variable naming a
    file) is refused as no readable key file, exit 2, and no line of it is printed
    (click's Path type printed it whole: "File '-----BEGIN PRIVATE KEY-----\\nMC4C..."."""
    pem = keys[0].read_text()
    secret_lines = [line for line in pem.splitlines() if line.strip()]
    body = "\n".join(pem.splitlines()[1:])  # no BEGIN line: not taken for PEM text
    base = ["--store", str(tmp_path / "store")]
    claim = "urn:uuid:0190f3c2-0000-7000-8000-000000000000"
    args = {
        "export --sign-key": [*base, "export", "--claim", claim, "--sign-key", pem, "-o", "-"],
        "checkpoint --sign-key": [*base, "checkpoint", "--sign-key", pem],
        "verify --key": [*base, "verify", "--checkpoint", str(keys[1]), "--key", pem],
        "verify-bundle --key": ["verify-bundle", str(keys[1]), "--key", pem],
        "$PROVGRAPH_SIGNING_KEY": [*base, "export", "--claim", claim, "--sign", "-o", "-"],
        "serve --token-file": [*base, "serve", "--token-file", secret_lines[1],
                               "--bind", "127.0.0.1:0"],
        "$PROVGRAPH_ENDPOINT_PASSWORD_FILE": ["--endpoint", "http://127.0.0.1:9/query", "runs"],
    }[where]
    monkeypatch.setenv("PROVGRAPH_SIGNING_KEY", body)
    monkeypatch.setenv("PROVGRAPH_ENDPOINT_USER", "auditor")
    monkeypatch.setenv("PROVGRAPH_ENDPOINT_PASSWORD_FILE", body)
    got = runner.invoke(cli, args)
    assert got.exit_code == 2, (got.output, got.exception)
    printed = got.stdout + got.stderr
    assert "Error: " in got.stderr and "not shown" in got.stderr, got.stderr
    assert [line for line in secret_lines if line in printed] == []
    assert "MC4C" not in printed  # no part of the key's body either
    if where.endswith("-key"):
        assert "not a readable key file" in got.stderr


def test_a_missing_key_file_is_named(tmp_path, runner):
    got = runner.invoke(cli, ["--store", str(tmp_path / "store"), "checkpoint", "--sign-key",
                              str(tmp_path / "nope.pem")])
    assert got.exit_code == 2 and (f"Invalid value for '--sign-key': key file "
                                   f"'{tmp_path / 'nope.pem'}' does not exist; give the name of "
                                   "the PEM file 'provgraph keygen FILE' wrote") in got.stderr


_SIGNING_KEY_FORM = ("A signing key is an unencrypted Ed25519 private key in a PKCS #8 PEM "
                     "file ('-----BEGIN PRIVATE KEY-----'); make one with 'provgraph keygen "
                     "FILE' (FILE is the private key, for --sign-key; FILE.pub the public key)")


def _bad_key(kind: str, tmp_path: Path, keys: tuple[Path, Path]) -> tuple[Path, str]:
    """A file given as a private key that is none, and what the error says is wrong."""
    f = tmp_path / f"{kind}.pem"
    if kind == "garbage":
        f.write_bytes(bytes(range(256)) * 4)
        return f, "it holds binary data, not PEM text"
    if kind == "empty":
        f.write_bytes(b"")
        return f, "it is empty"
    if kind == "public":
        return keys[1], ("it holds a public key, not the private key: give the key file "
                         "without the .pub suffix")
    if kind == "ec":
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        f.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
        return f, "it holds a private key of type EC, not Ed25519"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["garbage", "empty", "public", "ec", "directory"])
@pytest.mark.parametrize("command", ["export", "checkpoint"])
def test_a_file_that_is_no_signing_key_is_named_with_the_key_wanted(recorded, keys, tmp_path,
                                                                      runner, kind, command):
    """--sign-key given garbage, an empty file, the public key or another algorithm's key said
    'not an unencrypted PEM private key (Unable to load PEM file. See https://cryptography.io/...
    MalformedFraming)', or 'Valid PEM but no BEGIN/END delimiters...': not which key is wanted
    nor how to make one. Exit 2, and nothing is written."""
    path, records = recorded
    out = tmp_path / "out" / "signed.json"
    out.parent.mkdir()
    argv = {"export": ["export", "--claim", str(records["claim_quote"].iri), "-o", str(out)],
            "checkpoint": ["checkpoint", "-o", str(out)]}[command]
    ledger = (path / LEDGER_NAME).read_bytes()
    if kind == "directory":
        key = tmp_path / "keys.d"
        key.mkdir()
        expected = (f"Invalid value for '--sign-key': {str(key)!r} is a directory, not a key "
                    "file; give the name of the PEM file 'provgraph keygen FILE' wrote, or put "
                    "the PEM text in $PROVGRAPH_SIGNING_KEY\n")
    else:
        key, problem = _bad_key(kind, tmp_path, keys)
        expected = f"Error: {key}: not a signing key: {problem}. {_SIGNING_KEY_FORM}\n"
    got = runner.invoke(cli, ["--store", str(path), *argv, "--sign-key", str(key)])
    assert got.exit_code == 2, got.output
    assert got.stderr.endswith(expected), got.stderr
    assert got.stdout == ""
    assert list(out.parent.iterdir()) == []  # no receipt, no bundle, no .partial file
    assert not (path / "checkpoints").exists() and (path / LEDGER_NAME).read_bytes() == ledger


def test_a_public_key_given_to_sign_key_as_a_process(recorded, keys, tmp_path):
    """The real command, given the .pub file: exit 2, the error names the file and the key
    wanted, and no receipt is written."""
    path, _ = recorded
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    env.pop("PROVGRAPH_SIGNING_KEY", None)
    got = subprocess.run([sys.executable, "-m", "provgraph", "--store", str(path), "checkpoint",
                          "--sign-key", str(keys[1])], capture_output=True, text=True, env=env,
                         stdin=subprocess.DEVNULL, timeout=120)
    assert got.returncode == 2, got.stderr
    assert got.stderr == (f"Error: {keys[1]}: not a signing key: it holds a public key, not the "
                          "private key: give the key file without the .pub suffix. "
                          f"{_SIGNING_KEY_FORM}\n")
    assert got.stdout == "" and not (path / "checkpoints").exists()


def test_a_file_that_is_no_public_key_says_which_key_is_wanted(keys, tmp_path):
    """--key given the private key, or no key at all: the message names the .pub file."""
    from provgraph.signing import SignatureError

    with pytest.raises(SignatureError, match=r"it holds a private key, which must stay secret; "
                                             r"give the public key, the \.pub file beside it\. "
                                             r"A public key is an Ed25519 public key"):
        load_public_key(keys[0])
    empty = tmp_path / "empty.pub"
    empty.write_bytes(b"")
    with pytest.raises(SignatureError, match=r"empty\.pub: not a public key: it is empty\. "):
        load_public_key(empty)


def test_a_checkpoint_proves_the_ledger_was_not_rewritten_before_it(recorded, keys, tmp_path,
                                                                    runner):
    path, _ = recorded
    cp, receipt = write_checkpoint(path, load_private_key(keys[0]), tmp_path / "receipt.json")
    store = EmbeddedStore(path)
    store.add([(IRI("urn:x:later"), IRI("urn:x:p"), Literal("appended"), None)])
    store.close()
    args = ["--store", str(path), "verify", "--checkpoint", str(receipt), "--key", str(keys[1])]
    got = runner.invoke(cli, args, catch_exceptions=False)
    assert got.exit_code == 0 and "checkpoint held" in got.output
    # a writer rewrites line 2 and re-chains everything after it: the chain holds again,
    # the store still matches, but the checkpoint (and the head file) do not
    lines = list(_lines(path))
    prev = GENESIS
    out = []
    for raw in lines:
        obj = json.loads(raw)
        obj["prev"] = prev
        if obj["n"] == 2:
            obj["time"] = "2020-01-01T00:00:00.000000Z"
        b = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
        prev = line_hash(b)
        out.append(b + b"\n")
    _write_lines(path, out)
    assert check_chain(path / LEDGER_NAME)[1] is None
    got = runner.invoke(cli, args)
    assert got.exit_code == 1 and "checkpoint" in got.output
    assert f"rewritten up to line {cp.n}" in got.output


def test_resolve_and_validate_name_a_corrupt_retained_original(recorded, runner):
    path, records = recorded
    digest, _ = _cited_blob(path, records)
    blob = Originals(path / "originals").path_for(digest)
    os.chmod(blob, 0o644)
    blob.write_bytes(blob.read_bytes() + b"!")
    got = runner.invoke(cli, ["--store", str(path), "resolve"])
    assert got.exit_code == 1 and digest in got.output and "corrupt" in got.output
    got = runner.invoke(cli, ["--store", str(path), "validate"])
    assert got.exit_code == 1 and digest in got.output


def test_a_windowed_bulk_load_is_ledgered_window_by_window(tmp_path, monkeypatch):
    import provgraph.embedded as embedded_mod

    monkeypatch.setattr(embedded_mod, "_BULK_WINDOW_BYTES", 300)
    nt = tmp_path / "data.nt"
    nt.write_text("".join(f'<urn:x:s{i}> <urn:x:p> "{i}"^^<http://www.w3.org/2001/XMLSchema#int> .\n'
                          for i in range(40)), encoding="utf-8")
    path = tmp_path / "store"
    store = EmbeddedStore(path)
    store.bulk_load(nt, "ntriples", graph=IRI("urn:x:g"))
    store.close()
    lines = list(read_lines(path / LEDGER_NAME))
    assert len(lines) > 1 and {line.op for line in lines} == {"bulk"}
    assert sum(len(line.added) for line in lines) == 40
    assert verify_store(path).ok


def test_every_line_agrees_with_the_schema_read_whole(recorded):
    """The reader checks statement arrays itself and gives the schema their first item
    (provgraph.ledger._decode); read whole by jsonschema, every line is valid too, and a
    line both refuse is refused by both."""
    from provgraph.resources import schema_validator

    path, _ = recorded
    validator = schema_validator("ledger-line-v1.schema.json")
    raws = _lines(path)
    for raw in raws:
        assert not list(validator.iter_errors(json.loads(raw)))
    obj = json.loads(next(r for r in raws if len(json.loads(r).get("added", [])) > 2))
    obj["added"][2] = 7
    assert list(validator.iter_errors(obj))
    bad = json.dumps(obj, separators=(",", ":")).encode()
    _write_lines(path, [*raws, bad + b"\n"])
    problem = check_chain(path / LEDGER_NAME)[1]
    assert problem is not None and problem.line == len(raws) + 1 and "not a string" in problem.reason


def test_a_journaled_write_killed_before_its_first_transaction_verifies(recorded):
    """A record killed after it retained originals and opened its journal, before any
    statement (found with SIGKILLs): the undo has nothing to log, the report is current."""
    from provgraph._undo_journal import JOURNAL_NAME, UndoJournal

    path, _ = recorded
    n = len(_lines(path))
    Originals(path / "originals").put(b"retained by the killed write")
    UndoJournal(path / JOURNAL_NAME, "record killed.jsonl").close()  # left, as by SIGKILL
    report = verify_store(path)
    assert report.ok, report.findings
    assert any("undid record killed.jsonl" in note for note in report.notes)
    assert any("not listed in the ledger" in note for note in report.notes)
    assert len(_lines(path)) == n and report.lines == n


def test_verify_beside_a_writer_reads_what_was_committed(recorded):
    path, _ = recorded
    writer = EmbeddedStore(path)
    try:
        report = verify_store(path, lock_timeout=0.2)
    finally:
        writer.close()
    assert report.ok, report.findings
    assert any("without the writer's lock" in n for n in report.notes)


def test_a_torn_line_after_lines_of_megabytes_is_cut_and_the_head_read(tmp_path):
    led = LedgerWriter(tmp_path)
    big = [f"<urn:x:s{i}> <urn:x:p> \"{'x' * 200}\"" for i in range(3000)]  # ~650 KB a line
    led.append("add", added=big)
    led.append("add", added=big[:10])
    led.append("add", added=big)
    n, head = led.n, led.head
    led.close()
    with open(tmp_path / LEDGER_NAME, "ab") as f:
        f.write(json.dumps({"v": 1, "n": 4, "added": big}).encode()[:400_000])  # no newline
    again = LedgerWriter(tmp_path)
    assert (again.n, again.head) == (n, head) and again.torn == 400_000
    again.close()
    assert [line.n for line in read_lines(tmp_path / LEDGER_NAME)] == [1, 2, 3]


def test_a_writer_signs_a_checkpoint_every_n_lines(tmp_path, keys, monkeypatch):
    monkeypatch.setenv("PROVGRAPH_SIGNING_KEY", str(keys[0]))
    monkeypatch.setenv("PROVGRAPH_CHECKPOINT_EVERY", "2")
    path = tmp_path / "store"
    store = EmbeddedStore(path)
    for i in range(5):
        store.add([(IRI(f"urn:x:s{i}"), IRI("urn:x:p"), Literal(str(i)), None)])
    store.close()
    receipts = sorted(p.name for p in (path / "checkpoints").iterdir())
    assert receipts == ["checkpoint-2.json", "checkpoint-4.json"]
    for name in receipts:
        assert verify_store(path, checkpoint=path / "checkpoints" / name, public_key=keys[1]).ok
    monkeypatch.setenv("PROVGRAPH_CHECKPOINT_EVERY", "often")
    with pytest.raises(Exception, match="whole number"):
        EmbeddedStore(path)
    monkeypatch.setenv("PROVGRAPH_CHECKPOINT_EVERY", "3")
    EmbeddedStore(path).close()  # the lock was released by the failed open


def test_after_a_failed_sync_no_line_reuses_its_number_and_a_reopen_reconciles(recorded,
                                                                                monkeypatch):
    path, _ = recorded
    import provgraph.ledger as ledger_module

    before = len(_lines(path))
    led = LedgerWriter(path)
    n = led.n

    def failing_sync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(ledger_module, "_datasync", failing_sync)
    with pytest.raises(OSError, match="Input/output error"):
        led.append("add", added=["<urn:x:a> <urn:x:p> <urn:x:o>"])
    monkeypatch.undo()  # the disk works again; the writer must still refuse
    with pytest.raises(OSError, match=rf"could not write line {n + 1}.*open it again"):
        led.append("add", added=["<urn:x:b> <urn:x:p> <urn:x:o>"])
    led.close()
    lines = list(read_lines(path / LEDGER_NAME))
    assert len(lines) == before + 1 and lines[-1].n == n + 1  # the failed line, once
    assert check_chain(path / LEDGER_NAME)[1] is None
    report = verify_store(path)  # the reopen reconciles the line whose write never ran
    assert report.ok, report.findings
    lines = list(read_lines(path / LEDGER_NAME))
    assert [line.op for line in lines[-2:]] == ["add", "recover"]
    assert [line.n for line in lines] == list(range(1, len(lines) + 1))


@pytest.mark.parametrize("given, shown", [
    ("hunter2", False), ("s3cr3t-T0ken_x", False), ("P@ss.word1", False),
    ("serve.token", False), ("abc/def+ghi==", False),  # no folder, or one that does not exist
    ("tokens/serve.txt", True), ("./serve.token", True)])  # a folder that exists
def test_a_token_given_as_the_token_file_is_not_printed_but_a_missing_path_is(
        tmp_path, runner, monkeypatch, given, shown):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tokens").mkdir()
    got = runner.invoke(cli, ["--store", str(tmp_path / "store"), "serve", "--token-file",
                              given, "--bind", "127.0.0.1:0"])
    assert got.exit_code == 2, (got.output, got.exception)
    assert (given in got.stderr) is shown, got.stderr
    assert ("cannot read it" if shown else "it may be the token itself") in got.stderr


def test_a_token_file_gives_its_first_line_that_is_not_blank(tmp_path):
    from provgraph.errors import StoreError
    from provgraph.serve._wire import token_from_environment

    path = tmp_path / "serve.token"
    path.write_text("\n  \n  s3cr3t-T0ken_x  \nsecond line\n", encoding="utf-8")
    assert token_from_environment(path) == "s3cr3t-T0ken_x"
    path.write_text("\n \t\n", encoding="utf-8")
    with pytest.raises(StoreError, match="is empty"):
        token_from_environment(path)
    for bad, why in ((b"tok\x00en\n", "control characters"), (b"x" * 5000, "not a token"),
                     (b"y" * (65 * 1024), "too large"), (b"\xff\xfe\x00", "not UTF-8")):
        path.write_bytes(bad)
        with pytest.raises(StoreError, match=why):
            token_from_environment(path)
    hidden = tmp_path / "tokendir"  # a bare name is not shown, but why it failed is
    hidden.mkdir()
    import os
    cwd = os.getcwd()
    os.chdir(hidden)
    try:
        (hidden / "garbage.bin").write_bytes(b"\x89PNG\xff")
        with pytest.raises(StoreError, match=r"cannot be read \(it is not UTF-8 text\)") as exc:
            token_from_environment("garbage.bin")
        assert "garbage.bin" not in str(exc.value)
    finally:
        os.chdir(cwd)


def test_an_empty_token_file_name_is_an_error_not_a_server_without_a_token(tmp_path, runner,
                                                                           monkeypatch):
    for args, env in (([ "--token-file", ""], {}), ([], {"PROVGRAPH_TOKEN_FILE": ""})):
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        got = runner.invoke(cli, ["--store", str(tmp_path / "store"), "serve", *args,
                                  "--bind", "127.0.0.1:0"])
        assert got.exit_code == 2, (got.output, got.exception)
        assert "token file name is empty" in got.stderr


def test_a_mark_reads_on_from_before_the_last_line_and_refuses_a_changed_ledger(tmp_path):
    """mark_before_last / lines_since (what the stale index reads writes from): the mark is
    before the last line (whose write may not have committed when a reader looks), read
    back from the end even past a long line; a torn last line is left out; a cut or an
    edited ledger gives None, never lines that do not continue the chain."""
    from provgraph.ledger import GENESIS, LedgerMark, LedgerWriter, lines_since, mark_before_last

    w = LedgerWriter(tmp_path)
    path = tmp_path / LEDGER_NAME
    assert mark_before_last(path) == LedgerMark(0, GENESIS, 0)
    w.append("add", added=["<urn:a> <urn:p> <urn:o> <urn:g>"])
    assert mark_before_last(path) == LedgerMark(0, GENESIS, 0)
    w.append("add", added=[f"<urn:s{i}> <urn:p> \"{'x' * 300}\" <urn:g>" for i in range(1000)])
    mark = mark_before_last(path)
    assert mark is not None and mark.n == 1
    assert [x.n for x in lines_since(path, mark)] == [2]
    w.append("remove", removed=["<urn:a> <urn:p> <urn:o> <urn:g>"])
    later = mark_before_last(path)
    assert later is not None and later.n == 2
    assert [(x.n, x.op) for x in lines_since(path, mark)] == [(2, "add"), (3, "remove")]
    with open(path, "ab") as f:
        f.write(b'{"v":1,"n":4')  # torn: its write never started
    assert mark_before_last(path) == later and [x.n for x in lines_since(path, later)] == [3]
    data = path.read_bytes()
    path.write_bytes(data[:later.offset])  # cut back to before line 3
    assert lines_since(path, later) is None
    path.write_bytes(data.replace(b"<urn:s999>", b"<urn:t999>"))  # line 2 edited
    assert lines_since(path, mark) is None  # line 3 records the SHA-256 of the old line 2
    assert lines_since(path, LedgerMark(0, GENESIS, 0)) is None
