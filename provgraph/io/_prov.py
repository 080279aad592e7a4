"""Shared glue for the three formats read and written by the ``prov`` package.

Every call into ``prov`` goes through :func:`read_with_prov` /
:func:`write_with_prov`, which turn the package's exceptions (``ProvException``,
``ProvJSONException``, ``ProvNSyntaxError``, ``ProvXMLException``, ``TypeError``,
``KeyError``...) into :class:`~provgraph.errors.SerializationError` naming the
input, and collect the package's warnings as plain messages.
"""

from __future__ import annotations

import datetime as _dt
import io
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field

import prov
from prov.model import ProvDocument
from prov.model.records import parse_xsd_datetime

from .._lexical import LEXICAL, datetime_form
from ..limits import check_xml_depth, json_depth_error
from ..errors import SerializationError

__all__ = ["ProvRead", "read_with_prov", "write_with_prov", "PROV_VERSION", "PARSED_TYPES",
           "LEXICAL_XSD", "lexical_prefix", "written_prefix", "TimeKey", "time_key",
           "formal_time_forms"]

PROV_VERSION = prov.__version__
"""Version of the ``prov`` package doing the reading and writing."""

PARSED_TYPES = frozenset({"int", "long", "integer", "double", "boolean", "dateTime"})
"""XSD datatypes (local names) whose attribute values the ``prov`` package reads into
Python objects (``prov.model.XSD_DATATYPE_PARSERS``), losing their lexical form
(``"1.0E0"^^xsd:double`` becomes ``1.0``). Each format's reader rewrites them, before
the package sees the document, to the same local name in :data:`LEXICAL_XSD`, which the
package keeps as a typed literal with its form; :mod:`provgraph.io.provo` maps that
back to the XSD datatype (issue 15)."""

LEXICAL_XSD = LEXICAL + "http://www.w3.org/2001/XMLSchema#"
"""The namespace of those datatypes while the ``prov`` package holds them."""


def written_prefix(doc: ProvDocument) -> str | None:
    """The prefix ``doc`` declares for :data:`LEXICAL_XSD` (the PROV-O mapping gives it
    values of :data:`PARSED_TYPES` to keep their form), or ``None``: each writer turns
    it back into ``xsd`` in what it writes."""
    for bundle in (doc, *doc.bundles):
        for ns in bundle.namespaces:
            if ns.uri == LEXICAL_XSD:
                return str(ns.prefix)
    return None


def lexical_prefix(text: str) -> str:
    """A prefix name for :data:`LEXICAL_XSD` that ``text`` does not use."""
    name, n = "pglexical", 1
    while name in text:
        n += 1
        name = f"pglexical{n}"
    return name


TimeKey = tuple[_dt.datetime, "_dt.timedelta | None"]
"""A time as the ``prov`` package holds it, told apart from the same instant in another
zone: ``(local date and time, UTC offset or None)``."""


def time_key(value: _dt.datetime) -> TimeKey:
    """The :data:`TimeKey` of ``value``."""
    return (value.replace(tzinfo=None), value.utcoffset())


