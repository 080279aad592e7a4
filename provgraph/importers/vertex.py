"""Google Vertex AI / Gemini grounding metadata (format ``vertex``).

Input: a ``GenerateContentResponse`` (REST JSON, camelCase, or a google-genai
SDK dump with snake_case keys), or ``{"request": <GenerateContentRequest>,
"response": ...}``, an array of them, or JSON Lines; each is one item. Every
candidate is one answer.

Shape (Vertex AI v1 ``GroundingMetadata``, ``GroundingChunk``,
``GroundingSupport``, ``Segment``): the answer is the concatenation of the
candidate's text parts (parts marked ``thought`` excluded); each
``groundingSupports[i]`` names a ``segment`` ``{partIndex, startIndex, endIndex,
text}`` and the ``groundingChunkIndices`` (into ``groundingChunks``) that support
it. The segment offsets are bytes of the part's UTF-8 text: "Start index in the
given Part, measured in bytes. Offset from the start of the Part, inclusive,
starting at zero", end "exclusive" (google-cloud-aiplatform ``Segment``;
Firebase AI ``Segment``: "measured in UTF-8 bytes"). provgraph converts them to
code points of the answer; an offset inside a multi-byte character, past the
part, or a range whose text differs from ``segment.text`` is an item error.

Zero values are omitted from proto3 JSON: a missing ``startIndex`` or
``partIndex`` is 0, missing ``groundingChunkIndices`` is none.

Each support is one claim (kind ``paraphrase``) citing its chunks (no source
range: chunks are cited whole). ``retrievedContext`` chunks (RAG Engine, Vertex
AI Search) carry the passage ``text``: retained as UTF-8 bytes with the chunk's
``uri`` (or the imported file name plus the chunk's JSONPath); ``web`` and
``maps`` chunks carry no page text, so their citations keep the URI as a raw
target. A chunk index past ``groundingChunks`` is an item error. The retained
chunks are recorded as the hits of a retrieval for the request's last user
text (or the first ``retrievalQueries`` / ``webSearchQueries`` entry).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._common import (
    cite, ClaimSpec, DOCUMENTS_INPUT, Doc, ItemFailed, ItemSpec, Parsed, exchanges, get, jpath,
    load_json, parse_items, passage_uri, text_doc,
)
from ._spans import SpanError, to_codepoints

__all__ = ["parse", "GENERATOR_INPUT"]

GENERATOR_INPUT = DOCUMENTS_INPUT
_WHAT = "a Vertex AI / Gemini GenerateContent response"
_HINT = ('{"candidates": [{"content": {"parts": [...]}, "groundingMetadata": {...}}]} or '
         '{"request": ..., "response": ...}')
_SETTINGS = ("temperature", "topP", "topK", "maxOutputTokens", "seed")


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse a Vertex / Gemini payload into item specs and per-item errors (nothing stored).

    Raises:
        PayloadError: the bytes are not JSON or JSON Lines.
    """
    value, lines = load_json(data, "the vertex format")
    return parse_items(exchanges(value, lines, _WHAT, _HINT), lambda o, p: _item(o, p, name))


def _camel(value: Any) -> Any:
    """Keys in camelCase (google-genai SDK dumps use snake_case)."""
    if isinstance(value, dict):
        return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k) if isinstance(k, str) else k:
                _camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel(v) for v in value]
    return value


def _item(obj: Any, path: str, name: str) -> ItemSpec:
    obj = _camel(obj)
    if isinstance(obj, dict) and isinstance(obj.get("response"), dict):
        request = obj.get("request") or {}
        response, spath = obj["response"], jpath(path, "response")
    else:
        request, response, spath = {}, obj, path
    if not isinstance(response, dict) or not isinstance(response.get("candidates"), list):
        keys = sorted(response)[:8] if isinstance(response, dict) else type(response).__name__
        raise ItemFailed(spath, f"is not {_WHAT}: expected {_HINT}; found {keys}")
    if not isinstance(request, dict):
        raise ItemFailed(jpath(path, "request"), "must be an object")
    if not response["candidates"]:  # was IndexError (found by fuzzing, issue 20)
        raise ItemFailed(jpath(spath, "candidates"), "is empty: the response has no candidate, "
                                                     "so there is no answer to import")
    specs = [_candidate(c, jpath(jpath(spath, "candidates"), i), request,
                        jpath(path, "request"), response, name)
             for i, c in enumerate(response["candidates"])]
    specs[0].siblings = specs[1:]  # several candidates: more answers of the same item
    return specs[0]


