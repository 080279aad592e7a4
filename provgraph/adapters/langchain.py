"""LangChain adapter: records a LangChain application's provenance through the Recorder.

:class:`LangChainRecorder` is a LangChain callback handler
(``langchain_core.callbacks.BaseCallbackHandler``, langchain-core 1.8). Attached, it is
added to every callback manager LangChain configures in the current context (through
``langchain_core.tracers.context.register_configure_hook``), so the application passes
no ``callbacks=``; ``config={"callbacks": [pg.handler]}`` works too, for code that runs
in a thread without the attaching context. It records, through :class:`provgraph.Recorder`:

* each top-level run (a chain, or a retriever or chat model called on its own) that
  retrieved documents, as one query: the retriever's query string
  (``on_retriever_start``), each retrieval (``on_retriever_end``: the retriever's name,
  the documents as hits in LangChain's order, rank 1 first), the exact input of each
  model call (``on_chat_model_start``: the messages, rendered ``"<type>: <content>"``
  one per line; ``on_llm_start``: the prompt string) with each range marked (a retrieved
  document's text ``original``, a generated aid's text ``generated``, the query
  ``query``, the rest ``instruction``), the model and its settings, and the answer
  (``on_llm_end``);
* each retrieved document as a chunk with a content-derived IRI (LangChain documents
  usually carry no id): a document whose ``metadata["source"]`` names a readable UTF-8
  file is a range of that file's retained bytes, located by ``metadata["start_index"]``
  (a text splitter's ``add_start_index=True``: Python string indices, that is code
  points) when the text is there, else by the one place the text occurs; one that
  cannot be located (the text occurs twice or not at all, or not at ``start_index``)
  is recorded *unlocated*: the file's bytes are retained, the chunk's text is its own
  extraction with no map to them. A document without a source file is retained as its
  own text (``urn:langchain:document:...``);
* claims where the answer quotes retrieved text: a sentence holding a double-quoted
  passage of 8 characters or more is a ``quotation`` claim citing the first retrieved
  document (in rank order) whose text holds the passage (its code point range in the
  chunk when it occurs there once; an aid is cited by its text); a passage in no
  retrieved document is an ``unsupported`` claim with no citation. LangChain chains
  have no citation concept, so no other claims are recorded;
* :meth:`LangChainRecorder.multi_vector`: a ``MultiVectorRetriever``'s parent documents
  as chunks and its child representations (summaries, hypothetical questions) as
  generated aids derived from them, with the model whose output they were.

No retrieval score is recorded unless the document carries one in
``metadata["relevance_score"]`` or ``metadata["score"]`` (LangChain's retrievers return
none): the hit has no ``pg:score``, never a made-up one.

LangChain logs and discards what a callback handler raises, so a recording failure
cannot interrupt the application; it is kept and raised by :meth:`~LangChainRecorder.check`,
:meth:`~LangChainRecorder.close` and at the end of a ``with`` block as
:class:`~provgraph.errors.RecordError` (and logged at once).

Reference: https://python.langchain.com/docs/concepts/callbacks/
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import logging
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from uuid import UUID

from ..errors import ProvgraphError, RecordError
from ..model import AidRecord, Hit, RetrievalRecord, Segment
from ..recorder import Recorder
from ..store import ProvStore
from ..terms import IRI
from ._common import (
    import_framework, _QUOTED, _SENTENCE, AdapterBase, Piece, package_version, prompt_segments, render_messages,
)

__all__ = ["LangChainRecorder"]

_log = logging.getLogger(__name__)

_SETTINGS = ("temperature", "max_tokens", "top_p", "top_k", "stop", "seed")
_GENERATED_MEMORY = 4096   # model outputs remembered to name the model behind an aid




@dataclasses.dataclass
class _Target:
    """A retrieved document as recorded: its chunk (or aid) IRI and text."""

    iri: IRI
    text: str
    generated: bool = False


@dataclasses.dataclass
class _Retrieval:
    name: str
    query: str
    started: _dt.datetime
    documents: list[Any] | None = None
    ended: _dt.datetime | None = None


@dataclasses.dataclass
class _Call:
    prompt: str
    model: tuple[str, str]
    settings: dict[str, Any]
    started: _dt.datetime
    output: str | None = None
    ended: _dt.datetime | None = None


@dataclasses.dataclass
class _Group:
    """What one top-level LangChain run showed the handler, until it ends."""

    retrievals: list[_Retrieval] = dataclasses.field(default_factory=list)
    calls: list[_Call] = dataclasses.field(default_factory=list)
    failed: bool = False


class LangChainRecorder(AdapterBase):
    """Records what a LangChain application does, as one provgraph run.

    Args:
        store: where to record (:func:`provgraph.open_store`).
        label: the run's label.
        recorder: record into this :class:`~provgraph.Recorder` (one run) instead of a new one.
        attach: attach at once (default); otherwise call :meth:`attach`.

    Use it as a context manager, or call :meth:`check` after each query and
    :meth:`close` at the end: LangChain discards what its callback handlers raise, so
    those are where a recording failure is raised. One recorder at a time is attached
    in a context; :attr:`handler` can also be passed as ``config={"callbacks": [...]}``.

    Raises:
        ProvgraphError: langchain-core is not installed (the message says how to install it),
            or another LangChainRecorder is attached in this context.
    """

    _framework = "LangChain"
    _log = _log

    def __init__(self, store: ProvStore, *, label: str = "langchain", recorder: Recorder | None = None,
                 attach: bool = True) -> None:
        self._callbacks = import_framework(
            "langchain_core.callbacks", framework="LangChain", package="langchain-core", extra="langchain")
        super().__init__(store, label=label, recorder=recorder, packages=[
            "provgraph", "langchain-core", "langchain-community", "langchain-text-splitters"])
        self.handler: Any = _handler_type(self._callbacks)(self)
        """The ``BaseCallbackHandler`` that records (for ``config={"callbacks": [...]}``)."""
        self._parents: dict[UUID, UUID | None] = {}
        self._groups: dict[UUID, _Group] = {}          # top-level run id -> what it showed
        self._retrievals: dict[UUID, _Retrieval] = {}
        self._calls: dict[UUID, _Call] = {}
        self._files: dict[str, tuple[int, int, Any, str | None]] = {}  # path -> (mtime, size, snap, text)
        self._targets: dict[tuple[str, str, int | None], _Target] = {}
        self._aid_text: dict[str, IRI] = {}            # child text -> aid IRI (multi_vector)
        self._aids_of: dict[str, dict[IRI, list[IRI]]] = {}  # retriever name -> parent chunk -> aids
        self._generated: OrderedDict[str, tuple[str, str]] = OrderedDict()  # model output -> model
        self.answers: list[IRI] = []
        """IRIs of the answers recorded so far, in order."""
        if attach:
            self.attach()

    # ------------------------------------------------------------------ lifecycle
    def attach(self) -> "LangChainRecorder":
        """Add :attr:`handler` to every LangChain run started in this context (nothing if attached).

        Raises:
            ProvgraphError: another LangChainRecorder is attached in this context.
        """
        var = _context_var()
        current = var.get()
        if current is not None and current is not self.handler:
            raise ProvgraphError("another LangChainRecorder is attached in this context; close() it "
                                 "first, or pass this one's handler as config={'callbacks': [pg.handler]}")
        var.set(self.handler)
        return self

    def detach(self) -> None:
        """Stop adding :attr:`handler` to LangChain runs started in this context."""
        var = _context_var()
        if var.get() is self.handler:
            var.set(None)

    def __enter__(self) -> "LangChainRecorder":
        return self.attach()

    # ------------------------------------------------------------------ ingestion
    def ingest(self, documents: Iterable[Any]) -> list[IRI]:
        """Record LangChain ``Document`` chunks now (one transaction), as a retrieval would.

        For an ingestion job that retrieves nothing (a nightly re-index): a source file
        whose bytes changed is recorded as a revision of its last snapshot, so ``stale``
        lists the claims citing the old one; an unchanged file records nothing new.

        Returns:
            The chunk IRI of each document, in order.

        Raises:
            RecordError, StoreError: the documents could not be recorded (nothing was).
        """
        with self._lock:
            try:
                with self.recorder.batch():
                    return [self._target(doc).iri for doc in documents]
            except BaseException:
                self._forget()
                raise

    def multi_vector(self, retriever: Any, *, kind: str, model: tuple[str, str] | None = None,
                     children: Sequence[Any] | None = None) -> list[AidRecord]:
        """Record a ``MultiVectorRetriever``'s child representations as generated aids.

        Each parent document in ``retriever.docstore`` with a child is recorded as a chunk (as
        :meth:`ingest` does); each child document (``children``, or the vector store's
        documents when it exposes them: ``InMemoryVectorStore``, FAISS) whose
        ``metadata[retriever.id_key]`` names a parent and whose text is not a piece of
        the parent's text is an aid of ``kind`` derived from the parent's chunk. Later
        retrievals by this retriever are recorded as using the aids of the parents they
        return (LangChain does not say which child matched), and a child document
        retrieved directly is a hit on its aid.

        Args:
            retriever: the ``MultiVectorRetriever`` (its ``docstore``, ``vectorstore``, ``id_key``).
            kind: ``generated_question`` (hypothetical questions), ``contextual_prefix``
                (summaries) or ``hypothetical_document``.
            model: ``(name, version)`` of the model that wrote the children; default: the
                model whose output (seen by this recorder while attached) holds the text.
            children: the child documents, when the vector store does not expose them.

        Returns:
            The aids recorded, in the children's order.

        Raises:
            RecordError: a child's model is unknown (pass ``model=``), or ``kind`` is unknown.
            ProvgraphError: the vector store does not expose its documents (pass ``children=``).
        """
        id_key = str(getattr(retriever, "id_key", "doc_id"))
        docs = list(children) if children is not None else _vectorstore_documents(retriever.vectorstore)
        keys = list(retriever.docstore.yield_keys())
        parents = dict(zip(keys, retriever.docstore.mget(keys)))
        aids: list[AidRecord] = []
        by_parent: dict[IRI, list[IRI]] = {}
        with self._lock:
            self._record_children(docs, parents, id_key, kind, model, aids, by_parent)
            for aid in aids:
                self._aid_text[aid.text] = aid.iri
            self._aids_of.setdefault(retriever.get_name(), {}).update(by_parent)
        return aids

    def _record_children(self, docs: Sequence[Any], parents: Mapping[Any, Any], id_key: str,
                         kind: str, model: tuple[str, str] | None, aids: list[AidRecord],
                         by_parent: dict[IRI, list[IRI]]) -> None:
        try:
            with self.recorder.batch():
                for child in docs:
                    parent = parents.get((child.metadata or {}).get(id_key))
                    text = child.page_content
                    if parent is None or not text or text in parent.page_content:
                        continue
                    chunk = self._target(parent)
                    made_by = model or self._model_of(text)
                    aid = self.recorder.aid(kind, text=text, model=made_by, derived_from=[chunk.iri])
                    aids.append(aid)
                    by_parent.setdefault(chunk.iri, []).append(aid.iri)
        except BaseException:
            self._forget()
            raise

    def _model_of(self, text: str) -> tuple[str, str]:
        with self._lock:
            for output, model in reversed(self._generated.items()):
                if text in output:
                    return model
        raise RecordError(f"no model call seen by this recorder produced {text[:60]!r}; pass "
                          "model=(name, version) to multi_vector(), or attach the recorder "
                          "before the children are generated")

    def _forget(self) -> None:
        """Drop what a rolled-back batch may have left in the caches."""
        self._files.clear()
        self._targets.clear()
        self._snapshots.newest.clear()

    # ------------------------------------------------------------------ callbacks
    def _root(self, run_id: UUID, parent: UUID | None) -> UUID:
        self._parents[run_id] = parent
        while parent is not None:
            run_id, parent = parent, self._parents.get(parent)
        return run_id

    def _group(self, run_id: UUID, parent: UUID | None) -> _Group:
        return self._groups.setdefault(self._root(run_id, parent), _Group())

    def _event(self, event: str, run_id: UUID, parent: UUID | None, **kw: Any) -> None:
        """One LangChain callback (``event`` names it); a failure is kept for :meth:`check`."""
        name = event
        with self._lock:
            try:
                if name == "chain_start":
                    self._group(run_id, parent)
                elif name == "retriever_start":
                    r = _Retrieval(name=str(kw.get("name") or "retriever"), query=str(kw["query"]),
                                   started=_now())
                    self._group(run_id, parent).retrievals.append(r)
                    self._retrievals[run_id] = r
                elif name == "retriever_end":
                    r = self._retrievals.pop(run_id)
                    r.documents, r.ended = list(kw["documents"]), _now()
                elif name == "llm_start":
                    call = _call(kw, _now())
                    self._group(run_id, parent).calls.append(call)
                    self._calls[run_id] = call
                elif name == "llm_end":
                    self._llm_end(run_id, kw["response"])
                elif name == "error":
                    # a nested step that failed is left out (a fallback or retry may have
                    # replaced it); a failed top-level run is not recorded
                    self._retrievals.pop(run_id, None)
                    self._calls.pop(run_id, None)
                    if parent is None and run_id in self._groups:
                        self._groups[run_id].failed = True
                if name in ("chain_end", "retriever_end", "llm_end", "error") and parent is None:
                    self._end(run_id)
            except Exception as exc:  # LangChain would log and drop it: keep it for check()
                self._fail(f"on_{name}", exc)
                root = self._root(run_id, parent)
                if root in self._groups:
                    self._groups[root].failed = True
                if parent is None:
                    self._groups.pop(run_id, None)
            finally:
                if name in ("chain_end", "retriever_end", "llm_end", "error"):
                    self._parents.pop(run_id, None)

    def _llm_end(self, run_id: UUID, response: Any) -> None:
        call = self._calls.pop(run_id, None)
        if call is None:
            return
        gens = getattr(response, "generations", None) or [[]]
        first = gens[0][0] if gens and gens[0] else None
        call.output = str(getattr(first, "text", "") or "") if first is not None else ""
        call.ended = _now()
        message = getattr(first, "message", None)
        served = ((getattr(message, "response_metadata", None) or {}).get("model_name")
                  or (getattr(response, "llm_output", None) or {}).get("model_name"))
        if isinstance(served, str) and served and served != call.model[0]:
            call.model = (call.model[0], served)
        self._generated[call.output] = call.model
        while len(self._generated) > _GENERATED_MEMORY:
            self._generated.popitem(last=False)

    def _end(self, root: UUID) -> None:
        group = self._groups.pop(root, None)
        if group is None or group.failed or not any(r.documents is not None for r in group.retrievals):
            return  # not a retrieval-augmented run (a summary chain, say): nothing to record
        try:
            self._record(group)
        except Exception:
            self._forget()
            raise

    # ------------------------------------------------------------------ recording a run
    def _record(self, group: _Group) -> None:
        rec = self.recorder
        retrievals = [r for r in group.retrievals if r.documents is not None]
        calls = [c for c in group.calls if c.output is not None]
        with rec.batch():
            query = rec.query(retrievals[0].query, at=retrievals[0].started)
            ret: RetrievalRecord | None = None
            targets: list[_Target] = []
            for r in retrievals:
                found = [self._target(doc) for doc in r.documents or []]
                aids = self._aids_of.get(r.name, {})
                used = [a for t in found for a in aids.get(t.iri, [])]
                hits = [Hit(target=t.iri, rank=i + 1, score=_score(doc))
                        for i, (t, doc) in enumerate(zip(found, r.documents or []))]
                ret = rec.retrieval(query, retriever=(r.name, ""), hits=hits, aids=used,
                                    started_at=r.started, ended_at=r.ended)
                targets += [t for t in found if t.iri not in {x.iri for x in targets}]
            answer = None
            previous: list[tuple[str, IRI]] = []
            for call in calls:
                assert call.output is not None
                segs = _segments(call.prompt, targets, query.text, previous)
                gi = rec.context_packing(text=call.prompt, segments=segs, retrieval=ret,
                                         at=call.started)
                answer = rec.generation(gi, model=call.model, text=call.output,
                                        settings=call.settings or None, started_at=call.started,
                                        ended_at=call.ended)
                previous.append((call.output, answer.iri))
            if answer is not None:
                _record_quotes(rec, answer, targets)
        if answer is not None:
            self.answers.append(answer.iri)

    def _target(self, doc: Any) -> _Target:
        """The chunk (or aid) a LangChain ``Document`` is recorded as (recording it if new)."""
        text = str(doc.page_content)
        if text in self._aid_text:
            return _Target(iri=self._aid_text[text], text=text, generated=True)
        metadata = doc.metadata or {}
        source = metadata.get("source")
        start = metadata.get("start_index")
        start = start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else None
        path = Path(source) if isinstance(source, str) and source else None
        if path is not None and path.is_file():
            return self._file_chunk(path, text, start)
        key = ("", text, None)
        if key not in self._targets:
            self._targets[key] = self._text_chunk(doc, text)
        return self._targets[key]

    def _file_chunk(self, path: Path, text: str, start: int | None) -> _Target:
        snap, full = self._file(path)
        key = (str(path.resolve()), text, start)
        if key in self._targets:
            return self._targets[key]
        rec = self.recorder
        version = package_version("langchain_core")
        located: int | None = None
        if full is None:
            reason = "the source file is not UTF-8 text: the loader's text is not in its bytes"
        elif start is not None:
            if full[start:start + len(text)] == text:
                located = start
                reason = ""
            else:
                reason = f"the text is not at start_index {start} of the source file as read"
        else:
            n = full.count(text) if text else 0
            if n == 1:
                located = full.index(text)
                reason = ""
            else:
                reason = f"the text occurs {n} times in the source file and has no start_index"
        # the splitter is not exposed: its class and parameters are unknown (README)
        chunker = ("langchain-text-splitter", package_version("langchain_text_splitters"))
        if located is not None and full is not None:
            ext = rec.extraction(snap, parser=("langchain-document-loader", version), text=full,
                                 config={"retained": "file bytes"})
            (chunk,) = rec.chunking(ext, chunker=chunker, ranges=[(located, located + len(text))])
        else:
            if not text:
                raise RecordError(f"a LangChain document from {path} has no text; it cannot be recorded")
            ext = rec.extraction(snap, parser=("langchain-document-loader", version), text=text,
                                 offset_map=[], config={
                                     "unlocated": reason,
                                     "text_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()})
            (chunk,) = rec.chunking(ext, chunker=chunker, ranges=[(0, len(text))])
        target = _Target(iri=chunk.iri, text=text)
        self._targets[key] = target
        return target

    def _file(self, path: Path) -> tuple[Any, str | None]:
        """The newest snapshot of the file at ``path`` and its UTF-8 text (``None``: not UTF-8)."""
        resolved = str(path.resolve())
        st = path.stat()
        cached = self._files.get(resolved)
        if cached is not None and cached[:2] == (st.st_mtime_ns, st.st_size):
            return cached[2], cached[3]
        data = path.read_bytes()
        try:
            full: str | None = data.decode("utf-8")
            media = "text/plain; charset=utf-8"
        except UnicodeDecodeError:
            full, media = None, "application/octet-stream"
        snap = self._snapshots.record(data, uri=path.resolve().as_uri(), media_type=media)
        self._files[resolved] = (st.st_mtime_ns, st.st_size, snap, full)
        for key in [k for k in self._targets if k[0] == resolved]:
            del self._targets[key]
        return snap, full

    def _text_chunk(self, doc: Any, text: str) -> _Target:
        """A document without a source file: its text is retained as its own snapshot."""
        if not text:
            raise RecordError("a LangChain document without text or source file cannot be recorded")
        rec = self.recorder
        data = text.encode("utf-8")
        doc_id = getattr(doc, "id", None)
        uri = (f"urn:langchain:document:{doc_id}" if isinstance(doc_id, str) and doc_id
               else f"urn:langchain:document:sha256:{hashlib.sha256(data).hexdigest()}")
        snap = rec.snapshot(data, uri=uri, media_type="text/plain; charset=utf-8")
        source = (doc.metadata or {}).get("source")
        config = {"retained": "the Document's page_content only (no readable source file)"}
        if isinstance(source, str) and source:
            config["source"] = source
        ext = rec.extraction(snap, parser=("langchain-document", package_version("langchain_core")),
                             text=text, config=config)
        (chunk,) = rec.chunking(ext, chunker=("langchain-document", package_version("langchain_core")),
                                ranges=[(0, len(text))])
        return _Target(iri=chunk.iri, text=text)


# ---------------------------------------------------------------------- helpers
def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _score(doc: Any) -> float | None:
    """A score the document carries in its metadata, else ``None`` (never made up)."""
    for key in ("relevance_score", "score"):
        value = (doc.metadata or {}).get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def _parts(content: Any) -> list[tuple[str, str | None]]:
    """A message's content as ``(type, text)`` parts for :func:`render_messages`: a string
    or text block is text; any other block is its ``type`` (rendered ``[<type>]``)."""
    if isinstance(content, str):
        return [("text", content)]
    parts: list[tuple[str, str | None]] = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(("text", block))
        elif isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(("text", str(block.get("text", ""))))
        elif isinstance(block, Mapping):
            parts.append((str(block.get("type", "block")), None))
    return parts


def _call(kw: Mapping[str, Any], now: _dt.datetime) -> _Call:
    """A model call from ``on_chat_model_start`` (``messages``) or ``on_llm_start`` (``prompts``)."""
    if "messages" in kw:
        prompt = render_messages((m.type, _parts(m.content)) for batch in kw["messages"] for m in batch)
    else:
        prompt = "\n".join(str(p) for p in kw["prompts"])
    params = dict(kw.get("invocation_params") or {})
    meta = dict(kw.get("metadata") or {})
    serialized = kw.get("serialized") or {}
    cls = (serialized.get("id") or [None])[-1] if isinstance(serialized, Mapping) else None
    name = (meta.get("ls_model_name") or params.get("model") or params.get("model_name")
            or cls or params.get("_type") or "unknown-llm")
    settings = {k: params[k] for k in _SETTINGS if isinstance(params.get(k), (int, float, str, list))}
    return _Call(prompt=prompt, model=(str(name), ""), settings=settings, started=now)


def _segments(prompt: str, targets: Sequence[_Target], query: str,
              previous: Sequence[tuple[str, IRI]]) -> list[Segment]:
    """Segments of ``prompt``: each retrieved text where it first occurs free, in any order."""
    found: list[tuple[int, Piece]] = []
    taken: list[tuple[int, int]] = []
    texts = [(t.text, "generated" if t.generated else "original", t.iri) for t in targets]
    texts += [(text, "generated", iri) for text, iri in previous]
    for text, origin, iri in texts:
        k = prompt.find(text) if text else -1
        while k >= 0 and any(k < e and s < k + len(text) for s, e in taken):
            k = prompt.find(text, k + 1)
        if k >= 0:
            taken.append((k, k + len(text)))
            found.append((k, Piece(whole=text, part=text, origin=origin, source=iri)))
    return prompt_segments(prompt, [p for _, p in sorted(found, key=lambda x: x[0])], query)


def _record_quotes(rec: Recorder, answer: Any, targets: Sequence[_Target]) -> None:
    """A ``quotation`` claim per answer sentence quoting retrieved text (module docstring)."""
    for m in _SENTENCE.finditer(answer.text):
        sentence = m.group(0).rstrip()
        quoted = _QUOTED.search(sentence)
        if quoted is None:
            continue
        quote = quoted.group(1)
        source = next((t for t in targets if quote in t.text), None)
        claim = rec.claim(answer, start=m.start(), end=m.start() + len(sentence), kind="quotation",
                          status="supported" if source is not None else "unsupported")
        if source is None:
            continue
        if source.generated or source.text.count(quote) != 1:
            rec.citation(claim, target=source.iri, quote=quote)
        else:
            k = source.text.index(quote)
            rec.citation(claim, target=source.iri, start=k, end=k + len(quote), unit="codepoint",
                         quote=quote)


def _vectorstore_documents(vectorstore: Any) -> list[Any]:
    """The documents a vector store holds, when it exposes them (InMemoryVectorStore, FAISS)."""
    from langchain_core.documents import Document

    store = getattr(vectorstore, "store", None)
    if isinstance(store, Mapping):   # langchain_core InMemoryVectorStore: id -> {text, metadata}
        return [Document(page_content=v["text"], metadata=v.get("metadata") or {}, id=k)
                for k, v in store.items()]
    inner = getattr(getattr(vectorstore, "docstore", None), "_dict", None)
    if isinstance(inner, Mapping):   # FAISS: InMemoryDocstore
        return list(inner.values())
    raise ProvgraphError(f"{type(vectorstore).__name__} does not expose the documents it holds; pass "
                         "children=[the child Documents you added] to multi_vector()")


# ---------------------------------------------------------------------- the handler
_VAR: ContextVar[Any] | None = None
_TYPES: dict[int, Any] = {}


def _context_var() -> ContextVar[Any]:
    """The context variable LangChain reads the attached handler from (registered once)."""
    global _VAR
    if _VAR is None:
        from langchain_core.tracers.context import register_configure_hook

        _VAR = ContextVar("provgraph_langchain_handler", default=None)
        register_configure_hook(_VAR, True)
    return _VAR


def _handler_type(callbacks: Any) -> Any:
    """The handler class (a ``BaseCallbackHandler``, defined on first use)."""
    key = id(callbacks)
    if key in _TYPES:
        return _TYPES[key]

    class ProvgraphCallbackHandler(callbacks.BaseCallbackHandler):  # type: ignore[misc]
        """Forwards LangChain's callbacks to a :class:`LangChainRecorder`."""

        run_inline = True   # in async code too, called in order on the event loop's thread

        def __init__(self, owner: LangChainRecorder) -> None:
            self.owner = owner

        def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID,
                           parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("chain_start", run_id, parent_run_id)

        def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                         **kw: Any) -> None:
            self.owner._event("chain_end", run_id, parent_run_id)

        def on_chain_error(self, error: BaseException, *, run_id: UUID,
                           parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("error", run_id, parent_run_id)

        def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID,
                               parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("retriever_start", run_id, parent_run_id, query=query, name=kw.get("name"))

        def on_retriever_end(self, documents: Any, *, run_id: UUID,
                             parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("retriever_end", run_id, parent_run_id, documents=documents)

        def on_retriever_error(self, error: BaseException, *, run_id: UUID,
                               parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("error", run_id, parent_run_id)

        def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                                parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("llm_start", run_id, parent_run_id, serialized=serialized,
                              messages=messages, **_call_kw(kw))

        def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID,
                         parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("llm_start", run_id, parent_run_id, serialized=serialized,
                              prompts=prompts, **_call_kw(kw))

        def on_llm_end(self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kw: Any) -> None:
            self.owner._event("llm_end", run_id, parent_run_id, response=response)

        def on_llm_error(self, error: BaseException, *, run_id: UUID,
                         parent_run_id: UUID | None = None, **kw: Any) -> None:
            self.owner._event("error", run_id, parent_run_id)

    _TYPES[key] = ProvgraphCallbackHandler
    return ProvgraphCallbackHandler


def _call_kw(kw: Mapping[str, Any]) -> dict[str, Any]:
    return {k: kw.get(k) for k in ("invocation_params", "metadata")}
