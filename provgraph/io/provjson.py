"""PROV-JSON (W3C Member Submission, https://www.w3.org/submissions/prov-json/),
read and written by the ``prov`` package.

PROV-JSON has no ``wasRevisionOf``/``wasQuotedFrom``/``hadPrimarySource`` keys:
they are ``wasDerivedFrom`` records typed ``prov:Revision``/``prov:Quotation``/
``prov:PrimarySource``, which :mod:`provgraph.io.provo` maps to the PROV-O
binary property and its qualified form.
"""

from __future__ import annotations

from prov.model import ProvDocument

from ._prov import ProvRead, read_with_prov, write_with_prov

__all__ = ["read", "write"]


def read(data: bytes, name: str = "<input>") -> ProvRead:
    """Read a PROV-JSON document.

    Raises:
        SerializationError: not JSON, or JSON the ``prov`` package rejects as
            PROV-JSON (for example a typed value without ``"$"``).
    """
    return read_with_prov(data, "json", "PROV-JSON", name)


def write(doc: ProvDocument) -> bytes:
    """PROV-JSON text of ``doc`` (UTF-8, indented)."""
    return write_with_prov(doc, "json", "PROV-JSON", indent=2)
