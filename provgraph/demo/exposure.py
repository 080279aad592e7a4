"""Example pipelines for ``provgraph evaluate exposure`` (issue 18 part 3).

:func:`answer` follows the pipeline protocol of :mod:`provgraph.exposure`. Its prompt: an
instruction, the question, the aids as the arm says (before the originals, as a HyDE
document or a contextual prefix would come), then every original in the given order,
each as ``[S<k>] text``. Its "model" is deterministic: it copies, as its whole answer,
the sentence of the prompt that shares the most words with the question, among the
text it takes for source text: originals, aids shown unlabelled or presented as
sources; never an aid labelled as generated (ties: the earlier sentence). It cites the
block it copied from, quoting the sentence. So it quotes an aid's wording only when the
aid is exposed or mislabelled, and the generated-target findings appear only in those
arms. The baseline (the pipeline unmodified) labels its aids.

:func:`reordering` is the same pipeline with a fault: in every arm but the baseline it
packs the originals in reverse order, which the harness must refuse.

:func:`retrieve` is a retriever for the end-to-end mode (:mod:`provgraph.end_to_end`):
it ranks the candidates by how many distinct words they share with the query, and in
the ``with_aid`` arm with the query and the aids' text (as a HyDE document is used),
ties in corpus order; its cost is the words of the aids it used (what generating them
would have cost, in ``aid words``), 0 without them.

Example:
    provgraph --memory evaluate exposure --fixture examples/fixtures/quotation.json \\
        --pipeline provgraph.demo.exposure:answer
    provgraph --memory evaluate exposure --end-to-end \\
        --fixture examples/fixtures/quotation.json --pipeline provgraph.demo.exposure:retrieve
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..end_to_end import RetrievalContext, RetrievalOutput
from ..exposure import AnswerClaim, ArmContext, ArmOutput, Original, PromptPart

__all__ = ["answer", "reordering", "retrieve", "MODEL", "RETRIEVER"]

MODEL = ("provgraph-copy-best-sentence", "1")
"""The deterministic "model": copies the prompt sentence that best matches the question."""

_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")


RETRIEVER = ("provgraph-word-overlap", "1")
"""The deterministic retriever of :func:`retrieve`."""


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def answer(ctx: ArmContext) -> ArmOutput:
    """Answer ``ctx.query`` by copying the best-matching sentence (module docstring)."""
    return _answer(ctx, list(ctx.originals))


def reordering(ctx: ArmContext) -> ArmOutput:
    """:func:`answer`, but packing the originals in reverse order outside the baseline."""
    originals = list(ctx.originals)
    if ctx.arm != "baseline":
        originals.reverse()
    return _answer(ctx, originals)


def _answer(ctx: ArmContext, originals: Sequence[Original]) -> ArmOutput:
    parts = [PromptPart(text="Answer from the sources below; cite the source you quote.\n"),
             PromptPart(text=f"Question: {ctx.query}\n", query=True)]
    # blocks the model reads as source text: (ref, text)
    readable: list[tuple[str, str]] = []
    k = 0
    show = ctx.presentation != "omitted"
    for aid in ctx.aids if show else ():
        if ctx.presentation in ("pipeline", "labelled"):
            parts.append(PromptPart(text=f"[generated {aid.kind}, not a source] "))
            parts.append(PromptPart(text=aid.text, ref=aid.id))
            parts.append(PromptPart(text="\n"))
            continue
        k += 1
        tag = f"[S{k}] " if ctx.presentation == "unlabelled" else f"[S{k}, source text] "
        parts += [PromptPart(text=tag), PromptPart(text=aid.text, ref=aid.id),
                  PromptPart(text="\n")]
        readable.append((aid.id, aid.text))
    for o in originals:
        k += 1
        oid, text = o.id, o.text
        parts += [PromptPart(text=f"[S{k}] "), PromptPart(text=text, ref=oid),
                  PromptPart(text="\n")]
        readable.append((oid, text))
    question = _words(ctx.query)
    best: tuple[int, str, str] | None = None
    for ref, text in readable:
        for m in _SENTENCE.finditer(text):
            sentence = m.group().strip()
            score = len(_words(sentence) & question)
            if sentence and (best is None or score > best[0]):
                best = (score, ref, sentence)
    if best is None:
        return ArmOutput(prompt=tuple(parts), answer="I cannot tell from the sources.",
                         claims=(AnswerClaim(start=0, end=31, kind="abstention"),), model=MODEL,
                         settings={"temperature": 0})
    _, ref, sentence = best
    return ArmOutput(prompt=tuple(parts), answer=sentence,
                     claims=(AnswerClaim(start=0, end=len(sentence), kind="quotation",
                                         cited=ref, quote=sentence),),
                     model=MODEL, settings={"temperature": 0})


def retrieve(ctx: RetrievalContext) -> RetrievalOutput:
    """Rank ``ctx.candidates`` by words shared with the query (and the aids, when given);
    module docstring."""
    probe = _words(ctx.query)
    for aid in ctx.aids:
        probe |= _words(aid.text)
    scored = sorted(((len(_words(c.text) & probe), -i, c.id) for i, c in enumerate(ctx.candidates)),
                    reverse=True)
    return RetrievalOutput(ranked=tuple(cid for _, _, cid in scored),
                           scores=tuple(float(sc) for sc, _, _ in scored), retriever=RETRIEVER,
                           aids_used=tuple(a.id for a in ctx.aids),
                           cost=float(sum(len(_WORD.findall(a.text)) for a in ctx.aids)),
                           cost_unit="aid words")
