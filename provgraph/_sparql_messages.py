"""Engine SPARQL syntax messages made readable (used by :mod:`provgraph._oxrdf`).

Pure text handling, no engine import: pyoxigraph's parser lists every token its grammar
accepts at the error position; :func:`short_syntax_message` keeps the position and the
first few.
"""

from __future__ import annotations

import re

__all__ = ["short_syntax_message"]

_EXPECTED = re.compile(r"(?s)(error at \d+:\d+: expected )(one of )?(.*)")
_SHOWN_TOKENS = 8


def short_syntax_message(message: str) -> str:
    """The engine's SPARQL syntax error, shortened: the position and the first expected tokens.

    pyoxigraph 0.5.13 lists every token its grammar accepts at the error position,
    character classes included (some 500 characters). This keeps ``error at L:C``,
    the first tokens, and says how many more there were; character classes become
    "a digit", "a name" or are left out.

    Example:
        >>> short_syntax_message("error at 1:26: expected one of LATERAL, SERVICE, [_]")
        'error at 1:26: expected one of LATERAL, SERVICE'
    """
    m = _EXPECTED.match(message)
    if m is None:
        return message if len(message) <= 300 else message[:297] + "..."
    tokens: list[str] = []
    for tok in _split_tokens(m.group(3)):
        if tok.startswith("["):
            tok = "a digit" if "'0'" in tok and "'A'" not in tok else \
                "a name" if "'A'" in tok or "'a'" in tok else ""
        if tok and tok not in tokens:
            tokens.append(tok)
    if not tokens:
        return m.group(1).rstrip() + " something else"
    more = len(tokens) - _SHOWN_TOKENS
    shown = ", ".join(tokens[:_SHOWN_TOKENS]) + (f" (and {more} more)" if more > 0 else "")
    return m.group(1) + ("one of " if len(tokens) > 1 else "") + shown


def _split_tokens(text: str) -> list[str]:
    """Split the engine's comma-separated token list, respecting quotes and brackets."""
    out: list[str] = []
    cur: list[str] = []
    depth, quote, i = 0, "", 0
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            depth += (c == "[") - (c == "]")
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out