def formal_time_forms(lexicals: Iterable[str], name: str) -> tuple[dict[TimeKey, str], list[str]]:
    """Which lexical form each formal time of a document was written in.

    The ``prov`` package holds a formal time (``wasGeneratedBy(e, a, T)``, an activity's
    start and end, a relation's time) as a ``datetime``: ``+00:00`` and ``Z`` become one
    value, trailing zeros of a fraction go, a fraction is cut to microseconds. Each
    reader gives here the lexical forms its document writes formal times in, and the
    PROV-O mapping (:func:`provgraph.io.provo.document_to_quads`) writes each time the
    package hands it in the one form its value has in the document (issue 15).

    Args:
        lexicals: every formal time's lexical form, as the document writes it.
        name: the input's name, for warnings.

    Returns:
        ``(forms, warnings)``: ``{TimeKey: lexical form}`` for each value written in
        one form; a warning for each value written in several (``Z`` in one record,
        ``+00:00`` in another): which record had which form cannot be told from the
        package's ``datetime``, so those times are stored in the canonical form
        (:func:`provgraph._lexical.datetime_form`).

    Example:
        >>> forms, w = formal_time_forms(["2024-01-01T10:00:00.120+00:00"], "doc")
        >>> list(forms.values()), w
        (['2024-01-01T10:00:00.120+00:00'], [])
    """
    seen: dict[TimeKey, dict[str, None]] = {}
    for lexical in lexicals:
        value = parse_xsd_datetime(lexical)
        if value is not None:
            seen.setdefault(time_key(value), {})[lexical] = None
    forms = {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}
    warnings = [f"{name}: the formal times {', '.join(sorted(v))} are one value written "
                f"{len(v)} ways; the prov package reads such a time as a Python datetime, so "
                "which record wrote which form is lost: they are stored as "
                f"{datetime_form(parse_xsd_datetime(next(iter(v))))}"  # type: ignore[arg-type]
                for v in seen.values() if len(v) > 1]
    return forms, warnings


@dataclass
class ProvRead:
    """A document read by the ``prov`` package, with the warnings it gave."""

    document: ProvDocument
    warnings: list[str] = field(default_factory=list)
    bundle_names: dict[str, str] = field(default_factory=dict)
    """IRI the ``prov`` package gave a bundle -> IRI its document gives it
    (:func:`provgraph.io.provn.bundle_names`); empty when they agree."""
    times: dict[TimeKey, str] = field(default_factory=dict)
    """The lexical form each formal time is written in (:func:`formal_time_forms`)."""

    def add_times(self, lexicals: Iterable[str], name: str) -> None:
        """Record the formal times' lexical forms (:func:`formal_time_forms`)."""
        forms, warnings = formal_time_forms(lexicals, name)
        self.times.update(forms)
        self.warnings += warnings

    @property
    def record_count(self) -> int:
        """Records at the top level and in every bundle."""
        doc = self.document
        # prov declares get_records() an Iterable (it returns a list): count, not len()
        return sum(sum(1 for _ in b.get_records()) for b in (doc, *doc.bundles))


def read_with_prov(data: bytes, prov_format: str, label: str, name: str,
                   **options: object) -> ProvRead:
    """Read ``data`` with ``prov.read(format=prov_format)``.

    Raises:
        SerializationError: the package rejects the document; the message names
            ``name``, the format and the package's own reason.
    """
    deep = (json_depth_error(data) if prov_format in ("json", "jsonld")
            else check_xml_depth(data) if prov_format == "xml" else None)
    if deep is not None:  # the package's readers recurse per level (issue 15)
        raise SerializationError(f"{name}: not a {label} document provgraph reads: {deep}; "
                                 "nothing was stored")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            doc = prov.read(io.BytesIO(data), format=prov_format, **options)
        except Exception as exc:  # the package raises many unrelated classes
            raise SerializationError(
                f"{name}: not a {label} document the prov package ({PROV_VERSION}) can read: "
                f"{type(exc).__name__}: {exc}; nothing was stored") from exc
    if doc is None:  # pragma: no cover - prov.read returns a document or raises
        raise SerializationError(f"{name}: the prov package read no {label} document")
    msgs = []
    for w in caught:
        text = str(w.message)
        if not w.category.__module__.startswith("prov"):
            continue  # only the prov package's own warnings are the user's business
        msgs.append(f"{name}: prov {PROV_VERSION}: {text}")
    return ProvRead(doc, msgs)


def write_with_prov(doc: ProvDocument, prov_format: str, label: str,
                    **options: object) -> bytes:
    """Serialize ``doc`` with the ``prov`` package; return UTF-8 bytes.

    Raises:
        SerializationError: the package cannot write the document.
    """
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            doc.serialize(buf, format=prov_format, **options)
        except Exception as exc:  # noqa: BLE001 - see read_with_prov
            raise SerializationError(
                f"the prov package ({PROV_VERSION}) cannot write this document as {label}: "
                f"{type(exc).__name__}: {exc}") from exc
    return buf.getvalue()
