"""What every importer shares: the import report, the per-item parse result, JSON
helpers, and the one place imported items are recorded.

An importer module parses its payload into :class:`ItemSpec` values (pure Python,
nothing stored) and per-item :class:`ItemError` values; :func:`record` then checks
the all-or-nothing rule and records every valid item with one
:class:`~provgraph.recorder.Recorder` inside one :meth:`~provgraph.recorder.Recorder.batch`,
so a failure stores nothing: the retained originals it wrote are removed again, unless
a statement references them (:func:`_discard_unreferenced`).

Graph written per item (PROV-O, DESIGN.md graph model):

* each document given to the model whose bytes the payload carries: a
  ``pg:SourceSnapshot`` with retained bytes (:meth:`Recorder.snapshot`);
* the user's question, when the payload has it: a ``pg:Query``; a provider-side
  retrieval (Bedrock, Vertex, RAGChecker, ALCE search results): a ``pg:Retrieval``
  whose ranked hits are the snapshots;
* a ``pg:GeneratorInput``: the exact prompt when the payload defines it (ALCE
  templates), otherwise the documents' texts in the order given, joined by a blank
  line, each an ``original`` segment of its snapshot, recorded with the prompt
  template agent ``provgraph-import-<format>`` so the reconstruction is visible;
* the ``pg:Generation`` (model agent from the payload, ``unknown`` when it names
  none) and the ``pg:Answer``; the claims (answer spans in code points,
  end-exclusive) and their citations with the unit and end convention of the
  source range, or a ``oa:TextQuoteSelector`` for quoted text. A citation whose
  document has no retained bytes keeps the payload's raw identifier
  (``pg:targetId``) and names no target.

The imported file itself is retained in the originals store (by SHA-256, named in
the run's ``pg:configuration`` as ``input_sha256``) but is not a source snapshot:
it is not evidence.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..limits import json_error_text, loads_json
from .. import __version__, ids
from ..errors import ImportFailed, ProvgraphError
from ..model import Hit, Segment
from ..schema.citation import Citation
from ..recorder import Recorder
from ..schema import run as run_schema
from ..schema.run import RunRecord
from ..store import ProvStore
from ..originals import new_blobs
from .._recording import discard_unreferenced as _discard_unreferenced
from ..terms import IRI, Literal, lit
from ..vocab import PG, RDFS

__all__ = ["ImportReport", "ItemError", "Doc", "Cite", "cite", "ClaimSpec", "ItemSpec", "ItemFailed",
           "Parsed", "PayloadError", "RecordItem", "parse_items", "record", "load_json", "get", "jpath"]


# --------------------------------------------------------------------------- report

@dataclass(frozen=True, slots=True)
class ItemError:
    """Why one item of an imported file was not stored.

    Attributes:
        item: 0-based index of the item in the file (a result, a demo, a cassette
            interaction, a JSON Lines line), or ``None`` when the whole file is unusable.
        path: where in the payload the problem is, JSONPath style, e.g.
            ``$[0].response.content[1].citations[0].document_index``.
        message: what is wrong and how to fix it.
    """

    item: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = self.path if self.item is None else f"item {self.item} at {self.path}"
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import stored and what it refused.

    Attributes:
        format: the importer used (``anthropic``, ``alce``, ...).
        name: the imported file's name, as given.
        runs: the run IRIs recorded (one per import; empty when nothing was stored).
        stored: statements written in the import's transaction, counted once each
            (statements already in the store, such as a snapshot recorded by an
            earlier import, are included); ``0`` when nothing was stored.
        items_total: items found in the file.
        items_ok: items recorded (or, when nothing was stored, items that were valid).
        errors: one :class:`ItemError` per problem found, in file order.
        answers, claims, citations, snapshots: what was recorded (snapshots counts
            distinct retained documents).
        warnings: problems that did not stop the import but lost information the
            user should know about (an OpenTelemetry span that hit the SDK attribute
            limit and lost retrieval documents), one :class:`ItemError` each.
    """

    format: str
    name: str
    runs: tuple[IRI, ...]
    stored: int
    items_total: int
    items_ok: int
    errors: tuple[ItemError, ...]
    answers: int = 0
    claims: int = 0
    citations: int = 0
    snapshots: int = 0
    warnings: tuple[ItemError, ...] = ()

    @property
    def run(self) -> IRI | None:
        """The run IRI, or ``None`` when nothing was stored."""
        return self.runs[0] if self.runs else None


