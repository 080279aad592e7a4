"""Ground-truth scenarios for the query library, recorded on top of tests/pipeline.py.

Each function records more steps into a store that already holds the fixture
pipeline (``r`` is what :func:`tests.pipeline.record` returned; ``rec`` the
fixture's own recorder, so the run's support shortcuts come from one session)
and returns the new records by name. The expected answers are stated next to the
steps that cause them.
"""

from __future__ import annotations

from typing import Any

from provgraph import Recorder, Segment
from provgraph.model import Hit
from provgraph.terms import IRI, lit
from provgraph.vocab import PG, PROV

from . import pipeline

RUN2 = "urn:uuid:01900000-0000-7000-8000-00000000000b"


def iri(name: str) -> str:
    return pipeline.iri(name)


def parser_upgrade(store: Any, r: dict[str, Any]) -> dict[str, Any]:
    """A parser upgrade: the FAQ snapshot is re-extracted by ``plain-utf8 2.0`` and
    re-chunked; a second run answers twice.

    * answer A packs and cites only the new chunks (its retrieval also *hit* the
      old ``c_interval`` but did not pack or cite it): claim ``x`` goes through
      parser 2.0 only;
    * answer B packs and cites the old ``c_engineer`` (parser 1.0): claim ``y``;
      claim ``z`` is a derivation whose operand is a new chunk: 1.0 through the
      answer, 2.0 through the operand.

    So impact(plain-utf8, 2.0) = {x, z}; impact(plain-utf8, 1.0) = the three
    fixture claims and {y, z}.
    """
    rec = Recorder(store, label="upgrade", packages=[], run_iri=RUN2, started_at=pipeline.t(100))
    out: dict[str, Any] = {"run": IRI(RUN2)}
    ext2 = rec.extraction(r["faq"], parser=("plain-utf8", "2.0"), text=pipeline.FAQ,
                          ended_at=pipeline.t(101))
    out["ext2"] = ext2
    out["faq2_q"], out["faq2_a"] = rec.chunking(ext2, chunker=("lines", "1.0"),
                                                ranges=[(0, 25), (25, 68)],
                                                parameters={"by": "line"}, ended_at=pipeline.t(101))
    # answer A: new chunks only
    qa = rec.query("Who inspects boilers?", at=pipeline.t(110), iri=iri("q2"))
    ra = rec.retrieval(qa, retriever=("rank-bm25", "0.2.2"),
                       hits=[Hit(target=out["faq2_a"], rank=1, score=2.0),
                             Hit(target=r["c_interval"], rank=2, score=0.5)],
                       started_at=pipeline.t(110), iri=iri("r2"))
    head = "Context:\n"
    prompt_a = head + out["faq2_a"].text
    gia = rec.context_packing(text=prompt_a, retrieval=ra, template=("qa-template", "3"),
                              segments=[Segment(start=0, end=len(head), origin="instruction"),
                                        Segment(start=len(head), end=len(prompt_a), origin="original",
                                                source=out["faq2_a"])],
                              omitted=[r["c_interval"]], at=pipeline.t(111), iri=iri("gi2"))
    ans_a = rec.generation(gia, model=("extractive", "1.0"), text="A certified engineer does.",
                           started_at=pipeline.t(112), iri=iri("a2"))
    out["x"] = rec.claim(ans_a, start=0, end=26, kind="paraphrase", iri=iri("cl21"))
    out["cit_x"] = rec.citation(out["x"], target=out["faq2_a"], iri=iri("ct21"))
    # answer B: the old c_engineer, plus a derivation from a new chunk
    qb = rec.query("Who inspects?", at=pipeline.t(120), iri=iri("q3"))
    rb = rec.retrieval(qb, retriever=("rank-bm25", "0.2.2"),
                       hits=[Hit(target=r["c_engineer"], rank=1, score=2.0)],
                       started_at=pipeline.t(120), iri=iri("r3"))
    prompt_b = head + r["c_engineer"].text
    gib = rec.context_packing(text=prompt_b, retrieval=rb, template=("qa-template", "3"),
                              segments=[Segment(start=0, end=len(head), origin="instruction"),
                                        Segment(start=len(head), end=len(prompt_b), origin="original",
                                                source=r["c_engineer"])],
                              at=pipeline.t(121), iri=iri("gi3"))
    text_b = "Boilers are inspected by a certified engineer. So: two sources agree."
    ans_b = rec.generation(gib, model=("extractive", "1.0"), text=text_b,
                           started_at=pipeline.t(122), iri=iri("a3"))
    out["y"] = rec.claim(ans_b, start=0, end=46, kind="paraphrase", iri=iri("cl31"))
    out["cit_y"] = rec.citation(out["y"], target=r["c_engineer"], iri=iri("ct31"))
    out["z"] = rec.claim(ans_b, start=47, end=len(text_b), kind="derivation",
                         derived_from=[out["faq2_a"]], warrant="both sources name an engineer",
                         iri=iri("cl32"))
    return out


