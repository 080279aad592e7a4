"""HTTP for the remote store: SPARQL 1.1 Protocol and Graph Store Protocol requests.

Standard library only (``urllib.request``): it speaks HTTP/1.1 with TLS, and its
``HTTPBasicAuthHandler`` and ``HTTPDigestAuthHandler`` answer a server's 401 challenge
with the scheme the server asks for (Virtuoso's update endpoint wants Digest). No
dependency is added for a few POSTs a second; the costs that matter are the engine's.

Every request has a timeout; connection failures and 429/502/503/504 answers are
retried a bounded number of times with exponential back-off (every request provgraph
sends is idempotent: queries, ``INSERT DATA``/``DELETE DATA`` of ground quads, a Graph
Store Protocol POST of ground triples); a timeout is not retried (the engine may still
be working). Errors name the endpoint and the HTTP status.

Queries are sent as form-encoded POST (SPARQL 1.1 Protocol §2.1.2), never as
``application/sparql-query``, which Virtuoso 7.2 accepts and never answers.
"""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import QueryError, StoreError

__all__ = ["HttpClient", "Response"]

_RETRY_STATUS = frozenset({429, 502, 503, 504})


@dataclass
class Response:
    """A successful answer: status, headers (lower-cased names) and body bytes."""

    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class HttpClient:
    """Sends requests to one engine and counts them.

    Args:
        user, password: credentials for Basic or Digest authentication (the scheme the
            server's challenge names); ``None`` sends none.
        timeout: seconds to wait for an answer, per request.
        retries: further attempts after a connection failure or a 429/502/503/504.
        backoff: seconds before the first retry; doubled for each further one.

    Attributes:
        requests: the number of HTTP requests sent (retries and auth challenges
            included), for request-budget tests and benchmarks.
    """

    user: str | None = None
    password: str | None = None
    timeout: float = 60.0
    retries: int = 2
    backoff: float = 0.25
    requests: int = 0
    _opener: urllib.request.OpenerDirector = field(init=False, repr=False)
    _mgr: urllib.request.HTTPPasswordMgrWithDefaultRealm = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._mgr = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        handlers: list[urllib.request.BaseHandler] = []
        if self.user is not None:
            handlers += [urllib.request.HTTPDigestAuthHandler(self._mgr),
                         urllib.request.HTTPBasicAuthHandler(self._mgr)]
        self._opener = urllib.request.build_opener(*handlers)

    def add_credentials_for(self, url: str) -> None:
        """Offer the credentials to ``url``'s host (urllib matches them by URI prefix);
        they are sent only in answer to the server's 401 challenge."""
        if self.user is None:
            return
        parts = urllib.parse.urlsplit(url)
        self._mgr.add_password(None, f"{parts.scheme}://{parts.netloc}/", self.user,
                               self.password or "")

    def post_form(self, url: str, fields: Mapping[str, str], *, accept: str,
                  what: str) -> Response:
        """POST ``application/x-www-form-urlencoded`` fields (a query or an update)."""
        body = urllib.parse.urlencode(dict(fields)).encode("utf-8")
        return self.send("POST", url, body, {"Content-Type": "application/x-www-form-urlencoded",
                                             "Accept": accept}, what=what)

    def send(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str], *,
             what: str) -> Response:
        """One request with retries. ``what`` names it in errors ("query", "update" ...).

        Raises:
            QueryError: the engine answered 400 (the message is the engine's).
            StoreError: it answered another error status, could not be reached, or did not
                answer within the timeout; the message names the URL and the status.
        """
        attempt = 0
        while True:
            self.requests += 1
            req = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
            try:
                with self._opener.open(req, timeout=self.timeout) as resp:
                    return Response(resp.status, {k.lower(): v for k, v in resp.headers.items()},
                                    resp.read())
            except urllib.error.HTTPError as exc:
                detail = _detail(exc)
                if exc.code in _RETRY_STATUS and attempt < self.retries:
                    attempt += 1
                    time.sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                if exc.code == 400:
                    raise QueryError(f"{what} refused by {url} (HTTP 400): {detail}") from exc
                if exc.code in (401, 403):
                    raise StoreError(
                        f"{what} refused by {url} (HTTP {exc.code}): {detail}. Set "
                        "PROVGRAPH_ENDPOINT_USER and PROVGRAPH_ENDPOINT_PASSWORD (or "
                        "PROVGRAPH_ENDPOINT_PASSWORD_FILE) to an account allowed to do this"
                    ) from exc
                raise StoreError(f"{what} failed at {url} (HTTP {exc.code}"
                                 f"{', after ' + str(attempt) + ' retries' if attempt else ''}): "
                                 f"{detail}") from exc
            except (TimeoutError, socket.timeout) as exc:
                raise StoreError(f"{what} at {url}: no answer within {self.timeout:g} s (timeout; "
                                 "raise PROVGRAPH_ENDPOINT_TIMEOUT or simplify the request)") from exc
            except (urllib.error.URLError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                if isinstance(reason, (TimeoutError, socket.timeout)):
                    raise StoreError(f"{what} at {url}: no answer within {self.timeout:g} s "
                                     "(timeout; raise PROVGRAPH_ENDPOINT_TIMEOUT)") from exc
                if attempt < self.retries:
                    attempt += 1
                    time.sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise StoreError(f"{what}: cannot reach {url} ({reason}; tried {attempt + 1} "
                                 "times). Check the endpoint URL and that the server runs") from exc

    def close(self) -> None:
        """Release the opener (urllib keeps no connection open between requests)."""


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read().decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    text = " ".join(text.split())
    return (text[:400] + " ...") if len(text) > 400 else (text or str(exc.reason))
