"""OpenTelemetry traces with OpenInference or GenAI attributes (format ``otlp``).

Input: OTLP JSON Lines, one ``ExportTraceServiceRequest`` per line, as the
OpenTelemetry file exporters write them (OTLP specification, "JSON Protobuf
Encoding", https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
``{"resourceSpans": [{"resource": ..., "scopeSpans": [{"scope": ..., "spans":
[...]}]}]}``. As that encoding says: trace and span ids are hex strings (not
base64), fields with their zero value are omitted, 64-bit integers
(``intValue``, ``startTimeUnixNano``) are decimal strings (numbers are accepted
too), enums (``kind``, ``status.code``) are integers. One JSON document of that
shape is read as one line.

Each **trace** is one item and one run (``pg:Run``, labelled ``import otlp FILE
trace ID``, its configuration naming the trace id, ``service.name`` and the
instrumentation scope); a trace's spans may come on several lines. What its spans
become (OpenInference semantic conventions,
https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md;
OpenTelemetry GenAI semantic conventions,
https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/):

* a span with ``retrieval.documents.N.document.{id,content,score,metadata}``
  attributes: a ``pg:Retrieval`` (retriever agent: the span name) of a
  ``pg:Query`` (the span's ``input.value``; for a JSON input, its ``query_str``
  or ``query``), with one hit per document, **rank N + 1** (OpenInference lists
  documents best first) and its score. A document with ``content`` is retained as
  a ``pg:SourceSnapshot`` of those UTF-8 bytes (``text/plain; charset=utf-8``,
  observed when the span ended) of the document whose ``pg:sourceUri`` is the
  ``document.id`` (so a citation naming that id resolves to it), or the span's
  place in the file when there is no id. A document without content is recorded
  as such: a ``pg:Document`` with ``pg:notRetained`` saying why, no snapshot
  (:meth:`provgraph.recorder.Recorder.unretained_document`); its citations resolve
  as ``unresolved_id`` with that reason, never as matches. A ``RETRIEVER`` span
  without documents is a retrieval that found nothing, unless a retriever span
  around or inside it carries the documents (LlamaIndex nests ``retrieve`` and
  ``_retrieve``).
* an ``LLM`` span (``openinference.span.kind``, or ``gen_ai.operation.name``
  ``chat``, ``text_completion`` or ``generate_content``) that has no LLM span
  inside it: a ``pg:ContextPacking`` whose ``pg:GeneratorInput`` is the exact
  prompt, a ``pg:Generation`` and its ``pg:Answer``. The prompt is
  ``llm.prompts`` (one string), else the chat messages (``llm.input_messages``,
  ``gen_ai.input.messages`` with ``gen_ai.system_instructions``, or the older
  ``gen_ai.prompt.N``) rendered one per block as ``role:\\n<content>`` joined by a
  blank line, else a plain-text ``input.value``. The answer is each output message
  (``llm.output_messages``, ``gen_ai.output.messages``, ``gen_ai.completion.N``; one
  generation per message), else a plain-text ``output.value``. Model: name
  ``gen_ai.request.model``, ``llm.model_name`` or ``gen_ai.response.model``,
  version ``gen_ai.response.model`` when it differs from the name; settings:
  ``llm.invocation_parameters`` and ``gen_ai.request.*``, with the provider
  (``llm.provider``, ``llm.system``, ``gen_ai.provider.name``, ``gen_ai.system``).
  Prompt segments: with ``llm.prompt_template.template`` and ``.variables`` (on
  the span or an enclosing LLM span) that render exactly the prompt, the template's
  text is ``instruction`` and a variable equal to the query is ``query``; each
  retrieved document's text found in the prompt is ``original`` (linked to its
  snapshot); text the framework added (LlamaIndex's metadata header
  ``file_name: ...``) stays unmarked. The template is the ``prompt_template`` agent
  ``openinference-template-<sha256 prefix>`` at ``llm.prompt_template.version``.
  The generation is informed by the trace's retrieval whose documents the prompt
  holds (else the last one that ended before it started).

What the spans do not carry, and how it shows: no source bytes of whole files
and no offsets into them (a retrieved document is the chunk text the framework
returned, so its snapshot *is* that text: ``resolve`` checks quotes against it,
never against the file it came from), no chunking (ingestion traces record
nothing; a warning says so), document ``metadata`` is not recorded, and the
claims and citations of an answer are not in the spans (record them with the
Recorder or the event log against the imported answer).

Warnings (:attr:`ImportReport.warnings`): the OpenTelemetry SDK keeps at most 128
attributes per span by default (``OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT``) and drops the
oldest beyond that, so a long retrieval list loses its top-ranked documents. A
span with ``droppedAttributesCount`` > 0, exactly 128 attributes, or missing
document indices is reported, naming the missing ranks and the fix.

Errors: a line that is not JSON or not an ``ExportTraceServiceRequest``, an id
that is not hex of the right length (a base64 id is named as such), a retrieval
span with no query, an LLM span with no prompt: each names ``FILE:LINE`` and the
JSONPath in the line.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..limits import loads_json
from ..model import Hit, Segment
from ..terms import IRI
from ._common import (
    Doc, ItemError, ItemFailed, ItemSpec, Parsed, PayloadError, _ImportRecorder, passage_uri,
)
from ._otlp_wire import Span, detect, read_spans

__all__ = ["parse", "record_item", "detect", "GENERATOR_INPUT", "ATTRIBUTE_LIMIT"]

GENERATOR_INPUT = ("exact: each generator input is the prompt an LLM span carries (llm.prompts, "
                   "or the chat messages rendered as 'role:\\n<content>' blocks joined by a "
                   "blank line), never reconstructed from the documents")
ATTRIBUTE_LIMIT = 128
"""The OpenTelemetry SDK's default maximum number of attributes per span
(``OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT``, OpenTelemetry specification "Attribute Limits")."""

_DOC_KEY = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(id|content|score|metadata)$")
_LLM_OPERATIONS = ("chat", "text_completion", "generate_content")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(eq=False)
class _Unretained(Doc):
    """A retrieved document whose bytes the span did not give (``data`` is ``None``)."""

    reason: str = ""


@dataclass(eq=False)
class _Retrieval:
    span: Span
    query: str
    hits: list[tuple[int, Doc, float | None]]


@dataclass(eq=False)
class _Generation:
    span: Span
    prompt: str
    segments: list[tuple[int, int, str, Any]]
    template: tuple[str, str] | None
    model: tuple[str, str]
    settings: dict[str, Any]
    answers: list[str]
    retrieval: _Retrieval | None


@dataclass(eq=False)
class TraceSpec(ItemSpec):
    """One trace: its run and what its spans record (see the module docstring)."""

    trace_id: str = ""
    label: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    started_at: _dt.datetime | None = None
    retrievals: list[_Retrieval] = field(default_factory=list)
    generations: list[_Generation] = field(default_factory=list)


# --------------------------------------------------------------------------- parse

def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse OTLP JSON Lines into one :class:`TraceSpec` per trace (nothing stored).

    Args:
        data: the file's bytes.
        name: the file name, used in messages (``FILE:LINE``) and in the URIs of
            documents that carry no id.
        sources: not used (the spans carry their documents).

    Returns:
        ``(items, errors)``: one spec (or ``None``) per trace in order of first
        appearance; a malformed line or span is an error of the whole file
        (``item`` ``None``), a trace that cannot be recorded an error of its item.

    Raises:
        PayloadError: the bytes are not UTF-8, the file is empty, or no trace holds a
            retrieval or LLM span.
    """
    spans, errors = read_spans(data, name)
    traces: dict[str, list[Span]] = {}
    for s in spans:
        traces.setdefault(s.trace, []).append(s)
    items: list[ItemSpec | None] = []
    for i, (tid, group) in enumerate(traces.items()):
        try:
            items.append(_trace(tid, group, name, i))
        except ItemFailed as exc:
            errors.append(ItemError(i, exc.path, exc.message))
            items.append(None)
    if spans and not any(isinstance(t, TraceSpec) and (t.retrievals or t.generations)
                         for t in items) and not any(e.item is not None for e in errors):
        raise PayloadError("$", f"holds {len(spans)} span(s) in {len(traces)} trace(s), none of "
                                "them a retrieval (retrieval.documents.*) or LLM span "
                                "(openinference.span.kind LLM, gen_ai.operation.name chat): "
                                "nothing to record; was the app instrumented with OpenInference "
                                "or the GenAI conventions?")
    return items, errors


