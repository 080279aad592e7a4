"""The auditor's page over HTTP (issue 19): :func:`handle` answers one request, and
:func:`serve_ui` serves it alone (``provgraph ui``); ``provgraph serve`` mounts the same
:func:`handle` under ``/ui/``.

Routes (``GET`` and ``HEAD`` only; anything else is ``405``):

=========================  ============================================================
``/ui/``                   the runs
``/ui/run?iri=RUN``        its answers and claims; ``filter=`` one of
                           :data:`provgraph.ui.views.FILTERS` (``impacted`` with
                           ``agent=`` and ``version=``); ``claim=`` opens the drawer
``/ui/claim?iri=CLAIM``    the citation drawer alone
``/ui/lineage?iri=CLAIM``  the lineage graph, its rows and the bundle's verification
``/ui/bundle?iri=CLAIM``   the sealed PROV-JSON bundle, as a download
``/ui/node?iri=X``         the statements about one node
``/ui/stale[.csv]``        stale claims, grouped (``run=`` to restrict); CSV as
                           ``provgraph stale --csv``
``/ui/impact[.csv]``       ``agent=`` and ``version=``: as ``provgraph impact --csv``
``/ui/api/claim?iri=``     the drawer's facts as JSON (what the page highlights; for a
                           PDF region, ``provgraph region``'s object)
``/ui/static/NAME``        the stylesheet (package data)
=========================  ============================================================

``provgraph ui`` on a loopback address answers only requests whose ``Host`` names it
(127.0.0.1, localhost or [::1] with its port; 403 otherwise), so a page elsewhere cannot
read the store by pointing a name of its own at 127.0.0.1 (DNS rebinding).
Every response carries a Content-Security-Policy that allows no script and no
resource from elsewhere (``default-src 'none'; style-src 'self'``; the pages have no
script), ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` and
``Cache-Control: no-store``. Parameters are bound as RDF terms by the library (never
pasted into query text); an IRI that is not absolute is ``400``, one the store does
not hold ``404``, each with the message saying which.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .. import analytics
from .._rows import _check_iri
from ..errors import NotFound, ProvgraphError, QueryError
from ..output import write_rows
from ..schema import claim as claim_schema
from ..store import ProvStore
from ..terms import IRI, Literal
from ..vocab import PG
from . import pages, views

__all__ = ["Response", "handle", "UIServer", "serve_ui", "SECURITY_HEADERS", "STATIC_FILES"]

SECURITY_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": ("default-src 'none'; style-src 'self'; img-src 'self' data:; "
                                "script-src 'self'; form-action 'self'; base-uri 'none'; "
                                "frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
"""Headers on every response of the page."""

STATIC_FILES = {"ui.css": "text/css; charset=utf-8"}
"""The package data served under ``/ui/static/`` (``provgraph/ui/static/``), by name."""

_HTML = "text/html; charset=utf-8"
_LOOPBACK = ("127.0.0.1", "::1")


@dataclass
class Response:
    """One HTTP response: status, body, media type and further headers."""

    status: int
    body: bytes
    media_type: str = _HTML
    headers: dict[str, str] = field(default_factory=dict)


def _html(status: int, text: str) -> Response:
    return Response(status, text.encode("utf-8"))


def _one(q: Mapping[str, list[str]], name: str, required: bool = False) -> str | None:
    v = q.get(name)
    if not v or v[-1] == "":
        if required:
            raise ValueError(f"the parameter {name!r} is missing: give {name}=IRI")
        return None
    return v[-1]


def _csv(rows: list[Any], row_type: Any) -> str:
    out = io.StringIO()
    write_rows([r.to_dict() for r in rows], row_type.columns(), fmt="csv", out=out,
               plain_values=True)
    return out.getvalue()


def _texts(store: ProvStore, claims: list[IRI]) -> dict[str, str]:
    recs = claim_schema.load(store, sorted(set(claims)))
    return {str(k): v.text for k, v in recs.items()}


_AGENTS = (f"SELECT DISTINCT ?name ?version WHERE {{ ?a <{PG.agentName}> ?name "
           f"OPTIONAL {{ ?a <{PG.agentVersion}> ?version }} }}")


def _agents(store: ProvStore) -> list[tuple[str, str]]:
    rows = store.select(_AGENTS, source="provgraph.ui.app")
    return sorted({(str(r["name"].value) if isinstance(r["name"], Literal) else str(r["name"]),
                    r["version"].value if isinstance(r["version"], Literal) else "")
                   for r in rows})


def _node(store: ProvStore, iri: str) -> Response:
    node = _check_iri("iri", iri)
    quads = sorted({(str(q[1]), q[2]) for q in store.quads(node)}, key=lambda x: (x[0], str(x[1])))
    if not quads and not store.mentions(node):
        raise NotFound(node, "node")
    from ..kinds import types_of

    stmts = [(p, o.value if isinstance(o, Literal) else str(o), isinstance(o, IRI))
             for p, o in quads]
    return _html(200, pages.node_page(node, stmts, types_of(store, node)))


def _claim_json(d: views.ClaimDrawer) -> dict[str, Any]:
    cits = []
    for v in d.citations:
        c, s = v.citation, v.snapshot
        cits.append({
            "citation": c.iri, "outcome": c.outcome, "reason": c.reason, "target": c.target,
            "snapshot": s.record.iri if s else None, "sha256": s.record.sha256 if s else None,
            "span_codepoints": list(s.span) if s and s.span else None,
            "span_bytes": list(s.span_bytes) if s and s.span_bytes else None,
            "highlighted": s.text[s.span[0]:s.span[1]] if s and s.text is not None and s.span else None,
            "newer": [n.iri for n in s.newer] if s else [], "deleted": s.deleted if s else False,
            "region": v.region.region.to_dict() if v.region is not None else None})
    return {"claim": d.claim.iri, "text": d.claim.text, "kind": d.claim.kind,
            "status": d.claim.status, "display": d.display, "citations": cits,
            "stale": [r.to_dict() for r in d.stale], "reviewed": bool(d.reviews)}


def _route(store: ProvStore, path: str, q: Mapping[str, list[str]]) -> Response:
    if path in ("/ui", "/ui/", "/"):
        return _html(200, pages.runs_page(views.run_list(store)))
    if path == "/ui/run":
        run = _one(q, "iri", True)
        flt, agent, version = _one(q, "filter"), _one(q, "agent"), _one(q, "version")
        claim = _one(q, "claim")
        page = _one(q, "page") or "1"
        if not page.isdigit():
            raise ValueError(f"page={page!r} is not a page number; give page=1, 2, ...")
        view = views.run_answers(store, run or "", filter=flt, agent=agent, version=version,
                                 page=int(page))
        drawer = views.claim_drawer(store, claim) if claim else None
        keep = {k: v for k, v in (("filter", flt), ("agent", agent), ("version", version)) if v}
        return _html(200, pages.run_page(view, drawer, keep))
    if path == "/ui/claim":
        return _html(200, pages.claim_page(views.claim_drawer(store, _one(q, "iri", True) or "")))
    if path == "/ui/api/claim":
        d = views.claim_drawer(store, _one(q, "iri", True) or "")
        return Response(200, json.dumps(_claim_json(d)).encode(), "application/json")
    if path == "/ui/lineage":
        iri = _one(q, "iri", True) or ""
        graph = views.lineage_view(store, iri)
        bundle, check = views.bundle_of(store, iri)
        return _html(200, pages.lineage_page(graph, bundle, check))
    if path == "/ui/bundle":
        iri = _one(q, "iri", True) or ""
        bundle, _ = views.bundle_of(store, iri)
        name = f"claim-{bundle.digest[:16] if bundle.digest else 'bundle'}.prov.json"
        return Response(200, bundle.data, "application/json",
                        {"Content-Disposition": f'attachment; filename="{name}"'})
    if path == "/ui/node":
        return _node(store, _one(q, "iri", True) or "")
    if path in ("/ui/stale", "/ui/stale.csv"):
        run = _one(q, "run")
        rows = analytics.stale(store, run=run)
        if path.endswith(".csv"):
            return Response(200, _csv(rows, analytics.StaleRow).encode(), "text/csv; charset=utf-8",
                            {"Content-Disposition": 'attachment; filename="stale.csv"'})
        snaps = views.snapshot_labels(store, [r.snapshot for r in rows]
                                      + [r.newest for r in rows if r.newest is not None])
        return _html(200, pages.stale_page(rows, _texts(store, [r.claim for r in rows]), run, snaps))
    if path in ("/ui/impact", "/ui/impact.csv"):
        agent, version, run = _one(q, "agent"), _one(q, "version"), _one(q, "run")
        rows_i = analytics.impact(store, agent, version=version, run=run) if agent else []
        if path.endswith(".csv"):
            if not agent:
                raise ValueError("the parameter 'agent' is missing: give agent=NAME")
            return Response(200, _csv(rows_i, analytics.ImpactRow).encode(),
                            "text/csv; charset=utf-8",
                            {"Content-Disposition": 'attachment; filename="impact.csv"'})
        by_claim: dict[str, list[Any]] = {}
        if rows_i:
            for r in analytics.stale(store, run=run):
                by_claim.setdefault(str(r.claim), []).append(r)
        stale = {str(r.claim): views.stale_label(by_claim.get(str(r.claim), [])) for r in rows_i}
        return _html(200, pages.impact_page(rows_i, _texts(store, [r.claim for r in rows_i]),
                                            agent, version, _agents(store), stale))
    if path.startswith("/ui/static/"):
        name = path.rsplit("/", 1)[1]
        if name in STATIC_FILES:
            data = resources.files(__package__).joinpath("static", name).read_bytes()
            return Response(200, data, STATIC_FILES[name])
    return _html(404, pages.error_page(404, f"no page {path}; start at /ui/"))


def _status(exc: Exception) -> int:
    if isinstance(exc, NotFound):
        return 404
    return 400 if isinstance(exc, (QueryError, ValueError)) else 500


def handle(store: ProvStore, method: str, target: str) -> Response:
    """Answer one request of the page.

    Args:
        store: the store to read (only read: the page never writes).
        method: the HTTP method; only ``GET`` and ``HEAD`` are answered (``405``
            otherwise, with ``Allow: GET, HEAD``).
        target: the request target (path and query string).

    Returns:
        The :class:`Response`, with :data:`SECURITY_HEADERS` added. Errors are pages:
        ``400`` for a bad parameter (an IRI that is not absolute, an unknown filter),
        ``404`` for something the store does not hold, ``500`` for a store error.
    """
    parts = urlsplit(target)
    path = parts.path
    if method not in ("GET", "HEAD"):
        resp = _html(405, pages.error_page(405, f"{method} is not allowed: the page is "
                                           "read-only (GET, HEAD)"))
        resp.headers["Allow"] = "GET, HEAD"
    else:
        try:
            resp = _route(store, path, parse_qs(parts.query, keep_blank_values=True))
        except (ProvgraphError, ValueError) as exc:
            status = _status(exc)
            resp = _html(status, pages.error_page(status, str(exc)))
    resp.headers.update(SECURITY_HEADERS)
    return resp


def respond(handler: BaseHTTPRequestHandler, resp: Response) -> None:
    """Write ``resp`` on ``handler`` (no body for ``HEAD``)."""
    handler.send_response(resp.status)
    handler.send_header("Content-Type", resp.media_type)
    handler.send_header("Content-Length", str(len(resp.body)))
    for k, v in resp.headers.items():
        handler.send_header(k, v)
    handler.end_headers()
    if handler.command != "HEAD":
        handler.wfile.write(resp.body)


class UIServer(ThreadingHTTPServer):
    """An HTTP server answering only the page (:func:`handle`) for one store.

    Args:
        store: the store (opened read-only by ``provgraph ui``).
        address: ``(host, port)``; port 0 picks a free one.
    """

    daemon_threads = True

    def __init__(self, store: ProvStore, address: tuple[str, int]) -> None:
        self.store = store
        super().__init__(address, _UIHandler)

    @property
    def url(self) -> str:
        """The page's URL, such as ``http://127.0.0.1:7879/ui/``."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/ui/"


