"""What the fuzz tests share (issue 20, item 4): the Hypothesis settings of ``make test``
and ``make soak``, and mutations of real input files.

``make test`` runs each fuzz test with a bounded, derandomized example count (the same
examples on every run, so a failure reproduces); ``make soak`` sets
``PROVGRAPH_FUZZ=soak``, which multiplies the count by :data:`SOAK_FACTOR`. Under CI
(``CI=true``) the soak's examples are derandomized too, so a CI run is repeatable and
cannot fail on an example no earlier run drew; elsewhere each soak draws new examples,
which is how new findings are made (``PROVGRAPH_FUZZ=soak make soak`` on a laptop).
Failing examples print with ``@reproduce_failure`` where Hypothesis can.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SOAK = os.environ.get("PROVGRAPH_FUZZ") == "soak"
SOAK_FACTOR = 10
"""How many times more examples ``make soak`` runs than ``make test``."""


def fuzz_settings(examples: int) -> settings:
    """Settings for a fuzz test that runs ``examples`` examples in ``make test``."""
    return settings(max_examples=examples * (SOAK_FACTOR if SOAK else 1), deadline=None,
                    derandomize=not SOAK or os.environ.get("CI") == "true", database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow, HealthCheck.data_too_large])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8)
"""Any JSON value (floats include NaN and infinities, which Python's json writes)."""


@st.composite
def mutated_json(draw: st.DrawFn, doc: Any) -> Any:
    """``doc`` (parsed JSON) with one to three places changed: a value replaced by another
    JSON value (often of another type), a key or item removed, a string emptied or
    lengthened or given a lone surrogate, a number negated or made huge. The place is found by a random walk
    from the root, so large documents cost no more than small ones."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, 3))):
        parent: Any = None
        key: Any = None
        node = doc
        while isinstance(node, (dict, list)) and node and draw(st.integers(0, 3)):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            parent, key = node, draw(st.sampled_from(keys))
            node = node[key]
        if parent is None:
            continue
        op = draw(st.sampled_from(["replace", "remove", "string", "number", "swap"]))
        if op == "remove":
            del parent[key]
        elif op == "string" and isinstance(node, str):
            parent[key] = draw(st.sampled_from(["", node * 3, node[::-1], node + "\ud800",
                                                node + draw(st.text(max_size=4))]))
        elif op == "number" and isinstance(node, (int, float)) and not isinstance(node, bool):
            parent[key] = draw(st.sampled_from([-node, node * 10**12, 0, -1, 2**63, 0.5]))
        elif op == "swap":
            parent[key] = [node] if not isinstance(node, list) else {"x": node}
        else:
            parent[key] = draw(json_values)
    return doc


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with one to four byte-level changes: a byte overwritten, a range deleted,
    duplicated or cut off, or random bytes inserted."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        if not out:
            out += draw(st.binary(max_size=8))
            continue
        i = draw(st.integers(0, len(out) - 1))
        j = min(len(out), i + draw(st.integers(1, 64)))
        op = draw(st.sampled_from(["overwrite", "delete", "duplicate", "truncate", "insert"]))
        if op == "overwrite":
            out[i] = draw(st.integers(0, 255))
        elif op == "delete":
            del out[i:j]
        elif op == "duplicate":
            out[i:i] = out[i:j]
        elif op == "truncate":
            del out[i:]
        else:
            out[i:i] = draw(st.binary(min_size=1, max_size=8))
    return bytes(out)


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """One of ``seeds`` mutated: as JSON where it is JSON (each line where it is JSON
    Lines: one line changed), else as bytes; now and then both."""
    data = draw(st.sampled_from(seeds))
    if draw(st.integers(0, 4)):
        try:
            doc = json.loads(data)
        except ValueError:
            lines = data.splitlines(keepends=True)
            try:
                parsed = [json.loads(line) if line.strip() else None for line in lines]
            except ValueError:
                parsed = []
            if parsed and any(p is not None for p in parsed):
                i = draw(st.sampled_from([k for k, p in enumerate(parsed) if p is not None]))
                lines[i] = json.dumps(draw(mutated_json(parsed[i]))).encode() + b"\n"
                data = b"".join(lines)
        else:
            data = json.dumps(draw(mutated_json(doc))).encode()
        if draw(st.integers(0, 3)):
            return data
    return draw(mutated_bytes(data))