def _trace(tid: str, spans: list[Span], name: str, index: int) -> TraceSpec:
    by_id = {s.span: s for s in spans}
    for s in spans:
        s.up = by_id.get(s.parent)
        if s.up is not None:
            s.up.children.append(s)
    spans.sort(key=lambda s: (s.start or _dt.datetime.max.replace(tzinfo=_dt.timezone.utc), s.span))
    spec = TraceSpec(docs=[], trace_id=tid)
    first = spans[0]
    spec.started_at = min((s.start for s in spans if s.start), default=None)
    spec.label = f"import otlp {name} trace {tid}"
    spec.config = {"trace_id": tid, "spans": len(spans),
                   "service_name": first.resource.get("service.name"),
                   "instrumentation_scope": " ".join(x for x in first.scope if x) or None,
                   "telemetry_sdk": " ".join(str(first.resource.get(k, "")) for k in (
                       "telemetry.sdk.name", "telemetry.sdk.language", "telemetry.sdk.version")
                   ).strip() or None}
    docs_by_id: dict[str, Doc] = {}
    for s in spans:
        if _has_documents(s) or (s.kind == "RETRIEVER" and not _related_documents(s)):
            spec.retrievals.append(_retrieval(s, name, docs_by_id, spec.warnings, index))
    for s in spans:
        if _is_llm(s) and not any(_is_llm(d) for d in s.descendants()):
            spec.generations.append(_generation(s, spec.retrievals, spec.warnings, index))
    spec.docs = list(dict.fromkeys(d for r in spec.retrievals for _, d, _ in r.hits))
    if not spec.retrievals and not spec.generations:
        names = sorted({s.name for s in spans})
        spec.warnings.append(ItemError(index, first.where, (
            f"trace {tid} has no retrieval or LLM span ({len(spans)} span(s): "
            f"{', '.join(names[:4])}{', ...' if len(names) > 4 else ''}); nothing recorded from "
            "it (spans carry no source bytes or offsets, so ingestion is not recorded)")))
    return spec


