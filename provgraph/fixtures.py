"""Frozen evaluation fixtures (issue 18 part 2): one question with everything needed to
judge an answer to it, checked before it is used and stored as a run.

Format ``provgraph-fixture/1``, specified by ``schemas/fixture-v1.schema.json`` (JSON
Schema 2020-12), one JSON object per file:

``format``           ``"provgraph-fixture/1"``
``id``               the fixture's name (letters, digits, ``.``, ``_``, ``-``)
``query``            the question exactly as asked
``sources``          the retained originals: ``id``, ``uri``, ``media_type``, ``sha256``
                     (hex, of the bytes) and the bytes as ``path`` (relative to the
                     fixture file's folder, inside it) or inline ``content_base64``
``evidence``         exact spans: ``id``, ``source`` (a source id), ``start``, ``end``
                     (end-exclusive Unicode code point offsets into the UTF-8-decoded
                     source, BOM excluded, as everywhere in provgraph) and ``text``
``aids``             generated additions: ``id``, ``kind`` (an aid kind of
                     :data:`provgraph.vocab.AID_KINDS`), ``text``, ``model``
                     (``name``, ``version``), ``derived_from`` (source ids, or
                     ``"query"``)
``derivations``      permitted derivations: ``id``, ``rule`` (:data:`RULES`),
                     ``operands`` (evidence span ids, in order), ``result`` (a decimal
                     number as text)
``expected_answer``  the expected answer text, or exactly ``"unknown"`` for a question
                     the sources cannot answer

:func:`load` reads and validates a file (no store); :func:`check` lists what does not
hold in it (digests, spans, derivations, the expected answer); :func:`record` stores a
fixture that passes its check, through the :class:`~provgraph.recorder.Recorder`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, InvalidOperation
from pathlib import Path
from typing import Any


from . import ids
from .errors import FixtureError, ResolutionError
from .limits import json_error_text, loads_json
from .matching import check_quote
from .offsets import SourceText
from .recorder import Recorder
from .resources import json_schema, schema_validator
from .store import ProvStore
from .terms import IRI
from .vocab import PG, RDF

__all__ = ["FIXTURE_FORMAT", "RULES", "Fixture", "FixtureSource", "EvidenceSpan", "FixtureAid",
           "FixtureDerivation", "Problem", "FixtureRecording", "UNKNOWN", "load", "check",
           "record", "require_clean", "schema"]

FIXTURE_FORMAT = "provgraph-fixture/1"
UNKNOWN = "unknown"
"""The expected answer of a question the sources cannot answer."""

RULES: dict[str, tuple[int, int | None]] = {
    "copy": (1, 1), "sum": (2, None), "difference": (2, 2), "product": (2, None),
    "ratio": (2, 2)}
"""Derivation rules and their operand counts (least, most; ``None``: no limit).
``copy``: the operand itself; ``sum``, ``product``: of all operands; ``difference``:
first minus second; ``ratio``: first divided by second, compared after rounding
(half to even) to the claimed result's decimal places. All in decimal arithmetic
(50 significant digits), never binary floating point."""

_NUMBER = re.compile(r"[+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?", re.ASCII)
_DECIMAL = Context(prec=50, traps=[DivisionByZero, InvalidOperation])
QUERY_REF = "query"
"""What an aid's ``derived_from`` names to mean the fixture's question."""


def schema() -> dict[str, Any]:
    """The fixture JSON Schema (a fresh copy)."""
    return json_schema("fixture-v1.schema.json")


def _validator() -> Any:
    return schema_validator("fixture-v1.schema.json")


@dataclass(frozen=True, slots=True, kw_only=True)
class FixtureSource:
    """A retained original: ``data`` are its bytes, ``sha256`` the digest the fixture
    claims for them (hex), ``origin`` the file they came from or ``"inline"``."""

    id: str
    uri: str
    media_type: str
    sha256: str
    data: bytes
    origin: str


@dataclass(frozen=True, slots=True, kw_only=True)
class EvidenceSpan:
    """An exact span: ``text`` at code points ``[start, end)`` of source ``source``."""

    id: str
    source: str
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FixtureAid:
    """A generated addition; ``derived_from`` holds source ids or ``"query"``."""

    id: str
    kind: str
    text: str
    model: tuple[str, str]
    derived_from: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class FixtureDerivation:
    """A permitted derivation: ``rule`` (:data:`RULES`) over the numbers in the evidence
    spans ``operands`` gives ``result`` (decimal text as written in the fixture)."""

    id: str
    rule: str
    operands: tuple[str, ...]
    result: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Fixture:
    """A loaded fixture (:func:`load`). ``expected_answer`` is ``None`` when the file
    gives none (its check then fails); ``document`` is the parsed JSON, which names the
    run it is recorded as."""

    path: str
    id: str
    query: str
    sources: dict[str, FixtureSource]
    evidence: dict[str, EvidenceSpan]
    aids: dict[str, FixtureAid]
    derivations: dict[str, FixtureDerivation]
    expected_answer: str | None
    document: dict[str, Any] = field(repr=False)

    @property
    def answerable(self) -> bool:
        """Whether the expected answer is other than ``"unknown"``."""
        return self.expected_answer is not None and self.expected_answer != UNKNOWN

    @property
    def run_iri(self) -> IRI:
        """The run this fixture is recorded as: derived from its content (the parsed
        document, so layout does not matter), the same every time it is recorded."""
        return ids.content_iri("fixture-run", self.document)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing a fixture's check found: ``subject`` names the part (``source s1``,
    ``evidence e2``, ``derivation d1``, ``expected_answer``), ``message`` says what is
    wrong and, where it can, what would be right."""

    subject: str
    message: str

    def __str__(self) -> str:
        return f"{self.subject}: {self.message}"


