"""What the framework adapters share: failure surfacing, snapshots of re-ingested
documents, chunk IRIs kept in a framework's metadata, chat messages rendered as one
prompt text, prompt segments and claims.

Each adapter turns its framework's objects into the plain values these helpers take
(texts, IRIs, labels), so the logic that is the same for every framework is written
once (issue 14). Nothing here imports a framework.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import json
import logging
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

from .. import ids
from ..errors import ProvgraphError, RecordError
from ..model import AnswerRecord, Segment, SnapshotRecord
from ..recorder import Recorder
from ..schema import snapshot as snapshot_schema
from ..store import ProvStore
from ..terms import IRI
from ..vocab import GRAPH, PROV

METADATA_KEY = "provgraph"
"""The framework metadata key holding the recorded chunk and aid IRIs (a JSON string)."""

CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
"""A citation marker in an answer: ``[1]``, ``[1, 3]`` (the numbers are 1-based source labels)."""
_QUOTED = re.compile(r"[\"“]([^\"”]{8,})[\"”]")
_SENTENCE = re.compile(r"[^\s].*?(?:[.!?](?=\s|$)|$)", re.S)


def package_version(module: str) -> str:
    """The installed version of the distribution providing ``module`` ('' if unknown).

    ``llama_index.core.x`` is looked up as ``llama-index-core``, ``haystack.x`` as
    ``haystack`` then ``haystack-ai`` (the distribution names the modules come from)."""
    parts = module.split(".")
    names = ["-".join(parts[:n]).replace("_", "-") for n in (3, 2, 1)]
    if parts[0] == "haystack":
        names.append("haystack-ai")
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return ""


# ---------------------------------------------------------------------- failure surfacing
class AdapterBase:
    """Lifecycle and failure surfacing shared by the adapters.

    A framework either discards what its hooks raise (LlamaIndex) or would stop the
    user's application on it (Haystack); either way a recording failure is logged at
    once, kept, and raised by :meth:`check`, :meth:`close` or the end of a ``with``
    block. Subclasses set ``_framework`` and ``_log`` and define ``attach``/``detach``.

    Args:
        store: the store recorded into (ignored when ``recorder`` is given).
        label: the run's label for a new Recorder.
        recorder: record through this Recorder instead of a new one.
        packages: the distributions whose versions a new Recorder notes on the run.
    """

    _framework = "the framework"
    _log = logging.getLogger(__name__)

    def __init__(self, store: ProvStore, *, label: str, recorder: Recorder | None,
                 packages: list[str]) -> None:
        self.recorder = recorder or Recorder(store, label=label, packages=packages)
        self.store = self.recorder.store
        self._snapshots = Snapshots(self.recorder)
        self._lock = threading.RLock()
        self._failures: list[RecordError] = []

    def attach(self) -> Any:
        """Start recording (subclasses hook into their framework here)."""
        raise NotImplementedError

    def detach(self) -> None:
        """Stop recording (subclasses unhook from their framework here)."""
        raise NotImplementedError

    def check(self) -> None:
        """Raise the first recording failure since the last check.

        Raises:
            RecordError: what failed (the framework step and the cause, chained);
                the query or ingestion it happened in was not recorded.
        """
        with self._lock:
            failures, self._failures = self._failures, []
        if failures:
            first = failures[0]
            if len(failures) > 1:
                raise RecordError(f"{first} (and {len(failures) - 1} more recording failures; "
                                  f"see the log {self._log.name!r})") from first.__cause__
            raise first

    def close(self) -> None:
        """Detach, then raise any recording failure (:meth:`check`)."""
        self.detach()
        self.check()

    def __enter__(self) -> Any:
        return self.attach()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.detach()
        if exc is None:
            self.check()

    def _fail(self, where: str, exc: BaseException) -> None:
        err = RecordError(f"provgraph could not record {self._framework} {where}: {exc}; nothing of "
                          "it was stored (fix the cause, then run the step again)")
        err.__cause__ = exc
        self._log.error("%s", err, exc_info=exc)
        with self._lock:
            self._failures.append(err)


def import_framework(module: str, *, framework: str, package: str, extra: str) -> Any:
    """Import a framework's ``module`` when its adapter is first used (never at
    ``import provgraph``).

    Raises:
        ProvgraphError: the framework is not installed; the message names the extra to
            install (``pip install 'provgraph[EXTRA]'``).
    """
    try:
        importlib.import_module(module.partition(".")[0])  # the framework itself first
        return importlib.import_module(module)
    except ImportError as exc:
        raise ProvgraphError(f"the {framework} adapter needs {package}: "
                             f"pip install 'provgraph[{extra}]'") from exc


# ---------------------------------------------------------------------- documents
class Snapshots:
    """The newest recorded snapshot of each document URI, for recording re-ingestions.

    Args:
        recorder: records the snapshots; its store is read for snapshots an earlier
            process recorded.
    """

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.newest: dict[str, IRI] = {}
        """Document URI -> the newest snapshot recorded or found (filled as documents are seen)."""

    def record(self, data: bytes, *, uri: str, media_type: str) -> SnapshotRecord:
        """Record ``data`` as the newest snapshot of ``uri``.

        Changed bytes are a revision of the newest snapshot already recorded (``stale``
        then lists the claims citing it); unchanged bytes are the same snapshot, seen
        again: the Recorder records a ``pg:Reobservation`` of it and no revision
        (issue 14 item 5).

        Raises:
            RecordError, StoreError: as :meth:`provgraph.Recorder.snapshot`.
        """
        snap = self.recorder.snapshot(data, uri=uri, media_type=media_type,
                                      revision_of=self._newest_of(uri))
        self.newest[uri] = snap.iri
        return snap

    def _newest_of(self, uri: str) -> IRI | None:
        if uri in self.newest:
            return self.newest[uri]
        store: ProvStore = self.recorder.store
        doc = ids.content_iri("document", uri)
        snaps = sorted({s for s, _, _, _ in store.quads(None, PROV.specializationOf, doc,
                                                         GRAPH.INGESTION) if isinstance(s, IRI)})
        if not snaps:
            return None
        states = snapshot_schema.states(store, snaps)
        newest = [s for s in snaps if not states[s].newer]
        return newest[0] if len(newest) == 1 else None


def metadata_value(chunk: IRI, aids: Mapping[str, str] | None = None) -> str:
    """The :data:`METADATA_KEY` value naming a recorded chunk and its aids (JSON text)."""
    return json.dumps({"chunk": chunk, "aids": dict(aids or {})}, sort_keys=True)


def chunk_in(metadata: Mapping[str, Any] | None) -> IRI | None:
    """The chunk IRI kept under :data:`METADATA_KEY` in ``metadata`` (``None``: none, or unreadable)."""
    raw = (metadata or {}).get(METADATA_KEY)
    if isinstance(raw, str):
        try:
            iri = json.loads(raw).get("chunk")
        except (ValueError, AttributeError):
            return None
        if isinstance(iri, str):
            return IRI(iri)
    return None


def aids_in(metadata: Mapping[str, Any] | None) -> dict[str, IRI]:
    """Metadata key -> aid IRI kept under :data:`METADATA_KEY` in ``metadata`` ({} when none)."""
    raw = (metadata or {}).get(METADATA_KEY)
    try:
        aids = json.loads(raw).get("aids", {}) if isinstance(raw, str) else {}
    except (ValueError, AttributeError):
        aids = {}
    return {str(k): IRI(str(v)) for k, v in aids.items()}


# ---------------------------------------------------------------------- prompts
def render_messages(messages: Iterable[tuple[str, Iterable[tuple[str, str | None]]]]) -> str:
    """Chat messages as the one prompt text recorded for a chat model's input.

    Every adapter renders chat messages this way, so the recorded prompt of a chat call
    reads the same whatever the framework: one line per message, ``"<role>: <content>"``,
    the role as the framework names it (LangChain's ``human``, Haystack's ``user``); the
    content parts joined with nothing between them, a text part as its text and any other
    part (an image, a tool call) as ``[<type>]``.

    Args:
        messages: ``(role, parts)`` per message, in order; ``parts`` are ``(type, text)``
            pairs, ``text`` ``None`` for a part that is not text.

    Example:
        >>> print(render_messages([("system", [("text", "Be brief.")]),
        ...                        ("user", [("text", "Why? "), ("image", None)])]))
        system: Be brief.
        user: Why? [image]
    """
    return "\n".join(f"{role}: " + "".join(text if text is not None else f"[{kind}]" for kind, text in parts)
                     for role, parts in messages)


@dataclasses.dataclass(frozen=True)
class Piece:
    """Text expected in a prompt, in order: ``whole`` is located (after the previous
    located piece); it is split into the ``part`` of this piece and of the pieces
    following it with an empty ``whole``.

    ``origin`` is a segment origin (``original``, ``generated``, ``instruction``);
    ``source`` the chunk or aid IRI it came from (``None``: template text).
    """

    whole: str
    part: str
    origin: str
    source: str | None = None


def prompt_segments(prompt: str, pieces: Sequence[Piece], query: str) -> list[Segment]:
    """Segments covering ``prompt`` exactly: each piece located in order, the last
    occurrence of ``query`` marked ``query``, every gap ``instruction`` (template text).

    A piece not found after the previous one is left out (its text is then part of a
    gap); original or generated text without a source is left out as well.
    """
    segs: list[Segment] = []
    cursor = 0
    i = 0
    while i < len(pieces):
        group = [pieces[i]]
        while i + len(group) < len(pieces) and pieces[i + len(group)].whole == "":
            group.append(pieces[i + len(group)])
        i += len(group)
        whole = group[0].whole
        k = prompt.find(whole, cursor) if whole else -1
        if k < 0:
            continue
        at = k
        for p in group:
            if p.part and (p.origin not in ("original", "generated") or p.source is not None):
                segs.append(Segment(start=at, end=at + len(p.part), origin=p.origin, source=p.source))
            at += len(p.part)
        cursor = k + len(whole)
    q = prompt.rfind(query) if query else -1
    if q >= 0 and not any(s.start < q + len(query) and q < s.end for s in segs):
        segs.append(Segment(start=q, end=q + len(query), origin="query"))
    segs.sort(key=lambda s: s.start)
    out: list[Segment] = []
    cursor = 0
    for seg in segs:
        if seg.start > cursor:
            out.append(Segment(start=cursor, end=seg.start, origin="instruction"))
        out.append(seg)
        cursor = seg.end
    if cursor < len(prompt):
        out.append(Segment(start=cursor, end=len(prompt), origin="instruction"))
    return out


# ---------------------------------------------------------------------- claims
@dataclasses.dataclass(frozen=True)
class CitedSource:
    """A numbered source an answer can cite as ``[label]``.

    ``chunk`` is its recorded chunk (``None``: not recorded); ``text`` what the model was
    shown of it; ``start`` where ``text`` begins in the chunk, in code points (``None``:
    not located); ``aids`` the generated values shown with it, as (text, aid IRI) pairs.
    """

    label: int
    chunk: IRI | None
    text: str
    start: int | None
    aids: tuple[tuple[str, IRI], ...] = ()


def record_claims(rec: Recorder, answer: AnswerRecord, sources: Sequence[CitedSource]) -> set[int]:
    """A claim per answer sentence citing ``[n]``; a citation per source number in it.

    A sentence quoting text (in double quotes, 8 characters or more) is a ``quotation``
    citing the quote's code point range in the chunk (or the aid whose text holds it),
    any other a ``paraphrase`` citing the source's range. A number with no source is
    cited as the raw identifier ``"Source n"`` (the resolver: ``unresolved_id``).

    Returns:
        the source labels cited.
    """
    labelled = {s.label: s for s in sources}
    cited: set[int] = set()
    for m in _SENTENCE.finditer(answer.text):
        sentence = m.group(0).rstrip()
        numbers = [int(x) for g in CITE.findall(sentence) for x in g.split(",")]
        if not numbers:
            continue
        quoted = _QUOTED.search(sentence)
        quote = quoted.group(1) if quoted else None
        claim = rec.claim(answer, start=m.start(), end=m.start() + len(sentence),
                          kind="quotation" if quote else "paraphrase")
        for n in dict.fromkeys(numbers):
            cited.add(n)
            cite(rec, claim.iri, labelled.get(n), quote, label=n)
    return cited


def cite(rec: Recorder, claim: IRI, src: CitedSource | None, quote: str | None, *,
         label: int) -> None:
    """Record ``claim`` citing ``src`` (see :func:`record_claims`)."""
    if src is None or src.chunk is None:
        rec.citation(claim, target=f"Source {label}", quote=quote)
        return
    if quote is not None and src.start is not None and quote in src.text:
        k = src.start + src.text.index(quote)
        rec.citation(claim, target=src.chunk, start=k, end=k + len(quote), unit="codepoint",
                     quote=quote)
        return
    gen = [iri for text, iri in src.aids if quote is not None and quote in text]
    if gen:
        rec.citation(claim, target=gen[0], quote=quote)
    elif src.start is not None:
        rec.citation(claim, target=src.chunk, start=src.start, end=src.start + len(src.text),
                     unit="codepoint", quote=quote)
    else:
        rec.citation(claim, target=src.chunk, quote=quote)
