""":class:`ServedStore`: the store contract over a ``provgraph serve`` server (issue 13).

``open_store("http://127.0.0.1:7878")`` (and ``--store http://...`` on the command
line) returns one, so application code and the :class:`~provgraph.recorder.Recorder`
do not change when the store moves behind a server. Each contract call is one HTTP
request (a recorded answer in a :meth:`~provgraph.recorder.Recorder.batch` is one
``POST /quads``); errors come back as the same provgraph exceptions the embedded store
raises. The token for writes comes from ``$PROVGRAPH_TOKEN`` or ``$PROVGRAPH_TOKEN_FILE``.
Each thread keeps its own kept-alive connection.
"""

from __future__ import annotations

import http.client
import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any
from urllib.parse import urlencode, urlsplit

from .. import errors
from ..errors import OriginalCorruptError, ProvgraphError, QueryError, StoreError
from ..originals import BlobStore, check_digest, sha256_hex
from ..store import ANY_GRAPH, URL_OPENERS, ProvStore, parse_rdf, serialize_quads
from ..terms import IRI, BNode, Literal, Quad, Term, term_from_json, term_to_json
from ._wire import token_from_environment

__all__ = ["ServedStore"]


class _Connection:
    """HTTP requests to one server, a kept-alive connection per thread."""

    def __init__(self, url: str, token: str | None, timeout: float) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise StoreError(f"{url!r} is not a provgraph serve URL; give "
                             "http://HOST:PORT (as printed by 'provgraph serve')")
        self.url = f"{parts.scheme}://{parts.netloc}"
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname, parts.port
        self._token = token
        self._timeout = timeout
        self._local = threading.local()

    def _conn(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=self._timeout)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def request(self, method: str, path: str, body: bytes | None = None,
                media: str | None = None) -> tuple[int, str, bytes]:
        headers = {"Accept": "*/*"}
        if media:
            headers["Content-Type"] = media
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        for attempt in (0, 1):
            conn = self._conn()
            reused = getattr(self._local, "used", False)
            try:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()
                # A kept-alive connection the server had closed: the request never ran.
                if attempt == 0 and reused:
                    continue
                raise StoreError(f"provgraph serve at {self.url}: {method} {path.split('?')[0]}"
                                 f" failed: {exc!r}") from exc
            except OSError as exc:
                self.close()
                raise StoreError(f"cannot reach provgraph serve at {self.url}: {exc}; start "
                                 "it with 'provgraph serve' or check the URL") from exc
            self._local.used = True
            if resp.getheader("Connection", "").lower() == "close":
                self.close()
            return resp.status, resp.getheader("Content-Type", ""), data
        raise AssertionError("unreachable")

    def call(self, method: str, path: str, body: bytes | None = None,
             media: str | None = None) -> bytes:
        status, _, data = self.request(method, path, body, media)
        if status >= 400:
            raise _error_from(self.url, status, data)
        return data


def _error_from(url: str, status: int, data: bytes) -> ProvgraphError:
    """The provgraph exception the server reported (same class, message and fields)."""
    try:
        body = json.loads(data)
        kind, message = str(body["kind"]), str(body["error"])
    except (ValueError, KeyError, TypeError):
        return StoreError(f"provgraph serve at {url} answered {status}: "
                          f"{data[:200].decode('utf-8', 'replace')}")
    cls = getattr(errors, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, ProvgraphError)):
        cls = StoreError
    exc: ProvgraphError = cls.__new__(cls)
    Exception.__init__(exc, message)
    for k, v in (body.get("attrs") or {}).items():
        setattr(exc, k, v)
    return exc


class _ServedBlobs(BlobStore):
    """The server's originals: put is one POST, get one GET (its digest checked here too)."""

    def __init__(self, conn: _Connection) -> None:
        self._conn = conn
        self.location = f"{conn.url}/originals"

    def put(self, data: bytes) -> str:
        digest = json.loads(self._conn.call("POST", "/originals", bytes(data),
                                            "application/octet-stream"))["sha256"]
        return str(digest)

    def get(self, sha256: str) -> bytes:
        check_digest(sha256)
        data = self._conn.call("GET", f"/originals/{sha256}")
        actual = sha256_hex(data)
        if actual != sha256:
            raise OriginalCorruptError(sha256, actual, self.location)
        return data

    def __contains__(self, sha256: object) -> bool:
        if not isinstance(sha256, str):
            return False
        try:
            check_digest(sha256)
        except ValueError:
            return False
        return self._conn.request("HEAD", f"/originals/{sha256}")[0] == 200


