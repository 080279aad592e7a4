"""Anthropic Messages API citations (format ``anthropic``).

Input: one exchange ``{"request": <Messages request body>, "response": <Message>}``,
an array of them, or JSON Lines with one exchange per line (each exchange is one
item). The request is required: the documents given to the model are in it, the
response only points at them by index.

Documents (``document`` content blocks, and ``search_result`` blocks, in request
order across messages, including those inside ``tool_result`` content):

* ``source.type == "text"``: retained as the UTF-8 bytes of ``source.data``;
* ``"base64"`` (PDF): retained as the decoded bytes, media type as given;
* ``"content"`` (custom content) and ``search_result`` blocks: retained as a
  block document, the UTF-8 JSON array of the text blocks' strings, with media
  type ``application/vnd.provgraph.blocks+json`` (:mod:`provgraph.media`): the
  resolver's ``block`` unit then indexes that array, and checks the quote
  within the cited blocks;
* ``"url"`` and ``"file"`` sources carry no bytes: citations to them keep the URL
  or file id as a raw target.

Answer and claims: the answer is the concatenation of the response's ``text``
content blocks; each text block that carries ``citations`` is one claim (its
text without surrounding white space and leading ``.,;:``, which Claude often
opens a block with; kind ``paraphrase``), with one citation per entry:

* ``char_location``: ``start_char_index`` 0-indexed, ``end_char_index``
  exclusive, into the plain-text document; recorded as unit ``codepoint``,
  end-exclusive, with ``cited_text`` as the quote. Anthropic's documentation
  says "character" without naming the encoding (platform.claude.com
  build-with-claude/citations: ``start_char_index: 0-indexed``,
  ``end_char_index: exclusive``; anthropic-sdk-python ``CitationCharLocation``
  types them as bare ``int``). provgraph assumes Unicode code points; should the
  service count otherwise, the resolver's check of ``cited_text`` at the range
  shows it as a ``quote_mismatch`` rather than a silently shifted span.
* ``page_location``: ``start_page_number`` 1-indexed, ``end_page_number``
  exclusive; recorded as given, unit ``page`` (numbered from 1, end-exclusive,
  as :mod:`provgraph.offsets` counts pages). The PDF's pages can be located
  only through a recorded extraction of it (text with form feeds between
  pages); without one the resolver reports that no text layer is recorded.
* ``content_block_location``: ``start_block_index`` 0-based,
  ``end_block_index`` exclusive into the custom content document's blocks
  (anthropic-sdk-python ``CitationContentBlockLocation``: ``cited_text`` "always
  equals the contents of content[start_block_index:end_block_index] joined");
  unit ``block``.
* ``search_result_location``: ``search_result_index`` is the 0-based index
  "among all search_result content blocks in the request, in the order they
  appear across messages and tool results" (anthropic-sdk-python
  ``CitationsSearchResultLocation``), block indices as above.
* ``web_search_result_location``: the page is not in the payload; the citation
  keeps the URL as a raw target and ``cited_text`` as the quote.

An index past the document or search-result list, a range past the document's
text or blocks, a PDF page citation on a text document (or the reverse) are item
errors.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..media import BLOCKS_MEDIA_TYPE, encode_blocks
from ._common import (
    Cite, ClaimSpec, DOCUMENTS_INPUT, Doc, ItemFailed, ItemSpec, Parsed, exchange_parts,
    cite, exchanges, get, jpath, load_json, parse_items, passage_uri, text_doc,
)
from ._spans import SpanError, to_codepoints

__all__ = ["parse", "GENERATOR_INPUT"]

GENERATOR_INPUT = DOCUMENTS_INPUT
_WHAT = "an Anthropic Messages exchange"
_HINT = ('{"request": <Messages request with the documents>, "response": <Message>} '
         "(or an array or JSON Lines of them)")
_LEAD = " \t\r\n.,;:"  # a text block often opens with the previous sentence's period
_SETTINGS = ("max_tokens", "temperature", "top_p", "top_k", "stop_sequences")


class _Blocks(Doc):
    """A document cited by block: its text blocks, retained as a JSON array of strings."""

    blocks: list[str]


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse an Anthropic payload into item specs and per-item errors (nothing stored).

    Raises:
        PayloadError: the bytes are not JSON or JSON Lines.
    """
    value, lines = load_json(data, "the anthropic format")
    raw = exchanges(value, lines, _WHAT, _HINT)
    return parse_items(raw, lambda obj, path: _item(obj, path, name))


