"""Servers for the tests: ``provgraph serve`` in a thread (fast) or in a process (to kill)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

from provgraph.serve.client import ServedStore
from provgraph.serve.server import ProvgraphServer, ServeConfig
from provgraph.store import EmbeddedStore

TOKEN = "test-token-3f9c"


class ThreadServedStore(ServedStore):
    """A ServedStore whose server runs in a thread of this process; close() stops both."""

    def __init__(self, path: Path, *, allow_update: bool = True, token: str | None = TOKEN,
                 max_request_bytes: int = 64 << 20) -> None:
        self.backing = EmbeddedStore(path)
        self.server = ProvgraphServer(self.backing, ServeConfig(
            port=0, allow_update=allow_update, token=token,
            max_request_bytes=max_request_bytes))
        self._thread = threading.Thread(target=self.server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        super().__init__(self.server.url, token=token or "")

    def close(self) -> None:
        super().close()
        if self._thread.is_alive():
            self.server.shutdown()
            self.server.server_close()
            self._thread.join()
            self.backing.close()


def start_serve_process(store: Path, *args: str, token: str | None = TOKEN,
                        ) -> tuple[subprocess.Popen[str], str]:
    """``provgraph --store STORE serve --bind 127.0.0.1:0 ARGS`` in a process; returns
    (process, URL) once it listens."""
    env = dict(os.environ)
    env.pop("PROVGRAPH_TOKEN", None)
    if token is not None:
        env["PROVGRAPH_TOKEN"] = token
    proc = subprocess.Popen(
        [sys.executable, "-m", "provgraph", "--store", str(store), "serve",
         "--bind", "127.0.0.1:0", *args],
        stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    for line in proc.stderr:
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # drain
            return proc, found.group(1)
    raise AssertionError(f"provgraph serve did not start (exit {proc.wait()})")