def load(path: str | Path) -> Fixture:
    """Read and validate the fixture file at ``path`` (no store).

    Checks the JSON against ``schemas/fixture-v1.schema.json``, that ids are unique and
    every reference names an item of the right kind, operand counts against
    :data:`RULES`, and reads each source's bytes. It does not compare digests, spans or
    derivations: that is :func:`check`.

    Raises:
        FixtureError: not UTF-8 JSON, against the schema (the message gives the JSON
            path of the first error), a duplicate or unknown id, a rule with the wrong
            number of operands, a source ``path`` that is absolute, leaves the fixture's
            folder or names no readable file, ``content_base64`` that is not base64.
    """
    name = str(path)
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise FixtureError(name, f"cannot read the fixture file ({exc.strerror or exc})") from None
    try:
        doc = loads_json(raw)
    except json.JSONDecodeError as exc:
        raise FixtureError(name, f"not JSON ({json_error_text(exc)} at line {exc.lineno} "
                                 f"column {exc.colno})") from None
    except UnicodeDecodeError:
        raise FixtureError(name, "not UTF-8 text; save the fixture as UTF-8 JSON") from None
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        at = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in e.absolute_path)
        raise FixtureError(name, f"{at.lstrip('.') or 'the document'}: {e.message} "
                                 "(schemas/fixture-v1.schema.json)")
    seen: set[str] = {QUERY_REF}
    for part in ("sources", "evidence", "aids", "derivations"):
        for item in doc.get(part, ()):
            if item["id"] in seen:
                what = "is reserved for the question" if item["id"] == QUERY_REF else "is used twice"
                raise FixtureError(name, f"{part} id {item['id']!r} {what}; give each item its "
                                         "own id")
            seen.add(item["id"])
    folder = p.parent
    sources = {s["id"]: _source(name, folder, s) for s in doc["sources"]}
    evidence = {}
    for s in doc.get("evidence", ()):
        _known(name, f"evidence {s['id']}", "source", s["source"], sources)
        if s["end"] < s["start"]:
            raise FixtureError(name, f"evidence {s['id']}: end {s['end']} is before start "
                                     f"{s['start']}; offsets are [start, end), end exclusive")
        evidence[s["id"]] = EvidenceSpan(id=s["id"], source=s["source"], start=s["start"],
                                         end=s["end"], text=s["text"])
    aids = {}
    for a in doc.get("aids", ()):
        for ref in a["derived_from"]:
            if ref != QUERY_REF:
                _known(name, f"aid {a['id']}", "source (or \"query\")", ref, sources)
        aids[a["id"]] = FixtureAid(id=a["id"], kind=a["kind"], text=a["text"],
                                   model=(a["model"]["name"], a["model"]["version"]),
                                   derived_from=tuple(a["derived_from"]))
    derivations = {}
    for d in doc.get("derivations", ()):
        for ref in d["operands"]:
            _known(name, f"derivation {d['id']}", "evidence span", ref, evidence)
        least, most = RULES[d["rule"]]
        n = len(d["operands"])
        if n < least or (most is not None and n > most):
            want = str(least) if least == most else (f"{least} or more" if most is None
                                                      else f"{least} to {most}")
            raise FixtureError(name, f"derivation {d['id']}: rule {d['rule']!r} takes {want} "
                                     f"operands, got {n}")
        derivations[d["id"]] = FixtureDerivation(id=d["id"], rule=d["rule"],
                                                 operands=tuple(d["operands"]), result=d["result"])
    return Fixture(path=name, id=doc["id"], query=doc["query"], sources=sources,
                   evidence=evidence, aids=aids, derivations=derivations,
                   expected_answer=doc.get("expected_answer"), document=doc)