def _has_documents(s: Span) -> bool:
    return any(_DOC_KEY.match(k) for k in s.attrs)


def _related_documents(s: Span) -> bool:
    return any(_has_documents(o) for o in (*s.ancestors(), *s.descendants()) if o.kind == "RETRIEVER"
               or _has_documents(o))


def _is_llm(s: Span) -> bool:
    return s.kind == "LLM" or s.attrs.get("gen_ai.operation.name") in _LLM_OPERATIONS


def _text_input(s: Span, key: str) -> str | None:
    """``input.value`` / ``output.value`` when it is text (no mime type or text/plain)."""
    v = s.attrs.get(f"{key}.value")
    mime = str(s.attrs.get(f"{key}.mime_type", "text/plain"))
    return v if isinstance(v, str) and mime.startswith("text/") else None


def _query(s: Span) -> str:
    """The retrieval's query: the span's own input, else (an attribute limit drops the
    oldest attributes, ``input.value`` first) that of a retriever span nested in it,
    else that of the nearest enclosing span that has one."""
    nested = [d for d in s.descendants() if d.kind == "RETRIEVER"]
    for x in (s, *nested, *s.ancestors()):
        q = _own_query(x)
        if q:
            return q
    raise ItemFailed(f"{s.where}.attributes", f"{s.label()} is a retrieval without a query "
                     "(no text input.value, nor query_str in a JSON one, on it or the spans "
                     "around it); the instrumentation may hide inputs (OPENINFERENCE_HIDE_INPUTS): "
                     "record with inputs shown, or import the other traces with --partial")


def _own_query(s: Span) -> str | None:
    q = _text_input(s, "input")
    if q is None and isinstance(s.attrs.get("input.value"), str):
        try:
            obj = loads_json(s.attrs["input.value"])
        except ValueError:
            obj = None
        for o in (obj, obj.get("query_bundle") if isinstance(obj, dict) else None):
            if isinstance(o, dict):
                q = next((o[k] for k in ("query_str", "query", "input") if isinstance(o.get(k), str)), q)
    return q or None


