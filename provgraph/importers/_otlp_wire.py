"""The OTLP/JSON wire format (OTLP specification, "JSON Protobuf Encoding",
https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): decoding
``ExportTraceServiceRequest`` lines into spans for :mod:`provgraph.importers.otlp`.

Hex trace and span ids (a base64 id is named as such), omitted zero fields, 64-bit
integers as decimal strings (numbers accepted), enums as integers, ``AnyValue``
attributes decoded to Python values. A malformed line or span becomes an
:class:`~provgraph.importers._common.ItemError` naming ``FILE:LINE`` and the JSONPath.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..limits import json_error_text, loads_json
from ._common import ItemError, ItemFailed, PayloadError, jpath

__all__ = ["Span", "detect", "read_spans"]

_HEX = re.compile(r"^[0-9a-fA-F]*$")
HINT = ('OTLP JSON Lines: one {"resourceSpans": [{"resource": ..., "scopeSpans": [{"spans": '
        "[...]}]}]} per line")


@dataclass(eq=False)
class Span:
    trace: str
    span: str
    parent: str
    name: str
    start: _dt.datetime | None
    end: _dt.datetime | None
    attrs: dict[str, Any]
    n_attrs: int
    dropped: int
    status: int
    where: str  # FILE:LINE $.resourceSpans[i].scopeSpans[j].spans[k]
    resource: dict[str, Any]
    scope: tuple[str, str]
    children: list["Span"] = field(default_factory=list)
    up: "Span | None" = None

    @property
    def kind(self) -> str:
        return str(self.attrs.get("openinference.span.kind", "")).upper()

    def ancestors(self) -> list["Span"]:
        out, s = [], self.up
        while s is not None and s not in out:
            out.append(s)
            s = s.up
        return out

    def descendants(self) -> list["Span"]:
        out: list[Span] = []
        todo = list(self.children)
        while todo:
            s = todo.pop()
            if s not in out:
                out.append(s)
                todo.extend(s.children)
        return out

    def label(self) -> str:
        return f"span {self.span} ({self.name}) of trace {self.trace}"


# --------------------------------------------------------------------------- detection

def detect(data: bytes) -> bool:
    """Whether ``data`` looks like OTLP JSON (Lines): its first non-blank line is a
    JSON object with a ``resourceSpans`` array. Reads no further than that line.

    Example:
        >>> detect(b'{"resourceSpans": []}\\n')
        True
        >>> detect(b'{"entity": {}}')
        False
    """
    text = data.lstrip(b"\xef\xbb\xbf")
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            obj = loads_json(raw)
        except ValueError:
            return False
        return isinstance(obj, dict) and isinstance(obj.get("resourceSpans"), list)
    return False


# --------------------------------------------------------------------------- OTLP JSON decoding

def _any_value(v: Any, path: str) -> Any:
    """An OTLP ``AnyValue`` as Python (``{}`` -> ``None``)."""
    if not isinstance(v, dict):
        raise ItemFailed(path, "must be an AnyValue object such as {\"stringValue\": ...}")
    if "stringValue" in v:
        return str(v["stringValue"])
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            raise ItemFailed(jpath(path, "intValue"), f"{v['intValue']!r} is not an integer "
                             "(OTLP/JSON writes 64-bit integers as decimal strings)") from None
    if "doubleValue" in v:
        try:
            return float(v["doubleValue"])
        except (TypeError, ValueError):
            raise ItemFailed(jpath(path, "doubleValue"), f"{v['doubleValue']!r} is not a number") from None
    if "arrayValue" in v:
        vals = (v["arrayValue"] or {}).get("values") or []
        return [_any_value(x, jpath(jpath(jpath(path, "arrayValue"), "values"), i))
                for i, x in enumerate(vals)]
    if "kvlistValue" in v:
        return _attributes((v["kvlistValue"] or {}).get("values") or [],
                           jpath(jpath(path, "kvlistValue"), "values"))
    if "bytesValue" in v:
        try:
            return base64.b64decode(str(v["bytesValue"]), validate=True)
        except (binascii.Error, ValueError):
            raise ItemFailed(jpath(path, "bytesValue"), "is not base64") from None
    return None


def _attributes(kvs: Any, path: str) -> dict[str, Any]:
    if not isinstance(kvs, list):
        raise ItemFailed(path, "must be an array of {\"key\": ..., \"value\": {...}}")
    out: dict[str, Any] = {}
    for i, kv in enumerate(kvs):
        p = jpath(path, i)
        if not isinstance(kv, dict) or not isinstance(kv.get("key"), str):
            raise ItemFailed(p, "must be {\"key\": \"...\", \"value\": {...}}")
        out[kv["key"]] = _any_value(kv.get("value") or {}, jpath(p, "value"))
    return out


def _hex_id(obj: dict[str, Any], key: str, path: str, size: int, required: bool) -> str:
    raw = obj.get(key)
    if raw in (None, ""):
        if required:
            raise ItemFailed(jpath(path, key), f"is missing; every span needs its {key}")
        return ""
    if not isinstance(raw, str) or len(raw) != 2 * size or not _HEX.match(raw):
        b64 = isinstance(raw, str) and len(raw) in (24, 12) and raw.endswith("=")
        hint = (" (this looks like base64: OTLP/JSON encodes ids as hex, unlike the generic "
                "Protobuf JSON mapping; export with an OTLP/JSON exporter)" if b64 else "")
        raise ItemFailed(jpath(path, key), f"{raw!r} is not a {2 * size}-digit hex id{hint}")
    if set(raw) == {"0"}:
        raise ItemFailed(jpath(path, key), "is all zeros, which OTLP calls invalid")
    return raw.lower()


def _nanos(obj: dict[str, Any], key: str, path: str) -> _dt.datetime | None:
    raw = obj.get(key)
    if raw in (None, "", 0, "0"):
        return None  # omitted zero value: the time is unknown
    try:
        ns = int(raw)
    except (TypeError, ValueError):
        raise ItemFailed(jpath(path, key), f"{raw!r} is not nanoseconds since the Unix epoch "
                         "(a decimal string)") from None
    return _dt.datetime.fromtimestamp(ns // 1_000_000_000, _dt.timezone.utc).replace(
        microsecond=(ns % 1_000_000_000) // 1000)


def _int(obj: dict[str, Any], key: str, path: str) -> int:
    raw = obj.get(key, 0)
    try:
        return int(raw or 0)
    except (TypeError, ValueError):
        raise ItemFailed(jpath(path, key), f"{raw!r} is not an integer") from None


def _typed(value: Any, kind: type, path: str, what: str) -> Any:
    """``value`` when it is a ``kind``, else :class:`ItemFailed` saying it must be ``what``."""
    if not isinstance(value, kind):
        raise ItemFailed(path, f"must be {what}")
    return value


def read_spans(data: bytes, name: str) -> tuple[list[Span], list[ItemError]]:
    """Every span of the OTLP JSON Lines ``data`` (one pretty-printed request is read as
    one line), with the errors of the lines and spans that could not be read
    (``item`` ``None``, path ``FILE:LINE $...``).

    Raises:
        PayloadError: the bytes are not UTF-8 or hold no line.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PayloadError("$", f"is not UTF-8 text (byte {exc.start}); otlp expects "
                                f"{HINT}") from None
    spans: list[Span] = []
    errors: list[ItemError] = []
    lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise PayloadError("$", f"is empty; otlp expects {HINT}")
    for n, ln in lines:
        at = f"{name}:{n}"
        try:
            obj = loads_json(ln)
        except json.JSONDecodeError as exc:
            if n == lines[0][0] and len(lines) > 1:
                try:  # one pretty-printed request, not JSON Lines
                    obj = loads_json(text)
                except json.JSONDecodeError:
                    pass
                else:
                    spans.extend(_request_spans(obj, f"{name}:1", errors))
                    return spans, errors
            errors.append(ItemError(None, at, f"is not JSON ({json_error_text(exc)} at column {exc.colno}); "
                                              f"otlp expects {HINT}"))
            continue
        spans.extend(_request_spans(obj, at, errors))
    return spans, errors