def _known(name: str, where: str, kind: str, ref: str, known: dict[str, Any]) -> None:
    if ref not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise FixtureError(name, f"{where}: {ref!r} names no {kind} of this fixture "
                                 f"(known: {listed})")


def _source(name: str, folder: Path, s: dict[str, Any]) -> FixtureSource:
    where = f"source {s['id']}"
    if "content_base64" in s:
        try:
            data = base64.b64decode(s["content_base64"], validate=True)
        except (binascii.Error, ValueError):
            raise FixtureError(name, f"{where}: content_base64 is not base64 (RFC 4648); "
                                     "encode the retained bytes with base64") from None
        return FixtureSource(id=s["id"], uri=s["uri"], media_type=s["media_type"],
                             sha256=s["sha256"], data=data, origin="inline")
    rel = Path(s["path"])
    target = (folder / rel).resolve()
    if rel.is_absolute() or not target.is_relative_to(folder.resolve()):
        raise FixtureError(name, f"{where}: path {s['path']!r} must be relative to the "
                                 "fixture file's folder and inside it; copy the retained file "
                                 "next to the fixture")
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise FixtureError(name, f"{where}: cannot read path {s['path']!r} ({target}: "
                                 f"{exc.strerror or exc}); put the retained bytes there or give "
                                 "them inline as content_base64") from None
    return FixtureSource(id=s["id"], uri=s["uri"], media_type=s["media_type"], sha256=s["sha256"],
                         data=data, origin=str(target))


