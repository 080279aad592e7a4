"""Shared fixtures: in-memory and on-disk stores, a recorded pipeline, a CLI runner,
and the location of the shared third-party cases."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from provgraph import EmbeddedStore, Recorder

from . import eval_runs, pipeline

SHARED_CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"
# A git worktree sits one level deeper (wt/<branch>/): use the nearest ancestor that has them.
SHARED_CASES = next((p / "shared" / "cases" for p in Path(__file__).resolve().parents[1:]
                     if (p / "shared" / "cases").is_dir()), SHARED_CASES)


def shared_cases(sub: str = "") -> Path:
    """Path to ../shared/cases/<sub>; skip with a reason when it is absent, except in CI
    (CI=true), where its absence is a failure."""
    path = SHARED_CASES / sub
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing in CI; the shared cases must be present there")
        pytest.skip(f"{path} is absent: the shared third-party cases sit beside the project "
                    "checkout (../shared/cases) and are not part of a user's clone")
    return path


@pytest.fixture
def store():
    s = EmbeddedStore()
    yield s
    s.close()


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "store"


@pytest.fixture
def rag_store():
    """(store, records): the fixture pipeline of tests/pipeline.py, recorded in memory."""
    s = EmbeddedStore()
    rec = Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    records = pipeline.record(rec)
    records["run"] = rec.iri
    yield s, records
    s.close()


@pytest.fixture
def recorded():
    """(store, recorder, records): the fixture pipeline recorded in memory, with its
    recorder kept for further steps (a module may define its own ``recorded``)."""
    s = EmbeddedStore()
    rec = Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    yield s, rec, r
    s.close()


@pytest.fixture
def runner():
    return CliRunner()


# -- real SPARQL engines (issue 13): session-scoped, started on 127.0.0.1, stopped by pid -----

def _server_fixture(name: str, start, installed):  # type: ignore[no-untyped-def]
    @pytest.fixture(scope="session")
    def fixture():  # type: ignore[no-untyped-def]
        if installed() is None:
            reason = (f"{name} is not installed here (.ci/run installs it: "
                      f"{'pip install oxigraph' if name == 'oxigraph' else 'apt-get install virtuoso-opensource'})")
            if os.environ.get("CI") == "true":
                pytest.fail(f"{reason}; CI must run the server tests")
            pytest.skip(reason)
        server = start()
        yield server
        server.stop()
    return fixture


from . import servers as _servers  # noqa: E402

oxigraph_server = _server_fixture("oxigraph", _servers.start_oxigraph, _servers.oxigraph_binary)
virtuoso_server = _server_fixture("virtuoso", _servers.start_virtuoso, _servers.virtuoso_binary)


def open_remote(server, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A RemoteStore on ``server`` with every provgraph graph dropped (a fresh, empty store)."""
    from provgraph.remote import RemoteStore

    s = RemoteStore(server.query_url, originals=tmp_path / "remote-originals",
                    **server.store_kwargs())
    s.clear()
    return s


# -- a local TCP listener: proves that no request leaves (issue 15) ---------------------

@pytest.fixture(scope="module")
def listener() -> Iterator[tuple[str, list[bytes]]]:
    """(base URL, connections seen) of a TCP listener on 127.0.0.1."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(50)
    srv.settimeout(0.1)
    seen: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conn.settimeout(0.5)
            try:
                seen.append(conn.recv(64))
            except OSError:
                seen.append(b"")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/", seen
    stop.set()
    thread.join()
    srv.close()


def store_contents(path: Path) -> list[str]:
    """Every statement of the on-disk store at ``path``, as sorted ``repr`` lines, read
    through a read-only open (what a test compares before and after a write)."""
    store = EmbeddedStore(path, read_only=True)
    try:
        return sorted(repr(q) for q in store.quads())
    finally:
        store.close()


@pytest.fixture
def evaluated():
    """An in-memory store holding tests/eval_runs.py's run of known counts, resolved:
    ``(store, the records by name)``."""
    from provgraph.resolve import resolve_run

    s = EmbeddedStore()
    r = eval_runs.record(s)
    resolve_run(s)
    yield s, r
    s.close()


@pytest.fixture(scope="session")
def demo_store_path(tmp_path_factory) -> Path:
    """The demo store (the pipeline's statements: ``run_demo(evaluation=False)``), built once
    per session, for the page's tests (issue 19); open it read-only."""
    from provgraph.demo import run_demo

    return run_demo(tmp_path_factory.mktemp("ui-demo") / "store", quiet=True,
                    evaluation=False).store_path
