"""ALCE prompt and result files (format ``alce``).

Input (princeton-nlp/ALCE): a prompt file ``{"instruction", "demo_sep",
"demo_prompt", "doc_prompt", "demos": [...]}`` (``prompts/*_default.json``), a
result file ``{"args": {...}, "data": [...]}`` as ALCE's ``run.py`` writes it, or
a bare array of items. Each demo or data entry is one item: ``question``,
``docs`` (``[{title, text}]``, the retrieved passages in rank order) and the
answer: ``output`` (the model's, in result files) or ``answer`` (in prompt
files, the few-shot answers the ALCE authors wrote; recorded with model
``unknown``, as result files without ``args.model`` are).

Citations are ``[n]`` markers pointing at ``docs[n-1]`` (1-based). Claims are cut
at the marker groups (:func:`provgraph.importers._spans.segment_claims`): a group
cites the text between the previous group of its sentence (or the sentence
start) and itself, so ``Marazan [1], Stephen Morris [1]`` is two claims; a group
after the sentence's period (``... in 1861. [1]``) belongs to the sentence before
it. Claims are kind ``paraphrase``, status ``supported``, and cite whole passages
(no range). Text of a sentence with no marker is a claim with status
``unsupported`` and no citation (ALCE's instruction asks every factual sentence
to cite). A marker ``[0]`` or past the documents is an item error.

Passages are retained as the UTF-8 bytes of ``text`` (source URI: file name +
JSONPath; ALCE passages have titles but no URLs), recorded as the ranked hits of
a retrieval for the question. When the file holds ALCE's prompt templates the
generator input is the item's exact prompt as ALCE renders a test item
(``demo_prompt`` with ``{INST}``, ``{Q}``, ``{D}`` filled, ``{A}`` removed, right
stripped; ``{D}`` is ``doc_prompt`` per passage with ``{ID}`` = n, ``{T}``,
``{P}``), with the instruction, question and each passage text as segments;
the few-shot demos ALCE prepends are not part of it. Otherwise the passages are
joined as in other importers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._common import (
    cite, ClaimSpec, Doc, ItemFailed, ItemSpec, Parsed, PayloadError, get, jpath, load_json,
    parse_items, passage_uri, text_doc,
)
from ._spans import segment_claims

__all__ = ["parse", "GENERATOR_INPUT", "render_prompt"]

GENERATOR_INPUT = ("ALCE prompt template when the file has one (instruction, question and "
                   "passages of the item, without the few-shot demos); otherwise reconstructed: "
                   "the passages in rank order joined by a blank line")


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse an ALCE file into item specs and per-item errors (nothing stored).

    Raises:
        PayloadError: not JSON, or neither a prompt file, a result file nor an array.
    """
    value, _lines = load_json(data, "the alce format")
    templates: dict[str, str] | None = None
    model, retriever = "unknown", ("unknown", "")
    if isinstance(value, dict) and isinstance(value.get("demos"), list):
        raw = [(f"$.demos[{i}]", d) for i, d in enumerate(value["demos"])]
        keys = ("instruction", "demo_prompt", "doc_prompt")
        if all(isinstance(value.get(k), str) for k in keys):
            templates = {k: value[k] for k in keys}
    elif isinstance(value, dict) and isinstance(value.get("data"), list):
        raw = [(f"$.data[{i}]", d) for i, d in enumerate(value["data"])]
        args = value.get("args")
        if not isinstance(args, dict):
            args = {}
        model = str(args.get("model") or "unknown")
        if args.get("retriever"):
            retriever = (str(args["retriever"]), "")
    elif isinstance(value, list):
        raw = [(f"$[{i}]", d) for i, d in enumerate(value)]
    else:
        found = f"keys {sorted(value)[:8]}" if isinstance(value, dict) else type(value).__name__
        raise PayloadError("$", 'is not an ALCE file: expected a prompt file {"demos": [...]}, '
                                f'a result file {{"data": [...]}} or an array; found {found}')
    return parse_items(raw, lambda o, p: _item(o, p, name, templates, model, retriever))