def _request_spans(obj: Any, at: str, errors: list[ItemError]) -> list[Span]:
    if not isinstance(obj, dict) or not isinstance(obj.get("resourceSpans"), list):
        keys = sorted(obj)[:6] if isinstance(obj, dict) else type(obj).__name__
        errors.append(ItemError(None, f"{at} $", f"is not an ExportTraceServiceRequest: expected "
                                                 f"{HINT}; found {keys}"))
        return []
    out: list[Span] = []
    for r, rs in enumerate(obj["resourceSpans"]):
        rpath = f"$.resourceSpans[{r}]"
        try:
            if not isinstance(rs, dict):
                raise ItemFailed(rpath, "must be a ResourceSpans object")
            # each level's type checked (a list where an object belongs was AttributeError,
            # found by fuzzing, issue 20)
            res = _typed(rs.get("resource") or {}, dict, f"{rpath}.resource", "a Resource object")
            resource = _attributes(res.get("attributes") or [], f"{rpath}.resource.attributes")
            for s, ss in enumerate(_typed(rs.get("scopeSpans") or [], list,
                                          f"{rpath}.scopeSpans", "an array of ScopeSpans")):
                spath = f"{rpath}.scopeSpans[{s}]"
                if not isinstance(ss, dict):
                    raise ItemFailed(spath, "must be a ScopeSpans object")
                scope = _typed(ss.get("scope") or {}, dict, f"{spath}.scope",
                               "an InstrumentationScope object")
                sc = (str(scope.get("name", "")), str(scope.get("version", "")))
                for k, sp in enumerate(_typed(ss.get("spans") or [], list, f"{spath}.spans",
                                              "an array of Span objects")):
                    out.append(_span(sp, f"{spath}.spans[{k}]", at, resource, sc))
        except ItemFailed as exc:
            errors.append(ItemError(None, f"{at} {exc.path}", exc.message))
    return out


def _span(sp: Any, path: str, at: str, resource: dict[str, Any], scope: tuple[str, str]) -> Span:
    if not isinstance(sp, dict):
        raise ItemFailed(path, "must be a Span object")
    attrs_raw = sp.get("attributes") or []
    status = sp.get("status") or {}
    return Span(trace=_hex_id(sp, "traceId", path, 16, True),
                 span=_hex_id(sp, "spanId", path, 8, True),
                 parent=_hex_id(sp, "parentSpanId", path, 8, False),
                 name=str(sp.get("name", "")), start=_nanos(sp, "startTimeUnixNano", path),
                 end=_nanos(sp, "endTimeUnixNano", path),
                 attrs=_attributes(attrs_raw, jpath(path, "attributes")),
                 n_attrs=len(attrs_raw) if isinstance(attrs_raw, list) else 0,
                 dropped=_int(sp, "droppedAttributesCount", path),
                 status=_int(status, "code", jpath(path, "status")) if isinstance(status, dict) else 0,
                 where=f"{at} {path}", resource=resource, scope=scope)
