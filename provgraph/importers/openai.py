"""OpenAI Responses API annotations (format ``openai``).

Input: a Response object (``{"object": "response", "output": [...]}``), or
``{"request": <create request>, "response": <Response>}``, an array of them, or
JSON Lines; each is one item.

The answer is the concatenation of the ``output_text`` parts of the
``message`` output items, in order; annotation offsets count from the start of
their part (openai-python ``types/responses/response_output_text.py``):

* ``url_citation`` ``{start_index, end_index, url, title}``: the SDK documents
  ``start_index`` as "the index of the first character" and ``end_index`` as "the
  index of the last character of the URL citation in the message"; client code
  in public repositories slices ``text[start_index:end_index]`` to get the inline
  link ``([title](url))`` the model writes, so provgraph reads them end-exclusive,
  as code points (not verified against a recorded response: none is in
  ``shared/cases``). When the span is such an inline source link the
  claim is the sentence it closes (:func:`provgraph.importers._spans.claim_before`),
  otherwise the span itself. The web page is not in the payload: the citation
  keeps the URL as a raw target.
* ``file_citation`` ``{file_id, filename, index}``: ``index`` is a position in
  the text where the citation sits; the claim is the sentence it closes. Its
  targets are the ``file_search_call`` result chunks of that file (retained, one
  citation each) when the response includes them
  (``include=["file_search_call.results"]``), else the raw file id.
* ``container_file_citation`` ``{container_id, file_id, filename, start_index,
  end_index}``: the span is the claim; the container file's bytes are not in the
  payload, so the target is the raw ``file_id``.
* ``file_path`` annotations link generated files; they cite nothing and are skipped.

Each distinct claim span is one claim (kind ``paraphrase``). The unit of the
indices is not documented; provgraph reads code points (the indices are
Python-side, and no payload field lets them be checked). An index past the text
is an item error.

Documents: ``file_search_call.results[].text`` chunks, retained as UTF-8; a
``file_search_call`` is recorded as a retrieval for the request's input (or the
call's first query) with the chunks as hits and their scores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._common import (
    cite, ClaimSpec, DOCUMENTS_INPUT, Doc, ItemFailed, ItemSpec, Parsed, exchanges, get, jpath,
    last_user_text, load_json, parse_items, passage_uri, text_doc,
)
from ._spans import SpanError, claim_before, to_codepoints

__all__ = ["parse", "GENERATOR_INPUT"]

GENERATOR_INPUT = DOCUMENTS_INPUT
_WHAT = "an OpenAI Responses API response"
_HINT = ('{"object": "response", "output": [...]} or {"request": ..., "response": ...} '
         "(or an array or JSON Lines of them)")
_LINK = re.compile(r"^\(?\[[^\]]*\]\([^)]*\)\)?$")
_SETTINGS = ("temperature", "top_p", "max_output_tokens", "tools", "include")


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse an OpenAI Responses payload into item specs and per-item errors (nothing stored).

    Raises:
        PayloadError: the bytes are not JSON or JSON Lines.
    """
    value, lines = load_json(data, "the openai format")
    return parse_items(exchanges(value, lines, _WHAT, _HINT), lambda o, p: _item(o, p, name))


def _input_text(request: dict[str, Any]) -> str | None:
    inp = request.get("input")
    if isinstance(inp, str):
        return inp
    return last_user_text(inp)


def _item(obj: Any, path: str, name: str) -> ItemSpec:
    if isinstance(obj, dict) and isinstance(obj.get("response"), dict):
        request = obj.get("request") or {}
        response, spath = obj["response"], jpath(path, "response")
    else:
        request, response, spath = {}, obj, path
    if not isinstance(response, dict) or not isinstance(response.get("output"), list):
        keys = sorted(response)[:8] if isinstance(response, dict) else type(response).__name__
        raise ItemFailed(spath, f"is not {_WHAT}: expected {_HINT}; found {keys}")
    if not isinstance(request, dict):
        raise ItemFailed(jpath(path, "request"), "must be an object")
    docs: list[Doc] = []
    hits: list[tuple[Doc, float | None]] = []
    by_file: dict[str, list[Doc]] = {}
    queries: list[str] = []
    parts: list[tuple[str, list[Any], str]] = []
    for o, item in enumerate(response["output"]):
        opath = jpath(jpath(spath, "output"), o)
        if not isinstance(item, dict):
            raise ItemFailed(opath, "must be an output item object")
        kind = item.get("type")
        if kind == "file_search_call":
            queries += [q for q in item.get("queries") or [] if isinstance(q, str)]
            for r, res in enumerate(item.get("results") or []):
                rpath = jpath(jpath(opath, "results"), r)
                fid = str(get(res, "file_id", rpath, str))
                text = get(res, "text", rpath, str, required=False)
                if text is None:
                    continue
                doc = text_doc(fid, text, passage_uri(name, rpath))
                docs.append(doc)
                by_file.setdefault(fid, []).append(doc)
                score = res.get("score")
                hits.append((doc, float(score) if isinstance(score, (int, float)) else None))
        elif kind == "message":
            for c, part in enumerate(get(item, "content", opath, list)):
                ppath = jpath(jpath(opath, "content"), c)
                if isinstance(part, dict) and part.get("type") == "output_text":
                    parts.append((get(part, "text", ppath, str),
                                  get(part, "annotations", ppath, list, required=False, default=[]),
                                  ppath))
    answer = "".join(p[0] for p in parts)
    claims: dict[tuple[int, int], ClaimSpec] = {}
    base = 0
    for text, anns, ppath in parts:
        for a, ann in enumerate(anns):
            apath = jpath(jpath(ppath, "annotations"), a)
            got = _annotation(ann, apath, text, by_file)
            if got is None:
                continue
            (s, e), targets = got
            claim = claims.setdefault((base + s, base + e), ClaimSpec(start=base + s, end=base + e))
            claim.cites.extend(cite(t) for t in targets)
        base += len(text)
    query = _input_text(request) or (queries[0] if queries else None)
    model = response.get("model") or request.get("model") or "unknown"
    return ItemSpec(docs=docs, query=query, retriever=("openai-file-search", "") if hits else None,
                    hits=hits, answer=answer, model=(str(model), ""),
                    settings={k: request[k] for k in _SETTINGS if k in request},
                    claims=sorted(claims.values(), key=lambda c: (c.start, c.end)))


def _annotation(ann: Any, path: str, text: str, by_file: dict[str, list[Doc]]
                ) -> tuple[tuple[int, int], list[Doc | str]] | None:
    kind = get(ann, "type", path, str)
    try:
        if kind == "file_citation":
            fid = get(ann, "file_id", path, str)
            idx = get(ann, "index", path, int)
            return claim_before(text, idx), list(by_file.get(fid) or [fid])
        if kind in ("url_citation", "container_file_citation"):
            s, e = to_codepoints(text, get(ann, "start_index", path, int),
                                 get(ann, "end_index", path, int), "codepoint")
            span = (s, e)
            if kind == "url_citation":
                target: str = get(ann, "url", path, str)
                if _LINK.match(text[s:e].strip()):
                    span = claim_before(text, s)
            else:
                target = get(ann, "file_id", path, str)
            return span, [target]
    except SpanError as exc:
        raise ItemFailed(path, f"{kind}: {exc}") from None
    if kind == "file_path":
        return None
    raise ItemFailed(jpath(path, "type"), f"unknown annotation type {kind!r}")