def _item(obj: Any, path: str, name: str, templates: dict[str, str] | None, model: str,
          retriever: tuple[str, str]) -> ItemSpec:
    if not isinstance(obj, dict) or "docs" not in obj or not ("output" in obj or "answer" in obj):
        keys = sorted(obj)[:8] if isinstance(obj, dict) else type(obj).__name__
        raise ItemFailed(path, f"is not an ALCE item: expected question, docs and output (or "
                               f"answer); found {keys}")
    key = "output" if "output" in obj else "answer"
    answer = get(obj, key, path, str)
    question = get(obj, "question", path, str, required=False)
    docs: list[Doc] = []
    titles: list[str] = []
    hits: list[tuple[Doc, float | None]] = []
    dpath = jpath(path, "docs")
    for j, d in enumerate(get(obj, "docs", path, list)):
        jp = jpath(dpath, j)
        doc = text_doc(str(j + 1), get(d, "text", jp, str), passage_uri(name, jp))
        docs.append(doc)
        titles.append(str(get(d, "title", jp, str, required=False, default="")))
        score = d.get("score")
        hits.append((doc, float(score) if isinstance(score, (int, float)) else None))
    claims: list[ClaimSpec] = []
    for s, e, group in segment_claims(answer):
        if group is None:
            claims.append(ClaimSpec(start=s, end=e, status="unsupported"))
            continue
        spec = ClaimSpec(start=s, end=e)
        for n in group.numbers:
            if not 1 <= n <= len(docs):
                raise ItemFailed(jpath(path, key), f"citation [{n}] at code point {group.start} "
                                                   f"points past the {len(docs)} documents "
                                                   "(markers are 1-based: [n] is docs[n-1])")
            spec.cites.append(cite(docs[n - 1]))
        claims.append(spec)
    item = ItemSpec(docs=docs, query=question, retriever=retriever if question else None,
                    hits=hits, answer=answer, model=(model, ""), claims=claims)
    if templates is not None and question is not None:
        item.prompt = render_prompt(templates, question, docs, titles)
        digest = hashlib.sha256("\x00".join(templates[k] for k in sorted(templates))
                                .encode("utf-8")).hexdigest()[:12]
        item.template = ("alce-prompt", digest)
    return item


def render_prompt(templates: dict[str, str], question: str, docs: Sequence[Doc],
                  titles: Sequence[str]) -> tuple[str, list[tuple[int, int, str, Any]]]:
    """ALCE's test-item prompt and its segments: ``(text, [(start, end, origin, ref)])``.

    >>> t = {"instruction": "Cite.", "demo_prompt": "{INST}\\n\\nQuestion: {Q}\\n\\n{D}\\nAnswer: {A}",
    ...      "doc_prompt": "Document [{ID}](Title: {T}): {P}\\n"}
    >>> d = text_doc("1", "Rain falls.", "x")
    >>> text, segs = render_prompt(t, "Why?", [d], ["Rain"])
    >>> text
    'Cite.\\n\\nQuestion: Why?\\n\\nDocument [1](Title: Rain): Rain falls.\\n\\nAnswer:'
    >>> [(text[s:e], o) for s, e, o, _ in segs]
    [('Cite.', 'instruction'), ('Why?', 'query'), ('Rain falls.', 'original')]
    """
    out: list[str] = []
    segs: list[tuple[int, int, str, Any]] = []
    pos = 0

    def emit(text: str, origin: str | None = None, ref: Any = None) -> None:
        nonlocal pos
        if origin is not None and text:
            segs.append((pos, pos + len(text), origin, ref))
        out.append(text)
        pos += len(text)

    for piece in re.split(r"(\{INST\}|\{Q\}|\{D\}|\{A\})", templates["demo_prompt"]):
        if piece == "{INST}":
            emit(templates["instruction"], "instruction")
        elif piece == "{Q}":
            emit(question, "query", "query")
        elif piece == "{D}":
            for n, (doc, title) in enumerate(zip(docs, titles), 1):
                for sub in re.split(r"(\{ID\}|\{T\}|\{P\})", templates["doc_prompt"]):
                    if sub == "{ID}":
                        emit(str(n))
                    elif sub == "{T}":
                        emit(title)
                    elif sub == "{P}":
                        emit(doc.text or "", "original", doc)
                    else:
                        emit(sub)
        elif piece == "{A}":
            continue
        else:
            emit(piece)
    text = "".join(out).rstrip()
    return text, [(s, min(e, len(text)), o, r) for s, e, o, r in segs if s < len(text)]
