"""The ``provgraph serve`` HTTP server: one process owns the store, every other one talks to it.

Endpoints (issue 13):

========================  =====================================================================
``GET|POST /sparql``      SPARQL 1.1 Protocol (W3C Recommendation 2013, §2.1): ``GET ?query=``,
                          ``POST`` form ``query=`` or ``application/sparql-query``; results as
                          SPARQL 1.1 Query Results JSON (SELECT, ASK) or N-Triples (CONSTRUCT,
                          DESCRIBE); the default graph is the union of all graphs. ``SERVICE``
                          and ``LOAD`` are refused (403, :mod:`provgraph.sparql_guard`: the
                          server never calls out); ``default-graph-uri`` and
                          ``named-graph-uri`` are refused (400). Updates (§2.2: form ``update=``
                          or ``application/sparql-update``) are refused (403) unless the server
                          runs with ``allow_update``, and then need the token.
``POST /ingest``          a JSONL event log (``schemas/events-v1.schema.json``) recorded by
                          :func:`provgraph.events.load_events`: all or nothing, the same line and
                          field errors (400, JSON with ``line`` and ``field``); token.
``/quads /load /dump``    the store contract for :class:`~provgraph.serve.client.ServedStore`:
``/graphs /originals``    pattern reads, transactional writes (token), named graphs, originals.
``/stats``                ``{"statements": N}`` (counts every quad: linear in the store size).
``GET /health``           ``{"status": "ok", ...}``; ``GET /version``: provgraph's version.
``GET /ui/``              the auditor's web page (:mod:`provgraph.ui.app`; read-only).
========================  =====================================================================

Writes run one at a time (a lock), so the store sees one writer; each is acknowledged
(``200``) only after the store committed it, so a client that got an answer has its
statements in the engine's write-ahead log: they survive ``kill -9`` of the server (a
power loss is another matter: the engine does not sync that log on every commit).
SIGTERM and SIGINT stop accepting requests, finish the ones in flight, flush and close
the store. Bodies above ``max_request_bytes`` are refused (413) without being stored; up to 16 MB of
one is read and dropped first, so the client sees the 413 rather than a reset.
"""

from __future__ import annotations

import hmac
import json
import signal
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import (
    EventLogError, OriginalCorruptError, OriginalMissingError, ProvgraphError, QueryRefused,
    StoreError,
)
from ..sparql_guard import check_untrusted
from ..store import ANY_GRAPH, EmbeddedStore, parse_rdf, serialize_quads
from ..terms import IRI, Literal, Term, term_from_json

__all__ = ["ServeConfig", "ProvgraphServer", "serve"]

_DRAIN_BYTES = 16 << 20
"""How much of a refused (too large) request body is read and dropped before the 413."""

DEFAULT_MAX_REQUEST_BYTES = 64 << 20
"""Largest request body accepted, in bytes (64 MiB)."""


@dataclass(frozen=True, kw_only=True)
class ServeConfig:
    """How the server runs.

    Attributes:
        host: address to bind (``127.0.0.1`` by default: this machine only).
        port: TCP port; 0 picks a free one (printed when the server starts).
        allow_update: accept SPARQL 1.1 Update on ``/sparql`` (with the token).
        token: the shared secret for ingest, writes and updates (``Authorization:
            Bearer TOKEN``); ``None``: writes are open to every local process, which
            :func:`serve` allows only on a loopback address.
        max_request_bytes: largest request body.
    """

    host: str = "127.0.0.1"
    port: int = 7878
    allow_update: bool = False
    token: str | None = None
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES


class _Refused(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class ProvgraphServer(ThreadingHTTPServer):
    """The HTTP server owning one store (see the module docstring for the endpoints).

    Args:
        store: the store it serves (it must not be used by anyone else meanwhile).
        config: bind address, token, limits.
    """

    daemon_threads = False  # server_close() waits for requests in flight
    block_on_close = True

    def __init__(self, store: EmbeddedStore, config: ServeConfig) -> None:
        self.store = store
        self.config = config
        self.write_lock = threading.Lock()
        self.stopping = False
        super().__init__((config.host, config.port), _Handler)

    @property
    def url(self) -> str:
        """The base URL clients use, such as ``http://127.0.0.1:7878``."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: ProvgraphServer
    protocol_version = "HTTP/1.1"
    timeout = 5  # seconds an idle kept-alive connection is held (shutdown waits for it)
    server_version = "provgraph-serve"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: errors go to stderr
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body are two writes: without this, Nagle's algorithm and the
        # client's delayed ACK add about 40 ms to every kept-alive request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # -- plumbing ------------------------------------------------------------
    def _send(self, status: int, body: bytes, media: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", media)
        self.send_header("Content-Length", str(len(body)))
        if self.server.stopping:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"))

    def _body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is None:
            if self.headers.get("Transfer-Encoding"):
                raise _Refused(HTTPStatus.LENGTH_REQUIRED, "send a Content-Length (chunked "
                               "bodies are not accepted)")
            return b""
        try:
            n = int(length)
        except ValueError:
            raise _Refused(HTTPStatus.BAD_REQUEST, f"Content-Length {length!r} is not a number") from None
        if n > self.server.config.max_request_bytes:
            self.close_connection = True
            self._discard(n)
            raise _Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                           f"request body of {n} bytes is over the limit of "
                           f"{self.server.config.max_request_bytes} bytes (--max-request-mb); "
                           "split it")
        return self.rfile.read(n)

    def _discard(self, n: int) -> None:
        """Read and drop up to ``_DRAIN_BYTES`` of a refused body, so a client still
        sending it reads the 413 instead of a connection reset; a larger body is cut off."""
        left = min(n, _DRAIN_BYTES)
        self.connection.settimeout(5.0)
        try:
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)
        except OSError:
            pass

    def _authorize(self) -> None:
        token = self.server.config.token
        if token is None:
            return
        given = self.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise _Refused(HTTPStatus.UNAUTHORIZED, "this endpoint needs the token: send "
                           "'Authorization: Bearer TOKEN' (set $PROVGRAPH_TOKEN or "
                           "$PROVGRAPH_TOKEN_FILE for the provgraph client)")

    def _handle(self, action: Callable[[], None]) -> None:
        try:
            action()
        except _Refused as exc:
            self._json(exc.status, {"error": str(exc), "kind": "StoreError"})
        except ProvgraphError as exc:
            self._json(_status_of(exc), _error_body(exc))
        except (ValueError, TypeError, KeyError, UnicodeDecodeError) as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": f"bad request: {exc}",
                                                "kind": "StoreError"})
        except BrokenPipeError:
            self.close_connection = True
        except Exception as exc:  # a bug: say so, keep serving
            print(f"provgraph serve: {self.command} {self.path}: {exc!r}", file=sys.stderr)
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {exc!r}",
                                                          "kind": "StoreError"})

    def _params(self, body: bytes | None = None) -> dict[str, str]:
        query = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
        if body is not None:
            for k, v in parse_qs(body.decode("utf-8"), keep_blank_values=True).items():
                query.setdefault(k, []).extend(v)
        for k in ("default-graph-uri", "named-graph-uri", "using-graph-uri",
                  "using-named-graph-uri"):
            if k in query:
                raise _Refused(HTTPStatus.BAD_REQUEST, f"{k} is not supported: the default "
                               "graph is the union of all graphs; use GRAPH in the query")
        return {k: v[-1] for k, v in query.items()}

    # -- verbs ---------------------------------------------------------------
    def do_GET(self) -> None:
        self._handle(lambda: self._route("GET"))

    def do_HEAD(self) -> None:
        self._handle(lambda: self._route("HEAD"))

    def do_POST(self) -> None:
        self._handle(lambda: self._route("POST"))

    def do_DELETE(self) -> None:
        self._handle(lambda: self._route("DELETE"))

    def _route(self, verb: str) -> None:
        path = urlsplit(self.path).path.rstrip("/") or "/"
        store = self.server.store
        if path == "/sparql":
            self._sparql(verb)
        elif path == "/health" and verb in ("GET", "HEAD"):
            self._json(200, {"status": "stopping" if self.server.stopping else "ok",
                             "store": store.location, "updates": self.server.config.allow_update})
        elif path == "/version" and verb in ("GET", "HEAD"):
            from .. import __version__

            self._json(200, {"provgraph": __version__, "protocol": 1})
        elif path == "/ingest" and verb == "POST":
            self._ingest()
        elif path == "/quads" and verb == "GET":
            self._read_quads()
        elif path == "/quads" and verb == "POST":
            self._write_quads()
        elif path == "/load" and verb == "POST":
            self._load()
        elif path == "/dump" and verb == "GET":
            p = self._params()
            graph = _graph_param(p.get("graph"))
            prefixes = json.loads(p["prefixes"]) if "prefixes" in p else None
            out = store.serialize(p.get("format", "nquads"), graph=graph, prefixes=prefixes)
            self._send(200, out or b"", "application/octet-stream")
        elif path == "/graphs" and verb == "GET":
            self._json(200, [str(g) for g in store.named_graphs()])
        elif path == "/graphs" and verb == "DELETE":
            self._authorize()
            with self.server.write_lock:
                store.remove_graph(IRI(self._params()["graph"]))
            self._json(200, {"ok": True})
        elif path == "/stats" and verb == "GET":
            self._json(200, {"statements": len(store)})
        elif path == "/originals" and verb == "POST":
            self._authorize()
            data = self._body()
            with self.server.write_lock:
                digest = store.originals.put(data)
            self._json(200, {"sha256": digest})
        elif path.startswith("/originals/") and verb in ("GET", "HEAD"):
            digest = path.rsplit("/", 1)[1]
            if verb == "HEAD":
                self._send(200 if digest in store.originals else 404, b"",
                           "application/octet-stream")
            else:
                self._send(200, store.originals.get(digest), "application/octet-stream")
        elif path == "/ui" or path.startswith("/ui/"):
            from ..ui.app import handle as ui_handle, respond

            respond(self, ui_handle(store, verb, self.path))  # read-only: GET, HEAD
        else:
            raise _Refused(HTTPStatus.NOT_FOUND, f"no endpoint {verb} {path}; see /health, "
                           "/sparql, /ingest")

    def _sparql(self, verb: str) -> None:
        media = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        update: str | None = None
        query: str | None = None
        if verb == "POST" and media == "application/sparql-query":
            params = self._params()
            query = self._body().decode("utf-8")
        elif verb == "POST" and media == "application/sparql-update":
            params = self._params()
            update = self._body().decode("utf-8")
        elif verb == "POST":
            params = self._params(self._body())
            query, update = params.get("query"), params.get("update")
        elif verb in ("GET", "HEAD"):
            params = self._params()
            query = params.get("query")
        else:
            raise _Refused(HTTPStatus.METHOD_NOT_ALLOWED, "use GET or POST on /sparql")
        source = params.get("source", "<request>")
        text = update if update is not None else query
        if text is None:
            raise _Refused(HTTPStatus.BAD_REQUEST, "give a 'query' (or, for updates, an "
                           "'update') parameter (SPARQL 1.1 Protocol §2.1)")
        # the one gate for untrusted SPARQL (issue 15): SERVICE, LOAD, an update sent
        # as a query, or a text the checker cannot read never reach the engine
        check_untrusted(text, source, update=update is not None)
        if update is not None:
            if not self.server.config.allow_update:
                raise _Refused(HTTPStatus.FORBIDDEN, "updates are refused: the server is "
                               "read-only; start it with --allow-update (and a token), or "
                               "record through /ingest")
            self._authorize()
            with self.server.write_lock:
                self.server.store.update(update, source=source)
            self._send(200, b"{}")
            return
        bindings = {k: term_from_json(v) for k, v in json.loads(params.get("bindings", "{}")).items()}
        values = None
        if "values" in params:
            name, terms = json.loads(params["values"])
            values = (str(name), [_iri_or_literal(term_from_json(t)) for t in terms])
        media_type, out = self.server.store.query_results(query or "", bindings or None,
                                                          source=source, values=values)
        self._send(200, out, media_type)

    def _ingest(self) -> None:
        self._authorize()
        body = self._body()
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise EventLogError(self._params().get("name", "<ingest>"), 1, None,
                                f"not UTF-8 text (byte 0x{body[exc.start]:02x} at offset "
                                f"{exc.start}); convert it to UTF-8") from None
        from ..events import load_events

        name = self._params().get("name", "<ingest>")
        with self.server.write_lock:
            recorder = load_events(self.server.store, text.splitlines(), name=name)
        self._json(200, {"run": str(recorder.iri)})  # sent only after the commit

    def _read_quads(self) -> None:
        p = self._params()
        pattern = json.loads(p.get("pattern", "{}"))
        s, p_, o = (None if pattern.get(k) is None else term_from_json(pattern[k])
                    for k in ("s", "p", "o"))
        g = pattern.get("g", "any")
        graph: Any = ANY_GRAPH if g == "any" else None if g is None else IRI(term_from_json(g))
        found = list(self.server.store.quads(s, p_, o, graph=graph))  # type: ignore[arg-type]
        self._send(200, serialize_quads(found, "nquads"), "application/n-quads")

    def _write_quads(self) -> None:
        self._authorize()
        req = json.loads(self._body().decode("utf-8"))
        rm = parse_rdf(req.get("remove", ""), "nquads")
        add = parse_rdf(req.get("add", ""), "nquads")
        store = self.server.store
        with self.server.write_lock:
            if req.get("bulk"):
                store.bulk_add(add)
            elif rm and add:
                store.replace(rm, add)
            elif rm:
                store.remove(rm)
            elif add:
                store.add(add)
        self._json(200, {"ok": True})

    def _load(self) -> None:
        self._authorize()
        p = self._params()
        data = self._body()
        graph = p.get("graph")
        with self.server.write_lock:
            n = self.server.store.load(data, p["format"], graph=IRI(graph) if graph else None,
                                       base_iri=p.get("base") or None)
        self._json(200, {"added": n})


def _iri_or_literal(term: Term) -> IRI | Literal:
    if not isinstance(term, (IRI, Literal)):
        raise TypeError(f"values: {term!r} is not an IRI or a literal (VALUES admits no "
                        "blank node)")
    return term


def _graph_param(value: str | None) -> Any:
    if value is None or value == "any":
        return ANY_GRAPH
    return None if value == "default" else IRI(value)


def _status_of(exc: ProvgraphError) -> int:
    if isinstance(exc, OriginalMissingError):
        return 404
    if isinstance(exc, QueryRefused):
        return 403
    if isinstance(exc, (OriginalCorruptError,)):
        return 500
    if isinstance(exc, StoreError):
        return 500 if "storage error" in str(exc) else 400
    return 400


def _error_body(exc: ProvgraphError) -> dict[str, Any]:
    body: dict[str, Any] = {"error": str(exc), "kind": type(exc).__name__}
    attrs = {k: v for k, v in vars(exc).items() if _plain(v)}
    body["attrs"] = attrs
    if isinstance(exc, EventLogError):
        body["line"], body["field"] = exc.line, exc.field
    return body


def _plain(value: Any) -> bool:
    """Whether ``value`` is JSON as it is: a string, number, boolean, ``None`` or a list
    of them (an :class:`EventLogError`'s ``errors`` are exceptions: left out)."""
    if isinstance(value, list):
        return all(_plain(v) and not isinstance(v, list) for v in value)
    return isinstance(value, (str, int, float, bool, type(None)))


def serve(store: EmbeddedStore, config: ServeConfig, *,
          ready: Callable[[ProvgraphServer], None] | None = None) -> None:
    """Serve ``store`` until SIGTERM or SIGINT, then finish the requests in flight and
    close the store (nothing acknowledged is lost).

    Args:
        store: the store to own (opened for writing).
        config: bind address, token, limits.
        ready: called once the socket listens (the CLI prints the URL).

    Raises:
        StoreError: the address cannot be bound, or a non-loopback address is asked
            for without a token.
    """
    if config.token is None and config.host not in ("127.0.0.1", "::1", "localhost"):
        raise StoreError(f"--bind {config.host}: serving beyond this machine needs a token; "
                         "set $PROVGRAPH_TOKEN or --token-file")
    try:
        server = ProvgraphServer(store, config)
    except OSError as exc:
        raise StoreError(f"cannot listen on {config.host}:{config.port}: {exc}; pick another "
                         "--bind address or port") from exc

    def stop(signum: int, frame: Any) -> None:
        server.stopping = True
        threading.Thread(target=server.shutdown, name="provgraph-serve-stop").start()

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        if ready is not None:
            ready(server)
        server.serve_forever(poll_interval=0.2)
    finally:
        server.stopping = True
        server.server_close()  # waits for the requests in flight
        for s, h in previous.items():
            signal.signal(s, h)
        store.close()
