"""Haystack adapter: records a Haystack 2.x pipeline's provenance through the Recorder.

:class:`HaystackRecorder` installs a tracer (``haystack.tracing``, haystack-ai 2.31)
whose spans keep what each component received and returned (content tracing is
switched on in this tracer's spans only: Haystack's global
``HAYSTACK_CONTENT_TRACING_ENABLED`` and any tracer already installed, such as
OpenTelemetry, are left as they were and still receive every span). From the
component spans it records, through :class:`provgraph.Recorder`:

* ingestion: each converter's sources (``TextFileToDocument`` and any component
  taking ``sources`` and returning ``documents``) as snapshots with the retained
  bytes of the file or ``ByteStream``; the document text as the extraction, with the
  converter as its parser; a splitter's output (``DocumentSplitter`` and any component
  returning documents whose ``meta["source_id"]`` names an input document) as chunks,
  each at ``meta["split_idx_start"]`` plus its content length, in code points of
  the document text (Python string indices, checked against the text);
* each pipeline run (``Pipeline`` or ``AsyncPipeline``) that retrieves or generates:
  the query; each retrieval (the retriever component, ranks in order,
  ``Document.score``); each generator's exact ``prompt``, or a chat generator's
  ``messages`` rendered as one text (:func:`~provgraph.adapters._common.render_messages`,
  as the LangChain adapter renders chat messages), with the documents the
  ``PromptBuilder`` or ``ChatPromptBuilder`` rendered marked ``original`` (their
  chunks), the query ``query`` and the rest ``instruction``; each reply (a string, or
  a ChatMessage's text) as an answer with the model its ``meta`` names;
  ``AnswerBuilder`` references as claims and citations (each answer sentence citing
  ``[n]``; a referenced document no sentence cites is cited by a claim spanning the
  answer).

A chunk's IRI is kept in the document's ``meta["provgraph"]`` (a JSON string, written
into the splitter's output before the writer stores it), so a query pipeline in
another process finds what an indexing pipeline recorded.

Haystack passes a tracer's exceptions on to the application, so the tracer never
raises: a step that could not be recorded is logged at once and raised by
:meth:`check`, :meth:`close` or the end of a ``with`` block as
:class:`~provgraph.errors.RecordError`; that pipeline run is not recorded.

Reference: https://docs.haystack.deepset.ai/docs/tracing
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import importlib.metadata
import json
import logging
import mimetypes
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..model import ExtractionRecord, Hit, RetrievalRecord
from ..recorder import Recorder
from ..store import ProvStore
from ..terms import IRI
from ._common import (
    import_framework, METADATA_KEY, AdapterBase, CitedSource, Piece, chunk_in, cite, metadata_value,
    package_version, prompt_segments, record_claims, render_messages,
)

__all__ = ["HaystackRecorder", "METADATA_KEY"]

_log = logging.getLogger(__name__)

_COMPONENT = "haystack.component.run"
_PIPELINES = ("haystack.pipeline.run", "haystack.async_pipeline.run")




def _haystack_version() -> str:
    try:
        return importlib.metadata.version("haystack-ai")
    except importlib.metadata.PackageNotFoundError:
        return ""


def _component_agent(span: "_SpanData") -> tuple[str, str]:
    """``(class name, version of its package)`` of the component a span ran."""
    module = str(span.tags.get("haystack.component.fully_qualified_type", "")).rpartition(".")[0]
    version = _haystack_version() if module.startswith("haystack.") else package_version(module)
    return str(span.tags.get("haystack.component.type", "component")), version


def _documents(value: Any) -> list[Any]:
    """``value`` when it is a list of Haystack Documents (anything with ``content`` and ``meta``)."""
    if isinstance(value, list) and all(hasattr(d, "content") and hasattr(d, "meta") for d in value):
        return value
    return []


@dataclasses.dataclass
class _SpanData:
    """One span as this tracer saw it: tags, content tags, parent."""

    name: str
    tags: dict[str, Any]
    parent: "_SpanData | None"
    content: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def inputs(self) -> dict[str, Any]:
        v = self.content.get("haystack.component.input")
        return v if isinstance(v, dict) else {}

    @property
    def outputs(self) -> Mapping[str, Any]:
        v = self.content.get("haystack.component.output")
        return v if isinstance(v, Mapping) else {}

    @property
    def component(self) -> str:
        return str(self.tags.get("haystack.component.name", ""))

    def pipeline(self) -> "_SpanData | None":
        span = self.parent
        while span is not None and span.name not in _PIPELINES:
            span = span.parent
        return span


@dataclasses.dataclass
class _Run:
    """What one pipeline run's components showed the tracer, until it is recorded."""

    retrievals: list[_SpanData] = dataclasses.field(default_factory=list)
    prompts: list[_SpanData] = dataclasses.field(default_factory=list)
    generations: list[_SpanData] = dataclasses.field(default_factory=list)
    answers: list[_SpanData] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class _Source:
    """Where a converted document's text came from."""

    data: bytes
    uri: str
    media_type: str
    parser: tuple[str, str]