def _retrieval(s: Span, name: str, docs_by_id: dict[str, Doc], warnings: list[ItemError],
               index: int) -> _Retrieval:
    fields: dict[int, dict[str, Any]] = {}
    for k, v in s.attrs.items():
        m = _DOC_KEY.match(k)
        if m:
            fields.setdefault(int(m.group(1)), {})[m.group(2)] = v
    limited = s.dropped > 0 or s.n_attrs >= ATTRIBUTE_LIMIT
    # an index left with its metadata only (the rest dropped) is a lost document, not a hit
    present = sorted(i for i, f in fields.items() if f.keys() & {"id", "content", "score"})
    missing = [i + 1 for i in range(max(present, default=-1) + 1) if i not in present]
    partial = [i + 1 for i in present if "content" not in fields[i] and "id" in fields[i]
               and any("content" in f for f in fields.values())]
    if limited or missing:
        why = (f"the OpenTelemetry SDK dropped {s.dropped} attribute(s)" if s.dropped else
               f"it has {s.n_attrs} attributes, the SDK's default limit of {ATTRIBUTE_LIMIT}"
               if s.n_attrs >= ATTRIBUTE_LIMIT else "its document indices have gaps")
        lost = (f"documents at ranks {_ranks(missing)} are missing" if missing else
                "documents beyond those kept may be missing")
        warnings.append(ItemError(index, s.where, (
            f"{s.label()}: {why}, so retrieval documents were lost ({lost}; the SDK drops the "
            "oldest attributes, so the top-ranked documents go first). Raise "
            "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT (or OTEL_ATTRIBUTE_COUNT_LIMIT) in the traced app "
            "and trace again to keep them")))
    hits: list[tuple[int, Doc, float | None]] = []
    for i in present:
        f = fields[i]
        where = f"{s.where}.attributes retrieval.documents.{i}"
        did = f.get("id")
        did = str(did) if did not in (None, "") else None
        content = f.get("content")
        score = f.get("score")
        if score is not None and not isinstance(score, (int, float)):
            try:
                score = float(score)
            except (TypeError, ValueError):
                raise ItemFailed(f"{where}.document.score", f"{score!r} is not a number") from None
        uri = did or passage_uri(name, where)
        if isinstance(content, str):
            doc = docs_by_id.get(uri)
            if doc is None or doc.data is None or doc.text != content:
                doc = Doc(key=uri, data=content.encode("utf-8"), uri=uri,
                          media_type="text/plain; charset=utf-8", text=content)
                docs_by_id[uri] = doc
        else:
            cause = ("the span lost it to the SDK attribute limit" if limited or i + 1 in partial
                     else "the span gave no document.content (content capture off, or hidden)")
            doc = docs_by_id.get(uri) or _Unretained(key=uri, data=None, uri=uri, media_type="",
                                                     reason=f"{where}: {cause}")
            docs_by_id.setdefault(uri, doc)
        hits.append((i + 1, doc, float(score) if score is not None else None))
    return _Retrieval(span=s, query=_query(s), hits=hits)


def _ranks(ranks: list[int]) -> str:
    if len(ranks) > 6:
        return f"{ranks[0]}-{ranks[-1]} ({len(ranks)} of them)" if ranks == list(
            range(ranks[0], ranks[-1] + 1)) else ", ".join(map(str, ranks[:6])) + ", ..."
    return ", ".join(map(str, ranks))


# --------------------------------------------------------------------------- LLM spans

def _messages(attrs: dict[str, Any], prefix: str) -> list[tuple[str, str]]:
    """OpenInference flattened messages ``prefix.N.message.{role,content,contents}``."""
    msgs: dict[int, dict[str, str]] = {}
    pat = re.compile(rf"^{re.escape(prefix)}\.(\d+)\.message\.(role|content|contents\.(\d+)"
                     r"\.message_content\.text)$")
    for k, v in attrs.items():
        m = pat.match(k)
        if m and isinstance(v, str):
            entry = msgs.setdefault(int(m.group(1)), {})
            key = "role" if m.group(2) == "role" else (
                "content" if m.group(2) == "content" else f"part{int(m.group(3)):09d}")
            entry[key] = v
    out = []
    for i in sorted(msgs):
        e = msgs[i]
        content = e.get("content") or "".join(e[k] for k in sorted(e) if k.startswith("part"))
        out.append((e.get("role", ""), content))
    return out