def check(fixture: Fixture) -> list[Problem]:
    """What does not hold in ``fixture``, in file order; ``[]`` when it is sound.

    * each source's bytes hash (SHA-256) to its ``sha256``;
    * each evidence span's ``text`` is exactly at its code point range of its source,
      decided by :func:`provgraph.matching.check_quote` (policy ``exact``) as the
      resolver decides a citation; when it is elsewhere in the source, the problem
      says where;
    * each derivation's ``result`` follows from the numbers in its operand spans by its
      rule (:data:`RULES`); an operand whose text is not a number is a problem;
    * the expected answer is given, and an answerable fixture has at least one
      evidence span.

    Returns:
        ``list[Problem]``, one per finding.
    """
    out: list[Problem] = []
    texts: dict[str, SourceText | str] = {}
    for s in fixture.sources.values():
        actual = hashlib.sha256(s.data).hexdigest()
        if actual != s.sha256:
            out.append(Problem(f"source {s.id}", f"the retained bytes ({len(s.data)} bytes, "
                                                 f"{s.origin}) have sha-256 {actual}, the "
                                                 f"fixture says {s.sha256}"))
        try:
            texts[s.id] = SourceText.from_bytes(s.data, name=f"source {s.id}")
        except ResolutionError as exc:
            texts[s.id] = str(exc)
    for e in fixture.evidence.values():
        problem = _span_problem(e, texts[e.source])
        if problem:
            out.append(Problem(f"evidence {e.id}", problem))
    for d in fixture.derivations.values():
        problem = _derivation_problem(d, fixture.evidence)
        if problem:
            out.append(Problem(f"derivation {d.id}", problem))
    if fixture.expected_answer is None or not fixture.expected_answer.strip():
        out.append(Problem("expected_answer", "missing; give the expected answer text, or "
                                              f"{UNKNOWN!r} for a question the sources cannot "
                                              "answer"))
    elif fixture.answerable and not fixture.evidence:
        out.append(Problem("expected_answer", "an answer is expected but no evidence span "
                                              "supports it; add the spans, or expect "
                                              f"{UNKNOWN!r}"))
    return out


def _span_problem(e: EvidenceSpan, src: SourceText | str) -> str | None:
    if isinstance(src, str):
        return src  # the source does not decode: its message
    try:
        res = check_quote(src, e.text, start=e.start, end=e.end, unit="codepoint")
    except ResolutionError as exc:
        return str(exc)
    if res.outcome == "quote_match":
        return None
    actual = src.text[e.start:e.end] if e.end <= len(src.text) else None
    msg = (f"the text at code points [{e.start}, {e.end}) of source {e.source} is {actual!r}, "
           f"not {e.text!r}" if actual is not None else
           f"[{e.start}, {e.end}) is past the end of source {e.source} "
           f"({len(src.text)} code points)")
    at = src.text.find(e.text)
    if at >= 0:
        msg += f"; the quoted text is at [{at}, {at + len(e.text)})"
    return msg


def _number(text: str) -> Decimal | None:
    t = text.strip()
    return Decimal(t.replace(",", ""), _DECIMAL) if _NUMBER.fullmatch(t) else None


def _derivation_problem(d: FixtureDerivation, evidence: dict[str, EvidenceSpan]) -> str | None:
    values: list[Decimal] = []
    for ref in d.operands:
        v = _number(evidence[ref].text)
        if v is None:
            return (f"operand {ref} is {evidence[ref].text!r}, not a number (digits, optional "
                    "sign, thousands commas and fraction); make the span cover just the number")
        values.append(v)
    claimed = _number(d.result)
    assert claimed is not None  # the schema's number pattern
    try:
        got = _apply(d.rule, values, claimed)
    except (DivisionByZero, InvalidOperation):
        return f"{d.rule} of {_operands(d, values)} is undefined (division by zero)"
    if got == claimed:
        return None
    return f"{d.rule} of {_operands(d, values)} is {got}, not {d.result}"


def _operands(d: FixtureDerivation, values: list[Decimal]) -> str:
    return ", ".join(f"{ref} ({v})" for ref, v in zip(d.operands, values))


def _apply(rule: str, v: list[Decimal], claimed: Decimal) -> Decimal:
    c = _DECIMAL
    if rule == "copy":
        return v[0]
    if rule == "sum":
        total = Decimal(0)
        for x in v:
            total = c.add(total, x)
        return total
    if rule == "product":
        prod = Decimal(1)
        for x in v:
            prod = c.multiply(prod, x)
        return prod
    if rule == "difference":
        return c.subtract(v[0], v[1])
    q = c.divide(v[0], v[1])  # ratio
    exp = claimed.as_tuple().exponent
    return q.quantize(Decimal(1).scaleb(exp if isinstance(exp, int) else 0), ROUND_HALF_EVEN, c)