class HaystackRecorder(AdapterBase):
    """Records what a Haystack application's pipelines do, as one provgraph run.

    Args:
        store: where to record (:func:`provgraph.open_store`).
        label: the run's label.
        recorder: record into this :class:`~provgraph.Recorder` (one run) instead of a new one.
        attach: install the tracer at once (default); otherwise call :meth:`attach`.

    Haystack has one global tracer: :meth:`attach` installs this one in front of the
    tracer already installed (which keeps receiving every span and tag, content tags
    only as ``HAYSTACK_CONTENT_TRACING_ENABLED`` says), :meth:`detach` puts it back.
    Use it as a context manager, or call :meth:`check` after each pipeline run and
    :meth:`close` at the end: those are where a recording failure is raised.

    Raises:
        ProvgraphError: haystack-ai is not installed (the message says how to install it).
    """

    _framework = "Haystack"
    _log = _log

    def __init__(self, store: ProvStore, *, label: str = "haystack", recorder: Recorder | None = None,
                 attach: bool = True) -> None:
        self._tracing = import_framework(
            "haystack.tracing", framework="Haystack", package="haystack-ai", extra="haystack")
        super().__init__(store, label=label, recorder=recorder,
                         packages=["provgraph", "haystack-ai"])
        self._sources: dict[str, _Source] = {}     # converted document id -> its source
        self._chunks: dict[str, IRI] = {}          # split document id -> chunk IRI
        self._runs: dict[int, _Run] = {}           # id of a pipeline span -> its run
        self._failed: set[int] = set()             # ids of pipeline spans not to record
        self._tracer: Any = None
        self._previous: Any = None
        self.answers: list[IRI] = []
        """IRIs of the answers recorded so far, in order."""
        if attach:
            self.attach()

    # ------------------------------------------------------------------ lifecycle
    def attach(self) -> "HaystackRecorder":
        """Install this recorder's tracer in front of Haystack's current one (nothing if installed)."""
        if self._tracer is None:
            proxy = self._tracing.tracer
            self._previous = proxy.actual_tracer
            self._tracer = _tracer_type(self._tracing)(self, self._previous)
            self._tracing.enable_tracing(self._tracer)
        return self

    def detach(self) -> None:
        """Put back the tracer that was installed before :meth:`attach`.

        When another tracer was installed in front of this one since, this one stays in
        the chain but records nothing more."""
        if self._tracer is not None:
            if self._tracing.tracer.actual_tracer is self._tracer:
                self._tracing.enable_tracing(self._previous)
            self._tracer.owner = None
            self._tracer = None

    def __enter__(self) -> "HaystackRecorder":
        return self.attach()

    # ------------------------------------------------------------------ spans
    def _span_end(self, span: _SpanData) -> None:
        """A span ended normally: keep or record what it carried (never raises)."""
        with self._lock:
            try:
                if span.name in _PIPELINES:
                    run = self._runs.pop(id(span), None)
                    if id(span) in self._failed:
                        self._failed.discard(id(span))
                    elif run is not None and (run.retrievals or run.generations):
                        self._record_run(run)
                elif span.name == _COMPONENT:
                    self._component_end(span)
            except Exception as exc:  # Haystack would stop the user's pipeline: keep it for check()
                what = (f"component {span.component!r} ({span.tags.get('haystack.component.type')})"
                        if span.name == _COMPONENT else "pipeline run")
                self._fail(what, exc)
                pipe = span.pipeline()
                if pipe is not None:  # the rest of this pipeline run is not recorded
                    self._runs.pop(id(pipe), None)
                    self._failed.add(id(pipe))

    def _span_dropped(self, span: _SpanData) -> None:
        """A span ended with an exception: a failed pipeline run records nothing."""
        with self._lock:
            if span.name in _PIPELINES:
                self._runs.pop(id(span), None)
                self._failed.discard(id(span))

    def _component_end(self, span: _SpanData) -> None:
        ins, outs = span.inputs, span.outputs
        docs_out = _documents(outs.get("documents"))
        pipe = span.pipeline()
        run = None
        if pipe is not None and id(pipe) not in self._failed:
            run = self._runs.setdefault(id(pipe), _Run())
        if "sources" in ins and docs_out:
            self._converted(span, list(ins["sources"] or []), docs_out)
        elif docs_out and _documents(ins.get("documents")) and any(
                d.meta.get("source_id") in {p.id for p in ins["documents"]} for d in docs_out):
            self._record_split(span, list(ins["documents"]), docs_out)
        elif docs_out and isinstance(ins.get("query"), str) and run is not None:
            run.retrievals.append(span)
        elif _prompt_text(outs.get("prompt")) is not None and run is not None:
            run.prompts.append(span)      # PromptBuilder (a string) or ChatPromptBuilder (ChatMessages)
        elif _generator_input(ins) is not None and isinstance(outs.get("replies"), list) and run is not None:
            run.generations.append(span)  # a generator (prompt) or a chat generator (messages)
        elif isinstance(outs.get("answers"), list) and run is not None:
            run.answers.append(span)

    # ------------------------------------------------------------------ ingestion
    def _converted(self, span: _SpanData, sources: list[Any], docs: list[Any]) -> None:
        """Remember each converted document's source bytes (recorded when it is split)."""
        parser = _component_agent(span)
        found: list[tuple[bytes, str | None, str | None]] = []   # (bytes, path, mime type)
        for src in sources:
            if isinstance(src, (str, Path)):
                found.append((Path(src).read_bytes(), str(src), None))
            elif isinstance(getattr(src, "data", None), bytes):
                path = (getattr(src, "meta", None) or {}).get("file_path")
                found.append((src.data, str(path) if path else None, getattr(src, "mime_type", None)))
        for i, doc in enumerate(docs):
            named = str(doc.meta.get("file_path") or "")
            match = [f for f in found if f[1] is not None and named
                     and (f[1] == named or Path(f[1]).name == named)]
            if len(match) != 1:
                match = [found[i]] if len(found) == len(docs) else []
            if not match:
                continue
            data, path, mime = match[0]
            uri = (Path(path).resolve().as_uri() if path is not None
                   else f"urn:haystack:document:{doc.id}")
            self._sources[doc.id] = _Source(data=data, uri=uri, parser=parser,
                                            media_type=_media_type(data, path, mime, doc.content))

    def _record_split(self, span: _SpanData, parents: list[Any], docs: list[Any]) -> None:
        chunker = _component_agent(span)
        rec = self.recorder
        with rec.batch():
            for parent in parents:
                children = [d for d in docs if d.meta.get("source_id") == parent.id]
                if not children or not isinstance(parent.content, str):
                    continue
                ext = self._record_document(parent)
                located = [(d, _range_in(parent.content, d)) for d in children]
                located = [(d, r) for d, r in located if r is not None]
                chunks = rec.chunking(ext, chunker=chunker, ranges=[r for _, r in located if r])
                for (doc, _), chunk in zip(located, chunks):
                    self._chunks[doc.id] = chunk.iri
                    doc.meta[METADATA_KEY] = metadata_value(chunk.iri)

    def _record_document(self, doc: Any) -> ExtractionRecord:
        src = self._sources.pop(doc.id, None)   # held from conversion to splitting only
        if src is None:
            src = _source_of_unconverted(doc)
        snap = self._snapshots.record(src.data, uri=src.uri, media_type=src.media_type)
        retained = ("source bytes" if src.parser[0] != "haystack-document"
                    else "document text (no converter was traced for this document)")
        return self.recorder.extraction(snap, parser=src.parser, text=doc.content,
                                        config={"retained": retained})

    def _chunk_of(self, doc: Any) -> IRI:
        """The chunk a Haystack document is, or ``urn:haystack:document:<id>`` when none was recorded."""
        return (chunk_in(doc.meta) or self._chunks.get(doc.id)
                or IRI(f"urn:haystack:document:{doc.id}"))

    # ------------------------------------------------------------------ a pipeline run
    def _record_run(self, run: _Run) -> None:
        rec = self.recorder
        text = next((s.inputs.get("query") for s in run.retrievals + run.prompts + run.answers
                     if isinstance(s.inputs.get("query"), str) and s.inputs["query"]), None)
        with rec.batch():
            query = rec.query(text or "(the pipeline run had no query input)")
            ret: RetrievalRecord | None = None
            for span in run.retrievals:
                docs = _documents(span.outputs.get("documents"))
                ret = rec.retrieval(query, retriever=_component_agent(span), hits=[
                    Hit(target=self._chunk_of(d), rank=i + 1, score=d.score) for i, d in enumerate(docs)])
            answers: list[Any] = []
            for gen in run.generations:
                prompt = _generator_input(gen.inputs) or ""
                builder = next((p for p in run.prompts if _prompt_text(p.outputs.get("prompt")) == prompt),
                               None)
                pieces = []
                q = text or ""
                template = None
                if builder is not None:
                    template = (f"{_component_agent(builder)[0]}:{builder.component}",
                                _component_agent(builder)[1])
                    q = builder.inputs.get("query") if isinstance(builder.inputs.get("query"), str) else q
                    for d in _documents(builder.inputs.get("documents")):
                        if isinstance(d.content, str) and d.content:
                            pieces.append(Piece(d.content, d.content, "original", self._chunk_of(d)))
                gi = rec.context_packing(text=prompt, segments=prompt_segments(prompt, pieces, q),
                                         retrieval=ret, template=template)
                kwargs = gen.inputs.get("generation_kwargs")
                for reply, meta in _replies(gen.outputs):
                    model = meta.get("model") or _component_agent(gen)[0]
                    answer = rec.generation(gi, model=(str(model), ""), text=reply,
                                            settings=_json_only(kwargs))
                    answers.append(answer)
            for span in run.answers:
                for ga in span.outputs["answers"]:
                    self._record_references(ga, answers)
        self.answers.extend(a.iri for a in answers)

    def _record_references(self, ga: Any, answers: Sequence[Any]) -> None:
        """Claims and citations of one ``GeneratedAnswer`` from its referenced documents."""
        data = getattr(ga, "data", None)
        if not isinstance(data, str) or not data:
            return
        answer = next((a for a in answers if a.text == data), None) or \
            next((a for a in answers if data in a.text), None)
        if answer is None:
            return
        docs = _documents(getattr(ga, "documents", None))
        sources = [CitedSource(label=int(d.meta["source_index"]), chunk=self._chunk_of(d),
                               text=d.content or "", start=0)
                   for d in docs if isinstance(d.meta.get("source_index"), int)]
        cited = record_claims(self.recorder, answer, sources)
        rest = [s for s, d in zip(sources, docs) if d.meta.get("referenced") and s.label not in cited]
        if rest:
            k = answer.text.index(data)
            claim = self.recorder.claim(answer, start=k, end=k + len(data), kind="paraphrase")
            for s in rest:
                cite(self.recorder, claim.iri, s, None, label=s.label)