def _genai_messages(value: Any) -> list[tuple[str, str]]:
    """``gen_ai.input.messages`` / ``gen_ai.output.messages``: a JSON string or a
    structured array of ``{"role", "parts": [{"type": "text", "content"}]}``."""
    if isinstance(value, str):
        try:
            value = loads_json(value)
        except ValueError:
            return []
    out = []
    for m in value if isinstance(value, list) else []:
        if not isinstance(m, dict):
            continue
        parts = m.get("parts")
        if isinstance(parts, list):
            text = "".join(str(p.get("content", "")) for p in parts
                           if isinstance(p, dict) and p.get("type", "text") == "text")
        else:
            text = str(m["content"]) if isinstance(m.get("content"), str) else ""
        out.append((str(m.get("role", "")), text or ""))
    return out


def _genai_system(value: Any) -> str:
    """``gen_ai.system_instructions``: a string, or (JSON) text parts joined."""
    if isinstance(value, str):
        try:
            value = loads_json(value)
        except ValueError:
            return str(value)
    if isinstance(value, list):
        return "".join(str(p.get("content", "")) for p in value
                       if isinstance(p, dict) and p.get("type", "text") == "text")
    return value if isinstance(value, str) else ""


def _indexed(attrs: dict[str, Any], prefix: str) -> list[tuple[str, str]]:
    """The older ``gen_ai.prompt.N.{role,content}`` / ``gen_ai.completion.N.*`` form."""
    got: dict[int, dict[str, str]] = {}
    pat = re.compile(rf"^{re.escape(prefix)}\.(\d+)\.(role|content)$")
    for k, v in attrs.items():
        m = pat.match(k)
        if m and isinstance(v, str):
            got.setdefault(int(m.group(1)), {})[m.group(2)] = v
    return [(got[i].get("role", ""), got[i].get("content", "")) for i in sorted(got)]


def _render(messages: list[tuple[str, str]]) -> tuple[str, list[tuple[int, int]]]:
    """Chat messages as ``role:\\n<content>`` blocks joined by a blank line, with the
    code point range of each content."""
    parts: list[str] = []
    ranges: list[tuple[int, int]] = []
    pos = 0
    for role, content in messages:
        head = f"{role or 'message'}:\n"
        if parts:
            parts.append("\n\n")
            pos += 2
        parts.append(head + content)
        ranges.append((pos + len(head), pos + len(head) + len(content)))
        pos += len(head) + len(content)
    return "".join(parts), ranges


def _prompt(s: Span) -> str:
    a = s.attrs
    prompts = a.get("llm.prompts")
    if isinstance(prompts, list) and prompts:
        if len(prompts) > 1:
            raise ItemFailed(f"{s.where}.attributes llm.prompts", f"{s.label()} holds "
                             f"{len(prompts)} prompts (a batch call); one generation per span is "
                             "supported")
        return str(prompts[0])
    msgs = _messages(a, "llm.input_messages")
    if msgs:
        return _render(msgs)[0]
    msgs = _genai_messages(a.get("gen_ai.input.messages"))
    if msgs:  # GenAI keeps system instructions apart from the messages
        system = _genai_system(a.get("gen_ai.system_instructions"))
        return _render(([("system", system)] if system else []) + msgs)[0]
    msgs = _indexed(a, "gen_ai.prompt")
    if msgs:
        return _render(msgs)[0]
    text = _text_input(s, "input")
    if text is not None:
        return text
    raise ItemFailed(f"{s.where}.attributes", f"{s.label()} is an LLM span without a prompt "
                     "(llm.prompts, llm.input_messages, gen_ai.input.messages, gen_ai.prompt.N "
                     "or a text input.value); the instrumentation may hide inputs "
                     "(OPENINFERENCE_HIDE_INPUTS, or GenAI content capture off): trace with "
                     "content captured, or import the other traces with --partial")


def _answers(s: Span) -> list[str]:
    a = s.attrs
    for msgs in (_messages(a, "llm.output_messages"), _genai_messages(a.get("gen_ai.output.messages")),
                 _indexed(a, "gen_ai.completion")):
        if msgs:
            return [c for _, c in msgs]
    text = _text_input(s, "output")
    return [text] if text is not None else []