def _item(obj: Any, path: str, name: str) -> ItemSpec:
    request, response = exchange_parts(obj, path, _WHAT, _HINT)
    rpath, spath = jpath(path, "request"), jpath(path, "response")
    if response.get("type", "message") != "message":
        raise ItemFailed(jpath(spath, "type"), f"is {response.get('type')!r}, not 'message'")
    docs, results, query = _request_documents(request, rpath, name)
    content = get(response, "content", spath, list)
    answer_parts: list[str] = []
    claims: list[ClaimSpec] = []
    pos = 0
    for b, block in enumerate(content):
        bpath = jpath(jpath(spath, "content"), b)
        if not isinstance(block, dict) or block.get("type") != "text":
            continue
        text = get(block, "text", bpath, str)
        cits = get(block, "citations", bpath, list, required=False, default=[])
        if cits:
            lead = len(text) - len(text.lstrip(_LEAD))
            trimmed = text.lstrip(_LEAD).rstrip()
            if trimmed:
                claim = ClaimSpec(start=pos + lead, end=pos + lead + len(trimmed))
                for c, cit in enumerate(cits):
                    claim.cites.append(_citation(cit, jpath(jpath(bpath, "citations"), c), docs, results))
                claims.append(claim)
        answer_parts.append(text)
        pos += len(text)
    settings = {k: request[k] for k in _SETTINGS if k in request}
    model = response.get("model") or request.get("model") or "unknown"
    return ItemSpec(docs=docs + results, query=query, answer="".join(answer_parts),
                    model=(str(model), ""), settings=settings, claims=claims)


def _walk(messages: list[Any], path: str) -> list[tuple[str, dict[str, Any], str]]:
    """Content blocks of every message in order (``tool_result`` content included),
    as ``(path, block, role)``; the role of a block inside a tool result is ``tool``."""
    out: list[tuple[str, dict[str, Any], str]] = []
    for m, msg in enumerate(messages):
        mpath = jpath(path, m)
        if not isinstance(msg, dict):
            raise ItemFailed(mpath, "must be a message object with role and content")
        content = msg.get("content")
        role = str(msg.get("role", ""))
        if isinstance(content, str):
            out.append((jpath(mpath, "content"), {"type": "text", "text": content}, role))
            continue
        if not isinstance(content, list):
            raise ItemFailed(jpath(mpath, "content"), "must be a string or an array of content blocks")
        for b, block in enumerate(content):
            bpath = jpath(jpath(mpath, "content"), b)
            if not isinstance(block, dict):
                continue
            out.append((bpath, block, role))
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                for t, inner in enumerate(block["content"]):
                    if isinstance(inner, dict):
                        out.append((jpath(jpath(bpath, "content"), t), inner, "tool"))
    return out


def _request_documents(request: dict[str, Any], rpath: str,
                       name: str) -> tuple[list[Doc], list[Doc], str | None]:
    messages = get(request, "messages", rpath, list)
    docs: list[Doc] = []
    results: list[Doc] = []
    query: str | None = None
    for bpath, block, role in _walk(messages, jpath(rpath, "messages")):
        kind = block.get("type")
        if kind == "document":
            docs.append(_document(block, bpath, name, len(docs)))
        elif kind == "search_result":
            texts = _block_texts(get(block, "content", bpath, list), jpath(bpath, "content"))
            source = get(block, "source", bpath, str)
            results.append(_blocks_doc(f"search_result:{len(results)}", texts, source))
        elif kind == "text" and role == "user" and isinstance(block.get("text"), str):
            query = block["text"]
    return docs, results, query