def deletion(rec: Recorder, r: dict[str, Any]) -> dict[str, Any]:
    """The FAQ document is deleted (its only snapshot invalidated): exactly the
    claims citing it become stale with kind "deleted" (in the fixture: claim_para
    through citation ct3)."""
    return {"deletion": rec.deletion(r["faq"], at=pipeline.t(200))}


def outcomes_and_claims(rec: Recorder, r: dict[str, Any]) -> dict[str, Any]:
    """Unsupported and coverage cases, recorded in the fixture run.

    * ct1 gets the resolver outcome quote_mismatch: claim_quote loses its only
      eligible citation;
    * ct2 gets quote_match and ct3 normalized_match, and claim_para
      prov:wasQuotedFrom policy_v1 (a verified quotation);
    * cl4 is an uncited paraphrase (listed, 0 citations); cl5 an abstention and
      cl6 an uncertain claim (both excluded although uncited); cl7 a derivation
      from claim_para (supported by derivation); cl8 cites a raw id that names
      nothing recorded (listed, 1 citation).
    """
    run = IRI(pipeline.RUN)
    store = rec.store
    ans = r["answer"]
    out: dict[str, Any] = {}
    store.add([(r["cit1"].iri, PG.outcome, lit("quote_mismatch"), run),
               (r["cit2"].iri, PG.outcome, lit("quote_match"), run),
               (r["cit3"].iri, PG.outcome, lit("normalized_match"), run),
               (r["claim_para"].iri, PROV.wasQuotedFrom, r["policy_v1"].iri, run)])
    out["uncited"] = rec.claim(ans.iri, start=0, end=5, text='"The ', kind="paraphrase",
                               iri=iri("cl4"))
    out["abstain"] = rec.claim(ans.iri, start=5, end=10, text="inspe", kind="abstention",
                               iri=iri("cl5"))
    out["uncertain"] = rec.claim(ans.iri, start=10, end=15, text="ction", kind="paraphrase",
                                 status="uncertain", iri=iri("cl6"))
    out["derived"] = rec.claim(ans.iri, start=15, end=20, text=" inte", kind="derivation",
                               derived_from=[r["claim_para"]], warrant="restates cl2",
                               iri=iri("cl7"))
    out["raw"] = rec.claim(ans.iri, start=20, end=25, text="rval ", kind="quotation",
                           iri=iri("cl8"))
    out["cit_raw"] = rec.citation(out["raw"], target="doc-3", quote="rval", iri=iri("ct8"))
    return out


