"""Shared glue for the three formats read and written by the ``prov`` package.

Every call into ``prov`` goes through :func:`read_with_prov` /
:func:`write_with_prov`, which turn the package's exceptions (``ProvException``,
``ProvJSONException``, ``ProvNSyntaxError``, ``ProvXMLException``, ``TypeError``,
``KeyError``...) into :class:`~provgraph.errors.SerializationError` naming the
input, and collect the package's warnings as plain messages.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass, field

import prov
from prov.model import ProvDocument

from ..errors import SerializationError

__all__ = ["ProvRead", "read_with_prov", "write_with_prov", "PROV_VERSION"]

PROV_VERSION = prov.__version__
"""Version of the ``prov`` package doing the reading and writing."""


@dataclass
class ProvRead:
    """A document read by the ``prov`` package, with the warnings it gave."""

    document: ProvDocument
    warnings: list[str] = field(default_factory=list)
    bundle_names: dict[str, str] = field(default_factory=dict)
    """IRI the ``prov`` package gave a bundle -> IRI its document gives it
    (:func:`provgraph.io.provn.bundle_names`); empty when they agree."""

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
