"""Amazon Bedrock knowledge-base RetrieveAndGenerate and Retrieve responses (format ``bedrock``).

Input, each exchange one item:

* a VCR cassette (YAML, as ``vcrpy`` and ``pytest-recording`` write it, or JSON):
  ``{"interactions": [{"request": {"uri", "body"}, "response": {"status",
  "body": {"string"}}}]}``; the operation is read from the request URI
  (``.../retrieveAndGenerate`` or ``.../knowledgebases/<id>/retrieve``);
* ``{"request": <request body>, "response": <response body>}``, or a bare
  response body; an array or JSON Lines of these.

YAML is read with ``yaml.safe_load`` (no tags, no file or network access).

RetrieveAndGenerate (Bedrock API reference: RetrieveAndGenerate, Citation,
GeneratedResponsePart, TextResponsePart, Span, RetrievedReference): the answer
is ``output.text``; each ``citations[i]`` names an answer range
``generatedResponsePart.textResponsePart.span`` ``{start, end}`` with its
``text``, and the ``retrievedReferences`` (``content.text``, ``location``,
``metadata``) it rests on. The API reference says only "where the text with a
citation starts/ends in the generated output"; the recorded responses show
the end is inclusive: ``output.text[start:end + 1] == text`` for every citation
of the cassettes in ``shared/cases/real-rag/bedrock``. provgraph applies that
rule and, since the unit is not documented either, reads the offsets as code
points, then as UTF-16 units, keeping the first that reproduces ``text``;
neither is an item error. Each citation is one claim (kind ``paraphrase``; a
citation with no references is a claim with status ``unsupported``) citing
each reference's snapshot (no source range: Bedrock gives none). The retrieval
recorded for the question has the distinct references (same location and content)
as hits, in order of first citation, without scores (RetrieveAndGenerate returns
none).

Retrieve: ``retrievalResults`` (``content.text``, ``location``, ``score``) are
recorded as a retrieval for ``retrievalQuery.text`` with no answer.

Documents: each reference's ``content.text`` is retained as UTF-8 bytes; its
source URI is the location's URI or URL (S3, web, Confluence, Salesforce,
SharePoint, Kendra), else the ``x-amz-bedrock-kb-source-uri`` metadata when it
is a URI, else the imported file name plus the reference's JSONPath (a custom
document id such as ``2222`` is not a URI). Several passages of one S3 object
are several snapshots of that document (none a revision of another).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ..limits import json_depth_error, json_error_text, loads_json, lone_surrogate_error
from ._common import (
    cite, ClaimSpec, DOCUMENTS_INPUT, Doc, ItemFailed, ItemSpec, Parsed, PayloadError,
    exchanges, get, jpath, load_json, parse_items, passage_uri, text_doc,
)
from ._spans import SpanError, match_span

__all__ = ["parse", "GENERATOR_INPUT"]

GENERATOR_INPUT = DOCUMENTS_INPUT
_WHAT = "an Amazon Bedrock RetrieveAndGenerate or Retrieve response"
_HINT = ('a VCR cassette {"interactions": [...]}, {"request": ..., "response": ...}, or a '
         'response with "output" and "citations" or "retrievalResults"')


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse a Bedrock payload into item specs and per-item errors (nothing stored).

    Raises:
        PayloadError: the bytes are neither JSON, JSON Lines nor YAML.
    """
    try:
        value, lines = load_json(data, "the bedrock format")
    except PayloadError as exc:
        if exc.message.startswith("is empty"):
            raise
        deep = json_depth_error(data)  # YAML flow collections nest like JSON (issue 15)
        if deep is not None:
            raise PayloadError("$", f"is not JSON ({json_error_text(deep)} at line {deep.lineno} column "
                                    f"{deep.colno})") from None
        try:
            text = data.decode("utf-8-sig")
            value, lines = yaml.safe_load(text), False
        except (UnicodeDecodeError, yaml.YAMLError) as exc:
            raise PayloadError("$", f"is neither JSON nor YAML ({exc}); the bedrock format "
                                    "expects a cassette or response JSON") from None
        lone = lone_surrogate_error(text, value)  # YAML reads "\ud83c\udf09" as two halves
        if lone is not None:
            raise PayloadError("$", f"is not YAML text ({json_error_text(lone)} at line "
                                    f"{lone.lineno} column {lone.colno})")
    if isinstance(value, dict) and "interactions" in value:
        inter = value["interactions"]
        if not isinstance(inter, list):
            raise PayloadError("$.interactions", "must be an array of recorded interactions")
        raw = [(f"$.interactions[{i}]", v) for i, v in enumerate(inter)]
        return parse_items(raw, lambda o, p: _interaction(o, p, name))
    return parse_items(exchanges(value, lines, _WHAT, _HINT), lambda o, p: _exchange(o, p, name))