def generated_cases(rec: Recorder, r: dict[str, Any]) -> dict[str, Any]:
    """Citations of generated text other than an aid itself, in the fixture run.

    The generator input gi1 is "Answer from the context.\\n" (25 code points,
    instruction), then the contextual prefix [25, 82) (generated), "\\n", then the
    two chunks (original).

    * g1 cites gi1 [30, 40) code points: inside the generated segment -> row;
    * g2 cites gi1 [90, 100): inside original text -> no row;
    * g3 cites gi1 by the quote "73 days" (in the prefix) -> row;
    * g4 cites gi1 as a whole (mixed text) -> row;
    * g5 cites an indexed representation (prefix + chunk) at [0, 10) -> row;
    * g6 is a claim quoted from the prefix (prov:wasQuotedFrom, as an imported
      PROV document could say) -> a generated_quotation row.
    """
    run = IRI(pipeline.RUN)
    store = rec.store
    ans = r["answer"]
    out: dict[str, Any] = {}
    gi = r["input"]
    for i, kw in enumerate([dict(start=30, end=40, unit="codepoint"),
                            dict(start=90, end=100, unit="codepoint"),
                            dict(quote="73 days"), {}], start=1):
        c = rec.claim(ans.iri, start=0, end=1, text='"', kind="paraphrase", iri=iri(f"clg{i}"))
        out[f"g{i}"] = c
        out[f"cit_g{i}"] = rec.citation(c, target=gi, iri=iri(f"ctg{i}"), **kw)  # type: ignore[arg-type]
    chunk = r["c_interval"]
    text = pipeline.PREFIX_TEXT + " " + chunk.text
    out["indexed"] = rec.indexed(chunk, text=text, embedder=("embed", "1"),
                                 segments=[Segment(start=0, end=len(pipeline.PREFIX_TEXT),
                                                   origin="generated", source=r["prefix"]),
                                           Segment(start=len(pipeline.PREFIX_TEXT) + 1,
                                                   end=len(text), origin="original", source=chunk)],
                                 at=pipeline.t(5))
    out["g5"] = rec.claim(ans.iri, start=0, end=1, text='"', kind="paraphrase", iri=iri("clg5"))
    out["cit_g5"] = rec.citation(out["g5"], target=out["indexed"], start=0, end=10,
                                 unit="codepoint", iri=iri("ctg5"))
    out["g6"] = rec.claim(ans.iri, start=0, end=1, text='"', kind="quotation", iri=iri("clg6"))
    store.add([(out["g6"].iri, PROV.wasQuotedFrom, r["prefix"].iri, run)])
    return out


def exposure_cases(rec: Recorder, r: dict[str, Any]) -> dict[str, Any]:
    """A second generation in the fixture run whose prompt labels the contextual
    prefix as "original" (a mislabel) and contains the hypothetical document's
    text with no segment at all ("unlabelled", found because its retrieval used
    that aid)."""
    head = "Context:\n"
    prompt = head + pipeline.PREFIX_TEXT + "\n" + pipeline.HYDE_TEXT
    a = len(head)
    gi = rec.context_packing(
        text=prompt, retrieval=r["retrieval"], template=("qa-template", "3"),
        segments=[Segment(start=0, end=a, origin="instruction"),
                  Segment(start=a, end=a + len(pipeline.PREFIX_TEXT), origin="original",
                          source=r["prefix"])],
        at=pipeline.t(14), iri=iri("gi9"))
    ans = rec.generation(gi, model=("extractive", "1.0"), text="Every year.",
                         started_at=pipeline.t(15), iri=iri("a9"))
    return {"input": gi, "answer": ans, "prompt": prompt,
            "hyde_start": prompt.index(pipeline.HYDE_TEXT)}


def reviews(rec: Recorder, r: dict[str, Any]) -> dict[str, Any]:
    """Reviews (issue 18): claim_quote (citing policy v1) reviewed twice with disagreeing
    quotation verdicts, once against policy v2; claim_para reviewed once and adjudicated."""
    out: dict[str, Any] = {}
    out["rev_a"] = rec.review(r["claim_quote"], verdicts={"quotation": "faithful"}, reviewer="ana",
                              role="annotator", policy="guide@1", saw=r["policy_v2"],
                              at=pipeline.t(300), iri=iri("rv1"))
    out["rev_b"] = rec.review(r["claim_quote"], verdicts={"quotation": "unfaithful"},
                              reviewer="judge", version="1", model=True, saw=r["policy_v1"],
                              at=pipeline.t(301), iri=iri("rv2"))
    out["rev_c"] = rec.review(r["claim_para"], verdicts={"coverage": "supported"}, reviewer="ana",
                              at=pipeline.t(302), iri=iri("rv3"))
    out["adj_c"] = rec.adjudicate(r["claim_para"], verdicts={"coverage": "supported"},
                                  reviewer="lead", at=pipeline.t(303), iri=iri("ad1"))
    return out
