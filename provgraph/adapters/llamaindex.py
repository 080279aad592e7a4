"""LlamaIndex adapter: records a LlamaIndex application's provenance through the Recorder.

:class:`LlamaIndexRecorder` attaches an event handler and a span handler to
LlamaIndex's root instrumentation dispatcher (``llama_index.core.instrumentation``,
llama-index-core 0.14) and records, through :class:`provgraph.Recorder`:

* ingestion, from the ``IngestionPipeline.run`` span: each document as a snapshot
  with its retained bytes (the file at ``metadata["file_path"]`` when its UTF-8
  decoding is the document's text, else the document's text itself), the text as an
  extraction, the node parser (class name and package version, its parameters) and
  each node's range as end-exclusive code points of the document text (LlamaIndex's
  ``start_char_idx``/``end_char_idx`` are Python string indices: code points);
* metadata extractors' outputs as generated aids with the model that made them:
  questions (``generated_question``), titles, summaries and keywords (``contextual_prefix``:
  LlamaIndex puts them in the metadata header in front of the chunk);
* each query, retrieval (node ids as chunks, ranks, scores), the exact LLM input with
  each range marked (chunk text ``original``; generated metadata ``generated``; the
  rest of the metadata header ``instruction`` with the chunk as its source; template
  text and "Source n:" labels ``instruction`` without a source; the question ``query``),
  each generation and the answer;
* CitationQueryEngine answers: each sentence citing ``[n]`` is a claim; "Source n"
  nodes (new ids, no offsets, a label prefix) are mapped back to their parent chunk
  and to the code point range of their text in it.

The chunk and aid IRIs are kept in the node's metadata under ``"provgraph"`` (a JSON
string, excluded from the LLM and embedding text), so a query in another process
finds the chunks an earlier ingestion recorded.

LlamaIndex's dispatcher swallows every exception a handler raises, so a recording
failure cannot interrupt the application; it is kept and raised by :meth:`check`,
:meth:`close` and at the end of a ``with`` block as :class:`~provgraph.errors.RecordError`
(and logged at once). An LLM call LlamaIndex reports twice (``acomplete`` calling
``complete``, ``chat`` calling ``complete``) is recorded once, with the innermost
input. A streaming answer is recorded when the user has read the stream to its end:
the adapter never reads the user's stream.

Reference: https://docs.llamaindex.ai/en/stable/module_guides/observability/instrumentation/
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import ProvgraphError, RecordError
from ..model import ChunkRecord, Hit, RetrievalRecord, Segment
from ..recorder import Recorder
from ..store import ProvStore
from ..terms import IRI
from ._common import (
    import_framework, METADATA_KEY, AdapterBase, CitedSource, Piece, aids_in, chunk_in, metadata_value,
    package_version, prompt_segments, record_claims,
)

__all__ = ["LlamaIndexRecorder", "METADATA_KEY"]

_log = logging.getLogger(__name__)

# metadata keys written by LlamaIndex's own extractors -> aid kind (llama_index.core.extractors)
_EXTRACTOR_KEYS: dict[str, dict[str, str]] = {
    "QuestionsAnsweredExtractor": {"questions_this_excerpt_can_answer": "generated_question"},
    "TitleExtractor": {"document_title": "contextual_prefix"},
    "SummaryExtractor": {"section_summary": "contextual_prefix",
                         "prev_section_summary": "contextual_prefix",
                         "next_section_summary": "contextual_prefix"},
    "KeywordExtractor": {"excerpt_keywords": "contextual_prefix"},
}
_SOURCE_LABEL = re.compile(r"\ASource (\d+):\n(.*?)\n?\Z", re.S)




def _component(obj: Any) -> tuple[str, str]:
    """``(class name, package version)`` of a LlamaIndex component."""
    cls = type(obj)
    return cls.__name__, package_version(cls.__module__)


def _model_agent(llm: Any = None, model_dict: Mapping[str, Any] | None = None,
                 raw: Any = None) -> tuple[str, str]:
    """``(model name, version)``: LlamaIndex names the configured model, not its version;
    the served model (an API response's ``model``) is used when the response carries it."""
    d = dict(model_dict or {})
    if llm is not None:
        meta = getattr(llm, "metadata", None)
        d.setdefault("model_name", getattr(meta, "model_name", None))
        d.setdefault("model", getattr(llm, "model", None))
        d.setdefault("class_name", type(llm).__name__)
    name = d.get("model") or d.get("model_name") or d.get("class_name") or "unknown-llm"
    served = raw.get("model") if isinstance(raw, Mapping) else getattr(raw, "model", None)
    return str(name), str(served) if isinstance(served, str) and served != name else ""


def _text_of_query(q: Any) -> str:
    return str(getattr(q, "query_str", q))


@dataclasses.dataclass
class _Call:
    """One LLM call: its exact input and, once ended, its output."""

    state: "_Query | None"
    prompt: str
    model: tuple[str, str]
    settings: dict[str, Any]
    template: tuple[str, str] | None
    output: str | None = None
    superseded: bool = False


@dataclasses.dataclass
class _Query:
    """What one query engine call showed the handlers, until it is recorded."""

    text: str
    retrievals: list[tuple[tuple[str, str], list[Any]]] = dataclasses.field(default_factory=list)
    packed: list[Any] = dataclasses.field(default_factory=list)
    calls: list[_Call] = dataclasses.field(default_factory=list)
    response: Any = None
    streaming: bool = False
    ended: bool = False
    failed: bool = False
    template: tuple[str, str] | None = None


class LlamaIndexRecorder(AdapterBase):
    """Records what a LlamaIndex application does, as one provgraph run.

    Args:
        store: where to record (:func:`provgraph.open_store`).
        label: the run's label.
        recorder: record into this :class:`~provgraph.Recorder` (one run) instead of a new one.
        dispatcher: the LlamaIndex dispatcher to attach to (default: the root dispatcher,
            which every LlamaIndex component's events reach).
        attach: attach at once (default); otherwise call :meth:`attach`.

    Use it as a context manager, or call :meth:`check` after each query and
    :meth:`close` at the end: LlamaIndex discards what its handlers raise, so those
    are where a recording failure is raised.

    Raises:
        ProvgraphError: llama-index-core is not installed (the message says how to install it).
    """

    _framework = "LlamaIndex"
    _log = _log

    def __init__(self, store: ProvStore, *, label: str = "llamaindex", recorder: Recorder | None = None,
                 dispatcher: Any = None, attach: bool = True) -> None:
        self._inst = import_framework(
            "llama_index.core.instrumentation", framework="LlamaIndex", package="llama-index-core", extra="llamaindex")
        super().__init__(store, label=label, recorder=recorder, packages=[
            "provgraph", "llama-index-core", "llama-index-instrumentation"])
        self._dispatcher = dispatcher if dispatcher is not None else self._inst.get_dispatcher()
        self._tls = threading.local()
        self._parents: dict[str, str | None] = {}
        self._spans: dict[str, tuple[str, Any, Any]] = {}   # span id -> (method, instance, bound args)
        self._queries: dict[str, _Query] = {}                # query span id -> state
        self._calls: dict[str, _Call] = {}                   # LLM span id -> call
        self._chunks: dict[str, IRI] = {}                    # node id -> chunk IRI
        self._chunk_text: dict[IRI, str] = {}
        self._newest = self._snapshots.newest                # document uri -> newest snapshot
        self.answers: list[IRI] = []
        """IRIs of the answers recorded so far, in order."""
        self._handlers: tuple[Any, Any] | None = None
        if attach:
            self.attach()

    # ------------------------------------------------------------------ lifecycle
    def attach(self) -> "LlamaIndexRecorder":
        """Add this recorder's handlers to the dispatcher (nothing if already attached)."""
        if self._handlers is None:
            ev, sp = _handler_types(self._inst)
            self._handlers = (ev(), sp())
            for h in self._handlers:
                h._owner = self
            self._dispatcher.add_event_handler(self._handlers[0])
            self._dispatcher.add_span_handler(self._handlers[1])
        return self

    def detach(self) -> None:
        """Remove this recorder's handlers from the dispatcher."""
        if self._handlers is not None:
            ev, sp = self._handlers
            self._dispatcher.event_handlers = [h for h in self._dispatcher.event_handlers if h is not ev]
            self._dispatcher.span_handlers = [h for h in self._dispatcher.span_handlers if h is not sp]
            self._handlers = None

    def __enter__(self) -> "LlamaIndexRecorder":
        return self.attach()

    # ------------------------------------------------------------------ spans
    def _enter(self, id_: str, bound_args: Any, instance: Any, parent: str | None) -> None:
        with self._lock:
            self._parents[id_] = parent
            method = id_.rsplit("-", 5)[0].rpartition(".")[2]
            self._spans[id_] = (method, instance, bound_args)
            if method in ("synthesize", "asynthesize") and instance is not None:
                q = self._query_of(id_)
                if q is not None:
                    q.packed = list(bound_args.arguments.get("nodes") or [])

    def _exit(self, id_: str, instance: Any, result: Any, err: BaseException | None) -> None:
        with self._lock:
            method, _, bound = self._spans.pop(id_, ("", None, None))
            self._parents.pop(id_, None)
            q = self._queries.get(id_)
            if q is not None and err is not None:
                del self._queries[id_]
            if err is not None or method != "run" or type(instance).__name__ != "IngestionPipeline":
                return
            try:
                docs = list(bound.arguments.get("documents") or []) if bound is not None else []
                self._record_ingestion(docs, list(instance.transformations), list(result or []))
            except Exception as exc:  # the dispatcher would swallow it: keep it for check()
                self._fail("ingestion (IngestionPipeline.run)", exc)

    def _query_of(self, span: str | None) -> _Query | None:
        while span is not None:
            if span in self._queries:
                return self._queries[span]
            span = self._parents.get(span)
        return None

    def _ancestors(self, span: str | None) -> list[str]:
        out = []
        while span is not None:
            out.append(span)
            span = self._parents.get(span)
        return out

    # ------------------------------------------------------------------ events
    def _event(self, event: Any) -> None:
        name = type(event).__name__
        with self._lock:
            q: _Query | None = None
            try:
                if name == "QueryStartEvent":
                    if event.span_id is not None and self._query_of(event.span_id) is None:
                        self._queries[event.span_id] = _Query(text=_text_of_query(event.query))
                    return
                q = self._query_of(event.span_id)
                if name == "RetrievalEndEvent" and q is not None:
                    spans = [self._spans.get(s) for s in self._ancestors(event.span_id)]
                    inst = next((s[1] for s in spans if s and s[1] is not None), None)
                    q.retrievals.append((_component(inst) if inst is not None else ("retriever", ""),
                                         list(event.nodes)))
                elif name == "LLMPredictStartEvent" and q is not None:
                    t = event.template
                    body = str(getattr(t, "template", "") or "")
                    kind = getattr(getattr(t, "metadata", {}).get("prompt_type", None), "value", None)
                    q.template = (f"llama-index-prompt-{kind or 'custom'}",
                                  hashlib.sha256(body.encode()).hexdigest()[:16])
                elif name in ("LLMCompletionStartEvent", "LLMChatStartEvent"):
                    self._llm_start(event, q)
                elif name in ("LLMCompletionEndEvent", "LLMChatEndEvent"):
                    self._llm_end(event)
                elif name == "QueryEndEvent" and event.span_id in self._queries:
                    q = self._queries[event.span_id]
                    q.response, q.ended = event.response, True
                    gen = getattr(event.response, "response_gen", None)
                    if isinstance(gen, Iterator) and not q.calls:
                        # streaming: the LLM runs while the user reads the stream (after this
                        # event); pass the stream through, never reading it ourselves
                        q.streaming = True
                        event.response.response_gen = self._pass_through(q, gen)
                    self._maybe_record(event.span_id)
            except Exception as exc:  # the dispatcher would swallow it: keep it for check()
                self._fail(name, exc)
                if q is not None:
                    q.failed = True

    def _pass_through(self, q: _Query, gen: Iterator[Any]) -> Iterator[Any]:
        """``gen``, item by item, with LLM calls made while it runs attributed to ``q``."""
        while True:
            self._tls.stream = q
            try:
                item = next(gen)
            except StopIteration:
                return
            finally:
                self._tls.stream = None
            yield item

    def _llm_start(self, event: Any, q: _Query | None) -> None:
        q = q or getattr(self._tls, "stream", None)
        for span in self._ancestors(event.span_id)[1:]:
            outer = self._calls.get(span)
            if outer is not None:   # LlamaIndex reports one call twice: keep the innermost input
                outer.superseded = True
        if hasattr(event, "prompt"):
            prompt = str(event.prompt)
        else:
            prompt = "\n".join(f"{m.role.value}: {m.content or ''}" for m in event.messages)
        md = dict(event.model_dict or {})
        settings = {k: md[k] for k in ("temperature", "max_tokens", "top_p", "num_output")
                    if isinstance(md.get(k), (int, float, str))}
        call = _Call(state=q, prompt=prompt, model=_model_agent(model_dict=md), settings=settings,
                     template=q.template if q else None)
        if event.span_id is not None:
            self._calls[event.span_id] = call
        if q is not None:
            q.calls.append(call)

    def _llm_end(self, event: Any) -> None:
        call = self._calls.pop(event.span_id, None) if event.span_id is not None else None
        if call is None:
            return
        resp = event.response
        msg = getattr(resp, "message", None)
        call.output = str(msg.content or "") if msg is not None else str(getattr(resp, "text", "") or "")
        name, version = _model_agent(model_dict={"model": call.model[0]}, raw=getattr(resp, "raw", None))
        call.model = (name, version or call.model[1])
        for span, q in list(self._queries.items()):
            if call.state is q:
                self._maybe_record(span)

    # ------------------------------------------------------------------ recording a query
    def _maybe_record(self, span: str) -> None:
        q = self._queries.get(span)
        if q is None or not q.ended:
            return
        calls = [c for c in q.calls if not c.superseded]
        if any(c.output is None for c in calls) or (q.streaming and not calls):
            return  # a streamed answer: recorded when the user's stream ends
        del self._queries[span]
        if q.failed:
            return
        try:
            self._record_query(q, calls)
        except Exception as exc:
            self._fail(f"query {q.text!r}", exc)

    def _chunk_of(self, node: Any) -> IRI | None:
        return (chunk_in(getattr(node, "metadata", None))
                or self._chunks.get(getattr(node, "node_id", "")))

    def _aids_of(self, node: Any) -> dict[str, IRI]:
        return aids_in(getattr(node, "metadata", None))

    def _record_query(self, q: _Query, calls: list[_Call]) -> None:
        rec = self.recorder
        with rec.batch():
            query = rec.query(q.text)
            ret: RetrievalRecord | None = None
            parents: dict[IRI, str] = {}
            for retriever, nodes in q.retrievals:
                hits = []
                for i, nws in enumerate(nodes):
                    target = self._chunk_of(nws.node) or IRI(f"urn:llamaindex:node:{nws.node.node_id}")
                    parents.setdefault(target, nws.node.get_content())
                    hits.append(Hit(target=target, rank=i + 1, score=nws.score))
                ret = rec.retrieval(query, retriever=retriever, hits=hits)
            sources = _citation_sources(q.packed, parents, self)
            answer = None
            previous: list[tuple[str, IRI]] = []
            for call in calls:
                assert call.output is not None
                segs = _prompt_segments(call.prompt, q.packed, q.text, sources, previous, self)
                gi = rec.context_packing(text=call.prompt, segments=segs, retrieval=ret,
                                         template=call.template)
                answer = rec.generation(gi, model=call.model, text=call.output,
                                        settings=call.settings or None)
                previous.append((call.output, answer.iri))
            if answer is None:
                return
            text = getattr(q.response, "response", None)
            if isinstance(text, str) and text and text != answer.text and len(calls) == 1:
                raise RecordError("the response text differs from the LLM output; cannot place claims")
            record_claims(rec, answer, [s.cited() for s in sources if s.label is not None])
        self.answers.append(answer.iri)

    # ------------------------------------------------------------------ ingestion
    def _record_ingestion(self, docs: list[Any], transformations: list[Any], nodes: list[Any]) -> None:
        from llama_index.core.extractors.interface import BaseExtractor
        from llama_index.core.node_parser.interface import NodeParser

        parser = next((t for t in transformations if isinstance(t, NodeParser)), None)
        extractors = [t for t in transformations if isinstance(t, BaseExtractor)]
        if parser is None:
            return
        pname, pversion = _component(parser)
        params = {k: v for k, v in parser.to_dict().items()
                  if isinstance(v, (str, int, float, bool)) and k != "class_name"}
        aid_keys: dict[str, tuple[str, tuple[str, str]]] = {}
        for ext in extractors:
            model = _model_agent(llm=getattr(ext, "llm", None))
            for key, kind in _EXTRACTOR_KEYS.get(type(ext).__name__, {}).items():
                aid_keys[key] = (kind, model)
        by_doc: dict[str, list[Any]] = {}
        for n in nodes:
            by_doc.setdefault(n.ref_doc_id or "", []).append(n)
        rec = self.recorder
        with rec.batch():
            for doc in docs:
                ext = self._record_document(doc)
                located = [n for n in by_doc.get(doc.doc_id, []) if n.start_char_idx is not None
                           and doc.text[n.start_char_idx:n.end_char_idx] == n.get_content()]
                chunks = rec.chunking(ext, chunker=(pname, pversion), parameters=params,
                                      ranges=[(n.start_char_idx, n.end_char_idx) for n in located])
                for node, chunk in zip(located, chunks):
                    self._record_node(node, chunk, doc, aid_keys)

    def _record_document(self, doc: Any) -> Any:
        rec = self.recorder
        path = doc.metadata.get("file_path")
        data: bytes | None = None
        if isinstance(path, str) and Path(path).is_file():
            data = Path(path).read_bytes()
            try:
                if data.decode("utf-8") != doc.text:
                    data = None
            except UnicodeDecodeError:
                data = None
        if data is not None:
            uri = Path(path).resolve().as_uri()
            media = f"{doc.metadata.get('file_type') or 'text/plain'}; charset=utf-8"
            reader = "file bytes"
        else:  # only the text LlamaIndex holds is retained (a PDF's text layer, a web page's text)
            data = doc.text.encode("utf-8")
            uri = Path(path).resolve().as_uri() if isinstance(path, str) else f"urn:llamaindex:document:{doc.doc_id}"
            media = "text/plain; charset=utf-8"
            reader = "document text (the source bytes were not readable as this text)"
        snap = self._snapshots.record(data, uri=uri, media_type=media)
        return rec.extraction(snap, parser=("llama-index-reader", package_version("llama_index.core")),
                              text=doc.text, config={"retained": reader})

    def _record_node(self, node: Any, chunk: ChunkRecord, doc: Any,
                     aid_keys: Mapping[str, tuple[str, tuple[str, str]]]) -> None:
        aids: dict[str, str] = {}
        for key, (kind, model) in aid_keys.items():
            value = node.metadata.get(key)
            if isinstance(value, str) and value and doc.metadata.get(key) != value:
                aids[key] = self.recorder.aid(kind, text=value, model=model, derived_from=[chunk]).iri
        self._chunks[node.node_id] = chunk.iri
        self._chunk_text[chunk.iri] = chunk.text
        node.metadata[METADATA_KEY] = metadata_value(chunk.iri, aids)
        for excluded in (node.excluded_llm_metadata_keys, node.excluded_embed_metadata_keys):
            if METADATA_KEY not in excluded:
                excluded.append(METADATA_KEY)


# ---------------------------------------------------------------------- prompt and citations
@dataclasses.dataclass(frozen=True)
class _Source:
    """A node as the LLM saw it: its label number, chunk, and its text's range in the chunk."""

    label: int | None
    node: Any
    chunk: IRI | None
    text: str
    start: int | None

    def cited(self) -> CitedSource:
        """This source as an answer cites it (``[label]``), with its generated metadata values."""
        md = self.node.metadata or {}
        aids = tuple((str(md.get(k, "")), iri) for k, iri in aids_in(md).items())
        return CitedSource(label=self.label or 0, chunk=self.chunk, text=self.text,
                           start=self.start, aids=aids)


def _citation_sources(packed: list[Any], parents: Mapping[IRI, str],
                      owner: LlamaIndexRecorder) -> list[_Source]:
    """Each packed node with its chunk and, for a "Source n" node, where its text is in the chunk.

    Source nodes come in order, parent by parent; each one's text is searched in its
    parent's text from just after the previous one's start (overlapping pieces)."""
    out = []
    pos: dict[IRI, int] = {}
    for nws in packed:
        node = nws.node
        content = node.get_content()
        chunk = owner._chunk_of(node)
        m = _SOURCE_LABEL.match(content)
        if m is None:
            out.append(_Source(label=None, node=node, chunk=chunk, text=content, start=0))
            continue
        text = m.group(2)
        start = None
        parent = parents.get(chunk) if chunk is not None else None
        if parent is None and chunk is not None:
            parent = owner._chunk_text.get(chunk)
        if parent is not None and chunk is not None:
            k = parent.find(text, pos.get(chunk, 0))
            if k >= 0:
                start, pos[chunk] = k, k + 1
        out.append(_Source(label=int(m.group(1)), node=node, chunk=chunk, text=text, start=start))
    return out


def _prompt_segments(prompt: str, packed: list[Any], query: str, sources: list[_Source],
                     previous: list[tuple[str, IRI]], owner: LlamaIndexRecorder) -> list[Segment]:
    """Segments of ``prompt``: each piece located in order, the gaps template text."""
    from llama_index.core.schema import MetadataMode

    pieces: list[tuple[str, str, str, str | None]] = []  # (whole, part, origin, source)
    for src in sources:
        node = src.node
        aids = owner._aids_of(node)
        shown = node.get_metadata_str(mode=MetadataMode.LLM)
        for key, value in node.metadata.items():
            line = node.metadata_template.format(key=key, value=str(value))
            if key in node.excluded_llm_metadata_keys or line not in shown:
                continue
            pieces.append((line, line[: len(line) - len(str(value))], "instruction", src.chunk))
            pieces.append(("", str(value), "generated" if key in aids else "instruction",
                           aids.get(key, src.chunk)))
        if src.label is not None:
            label = f"Source {src.label}:\n"
            pieces.append((label + src.text, label, "instruction", None))
            pieces.append(("", src.text, "original", src.chunk))
        else:
            pieces.append((src.text, src.text, "original", src.chunk))
    for text, iri in previous:
        pieces.append((text, text, "generated", iri))
    return prompt_segments(prompt, [Piece(*p) for p in pieces], query)


# ---------------------------------------------------------------------- the handler types
_TYPES: dict[int, tuple[Any, Any]] = {}


def _handler_types(inst: Any) -> tuple[Any, Any]:
    """The event and span handler classes (LlamaIndex's pydantic bases, defined on first use)."""
    key = id(inst)
    if key in _TYPES:
        return _TYPES[key]
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler
    from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
    from pydantic import ConfigDict, PrivateAttr

    class ProvgraphEventHandler(BaseEventHandler):  # type: ignore[misc, unused-ignore]
        model_config = ConfigDict(arbitrary_types_allowed=True)
        _owner: Any = PrivateAttr(default=None)

        @classmethod
        def class_name(cls) -> str:
            return "ProvgraphEventHandler"

        def handle(self, event: Any, **kwargs: Any) -> None:
            self._owner._event(event)

    class ProvgraphSpanHandler(BaseSpanHandler[Any]):  # type: ignore[misc, unused-ignore]
        model_config = ConfigDict(arbitrary_types_allowed=True)
        _owner: Any = PrivateAttr(default=None)

        @classmethod
        def class_name(cls) -> str:
            return "ProvgraphSpanHandler"

        def new_span(self, id_: str, bound_args: Any, instance: Any = None,
                     parent_span_id: str | None = None, tags: Any = None, **kwargs: Any) -> None:
            self._owner._enter(id_, bound_args, instance, parent_span_id)
            return None

        def prepare_to_exit_span(self, id_: str, bound_args: Any, instance: Any = None,
                                 result: Any = None, **kwargs: Any) -> None:
            self._owner._exit(id_, instance, result, None)
            return None

        def prepare_to_drop_span(self, id_: str, bound_args: Any, instance: Any = None,
                                 err: BaseException | None = None, **kwargs: Any) -> None:
            self._owner._exit(id_, instance, None, err or RuntimeError("span dropped"))
            return None

    _TYPES[key] = (ProvgraphEventHandler, ProvgraphSpanHandler)
    return _TYPES[key]
