"""Cohere Chat citations, API v2 and v1 (format ``cohere``).

Input: one exchange ``{"request": <chat request>, "response": <chat response>}``
or a bare chat response, an array of them, or JSON Lines; each is one item.

v2 (docs.cohere.com/docs/rag-citations): the request passes ``documents`` as
strings or ``{"id": ..., "data": {...}}`` objects (an omitted id becomes
``doc:<index>``); the response's ``message.citations`` entries carry ``start``,
``end`` (end-exclusive: "Emperor penguins" is ``start=29 end=45`` in the
documentation's example), ``text`` and ``sources``, each ``{"type": "document",
"id", "document"}`` (or ``"tool"`` with ``tool_output``). Citation ``type``
``PLAN`` and ``THINKING_CONTENT`` point into the model's plan or thinking, not
the answer, and are skipped. ``content_index`` (when present) names the
``message.content`` item the offsets count from.

v1 (``langchain_cohere.CohereCitation``; OCI ``Citation``): the response has
``text``, ``citations`` with ``start``, ``end`` ("the index of text that the
citation ends after", i.e. end-exclusive), ``text`` and ``document_ids``, and
``documents`` (the cited documents with their ``id``); request documents
without an id are ``doc_<index>``.

Documents: with the request, its documents (all that were given); without it,
the documents the citations carry. A string document is retained as its UTF-8
bytes; an object as compact UTF-8 JSON of the object as given (v1 and
response-carried documents without their ``id`` key).

Offsets: Cohere documents them as character indices without naming the
encoding; each citation's ``text`` decides: provgraph reads the range as code
points, then as UTF-16 units, and keeps the first that reproduces ``text``
(:func:`provgraph.importers._spans.match_span`); neither is an item error.
Each distinct answer range is one claim (kind ``paraphrase``) citing every
source of every citation on that range; citations to documents carry no source
range (Cohere gives none).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._common import (
    cite, ClaimSpec, DOCUMENTS_INPUT, Doc, ItemFailed, ItemSpec, Parsed, exchanges, get, jpath,
    json_doc, last_user_text, load_json, parse_items, passage_uri, text_doc,
)
from ._spans import SpanError, match_span

__all__ = ["parse", "GENERATOR_INPUT"]

GENERATOR_INPUT = DOCUMENTS_INPUT
_WHAT = "a Cohere chat response"
_HINT = ('a v2 response {"message": {"content", "citations"}} or v1 response {"text", '
         '"citations"}, optionally as {"request": ..., "response": ...}')
_SETTINGS = ("temperature", "max_tokens", "p", "k", "seed", "citation_options")


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse a Cohere payload into item specs and per-item errors (nothing stored).

    Raises:
        PayloadError: the bytes are not JSON or JSON Lines.
    """
    value, lines = load_json(data, "the cohere format")
    return parse_items(exchanges(value, lines, _WHAT, _HINT), lambda o, p: _item(o, p, name))


def _item(obj: Any, path: str, name: str) -> ItemSpec:
    if isinstance(obj, dict) and isinstance(obj.get("response"), dict):
        request = obj.get("request")
        if request is not None and not isinstance(request, dict):
            raise ItemFailed(jpath(path, "request"), "must be an object")
        response, rpath, spath = obj["response"], jpath(path, "request"), jpath(path, "response")
    else:
        request, response, rpath, spath = None, obj, jpath(path, "request"), path
    if not isinstance(response, dict) or not ("message" in response or "text" in response):
        keys = sorted(response)[:8] if isinstance(response, dict) else type(response).__name__
        raise ItemFailed(spath, f"is not {_WHAT}: expected {_HINT}; found {keys}")
    if "message" in response:
        return _v2(request or {}, response, rpath, spath, name)
    return _v1(request or {}, response, rpath, spath, name)


def _request_docs(request: dict[str, Any], rpath: str, name: str, v1: bool) -> dict[str, Doc]:
    docs: dict[str, Doc] = {}
    raw = get(request, "documents", rpath, list, required=False, default=[])
    for i, d in enumerate(raw):
        dpath = jpath(jpath(rpath, "documents"), i)
        uri = passage_uri(name, dpath)
        if isinstance(d, str):
            key = f"doc_{i}" if v1 else f"doc:{i}"
            docs[key] = text_doc(key, d, uri)
            continue
        if not isinstance(d, dict):
            raise ItemFailed(dpath, "must be a string or an object")
        if v1:
            key = str(d.get("id") or f"doc_{i}")
            body = {k: v for k, v in d.items() if k != "id"}
        else:
            key = str(d.get("id") or f"doc:{i}")
            body = d.get("data", {k: v for k, v in d.items() if k != "id"})
        docs[key] = text_doc(key, body, uri) if isinstance(body, str) else json_doc(key, body, uri)
    return docs


def _query(request: dict[str, Any]) -> str | None:
    message = request.get("message")
    if isinstance(message, str):
        return message
    return last_user_text(request.get("messages"))


