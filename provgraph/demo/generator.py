"""The demo's deterministic local generator of retrieval aids (no language model).

A RAG pipeline often asks a language model for contextual chunk prefixes,
questions a chunk answers (doc2query) and hypothetical answer documents (HyDE).
The demo has no model, so a small deterministic function writes them from the
chunk's page metadata and its most frequent terms. It is recorded honestly as
what it is: a ``pg:Model`` agent named ``provgraph-demo-generator``. Its output
is *generated* text: it can help retrieval, and it is never original evidence.
Note that the prefixes state the release (``Flask 2.0.3 documentation``), a fact
taken from the package metadata, not from the page text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["GENERATOR", "STOPWORDS", "tokens", "keywords", "contextual_prefix",
           "generated_question", "hypothetical_document"]

GENERATOR = ("provgraph-demo-generator", "1.0")
"""The generator agent ``(name, version)``, recorded as a ``pg:Model``."""

STOPWORDS = frozenset("""
a about above after again against all also an and any are as at be because been before being
below between both but by can could did do does doing don down during each either else even
every few for from further had has have having here how however i if in into is it its itself
just let like may me might more most much must my no nor not now of off often on once one only
or other our out over own per same see set should so some such than that the their them then
there these they this those through to too under until up upon us use used uses using very via
was way we were what when where which while who whom why will with within without would yet you
your yours also already always another around away back become becomes cannot different done
else enough etc ever first get gets give given go going good got great let lot make makes many
need needs new next ok instead still take takes thing things time two well want wants work works
""".split())
"""Words that carry no topic (for keywords and retrieval tokens)."""

_TOKEN = re.compile(r"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def stem(word: str) -> str:
    """A light English suffix stripper (plural, -ed, -ing), enough to match
    ``versions`` with ``version`` and ``supports`` with ``support``.

    >>> [stem(w) for w in ("versions", "supports", "classes", "libraries", "enabled", "running", "is")]
    ['version', 'support', 'class', 'library', 'enabl', 'runn', 'is']
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ses", "s"), ("ing", ""), ("ed", ""),
                         ("s", "")):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def tokens(text: str) -> list[str]:
    """Retrieval tokens: lower-cased, stemmed words, numbers and dotted names, without stopwords.

    Dotted and hyphenated names (``app.config``, ``x-sendfile``) yield the whole name
    and its parts; version numbers (``2.0.3``) stay whole.

    >>> tokens("Use app.config in Flask 2.0.3 versions!")
    ['app.config', 'app', 'config', 'flask', '2.0.3', 'version']
    """
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        word = m.group(0)
        if word in STOPWORDS:
            continue
        out.append(stem(word))
        if ("." in word or "-" in word) and any(c.isalpha() for c in word):
            out.extend(stem(p) for p in re.split(r"[.\-]", word) if p and p not in STOPWORDS)
    return out


def keywords(text: str, n: int = 3, exclude: Sequence[str] = ()) -> list[str]:
    """The ``n`` most frequent topic words of ``text`` (as first written), ties by first use.

    >>> keywords("The session cookie. Session data lives in the cookie; SECRET_KEY signs it.", 2)
    ['session', 'cookie']
    """
    skip = {e.lower() for e in exclude}
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    surface: dict[str, str] = {}
    for i, m in enumerate(_WORD.finditer(text)):
        word = m.group(0).rstrip(".")
        key = word.lower()
        if key in STOPWORDS or key in skip or len(key) < 4 or key.isdigit():
            continue
        counts[key] += 1
        first.setdefault(key, i)
        surface.setdefault(key, word)
    ranked = sorted(counts, key=lambda k: (-counts[k], first[k]))
    return [surface[k] for k in ranked[:n]]


def _where(page_title: str, section: Sequence[str]) -> str:
    inner = [s for s in section if s and s != page_title]
    return f'"{page_title}"' + (f', section "{inner[-1]}"' if inner else "")


def _series(words: Sequence[str]) -> str:
    if not words:
        return "general usage"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def contextual_prefix(release: str, page_title: str, section: Sequence[str], chunk_text: str) -> str:
    """A contextual prefix for a chunk (situates it in its page; prepended when indexing).

    >>> contextual_prefix("2.0.3", "Configuration Handling", ("Configuration Handling",
    ...     "Builtin Configuration Values"), "SECRET_KEY signs the session cookie. SECRET_KEY ...")
    'From the Flask 2.0.3 documentation, page "Configuration Handling", section "Builtin Configuration Values". This passage covers SECRET_KEY, signs and session.'
    """
    return (f"From the Flask {release} documentation, page {_where(page_title, section)}. "
            f"This passage covers {_series(keywords(chunk_text, 3))}.")


def generated_question(page_title: str, section: Sequence[str], chunk_text: str) -> str:
    """A question the chunk answers (doc2query style), appended when indexing.

    >>> generated_question("Quickstart", ("Quickstart", "Routing"), "Use the route decorator ...")
    'What does "Quickstart" explain about route and decorator in "Routing"?'
    """
    inner = [s for s in section if s and s != page_title]
    where = f' in "{inner[-1]}"' if inner else ""
    return (f'What does "{page_title}" explain about '
            f"{_series(keywords(chunk_text, 2))}{where}?")


def hypothetical_document(query: str, passages: Sequence[str]) -> str:
    """A hypothetical answer document for a query (HyDE), from the query and the
    passages a first retrieval pass found (pseudo-relevance feedback).

    >>> hypothetical_document("How is the secret key set?", ["SECRET_KEY signs the session cookie."])
    'A passage answering "How is the secret key set?" would discuss SECRET_KEY, signs, session and cookie.'
    """
    words = keywords(" ".join(passages), 6, exclude=tokens(query))
    return f'A passage answering "{query}" would discuss {_series(words)}.'
