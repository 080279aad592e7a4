"""Recording one answer on a remote engine costs one request (issue 13): the Recorder's
batch is one ``add()``, sent as one update (INSERT DATA), with no store read on the way
when the answer's inputs were recorded by the same Recorder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from provgraph import Recorder
from provgraph.model import Segment

from .conftest import open_remote

pytestmark = pytest.mark.servers


@pytest.mark.parametrize("server_name", ["oxigraph_server", "virtuoso_server"])
def test_one_batched_answer_is_one_request(server_name: str, request: pytest.FixtureRequest,
                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = request.getfixturevalue(server_name)
    store = open_remote(server, tmp_path)
    rec = Recorder(store, label="app", packages=[])
    snap = rec.snapshot(b"Boilers are inspected yearly.", uri="file:///ops.txt",
                        media_type="text/plain")
    ext = rec.extraction(snap, parser=("plain", "1"), text="Boilers are inspected yearly.")
    [chunk] = rec.chunking(ext, chunker=("whole", "1"), ranges=[(0, 29)])
    sent: list[str] = []
    real = type(store.http).send

    def counted(self: Any, method: str, url: str, *a: Any, **k: Any) -> Any:
        sent.append(f"{method} {url} {k.get('what', '')}")
        return real(self, method, url, *a, **k)

    monkeypatch.setattr(type(store.http), "send", counted)
    with rec.batch():
        q = rec.query("How often are boilers inspected?")
        hits = rec.retrieval(q, retriever=("bm25", "1"), hits=[(chunk, 1.0)])
        gi = rec.context_packing(text=chunk.text, retrieval=hits,
                                 segments=[Segment(start=0, end=29, origin="original", source=chunk)])
        ans = rec.generation(gi, model=("gen", "1"), text="Boilers are inspected yearly.")
        claim = rec.claim(ans, start=0, end=29, kind="quotation")
        rec.citation(claim, target=chunk, quote="Boilers are inspected yearly.")
    assert len(sent) == 1, sent
    assert store.has_subject(claim.iri)
