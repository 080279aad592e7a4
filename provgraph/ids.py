"""IRI minting: content-derived names where content defines the thing, UUIDv7 otherwise.

* Snapshots are named by their bytes: RFC 6920 ``ni:///sha-256;<base64url>``.
* Documents, extractions, chunks, aids and agents get ``urn:provgraph:<kind>:<hex>``
  from a SHA-256 over their defining parts, so recording the same thing twice
  mints the same IRI and adds nothing.
* Runs, activities, answers, claims and citations get ``urn:uuid:<UUIDv7>``
  (RFC 9562 §5.7): unique and time-ordered.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any


from .terms import IRI

__all__ = ["snapshot_iri", "digest_of_snapshot_iri", "content_iri", "new_iri", "IRI_SYNTAX"]

IRI_SYNTAX = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|^`\\]*$")
"""The shape of an absolute IRI as provgraph checks it cheaply before the engine does
(a scheme, a colon, no space, angle bracket, quote, brace or backslash): what the
Recorder accepts as a caller's IRI and what the resolver looks up as one."""

_NI_PREFIX = "ni:///sha-256;"


def snapshot_iri(sha256_hex: str) -> IRI:
    """The RFC 6920 ``ni`` IRI of bytes whose SHA-256 is ``sha256_hex``.

    >>> snapshot_iri("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    IRI('ni:///sha-256;LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ')
    """
    raw = bytes.fromhex(sha256_hex)
    return IRI(_NI_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("="))


def digest_of_snapshot_iri(iri: str) -> str | None:
    """The hex SHA-256 named by an ``ni:///sha-256;`` IRI, or ``None`` for other IRIs."""
    if not iri.startswith(_NI_PREFIX):
        return None
    b64 = iri[len(_NI_PREFIX):].split("#", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4))
    except ValueError:
        return None
    return raw.hex() if len(raw) == 32 else None


def content_iri(kind: str, *parts: Any) -> IRI:
    """A deterministic ``urn:provgraph:<kind>:<32 hex>`` IRI from JSON-serialisable parts.

    >>> content_iri("chunk", "urn:x", 0, 10) == content_iri("chunk", "urn:x", 0, 10)
    True
    """
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str)
    return IRI(f"urn:provgraph:{kind}:{hashlib.sha256(blob.encode()).hexdigest()[:32]}")


def new_iri() -> IRI:
    """A fresh ``urn:uuid:`` IRI holding a UUIDv7 (time-ordered)."""
    import uuid6  # here, not at import: uuid6 reads its own version through
    # importlib.metadata, about 50 ms of the start of every command that imports ids
    # (resolve, record, import; issue 16)

    return IRI(f"urn:uuid:{uuid6.uuid7()}")
