"""Crash safety under test (issue 20, item 3): real processes killed with SIGKILL at seeded
moments (tests/crash_harness.py says how and what is checked), 20 kills here, 100 in
``make soak``; and the temporary files a kill leaves, removed by the next open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from provgraph.io.files import remove_stale_partials
from provgraph.store import EmbeddedStore
from provgraph.vocab import PG

from .crash_harness import SCENARIOS, Outcome, Workbench, leftovers, summary

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

KILLS = {"recorder": 6, "record": 2, "import": 4, "resolve": 4, "export": 4}
"""Kills per scenario in ``make test`` (20; ``record`` costs the most: a 2,049-event log)."""
SOAK_KILLS = 20
"""Kills per scenario in ``make soak`` (100), with seeds after those of ``make test``."""
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory,
          request: pytest.FixtureRequest) -> Iterator[tuple[Workbench, list[Outcome]]]:
    outcomes: list[Outcome] = []
    yield Workbench(tmp_path_factory.mktemp("crash")), outcomes
    if outcomes:  # the table of what the kills did, printed past pytest's capture
        with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
            print(f"\ncrash harness, {len(outcomes)} kills:\n{summary(outcomes)}")


@pytest.mark.parametrize(("scenario", "seed"),
                         [(s, i) for s in SCENARIOS for i in range(KILLS[s])])
def test_a_killed_process_leaves_a_store_that_opens_whole_and_clean(bench, scenario, seed):
    workbench, outcomes = bench
    outcomes.append(workbench.trial(scenario, seed))  # asserts everything (check_after_kill)


@pytest.mark.soak
@pytest.mark.parametrize(("scenario", "seed"), [(s, i) for s in SCENARIOS
                                                for i in range(KILLS[s], KILLS[s] + SOAK_KILLS)])
def test_soak_100_kills(bench, scenario, seed):
    workbench, outcomes = bench
    outcomes.append(workbench.trial(scenario, seed))


# -- the temporary files, one by one ----------------------------------------------------

_KILLED_IN_BLOB_WRITE = """
import os, signal, sys
from provgraph.recorder import Recorder
from provgraph.store import EmbeddedStore
from provgraph.vocab import PG
store = EmbeddedStore(sys.argv[1])
rec = Recorder(store, label="killed", packages=[])
os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # after the write, before the rename
rec.snapshot(b"retained bytes", uri="file:///a.txt", media_type="text/plain")
"""


def test_a_blob_write_killed_before_its_rename_leaves_a_tmp_file_the_next_writer_removes(
        tmp_path: Path) -> None:
    path = tmp_path / "store"
    proc = subprocess.run([sys.executable, "-c", _KILLED_IN_BLOB_WRITE, str(path)], cwd=ROOT)
    assert proc.returncode == -signal.SIGKILL
    assert leftovers(path) == {"originals .tmp-*": 1, "writer.json": 1}
    EmbeddedStore(path, read_only=True).close()  # a reader deletes nothing
    assert leftovers(path) == {"originals .tmp-*": 1, "writer.json": 1}
    store = EmbeddedStore(path)
    assert leftovers(path) == {"writer.json": 1}  # its own note, while it is open
    # the snapshot's statements come after its blob: none were stored (the run's were)
    assert list(store.quads(None, PG.sha256)) == [] and len(store) > 0
    store.close()
    assert leftovers(path) == {}
    assert list(path.glob("originals/sha256/??/*")) == []


def test_a_live_writers_tmp_file_is_not_touched_by_a_reader(tmp_path: Path) -> None:
    path = tmp_path / "store"
    writer = EmbeddedStore(path)
    blob_dir = path / "originals" / "sha256" / "ab"
    blob_dir.mkdir(parents=True)
    (blob_dir / ".tmp-being-written").write_bytes(b"half")  # as Originals.put is writing
    EmbeddedStore(path, read_only=True).close()
    assert (blob_dir / ".tmp-being-written").exists()
    writer.close()


def test_a_stale_temporary_writer_note_is_removed_by_the_next_writer(tmp_path: Path) -> None:
    path = tmp_path / "store"
    EmbeddedStore(path).close()
    (path / ".writer.json.4242").write_text('{"pid": 4242')  # killed before its rename
    EmbeddedStore(path).close()
    assert leftovers(path) == {}


_EXPORTER = """
import sys, time
from provgraph.io.files import atomic_write
def write(fh):
    fh.write(b"part of it")
    fh.flush()
    print("writing", flush=True)
    time.sleep(60)
atomic_write(sys.argv[1], write)
"""


def _exporting(out: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", _EXPORTER, str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    return proc


def test_a_live_exports_partial_file_is_kept_and_a_killed_ones_is_removed(tmp_path: Path) -> None:
    out = tmp_path / "claim.json"
    proc = _exporting(out)
    assert remove_stale_partials(out) == 0  # its writer is alive (it holds the flock)
    assert leftovers(tmp_path, out) == {".partial": 1}
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert leftovers(tmp_path, out) == {".partial": 1}  # SIGKILL cannot be handled
    assert remove_stale_partials(out) == 1
    assert list(tmp_path.iterdir()) == []


def test_sigterm_during_an_export_removes_its_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "claim.json"
    out.write_text("old")
    proc = _exporting(out)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM  # it still ends by SIGTERM
    assert [p.name for p in tmp_path.iterdir()] == ["claim.json"]
    assert out.read_text() == "old"


def test_the_next_export_removes_a_killed_exports_partial_file(tmp_path: Path, runner) -> None:
    from provgraph.cli import cli

    store = tmp_path / "store"
    assert runner.invoke(cli, ["--store", str(store), "init"]).exit_code == 0
    out = tmp_path / "out.nq"
    stale = tmp_path / ".out.nq.k1ll3d00.partial"
    stale.write_bytes(b"<urn:x:s> <urn:x:p> ")
    started = time.time()
    os.utime(stale, (started, started))  # as young as can be: only the lock tells
    res = runner.invoke(cli, ["--store", str(store), "export", "--all", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.nq", "store"]
