"""PROV-N (W3C Recommendation, https://www.w3.org/TR/prov-n/), read and written by
the ``prov`` package (3.2 and later ship a PROV-N reader).

Reading uses prov's ``default`` profile: the Recommendation grammar plus the bare
``mentionOf`` keyword that ``prov`` and ProvToolbox write. A syntax error is
reported with its line and column.
"""

from __future__ import annotations

from prov.model import ProvDocument

from ._prov import ProvRead, read_with_prov, write_with_prov

__all__ = ["read", "write"]


def read(data: bytes, name: str = "<input>") -> ProvRead:
    """Read a PROV-N document (UTF-8).

    Raises:
        SerializationError: the text does not parse as PROV-N (line and column
            in the message) or holds a record the ``prov`` package rejects.
    """
    return read_with_prov(data, "provn", "PROV-N", name, profile="default")


def write(doc: ProvDocument) -> bytes:
    """PROV-N text of ``doc`` (UTF-8)."""
    return write_with_prov(doc, "provn", "PROV-N")