def _messages(value: Any) -> list[Any] | None:
    """``value`` when it is a non-empty list of Haystack ChatMessages (a ``role`` and ``to_dict``)."""
    if isinstance(value, list) and value and all(
            hasattr(m, "role") and hasattr(m, "to_dict") and hasattr(m, "texts") for m in value):
        return value
    return None


def _render(messages: Sequence[Any]) -> str:
    """ChatMessages as one prompt text (:func:`render_messages`: ``"<role>: <content>"`` a line,
    the role's value, ``user`` or ``system``; a part other than text as ``[<type>]``, such as
    ``[image]`` or ``[tool_call]``: the key of ``ChatMessage.to_dict()`` naming the part)."""
    def parts(message: Any) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        for part in message.to_dict().get("content") or []:
            if isinstance(part.get("text"), str):
                out.append(("text", part["text"]))
            else:
                out.append((next(iter(part), "part"), None))
        return out
    return render_messages((str(getattr(m.role, "value", m.role)), parts(m)) for m in messages)


def _prompt_text(value: Any) -> str | None:
    """A prompt builder's output as the text a generator is given: ``PromptBuilder``'s
    string, or ``ChatPromptBuilder``'s ChatMessages rendered (:func:`_render`)."""
    if isinstance(value, str):
        return value
    messages = _messages(value)
    return _render(messages) if messages is not None else None


