"""Real SPARQL engines for the tests and the benchmark: start on 127.0.0.1, stop by pid.

* Oxigraph server (PyPI ``oxigraph``, the CLI and HTTP server, not pyoxigraph): the
  ``oxigraph`` binary beside the running Python, on ``PATH`` or ``$PROVGRAPH_OXIGRAPH``.
* Virtuoso 7.2 (Debian ``virtuoso-opensource``): ``virtuoso-t`` and ``isql-vt`` on
  ``PATH``; a private instance with its own ini and data folder, HTTP and SQL ports on
  loopback only, a ``provgraph`` account allowed SPARQL updates (Digest auth on
  ``/sparql-auth``). ``ResultSetMaxRows`` stays at its stock 10,000 unless asked.

Ported from the recipes in ../shared/sparql-servers (README, oxigraph_server.sh,
virtuoso_server.sh): same flags and ini, in Python so pytest fixtures and ``bench``
share them. Each server gets a free port and a temporary folder removed at stop.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Server", "oxigraph_binary", "start_oxigraph", "start_virtuoso", "virtuoso_binary",
           "VIRTUOSO_USER", "VIRTUOSO_PASSWORD"]

VIRTUOSO_USER = "provgraph"
VIRTUOSO_PASSWORD = "provsecret"
_DBA_PASSWORD = "provpass"


@dataclass
class Server:
    """A running engine: its URLs, credentials, pid and temporary folder."""

    name: str
    query_url: str
    update_url: str
    gsp_url: str
    pid: int
    folder: Path
    user: str | None = None
    password: str | None = None
    max_rows: int | None = None
    _proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _stop_cmd: list[str] | None = field(default=None, repr=False)

    def store_kwargs(self) -> dict[str, object]:
        """Keyword arguments of :class:`provgraph.remote.RemoteStore` for this server."""
        return {"update_url": self.update_url, "gsp_url": self.gsp_url, "user": self.user,
                "password": self.password, "engine": self.name, "max_rows": self.max_rows}

    def stop(self) -> None:
        """Stop the server by its pid (a clean shutdown first for Virtuoso) and remove
        its folder."""
        if self._stop_cmd:
            subprocess.run(self._stop_cmd, capture_output=True, timeout=30, check=False)
        if self._proc is not None:
            if self._proc.poll() is None:
                os.kill(self.pid, signal.SIGTERM)
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self._proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, proc: subprocess.Popen[bytes], log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}): "
                               f"{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)
    raise RuntimeError(f"server not ready after {seconds:.0f} s: {url}")


def oxigraph_binary() -> str | None:
    """The Oxigraph server binary, or ``None`` when it is not installed."""
    env = os.environ.get("PROVGRAPH_OXIGRAPH")
    if env:
        return env
    beside = Path(sys.executable).parent / "oxigraph"
    return str(beside) if beside.exists() else shutil.which("oxigraph")


def virtuoso_binary() -> str | None:
    """``virtuoso-t``, or ``None`` when Virtuoso is not installed."""
    return shutil.which("virtuoso-t")


def start_oxigraph(folder: Path | None = None) -> Server:
    """Start ``oxigraph serve`` on a free loopback port, union default graph on.

    Raises:
        RuntimeError: the binary is missing or the server does not come up.
    """
    binary = oxigraph_binary()
    if binary is None:
        raise RuntimeError("the oxigraph server binary is not installed (pip install oxigraph)")
    folder = folder or Path(tempfile.mkdtemp(prefix="provgraph-oxigraph-"))
    port = _free_port()
    log = folder / "server.log"
    proc = subprocess.Popen(  # noqa: S603 - fixed argument list
        [binary, "serve", "--location", str(folder / "data"), "--bind", f"127.0.0.1:{port}",
         "--union-default-graph", "--timeout-s", "300"],
        stdout=log.open("wb"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    _wait(f"{base}/query?query=ASK%7B%7D", proc, log, 120)
    return Server("oxigraph", f"{base}/query", f"{base}/update", f"{base}/store", proc.pid,
                  folder, _proc=proc)


_VIRTUOSO_INI = """[Database]
DatabaseFile       = {d}/virtuoso.db
ErrorLogFile       = {d}/virtuoso.log
LockFile           = {d}/virtuoso.lck
TransactionFile    = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel      = 7
FileExtend         = 200
MaxCheckpointRemap = 2000
Striping           = 0
TempStorage        = TempDatabase
[TempDatabase]
DatabaseFile       = {d}/virtuoso-temp.db
TransactionFile    = {d}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping           = 0
[Parameters]
ServerPort           = 127.0.0.1:{sql}
DisableUnixSocket    = 1
MaxClientConnections = 10
CheckpointInterval   = 60
CaseMode             = 2
DirsAllowed          = ., {d}
NumberOfBuffers      = 170000
MaxDirtyBuffers      = 130000
MaxQueryMem          = 2G
ThreadsPerQuery      = 2
[HTTPServer]
ServerPort           = 127.0.0.1:{http}
ServerRoot           = /var/lib/virtuoso-opensource-7/vsp
MaxClientConnections = 10
ServerThreads        = 10
KeepAliveTimeout     = 10
Charset              = UTF-8
[SPARQL]
ResultSetMaxRows           = {max_rows}
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime      = 300
[Plugins]
LoadPath = /usr/lib/x86_64-linux-gnu/virtuoso-opensource-7/hosting
"""


def start_virtuoso(folder: Path | None = None, *, max_rows: int = 10_000) -> Server:
    """Start a private Virtuoso on free loopback ports with a fresh database.

    Args:
        max_rows: ``[SPARQL] ResultSetMaxRows`` (10,000 is Virtuoso's stock cap).

    Raises:
        RuntimeError: Virtuoso is missing or does not come up.
    """
    binary = virtuoso_binary()
    isql = shutil.which("isql-vt")
    if binary is None or isql is None:
        raise RuntimeError("Virtuoso is not installed (apt-get install virtuoso-opensource)")
    folder = folder or Path(tempfile.mkdtemp(prefix="provgraph-virtuoso-"))
    http, sql = _free_port(), _free_port()
    (folder / "virtuoso.ini").write_text(
        _VIRTUOSO_INI.format(d=folder, sql=sql, http=http, max_rows=max_rows))
    log = folder / "stdout.log"
    proc = subprocess.Popen(  # noqa: S603
        [binary, "+foreground", "+configfile", str(folder / "virtuoso.ini")], cwd=folder,
        stdout=log.open("wb"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{http}"
    try:
        _wait(f"{base}/sparql?query=ASK%7B%7D", proc, folder / "virtuoso.log", 120)
        for cmd in (f"DB.DBA.USER_CHANGE_PASSWORD('dba', 'dba', '{_DBA_PASSWORD}');",):
            subprocess.run([isql, f"127.0.0.1:{sql}", "dba", "dba", f"exec={cmd}"],
                           capture_output=True, timeout=60, check=True)
        subprocess.run([isql, f"127.0.0.1:{sql}", "dba", _DBA_PASSWORD,
                        f"exec=DB.DBA.USER_CREATE('{VIRTUOSO_USER}', '{VIRTUOSO_PASSWORD}'); "
                        f"GRANT SPARQL_UPDATE TO \"{VIRTUOSO_USER}\";"],
                       capture_output=True, timeout=60, check=True)
    except BaseException:
        proc.kill()
        proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Server("virtuoso", f"{base}/sparql", f"{base}/sparql-auth",
                  f"{base}/sparql-graph-crud-auth", proc.pid, folder, VIRTUOSO_USER,
                  VIRTUOSO_PASSWORD, max_rows, _proc=proc,
                  _stop_cmd=[isql, f"127.0.0.1:{sql}", "dba", _DBA_PASSWORD, "exec=shutdown;"])