# --------------------------------------------------------------------------- item specs

@dataclass(eq=False)
class Doc:
    """A document given to the model.

    Attributes:
        key: how the payload names it (``"0"``, ``"doc:1"``, a file id, a URL).
        data: the exact bytes to retain; ``None`` when the payload does not carry them.
        uri: the snapshot's source URI (the payload's own, or the imported file
            name plus a JSONPath to the passage).
        media_type: IANA media type of ``data``.
        text: the text the model saw, when it is text (for generator input segments
            and range checks); ``None`` for binary documents.
    """

    key: str
    data: bytes | None
    uri: str
    media_type: str
    text: str | None = None


@dataclass(eq=False)
class Cite:
    """A parsed citation before its target is recorded: the target (a :class:`Doc` of
    the payload, or a raw id) and what the citation says of it, as the schema's one
    citation record (:class:`provgraph.schema.citation.Citation`; its ``target_id`` is
    filled in when the target is recorded). Build one with :func:`cite`."""

    target: Doc | str
    cited: Citation


def cite(target: Doc | str, **fields: Any) -> Cite:
    """A :class:`Cite` of ``target`` with the given :class:`~provgraph.schema.citation.Citation`
    fields (``start``, ``end``, ``unit``, ``end_inclusive``, ``quote``, ``policy``...).

    Raises:
        TypeError: a field the citation record does not have.
    """
    return Cite(target=target, cited=Citation(target_id="", **fields))


@dataclass(eq=False)
class ClaimSpec:
    """An answer span, code points end-exclusive, with its kind, status and citations."""

    start: int
    end: int
    kind: str = "paraphrase"
    status: str = "supported"
    cites: list[Cite] = field(default_factory=list)
    label: str | None = None


@dataclass(eq=False)
class ItemSpec:
    """One request/answer exchange (or a retrieval with no answer), parsed and checked.

    ``prompt`` is ``(text, segments)`` with segments ``(start, end, origin, ref)``
    where ``ref`` is a :class:`Doc`, the string ``"query"`` or ``None``; when ``None``
    the generator input is the documents' texts joined by a blank line.
    ``siblings`` are further answers of the same item (several candidates).
    """

    docs: list[Doc]
    query: str | None = None
    retriever: tuple[str, str] | None = None
    hits: list[tuple[Doc, float | None]] = field(default_factory=list)
    answer: str | None = None
    model: tuple[str, str] = ("unknown", "")
    settings: dict[str, Any] = field(default_factory=dict)
    claims: list[ClaimSpec] = field(default_factory=list)
    prompt: tuple[str, list[tuple[int, int, str, Any]]] | None = None
    template: tuple[str, str] | None = None
    siblings: list["ItemSpec"] = field(default_factory=list)
    warnings: list[ItemError] = field(default_factory=list)


Parsed = tuple[list[ItemSpec | None], list[ItemError]]
"""What an importer's ``parse`` returns: one spec (or ``None`` when invalid) per item,
and the per-item errors."""


class ItemFailed(Exception):
    """Raised while parsing one item: ``path`` and ``message`` become an :class:`ItemError`."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class PayloadError(Exception):
    """Raised when the whole payload is unusable (not JSON, not this format)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


# --------------------------------------------------------------------------- JSON helpers

def jpath(base: str, key: str | int) -> str:
    """``base`` extended by an object key or array index, JSONPath style."""
    return f"{base}[{key}]" if isinstance(key, int) else f"{base}.{key}"


_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", dict: "an object",
               list: "an array", bool: "true or false"}