def _generator_input(inputs: Mapping[str, Any]) -> str | None:
    """The exact input of a generator (its ``prompt`` string) or of a chat generator
    (its ``messages``, rendered); ``None`` when the component is neither."""
    if isinstance(inputs.get("prompt"), str):
        return str(inputs["prompt"])
    messages = _messages(inputs.get("messages"))
    return _render(messages) if messages is not None else None


def _replies(outputs: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """A generator's replies as ``(text, meta)``: a string reply with the ``meta`` output at its
    index; a ChatMessage reply's first text (what ``AnswerBuilder`` takes as the answer) with
    its own ``meta``. A ChatMessage with no text (only tool calls) is no answer: left out."""
    metas = outputs.get("meta")
    out: list[tuple[str, Mapping[str, Any]]] = []
    for i, reply in enumerate(outputs.get("replies") or []):
        if _messages([reply]) is not None:
            meta = reply.meta
            text = reply.text
            if not isinstance(text, str):
                continue
        else:
            meta = metas[i] if isinstance(metas, list) and i < len(metas) else {}
            text = str(reply)
        out.append((text, meta if isinstance(meta, Mapping) else {}))
    return out


def _range_in(text: str, doc: Any) -> tuple[int, int] | None:
    """``(start, end)`` code points of a split document in its parent's ``text``:
    ``meta["split_idx_start"]`` plus its length, when the text there is its content."""
    start = doc.meta.get("split_idx_start")
    content = doc.content
    if isinstance(start, int) and isinstance(content, str) and text[start:start + len(content)] == content:
        return start, start + len(content)
    return None


def _media_type(data: bytes, path: str | None, mime: str | None, text: Any) -> str:
    media = mime or (mimetypes.guess_type(path)[0] if path else None) or "text/plain"
    try:
        if data.decode("utf-8") == text and "charset" not in media:
            media += "; charset=utf-8"
    except UnicodeDecodeError:
        pass
    return media


def _source_of_unconverted(doc: Any) -> _Source:
    """A document no traced converter made: the file its ``meta["file_path"]`` names when
    that decodes to its text, else its text itself (named by its ``file_path`` when it has one)."""
    parser = ("haystack-document", _haystack_version())
    path = doc.meta.get("file_path")
    if isinstance(path, str) and Path(path).is_file():
        data = Path(path).read_bytes()
        if _media_type(data, path, None, doc.content).endswith("charset=utf-8"):
            return _Source(data=data, uri=Path(path).resolve().as_uri(), parser=parser,
                           media_type=_media_type(data, path, None, doc.content))
    data = str(doc.content).encode("utf-8")
    # TextFileToDocument keeps only the file's name: not a path to resolve here, but still the
    # document's identity, so that a re-ingested changed text is a revision
    uri = (f"urn:haystack:file_path:{urllib.parse.quote(path)}" if isinstance(path, str) and path
           else f"urn:haystack:document:{doc.id}")
    return _Source(data=data, uri=uri, parser=parser, media_type="text/plain; charset=utf-8")


def _json_only(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping) or not value:
        return None
    try:
        json.dumps(dict(value))
    except (TypeError, ValueError):
        return None
    return dict(value)


# ---------------------------------------------------------------------- the tracer types
_TYPES: dict[int, Any] = {}
_CURRENT: contextvars.ContextVar[Any] = contextvars.ContextVar("provgraph_haystack_span", default=None)


def _tracer_type(tracing: Any) -> Any:
    """The tracer class (Haystack's ``Tracer`` and ``Span`` bases, defined on first use)."""
    key = id(tracing)
    if key in _TYPES:
        return _TYPES[key]

    class ProvgraphSpan(tracing.Span):  # type: ignore[misc]
        """Keeps every tag, content included, and passes it on to the wrapped tracer's span."""

        def __init__(self, data: _SpanData, inner: Any) -> None:
            self.data = data
            self.inner = inner

        def set_tag(self, key: str, value: Any) -> None:
            self.data.tags[key] = value
            self.inner.set_tag(key, value)

        def set_content_tag(self, key: str, value: Any) -> None:
            # content tracing on for this span only; the wrapped span decides for itself
            self.data.content[key] = value
            self.inner.set_content_tag(key, value)

        def raw_span(self) -> Any:
            return self.inner.raw_span()

        def get_correlation_data_for_logs(self) -> dict[str, Any]:
            return dict(self.inner.get_correlation_data_for_logs())

    class ProvgraphTracer(tracing.Tracer):  # type: ignore[misc]
        """Haystack tracer recording through a :class:`HaystackRecorder`, wrapping ``previous``."""

        def __init__(self, owner: HaystackRecorder, previous: Any) -> None:
            self.owner: HaystackRecorder | None = owner
            self.previous = previous

        @contextlib.contextmanager
        def trace(self, operation_name: str, tags: dict[str, Any] | None = None,
                  parent_span: Any = None) -> Iterator[Any]:
            parent = parent_span if isinstance(parent_span, ProvgraphSpan) else _CURRENT.get()
            inner_parent = parent.inner if isinstance(parent, ProvgraphSpan) else parent_span
            with self.previous.trace(operation_name, tags=tags, parent_span=inner_parent) as inner:
                span = ProvgraphSpan(_SpanData(name=operation_name, tags=dict(tags or {}),
                                               parent=parent.data if parent is not None else None),
                                     inner)
                token = _CURRENT.set(span)
                try:
                    yield span
                except BaseException:
                    owner = self.owner
                    if owner is not None:
                        owner._span_dropped(span.data)
                    raise
                finally:
                    _CURRENT.reset(token)
                owner = self.owner
                if owner is not None:
                    owner._span_end(span.data)

        def current_span(self) -> Any:
            return _CURRENT.get() or self.previous.current_span()

    _TYPES[key] = ProvgraphTracer
    return ProvgraphTracer
