"""PROV-N (W3C Recommendation, https://www.w3.org/TR/prov-n/), read and written by
the ``prov`` package (3.2 and later ship a PROV-N reader).

Reading uses prov's ``default`` profile: the Recommendation grammar plus the bare
``mentionOf`` keyword that ``prov`` and ProvToolbox write. A syntax error is
reported with its line and column.

A bundle's name is resolved with the prefixes in scope where the name appears, the
document's (PROV-N §3.3: namespace declarations inside a bundle apply to its body):
in ``bundle ex:b prefix ex <urn:inner:> ... endBundle`` the bundle is ``ex:b`` of the
document's ``ex``. The ``prov`` package (3.2) resolves it with the bundle's own
declarations, so its statements landed in another named graph than the one the
document names (issue 15); :func:`bundle_names` gives the graph names to use instead.
When the document does not declare the prefix at all, the bundle's declaration is
the only one there is: it is used, with a warning.
"""

from __future__ import annotations

from prov.model import ProvDocument
from prov.serializers.provn_lexer import Token, TokenKind, tokenize

import re

from ._prov import (LEXICAL_XSD, PARSED_TYPES, ProvRead, lexical_prefix, read_with_prov,
                    write_with_prov, written_prefix)

__all__ = ["read", "write", "bundle_names"]

_PREDECLARED = {"prov": "http://www.w3.org/ns/prov#", "xsd": "http://www.w3.org/2001/XMLSchema#"}


def read(data: bytes, name: str = "<input>", *, times: bool = True) -> ProvRead:
    """Read a PROV-N document (UTF-8).

    ``times=False`` leaves out the lexical forms of the formal times (and their warnings):
    for a part of a document, whose forms are found over the whole of it
    (:mod:`provgraph.io.provn_stream_read`).

    Returns:
        :class:`~provgraph.io._prov.ProvRead` whose ``bundle_names`` maps the name the
        ``prov`` package gave a bundle to the one the document gives it
        (:func:`bundle_names`).

    Raises:
        SerializationError: the text does not parse as PROV-N (line and column
            in the message) or holds a record the ``prov`` package rejects.
    """
    got = read_with_prov(_keep_forms(data), "provn", "PROV-N", name, profile="default")
    if times:
        got.add_times(_formal_times(data), name)
    if b"bundle" in data:
        names, warnings = bundle_names(data.decode("utf-8", errors="replace"))
        got.bundle_names.update(names)
        got.warnings += [f"{name}: {w}" for w in warnings]
    return got


def _formal_times(data: bytes) -> list[str]:
    """The lexical forms of the document's formal times: its bare ``xsd:dateTime`` tokens
    (PROV-N writes an attribute's time quoted, ``"..." %% xsd:dateTime``, so a bare one is
    always a formal argument). Read by the ``prov`` package's own lexer."""
    try:
        return [t.text for t in tokenize(data.decode("utf-8")) if t.kind is TokenKind.DATETIME]
    except Exception:  # noqa: BLE001 - it parsed: this cannot fail in practice
        return []


def _keep_forms(data: bytes) -> bytes:
    """``data`` with each ``%% xsd:T`` of :data:`~provgraph.io._prov.PARSED_TYPES` written
    in :data:`~provgraph.io._prov.LEXICAL_XSD` (declared right after ``document``, on its
    line, so line numbers hold), so the ``prov`` package keeps the literal's lexical form
    (issue 15). Unchanged when there is none, or when the text does not tokenize (the
    package then reports the error on the text as given)."""
    if b"%%" not in data:
        return data
    try:
        text = data.decode("utf-8")
        tokens = [t for t in tokenize(text) if t.kind is not TokenKind.EOF]
    except Exception:  # noqa: BLE001 - the prov package reports it on the original
        return data
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(t: Token) -> int:
        return starts[t.line - 1] + t.column - 1

    prefix = lexical_prefix(text)
    edits: list[tuple[int, int, str]] = []
    for before, t in zip(tokens, tokens[1:]):
        if before.kind is TokenKind.TYPED and t.kind is TokenKind.NAME \
                and t.value[0] == "xsd" and t.value[1] in PARSED_TYPES:
            edits.append((offset(t), offset(t) + len(t.text), f"{prefix}:{t.value[1]}"))
    head = next((t for t in tokens if t.kind is TokenKind.NAME and t.value == ("", "document")),
                None)
    if not edits or head is None:
        return data
    edits.append((offset(head) + len(head.text), offset(head) + len(head.text),
                  f" prefix {prefix} <{LEXICAL_XSD}>"))
    for start, end, new in sorted(edits, reverse=True):
        if text[start:end] not in (f"xsd:{new.split(':', 1)[-1]}", ""):
            return data  # positions are not what they seem: leave the text alone
        text = text[:start] + new + text[end:]
    return text.encode("utf-8")


