"""Fuzz every file entry point (issue 15): random bytes, random JSON, deeply nested input
and mangled valid documents at ``import`` (each PROV and RDF format, each RAG importer),
``record`` and ``verify-bundle``. Each run must end with exit status 0, 1 or 2, an
``Error:`` line (never a traceback) when it fails, within 10 seconds, and a failed run
must leave the store's statement count as it was.

A modest number of examples in-process (Hypothesis, derandomized; 10 times more, drawn
afresh, in ``make soak``: tests/fuzz_support.py) keeps it inside ``make test``'s budget;
the subprocess test checks the real interpreter's exit on the deepest input.
tests/test_fuzz_parsers.py fuzzes the library calls behind these entry points with
mutations of real files.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from provgraph.cli import cli
from provgraph.store import open_store

from .fuzz_support import fuzz_settings

pytestmark = pytest.mark.fuzz

ENTRY_POINTS = [
    ["import"], *[["import", "--format", f] for f in (
        "prov-json", "provn", "prov-xml", "turtle", "trig", "nquads", "json-ld", "rdf-xml",
        "anthropic", "cohere", "bedrock", "openai", "vertex", "ragchecker", "alce", "otlp")],
    ["record"], ["verify-bundle"], ["ingest-pdf", "--uri", "https://example.org/x.pdf"],
]
SEEDS = [
    b'{"prefix": {"ex": "http://example.org/"}, "entity": {"ex:e": {}}}',
    b"document\nprefix ex <http://example.org/>\nentity(ex:e)\nendDocument\n",
    b"<http://e.org/s> <http://e.org/p> \"o\" <http://e.org/g> .\n",
    b'{"event": "run", "label": "x"}\n{"event": "query", "id": "q", "text": "hi"}\n',
    b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    b'<rdf:Description rdf:about="http://e.org/a"/></rdf:RDF>',
]

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


@st.composite
def hostile(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["bytes", "json", "deep", "mangled"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "json":
        return json.dumps(draw(_json)).encode()
    if kind == "deep":
        n = draw(st.sampled_from([150, 1_000, 30_000]))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}"), ("<a>", "</a>"),
                                               ("(", ")")]))
        return (opener * n + "1" + closer * n).encode()
    seed = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(seed) - 1))
        seed[i] = draw(st.integers(0, 255))
    return bytes(seed)


def _count(store: Path) -> int:
    if not store.exists():
        return 0
    s = open_store(store, read_only=True)
    try:
        return len(list(s.quads()))
    finally:
        s.close()


@pytest.mark.parametrize("args", ENTRY_POINTS, ids=lambda a: "-".join(a))
def test_no_traceback_no_hang_nothing_stored_on_error(runner, tmp_path, args):
    store = tmp_path / "store"
    src = tmp_path / "input"

    @fuzz_settings(8)
    @given(data=hostile())
    def check(data: bytes) -> None:
        src.write_bytes(data)
        before = _count(store)
        started = time.perf_counter()
        res = runner.invoke(cli, ["--store", str(store), *args, str(src)])
        assert time.perf_counter() - started < 10, "took over 10 s"
        assert res.exit_code in (0, 1, 2), (res.exit_code, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
        if res.exit_code:
            assert "Traceback" not in res.stderr
            assert res.stderr.startswith(("Error:", "Usage:")) or "\nError:" in res.stderr, \
                res.stderr[:500]
            assert _count(store) == before

    check()


def test_the_deepest_input_exits_2_in_a_real_process(tmp_path):
    src = tmp_path / "deep.json"
    src.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    exe = Path(sys.executable).with_name("provgraph")
    for args in (["import"], ["record"], ["verify-bundle"]):
        res = subprocess.run([str(exe), "--store", str(tmp_path / "s"), *args, str(src)],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 2, res.stderr
        assert res.stderr.startswith("Error:") and "Traceback" not in res.stderr, res.stderr
