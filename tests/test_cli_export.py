"""export -o FILE through provgraph.io.files.atomic_write, as a user runs it."""

from __future__ import annotations

from provgraph.cli import cli
from provgraph.io.bundle import verify_bundle


def _cli_on(store, monkeypatch):
    import provgraph.cli as cli_mod

    monkeypatch.setattr(cli_mod._Ctx, "store", lambda self, **kw: store)
    monkeypatch.setattr(cli_mod._Ctx, "close", lambda self: None)


def test_export_to_a_symbolic_link_writes_through_it(rag_store, runner, tmp_path, monkeypatch):
    # a plain write follows the link; the atomic write must not replace the link by a file
    store, r = rag_store
    _cli_on(store, monkeypatch)
    real = tmp_path / "audit" / "claim.json"
    real.parent.mkdir()
    real.write_bytes(b"an earlier export")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri, "-o", str(link)],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and verify_bundle(real.read_bytes()).ok
    assert res.stderr.startswith("exported bundle <") and res.stderr.endswith(f" to {link}, "
                                 f"sha256 {verify_bundle(real.read_bytes()).actual}\n")


def test_export_into_a_missing_directory_is_an_error_exit_2(rag_store, runner, tmp_path,
                                                           monkeypatch):
    store, r = rag_store
    _cli_on(store, monkeypatch)
    out = tmp_path / "nope" / "claim.json"
    res = runner.invoke(cli, ["export", "--claim", r["claim_quote"].iri, "-o", str(out)])
    assert res.exit_code == 2
    assert res.stderr == (f"Error: cannot write {out}: the directory {out.parent} does not "
                          "exist; create it first, or give a path in a directory that exists\n")
    assert res.stdout == ""
