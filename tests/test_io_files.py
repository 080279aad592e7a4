"""provgraph.io.files.atomic_write: all or nothing, the mode of a plain write, clear errors."""

from __future__ import annotations

import os
import stat

import pytest

from provgraph.errors import ProvgraphError
from provgraph.io.files import atomic_write


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_writes_the_file_returns_what_write_returned_and_leaves_nothing_else(tmp_path, umask_022):
    out = tmp_path / "bundle.json"
    assert atomic_write(out, lambda fh: fh.write(b"{}") and "done") == "done"
    assert out.read_bytes() == b"{}"
    assert [p.name for p in tmp_path.iterdir()] == ["bundle.json"]
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # not the temporary file's 0600
    assert atomic_write(str(tmp_path / "as-text-path.nq"), lambda fh: fh.write(b"x")) == 1


def test_a_new_file_gets_0666_less_the_umask_and_an_existing_file_keeps_its_mode(tmp_path):
    old = os.umask(0o027)
    try:
        new = tmp_path / "new.json"
        atomic_write(new, lambda fh: fh.write(b"1"))
        assert stat.S_IMODE(new.stat().st_mode) == 0o640
        kept = tmp_path / "kept.json"
        kept.write_bytes(b"old")
        kept.chmod(0o604)
        atomic_write(kept, lambda fh: fh.write(b"new"))
        assert kept.read_bytes() == b"new" and stat.S_IMODE(kept.stat().st_mode) == 0o604
    finally:
        os.umask(old)


def test_the_old_content_stays_until_write_returns_and_after_it_raises(tmp_path):
    out = tmp_path / "claim.json"
    out.write_bytes(b"the earlier export")
    seen = []

    def write(fh):
        fh.write(b"half of it")
        fh.flush()
        seen.append(out.read_bytes())
        raise KeyError("the store went away")

    with pytest.raises(KeyError, match="the store went away"):  # propagated unchanged
        atomic_write(out, write)
    assert seen == [b"the earlier export"]
    assert out.read_bytes() == b"the earlier export"
    assert [p.name for p in tmp_path.iterdir()] == ["claim.json"]  # no .partial file left


def test_a_directory_is_an_error_naming_it(tmp_path):
    adir = tmp_path / "exports"
    adir.mkdir()
    with pytest.raises(ProvgraphError) as info:
        atomic_write(adir, lambda fh: fh.write(b"x"))
    assert str(info.value) == (f"{adir} is a directory; give the name of a file to write "
                               "(one inside it, for example)")
    assert list(adir.iterdir()) == []


def test_a_missing_parent_directory_is_an_error_naming_it(tmp_path):
    out = tmp_path / "missing" / "claim.json"
    with pytest.raises(ProvgraphError) as info:
        atomic_write(out, lambda fh: fh.write(b"x"))
    assert str(info.value) == (f"cannot write {out}: the directory {out.parent} does not "
                               "exist; create it first, or give a path in a directory that "
                               "exists")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_is_an_error_naming_it(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(ProvgraphError, match=f"check that the directory {ro} is writable"):
            atomic_write(ro / "claim.json", lambda fh: fh.write(b"x"))
    finally:
        ro.chmod(0o755)


def test_a_symbolic_link_is_written_through_and_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    atomic_write(link, lambda fh: fh.write(b"new"))
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]