def get(obj: Any, key: str, path: str, types: type | tuple[type, ...], *,
        required: bool = True, default: Any = None) -> Any:
    """``obj[key]`` checked against ``types``; a missing or mistyped field raises
    :class:`ItemFailed` naming its path. ``null`` counts as missing."""
    if not isinstance(obj, dict):
        raise ItemFailed(path, f"must be an object, got {_kind(obj)}")
    value = obj.get(key)
    if value is None:
        if required:
            raise ItemFailed(jpath(path, key), "is missing")
        return default
    tt = types if isinstance(types, tuple) else (types,)
    ok = isinstance(value, tt) and not (isinstance(value, bool) and bool not in tt)
    if not ok:
        want = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in tt)
        raise ItemFailed(jpath(path, key), f"must be {want}, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    for t, name in _TYPE_NAMES.items():
        if isinstance(value, t) and not (t is int and isinstance(value, bool)):
            return name
    return type(value).__name__


def load_json(data: bytes, what: str) -> tuple[Any, bool]:
    """Decode a JSON document, or JSON Lines (one object per line).

    Returns:
        ``(value, is_lines)``: the parsed document, or for JSON Lines the list of
        parsed lines (a line that does not parse becomes a :class:`PayloadError`
        value in the list, for the caller to report as that item's error).

    Raises:
        PayloadError: the bytes are not UTF-8, or neither JSON nor JSON Lines.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PayloadError("$", f"is not UTF-8 text (byte {exc.start}); {what} expects JSON") from None
    if not text.strip():
        raise PayloadError("$", "is empty: there is nothing to import")
    try:
        return loads_json(text), False
    except json.JSONDecodeError as exc:
        lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
        if len(lines) < 2 or not lines[0][1].lstrip().startswith("{") \
                or _continues_on_next_line(lines[0][1]):
            raise PayloadError("$", f"is not JSON ({json_error_text(exc)} at line {exc.lineno} column "
                                    f"{exc.colno}); {what} expects JSON or JSON Lines") from None
    out: list[Any] = []
    for n, ln in lines:
        try:
            out.append(loads_json(ln))
        except json.JSONDecodeError as exc:
            out.append(PayloadError(f"line {n}", f"is not JSON ({json_error_text(exc)} at column {exc.colno})"))
    return out, True




def _continues_on_next_line(line: str) -> bool:
    """Whether ``line`` is the start of a JSON value that goes on past it (``{`` of a
    pretty-printed document, truncated or not), rather than a JSON Lines line: its parse
    fails at the line's end, not inside it."""
    try:
        loads_json(line)
    except json.JSONDecodeError as exc:
        return exc.pos >= len(line.rstrip())
    return False


def parse_items(raw: Sequence[tuple[str, Any]],
                parse_one: Callable[[Any, str], ItemSpec]) -> Parsed:
    """Run ``parse_one(obj, path)`` on each ``(path, obj)``; an :class:`ItemFailed` (or
    a :class:`PayloadError` value in ``raw``) becomes that item's :class:`ItemError`."""
    items: list[ItemSpec | None] = []
    errors: list[ItemError] = []
    for i, (path, obj) in enumerate(raw):
        if isinstance(obj, PayloadError):
            errors.append(ItemError(i, obj.path, obj.message))
            items.append(None)
            continue
        try:
            items.append(parse_one(obj, path))
        except ItemFailed as exc:
            errors.append(ItemError(i, exc.path, exc.message))
            items.append(None)
    return items, errors


# --------------------------------------------------------------------------- recording

class _ImportRecorder(Recorder):
    """A Recorder whose run statements join the import's batch (``hold_run``: a failed
    import stores not even the run), and which never looks raw payload identifiers up in
    the store (they are not IRIs of recorded resources, and may not be IRIs at all)."""

    def __init__(self, store: ProvStore, **kwargs: Any) -> None:
        self.raw_ids: set[str] = set()
        self.runs: list[IRI] = []
        super().__init__(store, hold_run=True, **kwargs)
        self._base_config = dict(kwargs.get("config") or {})

    def start_run(self, label: str, config: dict[str, Any],
                  started_at: _dt.datetime | None) -> IRI:
        """Record the following steps into a new run (an importer whose items are runs
        of their own, such as the traces of an OTLP file): the import's configuration
        plus ``config``, started at ``started_at`` (aware; ``None``: now). The import's
        own run, when still held, is dropped: it would stay empty.

        Raises:
            RecordError: a naive ``started_at`` or a non-JSON ``config``.
        """
        self._held = None
        merged = {**self._base_config, **config}
        self._json("config", merged)
        self.run = RunRecord(iri=ids.new_iri(), label=label,
                             started_at=self._time("started_at", started_at),
                             packages=self.run.packages, config=merged)
        self._emit(run_schema.to_quads(self.run))
        self.runs.append(self.run.iri)
        return self.run.iri

    def _as_target(self, raw: str) -> IRI | None:
        if raw in self.raw_ids:
            return None
        return super()._as_target(raw)

    def label(self, iri: IRI, text: str) -> None:
        """Write ``iri rdfs:label text`` in the run graph."""
        self._emit([(iri, RDFS.label, lit(text), self.iri)])

    def savepoint(self) -> tuple[int, set[IRI], int, RunRecord]:
        return len(self._pending or ()), set(self._written), len(self.runs), self.run

    def rollback(self, point: tuple[int, set[IRI], int, RunRecord]) -> None:
        if self._pending is not None:
            del self._pending[point[0]:]
        self._written = point[1]
        del self.runs[point[2]:]
        self.run = point[3]

    def pending_count(self) -> int:
        return len(set(self._pending or ()))

    def pending_quads(self) -> Sequence[Any]:
        """The statements this batch holds, not yet written (empty outside a batch)."""
        return self._pending or ()


RecordItem = Callable[["_ImportRecorder", ItemSpec], tuple[int, int, int, set[IRI]]]
"""An importer's own way to record one item (``record_item`` in its module): returns
``(answers, claims, citations, snapshot IRIs)``. An importer whose items are runs of
their own calls :meth:`_ImportRecorder.start_run` first."""


def record(store: ProvStore, fmt: str, name: str, data: bytes,
           items: Sequence[ItemSpec | None], errors: Sequence[ItemError], *,
           partial: bool, generator_input: str,
           record_item: RecordItem | None = None) -> ImportReport:
    """Record the valid ``items`` atomically and report.

    Args:
        generator_input: how the importer builds generator inputs, for the run's
            configuration (an auditor reads it to know what was reconstructed).
        record_item: the importer's own recording of an item (default: the
            :class:`ItemSpec` recording below, all items in one run). Either way
            the import is one transaction.

    Raises:
        ImportFailed: an item is invalid and ``partial`` is false, no item is valid,
            or recording an item fails; nothing is stored then.
    """
    ok = [(i, s) for i, s in enumerate(items) if s is not None]
    errs = list(errors)
    warns = tuple(w for _, s in ok for w in s.warnings)

    def report(runs: tuple[IRI, ...] = (), stored: int = 0, counts: Iterable[int] = (0, 0, 0, 0),
               n_ok: int | None = None) -> ImportReport:
        a, c, t, s = counts
        return ImportReport(format=fmt, name=name, runs=runs, stored=stored,
                            items_total=len(items), items_ok=len(ok) if n_ok is None else n_ok,
                            errors=tuple(errs), answers=a, claims=c, citations=t, snapshots=s,
                            warnings=warns)

    if (errs and not partial) or not ok:
        raise ImportFailed(report(), partial=partial)
    with new_blobs(store.originals) as written:
        try:
            return _record_all(store, fmt, name, data, len(items), ok, errs, partial,
                               generator_input, record_item, report, written)
        except BaseException:
            _discard_unreferenced(store, written)
            raise


def _record_all(store: ProvStore, fmt: str, name: str, data: bytes, n_items: int,
                ok: list[tuple[int, ItemSpec]], errs: list[ItemError], partial: bool,
                generator_input: str, record_item: RecordItem | None,
                report: Callable[..., ImportReport], written: list[str]) -> ImportReport:
    """:func:`record` once the all-or-nothing rule holds: retain the input, record the
    items in one batch, report. ``written``: the originals this import wrote so far
    (:func:`provgraph.originals.new_blobs`); those an item rolled back by ``partial``
    wrote and nothing else references are removed with it (:func:`_discard_rolled_back`)."""
    digest = store.originals.put(bytes(data))
    config = {"importer": fmt, "importer_version": __version__, "input": name,
              "input_sha256": digest, "items": n_items, "generator_input": generator_input}
    rec = _ImportRecorder(store, label=f"import {fmt} {name}", config=config)
    totals = [0, 0, 0]
    snaps: set[IRI] = set()
    n_ok = 0
    try:
        with rec.batch():
            if record_item is None:
                rec.release_run()  # else each item starts its own run (start_run)
            for i, spec in ok:
                point, mark = rec.savepoint(), len(written)
                try:
                    got = record_item(rec, spec) if record_item else _record_item(rec, fmt, spec)
                except ProvgraphError as exc:
                    errs.append(ItemError(i, "$", f"could not be recorded: {exc}"))
                    if not partial:
                        raise
                    rec.rollback(point)
                    _discard_rolled_back(store, rec, written, mark)
                    continue
                n_ok += 1
                for k, n in enumerate(got[:3]):
                    totals[k] += n
                snaps |= got[3]
            if n_ok == 0:
                raise ImportFailed(report(n_ok=0), partial=partial)
            stored = rec.pending_count()
    except ImportFailed:
        raise
    except ProvgraphError as exc:
        raise ImportFailed(report(n_ok=n_ok), partial=partial) from exc
    runs = tuple(rec.runs) if record_item else (rec.iri,)
    return report(runs, stored, (*totals, len(snaps)), n_ok)


def _discard_rolled_back(store: ProvStore, rec: _ImportRecorder, written: list[str],
                         mark: int) -> None:
    """Remove the originals written since ``written[mark]`` (by an item ``--partial``
    rolled back) that neither a statement still pending in ``rec`` nor one in the store
    references by ``pg:sha256``: the item's statements are gone, so its originals would
    be evidence of nothing. They are not on a ledger line yet (the batch has not
    committed), so the ledger forgets them too."""
    fresh = written[mark:]
    if not fresh:
        return
    pending = {str(q[2]) for q in rec.pending_quads() if q[1] == PG.sha256}
    for digest in fresh:
        if digest not in pending:
            _discard_unreferenced(store, [digest])
    del written[mark:]


def _record_item(rec: _ImportRecorder, fmt: str, spec: ItemSpec) -> tuple[int, int, int, set[IRI]]:
    got = _record_one(rec, fmt, spec)
    for sib in spec.siblings:
        more = _record_one(rec, fmt, sib)
        got = (got[0] + more[0], got[1] + more[1], got[2] + more[2], got[3] | more[3])
    return got


def _record_one(rec: _ImportRecorder, fmt: str, spec: ItemSpec) -> tuple[int, int, int, set[IRI]]:
    snaps: dict[int, Any] = {}
    for d in spec.docs:
        if d.data is not None and id(d) not in snaps:
            # an answer's --source files are whole documents (a changed one is a revision);
            # the other formats' documents are passages a service returned (never revisions)
            snaps[id(d)] = rec.snapshot(d.data, uri=d.uri, media_type=d.media_type,
                                        part=fmt != "answer")
    q = rec.query(spec.query) if spec.query else None
    retrieval = None
    if spec.retriever is not None and q is not None:
        hits = [Hit(target=snaps[id(d)], rank=n, score=score)
                for n, (d, score) in enumerate(((d, s) for d, s in spec.hits if id(d) in snaps), 1)]
        retrieval = rec.retrieval(q, retriever=spec.retriever, hits=hits)
    snap_iris = {s.iri for s in snaps.values()}
    if spec.answer is None:
        return 0, 0, 0, snap_iris
    if spec.prompt is not None:
        text, raw_segs = spec.prompt
        template = spec.template
    else:
        text, raw_segs = _documents_input(spec.docs)
        template = (f"provgraph-import-{fmt}", __version__)
    segments = []
    for start, end, origin, ref in raw_segs:
        if isinstance(ref, Doc):
            if id(ref) not in snaps:
                continue
            source: Any = snaps[id(ref)]
        elif ref == "query":
            source = q
        else:
            source = None
        segments.append(Segment(start=start, end=end, origin=origin, source=source))
    gi = rec.context_packing(text=text, segments=segments, retrieval=retrieval, template=template)
    ans = rec.generation(gi, model=spec.model, text=spec.answer, settings=spec.settings)
    n_cit = 0
    for c in spec.claims:
        claim = rec.claim(ans, start=c.start, end=c.end, kind=c.kind, status=c.status)
        if c.label:
            rec.label(claim.iri, c.label)
        for ct in c.cites:
            if isinstance(ct.target, Doc) and id(ct.target) in snaps:
                target: Any = snaps[id(ct.target)]
            else:
                target = ct.target.key if isinstance(ct.target, Doc) else ct.target
                rec.raw_ids.add(target)
            cd = ct.cited
            rec.citation(claim, target=target, start=cd.start, end=cd.end, unit=cd.unit,
                         end_inclusive=cd.end_inclusive, quote=cd.quote or None,
                         prefix=cd.prefix, suffix=cd.suffix, pinned_sha256=cd.pinned_sha256,
                         policy=cd.policy if cd.quote else None)
            n_cit += 1
    return 1, len(spec.claims), n_cit, snap_iris


def _documents_input(docs: Sequence[Doc]) -> tuple[str, list[tuple[int, int, str, Any]]]:
    parts: list[str] = []
    segs: list[tuple[int, int, str, Any]] = []
    pos = 0
    seen: set[int] = set()
    for d in docs:
        if d.text is None or id(d) in seen:
            continue
        seen.add(id(d))
        if parts:
            parts.append("\n\n")
            pos += 2
        parts.append(d.text)
        segs.append((pos, pos + len(d.text), "original", d))
        pos += len(d.text)
    return "".join(parts), segs


DOCUMENTS_INPUT = ("reconstructed: the documents given to the model, in the order given, joined "
                   "by a blank line; the provider's exact prompt is not in the payload")
"""The run configuration's ``generator_input`` for importers that reconstruct it."""


def last_user_text(messages: Any) -> str | None:
    """The text of the last ``{"role": "user"}`` message of a chat request (its
    ``content`` string, or its text parts joined), or ``None`` when there is none."""
    for msg in reversed(messages if isinstance(messages, list) else []):
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                texts = [t for c in content
                         if isinstance(c, dict) and isinstance(t := c.get("text"), str)]
                return "".join(texts) or None
    return None


def passage_uri(name: str, path: str) -> str:
    """The source URI of a passage that carries none: the imported file's name and the
    passage's JSONPath, e.g. ``checking_inputs.json#$.results[0].retrieved_context[2]``."""
    return f"{name}#{path}"


def text_doc(key: str, text: str, uri: str, media_type: str = "text/plain; charset=utf-8") -> Doc:
    """A text document: its retained bytes are ``text`` encoded as UTF-8."""
    return Doc(key=key, data=text.encode("utf-8"), uri=uri, media_type=media_type, text=text)


def json_doc(key: str, value: Any, uri: str) -> Doc:
    """A structured document (a JSON object as given in the request): retained as
    compact UTF-8 JSON with its keys in the given order; its text is that JSON."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Doc(key=key, data=text.encode("utf-8"), uri=uri, media_type="application/json", text=text)


def exchanges(value: Any, is_lines: bool, what: str, hint: str) -> list[tuple[str, Any]]:
    """The items of a request/response payload: one object, an array of them, or
    JSON Lines. ``hint`` describes the expected shape for the wrong-format error.

    Raises:
        PayloadError: the value is neither an object nor an array.
    """
    if isinstance(value, dict):
        return [("$", value)]
    if isinstance(value, list):
        where = "line {}" if is_lines else "$[{}]"
        return [(where.format(i + 1 if is_lines else i), v) for i, v in enumerate(value)]
    raise PayloadError("$", f"is not {what}: expected {hint}; found {_kind(value)}")


def exchange_parts(obj: Any, path: str, what: str, hint: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(request, response)`` of one exchange object.

    Raises:
        ItemFailed: the object is not ``{"request": {...}, "response": {...}}``.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("request"), dict) \
            or not isinstance(obj.get("response"), dict):
        keys = sorted(obj)[:8] if isinstance(obj, dict) else []
        found = f"keys {keys}" if isinstance(obj, dict) else _kind(obj)
        raise ItemFailed(path, f"is not {what}: expected {hint}; found {found}")
    return obj["request"], obj["response"]