def _user_text(request: dict[str, Any], path: str) -> str | None:
    for content in reversed(get(request, "contents", path, list, required=False, default=[])):
        if isinstance(content, dict) and content.get("role", "user") == "user":
            texts = [t for p in content.get("parts") or []
                     if isinstance(p, dict) and isinstance(t := p.get("text"), str)]
            if texts:
                return "".join(texts)
    return None


def _candidate(cand: Any, path: str, request: dict[str, Any], rpath: str,
               response: dict[str, Any], name: str) -> ItemSpec:
    cpath = jpath(path, "content")
    parts = get(get(cand, "content", path, dict), "parts", cpath, list, required=False, default=[])
    texts: dict[int, tuple[int, str]] = {}
    answer = ""
    for p, part in enumerate(parts):
        if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            texts[p] = (len(answer), part["text"])
            answer += part["text"]
    # every field read here is type-checked: a mistyped one is an item error naming its
    # path, never a TypeError (found by fuzzing, issue 20)
    gm = get(cand, "groundingMetadata", path, dict, required=False, default={})
    gpath = jpath(path, "groundingMetadata")
    chunks: list[Doc] = []
    for k, chunk in enumerate(get(gm, "groundingChunks", gpath, list, required=False, default=[])):
        chunks.append(_chunk(chunk, jpath(jpath(gpath, "groundingChunks"), k), name))
    claims: list[ClaimSpec] = []
    for s, sup in enumerate(get(gm, "groundingSupports", gpath, list, required=False, default=[])):
        spath = jpath(jpath(gpath, "groundingSupports"), s)
        seg = get(sup, "segment", spath, dict)
        segpath = jpath(spath, "segment")
        pidx = get(seg, "partIndex", segpath, int, required=False, default=0)
        if pidx not in texts:
            raise ItemFailed(jpath(segpath, "partIndex"), f"part {pidx} is not a text part of the "
                                                          f"answer ({len(parts)} parts)")
        base, ptext = texts[pidx]
        b0 = get(seg, "startIndex", segpath, int, required=False, default=0)
        b1 = get(seg, "endIndex", segpath, int, required=False, default=0)
        try:
            c0, c1 = to_codepoints(ptext, b0, b1, "utf8_byte")
        except SpanError as exc:
            raise ItemFailed(segpath, f"UTF-8 byte range [{b0}, {b1}) of part {pidx}: {exc}") from None
        want = seg.get("text")
        if isinstance(want, str) and ptext[c0:c1] != want:
            raise ItemFailed(segpath, f"UTF-8 byte range [{b0}, {b1}) holds {ptext[c0:c1]!r}, not "
                                      f"the segment text {want!r}")
        claim = ClaimSpec(start=base + c0, end=base + c1)
        for j, idx in enumerate(get(sup, "groundingChunkIndices", spath, list, required=False,
                                    default=[])):
            if not isinstance(idx, int) or not 0 <= idx < len(chunks):
                raise ItemFailed(jpath(jpath(spath, "groundingChunkIndices"), j),
                                 f"chunk index {idx!r} is past the {len(chunks)} grounding chunks")
            claim.cites.append(cite(chunks[idx]))
        claims.append(claim)
    retained = [d for d in chunks if d.data is not None]
    queries = [q for q in (get(gm, "retrievalQueries", gpath, list, required=False, default=[])
                           + get(gm, "webSearchQueries", gpath, list, required=False, default=[]))
               if isinstance(q, str)]
    query = _user_text(request, rpath) or (queries[0] if queries else None)
    model = response.get("modelVersion") or request.get("model") or "unknown"
    cfg = get(request, "generationConfig", rpath, dict, required=False, default={})
    return ItemSpec(docs=chunks, query=query,
                    retriever=("vertex-grounding", "") if retained else None,
                    hits=[(d, None) for d in retained], answer=answer, model=(str(model), ""),
                    settings={k: cfg[k] for k in _SETTINGS if k in cfg}, claims=claims)


def _chunk(chunk: Any, path: str, name: str) -> Doc:
    if not isinstance(chunk, dict):
        raise ItemFailed(path, "must be a grounding chunk object")
    for kind in ("retrievedContext", "web", "maps"):
        body = chunk.get(kind)
        if isinstance(body, dict):
            uri = body.get("uri") if isinstance(body.get("uri"), str) else None
            text = body.get("text")
            if isinstance(text, str):
                return text_doc(uri or passage_uri(name, path), text,
                                uri or passage_uri(name, jpath(path, kind)))
            key = uri or body.get("title") or passage_uri(name, path)
            return Doc(key=str(key), data=None, uri=str(key), media_type="")
    raise ItemFailed(path, "is neither a retrievedContext, web nor maps chunk")