class _UIHandler(BaseHTTPRequestHandler):
    server: UIServer
    server_version = "provgraph-ui"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _host_ok(self) -> bool:
        """On a loopback address, only requests naming this server in ``Host`` are
        answered: a web page elsewhere cannot read the store through a name it points at
        127.0.0.1 (DNS rebinding)."""
        host, port = self.server.server_address[:2]
        if str(host) not in _LOOPBACK:
            return True
        given = (self.headers.get("Host") or "").strip().lower()
        return given in {f"{h}:{port}" for h in ("127.0.0.1", "localhost", "[::1]")}

    def _go(self) -> None:
        try:
            if not self._host_ok():
                resp = Response(403, pages.error_page(
                    403, f"Host {self.headers.get('Host')!r} is not this server: open it as "
                    f"{self.server.url}").encode(), headers=dict(SECURITY_HEADERS))
            elif urlsplit(self.path).path == "/":
                resp = Response(303, b"", headers={"Location": "/ui/", **SECURITY_HEADERS})
            else:
                resp = handle(self.server.store, self.command, self.path)
            respond(self, resp)
        except BrokenPipeError:
            pass
        except Exception as exc:  # a bug: say so, keep serving
            print(f"provgraph ui: {self.command} {self.path}: {exc!r}", file=sys.stderr)
            respond(self, Response(500, pages.error_page(500, f"internal error: {exc!r}").encode(),
                                   headers=dict(SECURITY_HEADERS)))

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = _go

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """The errors the standard library answers itself (an unknown method, a request
        line too long, a malformed request) as this page's own: the security headers on
        every response, and an unsupported method is 405 with ``Allow``, like POST."""
        headers = dict(SECURITY_HEADERS)
        if code == 501:  # "Unsupported method": the page is read-only, whatever the method
            code, message = 405, f"method {self.command} not allowed: the page is read-only"
            headers["Allow"] = "GET, HEAD"
        self.close_connection = True
        try:
            respond(self, Response(code, pages.error_page(code, message or "bad request")
                                   .encode(), headers=headers))
        except OSError:
            pass


def serve_ui(store: ProvStore, host: str = "127.0.0.1", port: int = 7879, *,
             ready: Callable[[UIServer], None] | None = None) -> None:
    """Serve the page for ``store`` on ``host:port`` until interrupted (Ctrl-C).

    Args:
        store: the store to read.
        host: the address to bind: ``127.0.0.1`` (this machine only) unless told
            otherwise.
        port: the TCP port; 0 picks a free one.
        ready: called once the socket listens (the CLI prints the URL).

    Raises:
        StoreError: the address cannot be bound.
    """
    from ..errors import StoreError

    try:
        server = UIServer(store, (host, port))
    except OSError as exc:
        raise StoreError(f"cannot listen on {host}:{port}: {exc}; pick another --bind "
                         "address or port") from exc
    try:
        if ready is not None:
            ready(server)
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
