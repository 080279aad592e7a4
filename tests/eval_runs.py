"""Runs with known evaluation counts (issue 18), recorded with the Recorder: the fixture
of tests/test_evaluation.py, tests/test_gate.py and tests/test_revalidate.py.

One run, three answers over one retained source (parser, chunker, retriever, model and
prompt template all versioned):

=====  ========  ==========  ===========  ==============================================
claim  answer    kind        status       citations (outcome after resolve)
=====  ========  ==========  ===========  ==============================================
c1     a1        quotation   supported    the chunk, quote "Water boils at 100 C." (quote_match)
c2     a1        paraphrase  supported    the chunk, quote "Ice is hot." (quote_mismatch)
c3     a1        paraphrase  supported    none (unsupported, uncited)
c4     a1        paraphrase  uncertain    none (accounted for: uncertain)
c5     a2        paraphrase  supported    none (an answer with no citations)
c6     a2        abstention  supported    none
c7     a3        quotation   supported    a hypothetical document (generated_target)
c8     a3        derivation  supported    none; derived from c1 with a warrant
=====  ========  ==========  ===========  ==============================================
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from provgraph import Recorder, Segment
from provgraph.store import ProvStore

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
RUN = "urn:uuid:01900000-0000-7000-8000-0000000e0a10"
SOURCE = "Water boils at 100 C.\nIce is cold.\n"
HYDE = "Water boils at 90 C in the mountains."
PARSER = ("plain-utf8", "1.0")


def record(store: ProvStore, run: str = RUN, parser: tuple[str, str] = PARSER) -> dict[str, Any]:
    """Record the run into ``store``; return its records by name (c1 ... c8, snap, chunk ...)."""
    rec = Recorder(store, label="eval-known-counts", packages=[], run_iri=run, started_at=T0,
                   clock=lambda: T0)
    r: dict[str, Any] = {"run": rec.iri}
    snap = r["snap"] = rec.snapshot(SOURCE.encode(), uri="https://example.org/water.txt",
                                    media_type="text/plain", observed_at=T0)
    ext = rec.extraction(snap, parser=parser, text=SOURCE)
    chunk = r["chunk"] = rec.chunking(ext, chunker=("lines", "1.0"), ranges=[(0, len(SOURCE))])[0]

    def answer(n: int, question: str, text: str) -> Any:
        q = rec.query(question)
        hyde = rec.aid("hypothetical_document", text=HYDE, model=("hyde-gen", "0.1"), derived_from=[q])
        ret = rec.retrieval(q, retriever=("bm25", "0.2"), hits=[(chunk, 1.0)], aids=[hyde])
        gi = rec.context_packing(text=SOURCE, segments=[Segment(start=0, end=len(SOURCE),
                                                                origin="original", source=chunk)],
                                 retrieval=ret, template=("qa-template", "3"))
        r[f"hyde{n}"] = hyde
        return rec.generation(gi, model=("reader", "1.0"), text=text)

    a1 = r["a1"] = answer(1, "At what temperature does water boil?",
                          "Water boils at 100 C. Ice is hot. Steam is dry. Maybe it rains.")
    r["c1"] = rec.claim(a1, start=0, end=21, kind="quotation")
    r["cit1"] = rec.citation(r["c1"], target=chunk, quote="Water boils at 100 C.")
    r["c2"] = rec.claim(a1, start=22, end=33, kind="paraphrase")
    r["cit2"] = rec.citation(r["c2"], target=chunk, quote="Ice is hot.")
    r["c3"] = rec.claim(a1, start=34, end=48, kind="paraphrase")
    r["c4"] = rec.claim(a1, start=49, end=63, kind="paraphrase", status="uncertain")
    a2 = r["a2"] = answer(2, "Is ice cold?", "Ice is cold. I cannot say more.")
    r["c5"] = rec.claim(a2, start=0, end=12, kind="paraphrase")
    r["c6"] = rec.claim(a2, start=13, end=31, kind="abstention")
    a3 = r["a3"] = answer(3, "Where does water boil at 90 C?",
                          "Water boils at 90 C in the mountains. So 10 C less.")
    r["c7"] = rec.claim(a3, start=0, end=37, kind="quotation")
    r["cit7"] = rec.citation(r["c7"], target=r["hyde3"], quote=HYDE)
    r["c8"] = rec.claim(a3, start=38, end=51, kind="derivation", derived_from=[r["c1"]],
                        warrant="100 - 90 = 10")
    return r