def _document(block: dict[str, Any], path: str, name: str, index: int) -> Doc:
    source = get(block, "source", path, dict)
    spath = jpath(path, "source")
    stype = get(source, "type", spath, str)
    uri = passage_uri(name, path)
    key = f"document:{index}"
    if stype == "text":
        media = get(source, "media_type", spath, str, required=False, default="text/plain")
        return text_doc(key, get(source, "data", spath, str), uri, media)
    if stype == "base64":
        media = get(source, "media_type", spath, str)
        try:
            raw = base64.b64decode(get(source, "data", spath, str), validate=True)
        except (binascii.Error, ValueError):
            raise ItemFailed(jpath(spath, "data"), "is not valid base64") from None
        return Doc(key=key, data=raw, uri=uri, media_type=media)
    if stype == "content":
        content = source.get("content")
        if isinstance(content, str):
            texts = [content]
        else:
            texts = _block_texts(get(source, "content", spath, list), jpath(spath, "content"))
        return _blocks_doc(key, texts, uri)
    if stype == "url":
        return Doc(key=get(source, "url", spath, str), data=None, uri="", media_type="")
    if stype == "file":
        return Doc(key=get(source, "file_id", spath, str), data=None, uri="", media_type="")
    raise ItemFailed(jpath(spath, "type"), f"unknown document source type {stype!r}; expected "
                                           "text, base64, content, url or file")


def _block_texts(blocks: list[Any], path: str) -> list[str]:
    texts = []
    for i, b in enumerate(blocks):
        if isinstance(b, dict) and b.get("type") == "text":
            texts.append(get(b, "text", jpath(path, i), str))
    return texts


def _blocks_doc(key: str, texts: list[str], uri: str) -> _Blocks:
    doc = _Blocks(key=key, data=encode_blocks(texts), uri=uri, media_type=BLOCKS_MEDIA_TYPE,
                  text="".join(texts))
    doc.blocks = texts
    return doc


def _index(cit: dict[str, Any], key: str, path: str, items: list[Doc], what: str) -> Doc:
    idx: int = get(cit, key, path, int)
    if not 0 <= idx < len(items):
        raise ItemFailed(jpath(path, key), f"{key} {idx} is past the {len(items)} {what} in the request")
    return items[idx]


def _citation(cit: Any, path: str, docs: list[Doc], results: list[Doc]) -> Cite:
    kind = get(cit, "type", path, str)
    quote = get(cit, "cited_text", path, str, required=False)
    if kind == "char_location":
        doc = _index(cit, "document_index", path, docs, "documents")
        if doc.text is None or isinstance(doc, _Blocks):
            raise ItemFailed(path, f"char_location cites {doc.key}, which is not a plain-text document")
        s, e = get(cit, "start_char_index", path, int), get(cit, "end_char_index", path, int)
        try:
            to_codepoints(doc.text, s, e, "codepoint")
        except SpanError as exc:
            raise ItemFailed(path, f"char range [{s}, {e}) of {doc.key}: {exc}") from None
        return cite(doc, start=s, end=e, unit="codepoint", quote=quote)
    if kind == "page_location":
        doc = _index(cit, "document_index", path, docs, "documents")
        if doc.text is not None:
            raise ItemFailed(path, f"page_location cites {doc.key}, which is not a PDF document")
        s, e = get(cit, "start_page_number", path, int), get(cit, "end_page_number", path, int)
        if not 1 <= s < e:
            raise ItemFailed(path, f"page range [{s}, {e}) is not 1-indexed with an exclusive end")
        return cite(doc, start=s, end=e, unit="page", quote=quote)
    if kind in ("content_block_location", "search_result_location"):
        if kind == "content_block_location":
            doc = _index(cit, "document_index", path, docs, "documents")
        else:
            doc = _index(cit, "search_result_index", path, results, "search results")
        if not isinstance(doc, _Blocks):
            raise ItemFailed(path, f"{kind} cites {doc.key}, which is not a custom content document")
        s, e = get(cit, "start_block_index", path, int), get(cit, "end_block_index", path, int)
        if not 0 <= s < e <= len(doc.blocks):
            raise ItemFailed(path, f"block range [{s}, {e}) is past the {len(doc.blocks)} blocks "
                                   f"of {doc.key}")
        return cite(doc, start=s, end=e, unit="block", quote=quote)
    if kind == "web_search_result_location":
        return cite(get(cit, "url", path, str), quote=quote)
    raise ItemFailed(jpath(path, "type"), f"unknown citation type {kind!r}")
