"""Originals: content-addressed, write-once retained bytes that verify on read."""

from __future__ import annotations

import os

import pytest

from provgraph.errors import OriginalCorruptError, OriginalMissingError
from provgraph.originals import Originals, sha256_hex


def test_put_get_roundtrip_and_idempotence(tmp_path):
    o = Originals(tmp_path)
    data = "Grüße 🌍\r\n".encode()
    d = o.put(data)
    assert d == sha256_hex(data) and len(d) == 64
    assert o.put(data) == d
    assert o.get(d) == data
    assert d in o
    # write-once: the blob is read-only on disk
    assert not os.access(o.path_for(d), os.W_OK) or os.geteuid() == 0
    assert oct(o.path_for(d).stat().st_mode & 0o777) == "0o444"


def test_missing_blob_is_a_clear_error(tmp_path):
    o = Originals(tmp_path)
    with pytest.raises(OriginalMissingError, match="is missing") as exc:
        o.get("0" * 64)
    assert exc.value.sha256 == "0" * 64


def test_altered_blob_is_detected(tmp_path):
    o = Originals(tmp_path)
    d = o.put(b"The inspection interval is not specified.")
    path = o.path_for(d)
    os.chmod(path, 0o644)
    path.write_bytes(b"The inspection interval is 73 days.")
    with pytest.raises(OriginalCorruptError, match="was altered") as exc:
        o.get(d)
    assert exc.value.actual == sha256_hex(b"The inspection interval is 73 days.")
    # putting the true bytes again does not silently accept the altered blob
    with pytest.raises(OriginalCorruptError):
        o.put(b"The inspection interval is not specified.")


@pytest.mark.parametrize("bad", ["abc", "G" * 64, "A" * 64])
def test_bad_digest_names_are_rejected(tmp_path, bad):
    with pytest.raises(ValueError, match="not a lowercase hex"):
        Originals(tmp_path).path_for(bad)