def require_clean(fixture: Fixture) -> None:
    """Raise unless :func:`check` finds nothing (what :func:`record` does first).

    Raises:
        FixtureError: the first problem and how many there are in all.
    """
    problems = check(fixture)
    if problems:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        raise FixtureError(fixture.path, f"fails its check ({problems[0]}{more}; run 'provgraph "
                                         "fixture check'); nothing was stored")


@dataclass(frozen=True, slots=True, kw_only=True)
class FixtureRecording:
    """What :func:`record` stored. ``snapshots`` and ``aids`` map the fixture's ids to
    IRIs; ``already`` is true when the run was in the store before: nothing was added,
    and ``aids`` is empty (their IRIs are in the run's ingestion as first recorded)."""

    run: IRI
    query: IRI
    snapshots: dict[str, IRI]
    aids: dict[str, IRI]
    already: bool
    statements: int


def record(store: ProvStore, fixture: Fixture) -> FixtureRecording:
    """Store a fixture that passes :func:`check`: all of it or nothing.

    One transaction through a :class:`~provgraph.recorder.Recorder`: a run labelled
    ``fixture <id>`` whose configuration holds the format, the fixture id, its evidence
    spans, derivations and expected answer (so a later evaluation can read them from the
    run); the question (``pg:Query``); each source as a snapshot of its retained bytes
    (:meth:`~provgraph.recorder.Recorder.snapshot`: the original is kept, named by its
    sha-256); each aid (:meth:`~provgraph.recorder.Recorder.aid`), derived from those
    snapshots or the question.

    The run's IRI is derived from the fixture's content (:attr:`Fixture.run_iri`), so
    recording the same fixture again adds nothing and returns ``already=True``; a changed
    fixture is a new run.

    Raises:
        FixtureError: the fixture fails its check (the message gives the first problem
            and their number); nothing is stored.
        RecordError, StoreError: as the Recorder raises them.
    """
    require_clean(fixture)
    run = fixture.run_iri
    query_iri = ids.content_iri("fixture-query", run)
    snapshots = {s.id: ids.snapshot_iri(s.sha256) for s in fixture.sources.values()}
    before = len(store)
    if next(iter(store.quads(run, RDF.type, PG.Run, run)), None) is not None:
        return FixtureRecording(run=run, query=query_iri, snapshots=snapshots, aids={},
                                already=True, statements=0)
    config = {"format": FIXTURE_FORMAT, "fixture": fixture.id,
              "expected_answer": fixture.expected_answer,
              "evidence": [{"id": e.id, "snapshot": snapshots[e.source], "start": e.start,
                            "end": e.end, "unit": "codepoint", "text": e.text}
                           for e in fixture.evidence.values()],
              "derivations": [{"id": d.id, "rule": d.rule, "operands": list(d.operands),
                               "result": d.result} for d in fixture.derivations.values()]}
    rec = Recorder(store, label=f"fixture {fixture.id}", config=config, run_iri=run,
                   hold_run=True)
    aids: dict[str, IRI] = {}
    with rec.batch():
        rec.release_run()
        q = rec.query(fixture.query, iri=query_iri)
        snaps = {s.id: rec.snapshot(s.data, uri=s.uri, media_type=s.media_type)
                 for s in fixture.sources.values()}
        for a in fixture.aids.values():
            made = rec.aid(a.kind, text=a.text, model=a.model,
                           derived_from=[q if r == QUERY_REF else snaps[r] for r in a.derived_from])
            aids[a.id] = made.iri
    return FixtureRecording(run=run, query=q.iri, snapshots={k: v.iri for k, v in snaps.items()},
                            aids=aids, already=False, statements=len(store) - before)