def _claims_for(answer: str, offsets: list[int], cits: list[tuple[str, dict[str, Any], list[Doc]]]
                ) -> list[ClaimSpec]:
    claims: dict[tuple[int, int], ClaimSpec] = {}
    for cpath, cit, targets in cits:
        base = offsets[0]
        s0, e0 = get(cit, "start", cpath, int), get(cit, "end", cpath, int)
        text = get(cit, "text", cpath, str, required=False)
        part = answer[base:]
        if "content_index" in cit:
            ci = get(cit, "content_index", cpath, int)
            if not 0 <= ci < len(offsets) - 1:
                raise ItemFailed(jpath(cpath, "content_index"),
                                 f"content_index {ci} is past the {len(offsets) - 1} content items")
            base, part = offsets[ci], answer[offsets[ci]:offsets[ci + 1]]
        try:
            s, e, _unit = match_span(part, s0, e0, text, ("codepoint", "utf16_unit"))
        except SpanError as exc:
            raise ItemFailed(cpath, f"answer range: {exc}") from None
        claim = claims.setdefault((base + s, base + e), ClaimSpec(start=base + s, end=base + e))
        claim.cites.extend(cite(d) for d in targets)
    return sorted(claims.values(), key=lambda c: (c.start, c.end))


def _v2(request: dict[str, Any], response: dict[str, Any], rpath: str, spath: str,
        name: str) -> ItemSpec:
    docs = _request_docs(request, rpath, name, v1=False)
    given = bool(docs)
    mpath = jpath(spath, "message")
    message = get(response, "message", spath, dict)
    content = get(message, "content", mpath, (list, str), required=False, default=[])
    texts = [content] if isinstance(content, str) else [
        get(c, "text", jpath(jpath(mpath, "content"), i), str)
        for i, c in enumerate(content) if isinstance(c, dict) and c.get("type", "text") == "text"]
    offsets = [0]
    for t in texts:
        offsets.append(offsets[-1] + len(t))
    answer = "".join(texts)
    cits: list[tuple[str, dict[str, Any], list[Doc]]] = []
    for c, cit in enumerate(get(message, "citations", mpath, list, required=False, default=[])):
        cpath = jpath(jpath(mpath, "citations"), c)
        if not isinstance(cit, dict):
            raise ItemFailed(cpath, "must be a citation object")
        if cit.get("type") in ("PLAN", "THINKING_CONTENT"):
            continue
        targets = []
        for k, src in enumerate(get(cit, "sources", cpath, list)):
            targets.append(_v2_source(src, jpath(jpath(cpath, "sources"), k), docs, given, name))
        cits.append((cpath, cit, targets))
    model = request.get("model") or response.get("model") or "unknown"
    return ItemSpec(docs=list(docs.values()), query=_query(request), answer=answer,
                    model=(str(model), ""), settings={k: request[k] for k in _SETTINGS if k in request},
                    claims=_claims_for(answer, offsets, cits))


def _v2_source(src: Any, path: str, docs: dict[str, Doc], given: bool, name: str) -> Doc:
    sid = str(get(src, "id", path, (str, int)))
    if sid in docs:
        return docs[sid]
    if given:
        raise ItemFailed(jpath(path, "id"), f"source id {sid!r} is not among the {len(docs)} "
                                            f"documents of the request ({', '.join(docs)})")
    body = src.get("document") if src.get("type", "document") == "document" else src.get("tool_output")
    if body is None:
        raise ItemFailed(path, f"source {sid!r} carries no document and the request is not given")
    if isinstance(body, dict):
        body = {k: v for k, v in body.items() if k != "id"}
    uri = passage_uri(name, path)
    docs[sid] = text_doc(sid, body, uri) if isinstance(body, str) else json_doc(sid, body, uri)
    return docs[sid]


def _v1(request: dict[str, Any], response: dict[str, Any], rpath: str, spath: str,
        name: str) -> ItemSpec:
    docs = _request_docs(request, rpath, name, v1=True)
    if not docs:
        for i, d in enumerate(get(response, "documents", spath, list, required=False, default=[])):
            dpath = jpath(jpath(spath, "documents"), i)
            key = str(get(d, "id", dpath, (str, int)))
            body = {k: v for k, v in d.items() if k != "id"}
            docs[key] = json_doc(key, body, passage_uri(name, dpath))
    answer = get(response, "text", spath, str)
    cits: list[tuple[str, dict[str, Any], list[Doc]]] = []
    for c, cit in enumerate(get(response, "citations", spath, list, required=False, default=[])):
        cpath = jpath(jpath(spath, "citations"), c)
        targets = []
        for k, did in enumerate(get(cit, "document_ids", cpath, list)):
            if str(did) not in docs:
                raise ItemFailed(jpath(jpath(cpath, "document_ids"), k),
                                 f"document id {did!r} is not among the {len(docs)} documents "
                                 f"({', '.join(docs) or 'none given'})")
            targets.append(docs[str(did)])
        cits.append((cpath, cit, targets))
    model = request.get("model") or "unknown"
    return ItemSpec(docs=list(docs.values()), query=_query(request), answer=answer,
                    model=(str(model), ""), settings={k: request[k] for k in _SETTINGS if k in request},
                    claims=_claims_for(answer, [0, len(answer)], cits))