class ServedStore(ProvStore):
    """A :class:`~provgraph.store.ProvStore` over a ``provgraph serve`` server.

    Args:
        url: the server's base URL, such as ``http://127.0.0.1:7878``.
        token: the token for writes; ``None`` reads ``$PROVGRAPH_TOKEN_FILE`` or
            ``$PROVGRAPH_TOKEN``.
        timeout: seconds to wait for each answer.

    Raises:
        StoreError: the server does not answer ``/health``.
    """

    def __init__(self, url: str, *, token: str | None = None, timeout: float = 120.0) -> None:
        self._http = _Connection(url, token if token is not None else token_from_environment(),
                                 timeout)
        self.location = self._http.url
        health = json.loads(self._http.call("GET", "/health"))
        if health.get("status") not in ("ok", "stopping"):
            raise StoreError(f"{url} did not answer as provgraph serve: {health!r}")
        self.originals = _ServedBlobs(self._http)

    # -- writing -------------------------------------------------------------
    def _write(self, remove: Iterable[Quad] = (), add: Iterable[Quad] = (),
               bulk: bool = False) -> None:
        rm, ad = list(remove), list(add)
        if not rm and not ad:
            return
        try:
            body = {"remove": serialize_quads(rm, "nquads").decode("utf-8"),
                    "add": serialize_quads(ad, "nquads").decode("utf-8"), "bulk": bulk}
        except (ValueError, TypeError) as exc:
            raise StoreError(f"store {self.location}: invalid term or value: {exc}") from exc
        except ProvgraphError as exc:
            raise StoreError(f"store {self.location}: invalid term or value: {exc}") from exc
        self._http.call("POST", "/quads", json.dumps(body).encode("utf-8"), "application/json")

    def add(self, quads: Iterable[Quad]) -> None:
        self._write(add=quads)

    def bulk_add(self, quads: Iterable[Quad]) -> None:
        self._write(add=quads, bulk=True)

    def remove(self, quads: Iterable[Quad]) -> None:
        self._write(remove=quads)

    def replace(self, remove: Iterable[Quad], add: Iterable[Quad]) -> None:
        self._write(remove=remove, add=add)

    def load(self, data: bytes | str | IO[bytes], format: str, *, graph: IRI | None = None,
             base_iri: str | None = None) -> int:
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif not isinstance(data, bytes):
            data = data.read()
        q = {"format": format}
        if graph is not None:
            q["graph"] = str(graph)
        if base_iri:
            q["base"] = base_iri
        out = json.loads(self._http.call("POST", f"/load?{urlencode(q)}", data,
                                         "application/octet-stream"))
        return int(out["added"])

    def update(self, sparql: str, *, source: str = "<text>") -> None:
        self._http.call("POST", "/sparql", urlencode({"update": sparql, "source": source})
                        .encode("utf-8"), "application/x-www-form-urlencoded")

    # -- reading -------------------------------------------------------------
    def quads(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
              object: Term | None = None, graph: Any = ANY_GRAPH) -> Iterator[Quad]:
        pattern: dict[str, Any] = {
            k: None if t is None else term_to_json(t)
            for k, t in (("s", subject), ("p", predicate), ("o", object))}
        pattern["g"] = "any" if graph is ANY_GRAPH else None if graph is None else term_to_json(graph)
        data = self._http.call("GET", "/quads?" + urlencode({"pattern": json.dumps(pattern)}))
        return iter(parse_rdf(data, "nquads"))

    def _query(self, sparql: str, bindings: Mapping[str, Term] | None, source: str,
               values: tuple[str, Sequence[IRI | Literal]] | None = None) -> tuple[str, bytes]:
        form = {"query": sparql, "source": source}
        if bindings:
            form["bindings"] = json.dumps({k: term_to_json(v) for k, v in bindings.items()})
        if values is not None:
            name, terms = values
            for t in terms:
                if not isinstance(t, (IRI, Literal)):
                    raise TypeError(f"values: {t!r} is not an IRI or a literal (VALUES admits "
                                    "no blank node)")
            form["values"] = json.dumps([name, [term_to_json(t) for t in terms]])
        status, media, data = self._http.request(
            "POST", "/sparql", urlencode(form).encode("utf-8"),
            "application/x-www-form-urlencoded")
        if status >= 400:
            raise _error_from(self.location, status, data)
        return media, data

    def select(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
               source: str = "<text>",
               values: tuple[str, Sequence[IRI | Literal]] | None = None,
               ) -> list[dict[str, Term | None]]:
        media, data = self._query(sparql, bindings, source, values)
        res = json.loads(data) if "json" in media else {}
        if "results" not in res:
            raise QueryError(f"{source}: expected a SELECT query")
        names = res["head"]["vars"]
        return [{n: term_from_json(b[n]) if n in b else None for n in names}
                for b in res["results"]["bindings"]]

    def ask(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
            source: str = "<text>") -> bool:
        media, data = self._query(sparql, bindings, source)
        res = json.loads(data) if "json" in media else {}
        if "boolean" not in res:
            raise QueryError(f"{source}: expected an ASK query")
        return bool(res["boolean"])

    def construct(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
                  source: str = "<text>") -> list[tuple[IRI | BNode, IRI, Term]]:
        media, data = self._query(sparql, bindings, source)
        if "n-triples" not in media:
            raise QueryError(f"{source}: expected a CONSTRUCT or DESCRIBE query")
        return [(s, p, o) for s, p, o, _ in parse_rdf(data, "ntriples")]

    def serialize(self, format: str, *, graph: Any = ANY_GRAPH,
                  output: IO[bytes] | None = None,
                  prefixes: Mapping[str, str] | None = None) -> bytes | None:
        q = {"format": format,
             "graph": "any" if graph is ANY_GRAPH else "default" if graph is None else str(graph)}
        if prefixes:
            q["prefixes"] = json.dumps(dict(prefixes))
        data = self._http.call("GET", f"/dump?{urlencode(q)}")
        if output is None:
            return data
        output.write(data)
        return None

    def named_graphs(self) -> list[IRI]:
        return sorted(IRI(g) for g in json.loads(self._http.call("GET", "/graphs")))

    def remove_graph(self, graph: IRI) -> None:
        self._http.call("DELETE", "/graphs?" + urlencode({"graph": str(graph)}))

    def __len__(self) -> int:
        return int(json.loads(self._http.call("GET", "/stats"))["statements"])

    def close(self) -> None:
        self._http.close()


def served_store_from_env(url: str) -> ServedStore:
    """``ServedStore(url)`` with the token from the environment (for :func:`open_store`);
    ``$PROVGRAPH_HTTP_TIMEOUT`` (seconds, default 120) bounds each request."""
    return ServedStore(url, timeout=float(os.environ.get("PROVGRAPH_HTTP_TIMEOUT", "120")))


URL_OPENERS["http"] = URL_OPENERS["https"] = served_store_from_env