def _body(value: Any, path: str) -> dict[str, Any]:
    if isinstance(value, dict) and "string" in value:
        value, path = value["string"], jpath(path, "string")
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            value = loads_json(value)
        except json.JSONDecodeError as exc:
            raise ItemFailed(path, f"is not JSON ({json_error_text(exc)} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ItemFailed(path, "must be a JSON object")
    return value


def _interaction(obj: Any, path: str, name: str) -> ItemSpec:
    request = get(obj, "request", path, dict)
    response = get(obj, "response", path, dict)
    rpath, spath = jpath(path, "request"), jpath(path, "response")
    status = response.get("status", {})
    code = status.get("code") if isinstance(status, dict) else None
    if code is not None and code != 200:
        raise ItemFailed(jpath(jpath(spath, "status"), "code"), f"HTTP status {code}: the recorded "
                                                                "call failed, there is no answer")
    uri = str(request.get("uri", ""))
    req = _body(request.get("body") or "{}", jpath(rpath, "body"))
    resp = _body(get(response, "body", spath, (dict, str)), jpath(spath, "body"))
    kb = re.search(r"/knowledgebases/([^/]+)/retrieve$", uri)
    return _parse(req, resp, jpath(rpath, "body"), jpath(spath, "body"), name,
                  kb.group(1) if kb else None)


def _exchange(obj: Any, path: str, name: str) -> ItemSpec:
    if isinstance(obj, dict) and isinstance(obj.get("response"), dict):
        req = obj.get("request") or {}
        if not isinstance(req, dict):
            raise ItemFailed(jpath(path, "request"), "must be an object")
        return _parse(req, obj["response"], jpath(path, "request"), jpath(path, "response"), name, None)
    return _parse({}, obj, jpath(path, "request"), path, name, None)


def _parse(req: dict[str, Any], resp: Any, rpath: str, spath: str, name: str,
           kb_id: str | None) -> ItemSpec:
    if isinstance(resp, dict) and "retrievalResults" in resp:
        return _retrieve(req, resp, rpath, spath, name, kb_id)
    if not isinstance(resp, dict) or "output" not in resp:
        keys = sorted(resp)[:8] if isinstance(resp, dict) else type(resp).__name__
        raise ItemFailed(spath, f"is not {_WHAT}: expected {_HINT}; found {keys}")
    answer = get(get(resp, "output", spath, dict), "text", jpath(spath, "output"), str)
    config = get(req, "retrieveAndGenerateConfiguration", rpath, dict, required=False, default={})
    cpath = jpath(rpath, "retrieveAndGenerateConfiguration")
    kbc = get(config, "knowledgeBaseConfiguration", cpath, dict, required=False, default={})
    ext = get(config, "externalSourcesConfiguration", cpath, dict, required=False, default={})
    model = kbc.get("modelArn") or ext.get("modelArn") or "unknown"
    if kbc:
        retriever = ("bedrock-knowledge-base", str(kbc.get("knowledgeBaseId", "")))
    elif ext:
        retriever = ("bedrock-external-sources", "")
    else:
        retriever = ("bedrock", "")
    docs: list[Doc] = []
    seen: dict[tuple[str, str], Doc] = {}
    claims: list[ClaimSpec] = []
    for c, cit in enumerate(get(resp, "citations", spath, list, required=False, default=[])):
        cpath = jpath(jpath(spath, "citations"), c)
        ppath = jpath(jpath(cpath, "generatedResponsePart"), "textResponsePart")
        part = get(get(get(cit, "generatedResponsePart", cpath, dict), "textResponsePart",
                       jpath(cpath, "generatedResponsePart"), dict), "span", ppath, dict)
        text = get(cit["generatedResponsePart"]["textResponsePart"], "text", ppath, str, required=False)
        s0 = get(part, "start", jpath(ppath, "span"), int, required=False, default=0)
        e0 = get(part, "end", jpath(ppath, "span"), int)
        try:
            s, e, _unit = match_span(answer, s0, e0, text, ("codepoint", "utf16_unit"),
                                     end_inclusive=True)
        except SpanError as exc:
            raise ItemFailed(jpath(ppath, "span"), f"answer span (end inclusive): {exc}") from None
        refs = get(cit, "retrievedReferences", cpath, list, required=False, default=[])
        claim = ClaimSpec(start=s, end=e, status="supported" if refs else "unsupported")
        for r, ref in enumerate(refs):
            key = (json.dumps(ref.get("location"), sort_keys=True) if isinstance(ref, dict) else "",
                   json.dumps(ref.get("content"), sort_keys=True) if isinstance(ref, dict) else "")
            doc = seen.get(key) or _reference(ref, jpath(jpath(cpath, "retrievedReferences"), r), name)
            seen[key] = doc
            if doc not in docs:
                docs.append(doc)
            claim.cites.append(cite(doc))
        claims.append(claim)
    query = ((req.get("input") or {}).get("text")) if isinstance(req.get("input"), dict) else None
    return ItemSpec(docs=docs, query=query, retriever=retriever, hits=[(d, None) for d in docs],
                    answer=answer, model=(str(model), ""), claims=claims,
                    settings={"type": config["type"]} if "type" in config else {})


def _retrieve(req: dict[str, Any], resp: dict[str, Any], rpath: str, spath: str, name: str,
              kb_id: str | None) -> ItemSpec:
    docs: list[Doc] = []
    hits: list[tuple[Doc, float | None]] = []
    for r, res in enumerate(get(resp, "retrievalResults", spath, list)):
        doc = _reference(res, jpath(jpath(spath, "retrievalResults"), r), name)
        score = res.get("score")
        docs.append(doc)
        hits.append((doc, float(score) if isinstance(score, (int, float)) else None))
    rq = req.get("retrievalQuery")
    query = rq.get("text") if isinstance(rq, dict) else None
    return ItemSpec(docs=docs, query=query, retriever=("bedrock-knowledge-base", kb_id or ""),
                    hits=hits)


def _location_uri(ref: dict[str, Any]) -> str | None:
    loc = ref.get("location")
    if isinstance(loc, dict):
        for sub in loc.values():
            if isinstance(sub, dict):
                for key in ("uri", "url"):
                    if isinstance(sub.get(key), str) and ":" in sub[key]:
                        return str(sub[key])
    meta = ref.get("metadata")
    if isinstance(meta, dict):
        src = meta.get("x-amz-bedrock-kb-source-uri")
        if isinstance(src, str) and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", src):
            return src
    return None


def _reference(ref: Any, path: str, name: str) -> Doc:
    content = get(ref, "content", path, dict)
    uri = _location_uri(ref) or passage_uri(name, path)
    text = get(content, "text", jpath(path, "content"), str, required=False)
    if text is None:
        return Doc(key=uri, data=None, uri=uri, media_type="")
    return text_doc(uri, text, uri)