def _model(s: Span) -> tuple[tuple[str, str], dict[str, Any]]:
    chain = [s, *(x for x in s.ancestors() if _is_llm(x))]

    def first(key: str) -> Any:
        return next((x.attrs[key] for x in chain if x.attrs.get(key) not in (None, "")), None)

    response = first("gen_ai.response.model")
    name = first("gen_ai.request.model") or first("llm.model_name") or response or "unknown"
    version = str(response) if response and response != name else ""
    settings: dict[str, Any] = {}
    params = first("llm.invocation_parameters")
    if isinstance(params, str):
        try:
            parsed = loads_json(params)
        except ValueError:
            parsed = params
        if isinstance(parsed, dict):
            settings.update(parsed)
        else:
            settings["invocation_parameters"] = parsed
    for x in reversed(chain):
        for k, v in x.attrs.items():
            if k.startswith("gen_ai.request.") and k != "gen_ai.request.model":
                settings[k.removeprefix("gen_ai.request.")] = v
    provider = (first("gen_ai.provider.name") or first("gen_ai.system") or first("llm.provider")
                or first("llm.system"))
    if provider:
        settings["provider"] = str(provider)
    return (str(name), version), settings


def _template(s: Span) -> tuple[str, dict[str, Any], str] | None:
    for x in (s, *(x for x in s.ancestors() if _is_llm(x))):
        t = x.attrs.get("llm.prompt_template.template")
        if isinstance(t, str) and t:
            raw = x.attrs.get("llm.prompt_template.variables")
            try:
                variables = loads_json(raw) if isinstance(raw, str) else {}
            except ValueError:
                variables = {}
            return t, variables if isinstance(variables, dict) else {}, str(
                x.attrs.get("llm.prompt_template.version", "") or "")
    return None


def _generation(s: Span, retrievals: list[_Retrieval], warnings: list[ItemError],
                index: int) -> _Generation:
    prompt = _prompt(s)
    answers = _answers(s)
    if not answers:
        warnings.append(ItemError(index, s.where, (
            f"{s.label()} has no output (status code {s.status}); its prompt is recorded, no "
            "answer")))
    docs = [d for r in retrievals for _, d, _ in r.hits if d.text is not None and d.data is not None]
    retrieval = _informing(s, prompt, retrievals)
    query = retrieval.query if retrieval else None
    taken: list[tuple[int, int, str, Any]] = []
    tmpl = _template(s)
    agent: tuple[str, str] | None = None
    if tmpl is not None:
        text, variables, version = tmpl
        agent = (f"openinference-template-{hashlib.sha256(text.encode()).hexdigest()[:16]}", version)
        taken = _template_segments(text, variables, prompt, query)
    for d in docs:  # each retrieved document's text in the prompt is original
        assert d.text is not None
        pos = _free(prompt, d.text, taken)
        if pos is not None:
            taken.append((pos, pos + len(d.text), "original", d))
    if query and not any(o == "query" for _, _, o, _ in taken):
        pos = _free(prompt, query, taken, last=True)
        if pos is not None:
            taken.append((pos, pos + len(query), "query", "query"))
    model, settings = _model(s)
    return _Generation(span=s, prompt=prompt, segments=sorted(taken, key=lambda x: (x[0], x[1])),
                       template=agent, model=model, settings=settings, answers=answers,
                       retrieval=retrieval)


def _informing(s: Span, prompt: str, retrievals: list[_Retrieval]) -> _Retrieval | None:
    def held(r: _Retrieval) -> int:
        return sum(1 for _, d, _ in r.hits if d.text and d.data is not None and d.text in prompt)
    best = max(retrievals, key=held, default=None)
    if best is not None and held(best):
        return best
    before = [r for r in retrievals if r.span.end and s.start and r.span.end <= s.start]
    return before[-1] if before else None


def _free(text: str, needle: str, taken: list[tuple[int, int, str, Any]],
          last: bool = False) -> int | None:
    """The first (or last) occurrence of ``needle`` in ``text`` that overlaps no taken
    range (a template variable's range may hold it), or ``None``."""
    if not needle:
        return None
    hits = []
    i = text.find(needle)
    while i >= 0:
        if not any(a < i + len(needle) and i < b and o != "variable" for a, b, o, _ in taken):
            hits.append(i)
        i = text.find(needle, i + 1)
    return (hits[-1] if last else hits[0]) if hits else None