def bundle_names(text: str) -> tuple[dict[str, str], list[str]]:
    """The bundles whose name uses a prefix (or the default namespace) that the bundle
    itself redeclares: ``{IRI with the bundle's declaration: IRI with the document's}``.

    Args:
        text: a PROV-N document that the ``prov`` package has read without error.

    Returns:
        ``(names, warnings)``: a warning for each bundle name whose prefix only the
        bundle declares (it keeps the bundle's resolution).

    See: PROV-N §3.3 (https://www.w3.org/TR/prov-n/#expression-bundle-constructor).

    Example:
        >>> bundle_names("document prefix ex <urn:o:> bundle ex:b prefix ex <urn:i:> "
        ...              "entity(ex:e) endBundle endDocument")[0]
        {'urn:i:b': 'urn:o:b'}
    """
    tokens = [t for t in tokenize(text) if t.kind is not TokenKind.EOF]
    names: dict[str, str] = {}
    warnings: list[str] = []
    i = 0

    def keyword(j: int, word: str) -> bool:
        return j < len(tokens) and tokens[j].kind is TokenKind.NAME and tokens[j].value == ("", word)

    def declarations(j: int) -> tuple[int, dict[str, str], str | None]:
        scope: dict[str, str] = {}
        default = None
        while True:
            if keyword(j, "prefix") and j + 2 < len(tokens):
                scope[tokens[j + 1].value[1]] = tokens[j + 2].value
                j += 3
            elif keyword(j, "default") and j + 1 < len(tokens):
                default = tokens[j + 1].value
                j += 2
            else:
                return j, scope, default

    while i < len(tokens) and not keyword(i, "document"):
        i += 1
    i, outer, outer_default = declarations(i + 1)
    outer = {**_PREDECLARED, **outer}
    depth = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind in (TokenKind.LPAREN, TokenKind.LBRACKET):
            depth += 1
        elif t.kind in (TokenKind.RPAREN, TokenKind.RBRACKET):
            depth -= 1
        elif depth == 0 and keyword(i, "bundle") and i + 1 < len(tokens):
            ident = tokens[i + 1]
            i, inner, inner_default = declarations(i + 2)
            prefix, local = ident.value
            inner_ns = inner.get(prefix) if prefix else inner_default
            if inner_ns is None:
                continue  # the bundle does not redeclare what its name uses
            outer_ns = outer.get(prefix) if prefix else outer_default
            if outer_ns is None:
                warnings.append(
                    f"line {ident.line}, column {ident.column}: the bundle name {ident.text} "
                    f"uses {'prefix ' + repr(prefix) if prefix else 'the default namespace'}, "
                    "which only the bundle declares; PROV-N resolves a bundle's name with the "
                    f"document's declarations, so it was read as <{inner_ns}{local}>. Declare "
                    "it in the document to make that explicit")
            elif outer_ns != inner_ns:
                names[inner_ns + local] = outer_ns + local
            continue
        i += 1
    return names, warnings


def write(doc: ProvDocument) -> bytes:
    """PROV-N text of ``doc`` (UTF-8); values of :data:`~provgraph.io._prov.PARSED_TYPES`
    keep their lexical form (issue 15)."""
    data = write_with_prov(doc, "provn", "PROV-N")
    prefix = written_prefix(doc)
    if prefix is None:
        return data
    p = prefix.encode()
    data = re.sub(rb"\n[ \t]*prefix " + p + rb" <" + re.escape(LEXICAL_XSD.encode()) + rb">", b"",
                  data)
    return re.sub(rb"(\" %% )" + p + rb":", rb"\1xsd:", data)
