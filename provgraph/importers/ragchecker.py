"""RAGChecker input and output files (format ``ragchecker``).

Input: ``{"results": [...]}`` as RAGChecker reads and writes it
(amazon-science/RAGChecker ``examples/checking_inputs.json`` and
``checking_outputs.json``), or a bare array of results; each result is one item:
``query_id``, ``query``, ``gt_answer``, ``response``, ``retrieved_context``
(``[{doc_id, text}]``, in retrieval order, no offsets), and in output files the
checker's ``response_claims`` (``[subject, predicate, object]`` triplets, or
claim strings) and ``retrieved2response``: for each response claim, one label
(``Entailment``, ``Neutral``, ``Contradiction``) per retrieved passage
(``ragchecker/computation.py``: ``faithful = max over passages``).

Recorded per result: the passages as snapshots (UTF-8 text; source URI = file
name + JSONPath, since ``doc_id`` is only unique within a result), the query and
a retrieval with the passages as ranked hits, the response as the answer (model
``unknown``: the file does not name it). Each response claim becomes a claim
(kind ``paraphrase``) labelled with its triplet (``rdfs:label``); its status is
``supported`` when some passage entails it and ``unsupported`` otherwise
(RAGChecker's hallucination and self-knowledge claims alike); it cites each
entailing passage (whole passage, no range: RAGChecker gives none). The
checker's ``answer2response``, ``response2answer``, ``retrieved2answer`` and the
ground-truth answer describe the reference answer, not the response's
provenance, and are not recorded.

A triplet is a claim about the response, not a span of it: the claim's span is
the response sentence that contains the triplet's object (else its subject),
ties and misses going to the sentence sharing most of the triplet's words, the
first such sentence on a tie. Label arrays whose shape does not match the claims
and passages, or unknown labels, are item errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._common import (
    cite, ClaimSpec, DOCUMENTS_INPUT, Doc, ItemFailed, ItemSpec, Parsed, PayloadError, get,
    jpath, load_json, parse_items, passage_uri, text_doc,
)
from ._spans import sentences

__all__ = ["parse", "GENERATOR_INPUT", "locate_claim"]

GENERATOR_INPUT = DOCUMENTS_INPUT
_LABELS = ("Entailment", "Neutral", "Contradiction")


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse a RAGChecker file into item specs and per-item errors (nothing stored).

    Raises:
        PayloadError: not JSON, or neither ``{"results": [...]}`` nor an array.
    """
    value, _lines = load_json(data, "the ragchecker format")
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        raw = [(f"$.results[{i}]", r) for i, r in enumerate(value["results"])]
    elif isinstance(value, list):
        raw = [(f"$[{i}]", r) for i, r in enumerate(value)]
    else:
        found = f"keys {sorted(value)[:8]}" if isinstance(value, dict) else type(value).__name__
        raise PayloadError("$", 'is not a RAGChecker file: expected {"results": [{"query", '
                                f'"response", "retrieved_context", ...}}]}}; found {found}')
    return parse_items(raw, lambda o, p: _item(o, p, name))


def _item(obj: Any, path: str, name: str) -> ItemSpec:
    if not isinstance(obj, dict) or "response" not in obj or "retrieved_context" not in obj:
        keys = sorted(obj)[:8] if isinstance(obj, dict) else type(obj).__name__
        raise ItemFailed(path, f"is not a RAGChecker result: expected query, response and "
                               f"retrieved_context; found {keys}")
    response = get(obj, "response", path, str)
    docs: list[Doc] = []
    cpath = jpath(path, "retrieved_context")
    for j, ctx in enumerate(get(obj, "retrieved_context", path, list)):
        jp = jpath(cpath, j)
        docs.append(text_doc(str(get(ctx, "doc_id", jp, (str, int))), get(ctx, "text", jp, str),
                             passage_uri(name, jp)))
    claims: list[ClaimSpec] = []
    raw_claims = get(obj, "response_claims", path, list, required=False)
    if raw_claims is not None:
        labels = get(obj, "retrieved2response", path, list)
        lpath = jpath(path, "retrieved2response")
        if len(labels) != len(raw_claims):
            raise ItemFailed(lpath, f"has {len(labels)} rows for {len(raw_claims)} response claims")
        for k, (claim, row) in enumerate(zip(raw_claims, labels)):
            kp = jpath(jpath(path, "response_claims"), k)
            parts = [claim] if isinstance(claim, str) else claim
            if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
                raise ItemFailed(kp, "must be a [subject, predicate, object] triplet or a string")
            if not isinstance(row, list) or len(row) != len(docs):
                raise ItemFailed(jpath(lpath, k), f"must hold one label per retrieved passage "
                                                  f"({len(docs)})")
            for j, lab in enumerate(row):
                if lab not in _LABELS:
                    raise ItemFailed(jpath(jpath(lpath, k), j), f"unknown label {lab!r}; expected "
                                                                f"one of {', '.join(_LABELS)}")
            s, e = locate_claim(response, parts)
            spec = ClaimSpec(start=s, end=e, label="; ".join(parts),
                             status="supported" if "Entailment" in row else "unsupported")
            spec.cites = [cite(docs[j]) for j, lab in enumerate(row) if lab == "Entailment"]
            claims.append(spec)
    query = get(obj, "query", path, str, required=False)
    return ItemSpec(docs=docs, query=query, retriever=("unknown", ""),
                    hits=[(d, None) for d in docs], answer=response, claims=claims)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.casefold()) if len(w) > 2}


def locate_claim(response: str, triplet: Sequence[str]) -> tuple[int, int]:
    """The span of ``response`` (code points) a RAGChecker claim is read from: the
    sentence holding the triplet's object, else its subject, else the one sharing
    most words with it (first on ties; the whole response if it has no sentence).

    >>> r = "The Nile is long. It flows through Egypt."
    >>> s, e = locate_claim(r, ["Nile", "flows through", "Egypt"]); r[s:e]
    'It flows through Egypt.'
    """
    spans = [(s, e) for s, e, _r in sentences(response)] or [(0, len(response))]
    obj = triplet[-1].casefold().strip()
    subj = triplet[0].casefold().strip()
    words = _words(" ".join(triplet))

    def score(span: tuple[int, int]) -> tuple[bool, bool, int]:
        text = response[span[0]:span[1]].casefold()
        return (bool(obj) and obj in text, bool(subj) and subj in text,
                len(words & _words(text)))

    best = max(spans, key=score)  # max returns the first of equal keys
    return best