def _template_segments(template: str, variables: dict[str, Any], prompt: str,
                       query: str | None) -> list[tuple[int, int, str, Any]]:
    """Segments from a template that renders exactly ``prompt``: its literal text is
    ``instruction``, a variable equal to the query is ``query``; other variables are
    left for the document search. Nothing when the rendering differs."""
    out: list[tuple[int, int, str, Any]] = []
    rendered: list[str] = []
    pos = last = 0
    for m in _PLACEHOLDER.finditer(template):
        lit_text = template[last:m.start()]
        if lit_text:
            out.append((pos, pos + len(lit_text), "instruction", None))
            rendered.append(lit_text)
            pos += len(lit_text)
        if m.group(1) not in variables:
            return []
        value = str(variables[m.group(1)])
        if value:
            out.append((pos, pos + len(value), "query" if value == query else "variable",
                        "query" if value == query else None))
        rendered.append(value)
        pos += len(value)
        last = m.end()
    tail = template[last:]
    if tail:
        out.append((pos, pos + len(tail), "instruction", None))
        rendered.append(tail)
    if "".join(rendered) != prompt:
        return []
    return out


# --------------------------------------------------------------------------- recording

def record_item(rec: _ImportRecorder, spec: ItemSpec) -> tuple[int, int, int, set[IRI]]:
    """Record one trace (a :class:`TraceSpec`) as its own run through ``rec``: its
    retrievals (query, ranked hits with scores, documents retained or recorded as not
    retained) and its generations (exact prompt with segments, model, settings,
    answers). Called by :func:`provgraph.importers._common.record` inside the
    import's one transaction.

    Returns:
        ``(answers, 0, 0, snapshot IRIs)``: spans carry no claims or citations.

    Raises:
        RecordError: a value the Recorder refuses (the import then stores nothing,
            or with ``--partial`` skips this trace).
    """
    assert isinstance(spec, TraceSpec)
    if not spec.retrievals and not spec.generations:
        return 0, 0, 0, set()
    rec.start_run(spec.label, spec.config, spec.started_at)
    targets: dict[int, Any] = {}
    snaps: set[IRI] = set()
    recorded: dict[int, Any] = {}
    for r in spec.retrievals:
        for _, doc, _ in r.hits:
            if id(doc) in targets:
                continue
            if doc.data is not None:
                snap = rec.snapshot(doc.data, uri=doc.uri, media_type=doc.media_type,
                                    observed_at=r.span.end or r.span.start,
                                    part=True)  # the chunk text the framework returned
                targets[id(doc)] = snap
                snaps.add(snap.iri)
            else:
                reason = doc.reason if isinstance(doc, _Unretained) else doc.uri
                targets[id(doc)] = rec.unretained_document(doc.uri, reason=reason)
        q = rec.query(r.query, at=r.span.start)
        recorded[id(r)] = rec.retrieval(
            q, retriever=(r.span.name or "retriever", ""),
            hits=[Hit(target=targets[id(d)], rank=rank, score=score) for rank, d, score in r.hits],
            started_at=r.span.start, ended_at=r.span.end)
    answers = 0
    for g in spec.generations:
        segments = []
        for start, end, origin, ref in g.segments:
            if origin == "variable":
                continue
            if isinstance(ref, Doc):
                source: Any = targets.get(id(ref))
                if source is None:
                    continue
            elif ref == "query" and g.retrieval is not None:
                source = recorded[id(g.retrieval)].query
            elif ref == "query":
                continue
            else:
                source = None
            segments.append(Segment(start=start, end=end, origin=origin, source=source))
        gi = rec.context_packing(text=g.prompt, segments=segments,
                                 retrieval=recorded[id(g.retrieval)] if g.retrieval else None,
                                 template=g.template, at=g.span.start)
        for text in g.answers:
            rec.generation(gi, model=g.model, text=text, settings=g.settings,
                           started_at=g.span.start, ended_at=g.span.end)
            answers += 1
    return answers, 0, 0, snaps
