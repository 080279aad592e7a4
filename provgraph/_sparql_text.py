"""Lexical work on SPARQL text for the remote store (no engine, no network).

The remote store (:mod:`provgraph.remote`) sends query text to an engine it does not
control, so the substitutions pyoxigraph does in its query algebra are done here on
the text, token by token: comments, string literals and IRI references are never
touched, and every value written into the text has already been serialized (and
checked) by the store layer (:func:`provgraph.store.sparql_term`). User text is never
pasted: only terms are.

* :func:`query_form` - ``SELECT``, ``ASK``, ``CONSTRUCT`` or ``DESCRIBE``.
* :func:`substitute` - bind variables to terms (SPARQL 1.1 §18.2.1 "substitution"),
  rewriting a projected ``?x`` as ``(<term> AS ?x)`` so the row still carries it.
* :func:`graph_variable_paths` - property paths inside ``GRAPH ?g { ... }``, which
  Virtuoso 7.2 evaluates wrongly (issue 13).
* :func:`has_property_path` - whether a query uses a path operator at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

__all__ = ["query_form", "substitute", "graph_variable_paths", "has_property_path",
           "is_distinct", "group_keys", "Token"]

Token = tuple[str, str, int]
"""``(kind, text, offset)``; kind is ``ws``, ``comment``, ``string``, ``iri``, ``var``,
``word`` (keyword, prefixed name, number), or ``punct`` (one character)."""

_IRI = re.compile(r"<[^\s<>\"{}|^`\\]*>")
_VAR = re.compile(r"[?$][A-Za-z_0-9\u00b7\u00c0-\uffff]+")
_WORD = re.compile(r"[A-Za-z_0-9\u00b7\u00c0-\uffff][\w.\-:\u00b7\u00c0-\uffff%]*|:[\w.\-]*")


def tokens(text: str) -> Iterator[Token]:
    """The tokens of ``text``; joined back together they give ``text`` exactly."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            j = i
            while j < n and text[j].isspace():
                j += 1
            yield "ws", text[i:j], i
            i = j
            continue
        if c == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield "comment", text[i:j], i
            i = j
            continue
        if c in "\"'":
            q = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else c
            j = i + len(q)
            while j < n and text[j:j + len(q)] != q:
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + len(q))
            yield "string", text[i:j], i
            i = j
            continue
        if c == "<":
            m = _IRI.match(text, i)
            if m:
                yield "iri", m.group(), i
                i = m.end()
                continue
        if c in "?$":
            m = _VAR.match(text, i)
            if m:
                yield "var", m.group(), i
                i = m.end()
                continue
        m = _WORD.match(text, i)
        if m and m.end() > i:
            word = m.group()
            if word.endswith("."):  # a statement's final dot is punctuation
                word = word.rstrip(".") or word
            yield "word", word, i
            i += len(word)
            continue
        yield "punct", c, i
        i += 1


def _significant(text: str) -> list[Token]:
    return [t for t in tokens(text) if t[0] not in ("ws", "comment")]


def query_form(text: str) -> str | None:
    """The form of a SPARQL query: ``"SELECT"``, ``"ASK"``, ``"CONSTRUCT"``,
    ``"DESCRIBE"``, or ``None`` when none of them starts it (after the prologue).

    Example:
        >>> query_form("PREFIX ex: <urn:x#> # SELECT\\nASK { ?s ex:p ?o }")
        'ASK'
    """
    for kind, tok, _ in tokens(text):
        if kind == "word":
            up = tok.upper()
            if up in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
                return up
            if up not in ("PREFIX", "BASE") and not tok.endswith(":"):
                return None
    return None


def is_distinct(text: str) -> bool:
    """Whether the outer query is ``SELECT DISTINCT`` (or ``REDUCED``)."""
    sig = _significant(text)
    for i, (kind, tok, _) in enumerate(sig):
        if kind == "word" and tok.upper() == "SELECT":
            return i + 1 < len(sig) and sig[i + 1][1].upper() in ("DISTINCT", "REDUCED")
    return False


def group_keys(text: str) -> list[str]:
    """The variables of the outer query's ``GROUP BY`` (names without ``?``), or ``[]``
    when it has none or when it has an outer ``LIMIT``/``OFFSET`` (then its groups
    cannot be chosen after the fact). Expressions in the ``GROUP BY`` are skipped.

    Example:
        >>> group_keys("SELECT ?r (COUNT(*) AS ?n) { ?r ?p ?o } GROUP BY ?r ORDER BY ?r")
        ['r']
    """
    sig = _significant(text)
    depth, keys, in_group, paren = 0, [], False, 0
    for i, (kind, tok, _) in enumerate(sig):
        if tok in "{}" and kind == "punct":
            depth += 1 if tok == "{" else -1
            continue
        if depth:
            continue
        up = tok.upper() if kind == "word" else ""
        if up in ("LIMIT", "OFFSET"):
            return []
        if up == "GROUP" and i + 1 < len(sig) and sig[i + 1][1].upper() == "BY":
            in_group = True
            continue
        if in_group:
            if kind == "punct" and tok in "()":
                paren += 1 if tok == "(" else -1
            elif kind == "var" and paren == 0:
                keys.append(tok[1:])
            elif up and up != "BY" and paren == 0:
                in_group = False
    return keys


_CLAUSE_END = frozenset({"WHERE", "FROM"})
_MODIFIERS = frozenset({"ORDER", "GROUP", "HAVING"})
_MODIFIER_END = frozenset({"LIMIT", "OFFSET", "VALUES"})


def substitute(text: str, terms: Mapping[str, str]) -> str:
    """``text`` with each variable of ``terms`` replaced by its term (already in
    N-Triples/SPARQL syntax), as pyoxigraph's ``substitutions=`` binds them.

    In the outer ``SELECT`` clause ``?x`` becomes ``(TERM AS ?x)`` so the solutions still
    carry the variable; in a subquery's ``SELECT`` clause it is left out (the outer
    query carries it; projecting it there too would assign it twice, SPARQL 1.1 §18.2.1);
    after ``ORDER BY``, ``GROUP BY`` or ``HAVING`` it becomes ``(TERM)``; anywhere else
    (triple patterns, ``GRAPH``, expressions) ``TERM``.

    Raises:
        ValueError: a bound variable is the target of ``AS`` (``BIND``, a projection
            expression) or of a ``VALUES`` clause, where no term may stand; or a
            subquery projects only bound variables.

    Example:
        >>> substitute("SELECT ?s ?o WHERE { ?s ?p ?o } ORDER BY ?s", {"s": "<urn:b>"})
        'SELECT (<urn:b> AS ?s) ?o WHERE { <urn:b> ?p ?o } ORDER BY (<urn:b>)'
        >>> substitute("SELECT ?s ?n { { SELECT ?s ?n { ?s ?p ?n } } }", {"n": '"x"'})
        'SELECT ?s ("x" AS ?n) { { SELECT ?s  { ?s ?p "x" } } }'
    """
    if not terms:
        return text
    out: list[str] = []
    in_select = False
    select_depth = 0
    depth = 0  # parentheses
    in_modifier = False
    in_values = False
    prev = ""  # previous significant token, upper-cased
    braces = 0  # group depth: a SELECT inside a group is a subquery
    sub_select = False
    kept = 0  # projected items a subquery's SELECT clause keeps

    def end_select() -> None:
        if sub_select and kept == 0:
            raise ValueError("a subquery projects only bound variables; project another "
                             "variable there, or bind them in the outer query only")
    for kind, tok, _ in tokens(text):
        up = tok.upper() if kind == "word" else tok
        if kind == "word":
            if up == "SELECT":
                in_select, select_depth, in_modifier = True, depth, False
                sub_select, kept = braces > 0, 0
            elif in_select and up in _CLAUSE_END and depth == select_depth:
                end_select()
                in_select = False
            elif up in _MODIFIERS:
                in_modifier = True
            elif up in _MODIFIER_END:
                in_modifier = False
                in_values = up == "VALUES"
        elif kind == "punct":
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
            elif tok in "{}":
                if in_select and depth == select_depth:
                    end_select()
                    in_select = False
                braces += 1 if tok == "{" else -1
                in_modifier = in_modifier and tok != "{" and tok != "}"
                if tok == "{":
                    in_values = False
        if kind == "var" and tok[1:] in terms:
            term = terms[tok[1:]]
            if prev == "AS" or in_values:
                raise ValueError(f"cannot bind {tok}: the query assigns it "
                                 f"({'AS' if prev == 'AS' else 'VALUES'} {tok})")
            if in_select and depth == select_depth:
                if not sub_select:
                    out.append(f"({term} AS {tok})")
            elif in_modifier and depth == 0:
                out.append(f"({term})")
            else:
                out.append(term)
        else:
            out.append(tok)
            if in_select and kind in ("var", "punct") and depth == select_depth and tok != ")":
                kept += kind == "var" or tok == "(" or tok == "*"
        if kind not in ("ws", "comment"):
            prev = up
    return "".join(out)


def _path_operator_at(sig: list[Token], i: int) -> bool:
    """Whether token ``i`` of the significant tokens is a property-path operator."""
    kind, tok, _ = sig[i]
    if kind != "punct" or tok not in "+*/|^!":
        return False
    before = sig[i - 1] if i > 0 else ("punct", "{", 0)
    after = sig[i + 1] if i + 1 < len(sig) else ("punct", "}", 0)
    pred_like = {"iri", "word"}
    if before[0] == "word" and before[1].upper() in ("SELECT", "DISTINCT", "REDUCED"):
        return False  # SELECT *
    if tok in "+*":
        # p+ / (p|q)* : the operand before is a predicate or a closing group, and what
        # follows is an object (not an arithmetic operand of an expression)
        return (before[0] in pred_like or before[1] == ")") and (
            after[0] in ("var", "iri", "string") or after[1] in ("[", "(", "_")
            or after[0] == "word")
    if tok in "/|":
        return (before[0] in pred_like or before[1] in ")+*?") and (
            after[0] in pred_like or after[1] in "(^!")
    if tok == "^":  # an inverse path, not the ^^ of a typed literal
        return before[1] != "^" and before[0] != "string" and (
            after[0] in pred_like or after[1] == "(")
    # '!': a negated property set, not a logical NOT (!BOUND(?x), !(?a = ?b), !=)
    nxt = sig[i + 2] if i + 2 < len(sig) else ("punct", "}", 0)
    if after[0] == "iri":
        return True
    if after[1] == "(":
        return nxt[0] in pred_like or nxt[1] == "^"
    return after[0] == "word" and nxt[1] != "("


def has_property_path(text: str) -> bool:
    """Whether the query uses a property-path operator (``+ * / | ^ !``) between terms."""
    sig = _significant(text)
    return any(_path_operator_at(sig, i) for i in range(len(sig)))


def graph_variable_paths(text: str) -> list[str]:
    """The ``GRAPH ?g`` variables whose group holds a property path (SPARQL 1.1 §9).

    Virtuoso 7.2 returns wrong rows for such patterns (repeated and missing
    solutions), so the remote store refuses them on Virtuoso rather than answer wrongly.

    Example:
        >>> graph_variable_paths("SELECT * { GRAPH ?g { ?a <urn:p>+ ?b } ?a <urn:q>* ?c }")
        ['?g']
    """
    sig = _significant(text)
    found: list[str] = []
    for i, (kind, tok, _) in enumerate(sig):
        if kind != "word" or tok.upper() != "GRAPH" or i + 2 >= len(sig):
            continue
        if sig[i + 1][0] != "var" or sig[i + 2][1] != "{":
            continue
        depth, j = 0, i + 2
        while j < len(sig):
            if sig[j][1] == "{":
                depth += 1
            elif sig[j][1] == "}":
                depth -= 1
                if depth == 0:
                    break
            if _path_operator_at(sig, j):
                found.append(sig[i + 1][1])
                break
            j += 1
    return found


HIDDEN_PREFIX = "_pg_"
"""Variables the rewrites below introduce; readers drop them from result rows."""


LEXICAL_PREFIX = HIDDEN_PREFIX + "lex_"
"""Prefix of the variables :func:`with_lexical_forms` adds (``?_pg_lex_x`` for ``?x``)."""
_AGGREGATES = frozenset({"COUNT", "SUM", "AVG", "MIN", "MAX", "SAMPLE", "GROUP_CONCAT"})


def with_lexical_forms(text: str) -> str:
    """``text`` with ``(STR(?x) AS ?_pg_lex_x)`` added to the outer ``SELECT`` clause for
    each plain variable ``?x`` it projects: the same solutions, each also carrying the
    lexical form of its values. Virtuoso 7.2 writes an ``xsd:double`` result to 6
    significant digits in every results format (``34.35043`` comes back as ``34.3504``;
    virtuoso-opensource issue #1006) but ``STR()`` of it in full.

    Left unchanged: ``SELECT *``, grouped or aggregating queries, and queries that are
    not ``SELECT``.

    Example:
        >>> with_lexical_forms("SELECT DISTINCT ?s ?o WHERE { ?s ?p ?o }")
        'SELECT DISTINCT ?s ?o (STR(?s) AS ?_pg_lex_s) (STR(?o) AS ?_pg_lex_o) WHERE { ?s ?p ?o }'
    """
    if query_form(text) != "SELECT" or group_keys(text):
        return text
    toks = list(tokens(text))
    sig = [i for i, t in enumerate(toks) if t[0] not in ("ws", "comment")]
    start = next(n for n, i in enumerate(sig) if toks[i][0] == "word"
                 and toks[i][1].upper() == "SELECT")
    names: list[str] = []
    depth = 0
    for n in range(start + 1, len(sig)):
        kind, tok, _ = toks[sig[n]]
        up = tok.upper() if kind == "word" else tok
        if kind == "punct" and tok == "(":
            depth += 1
        elif kind == "punct" and tok == ")":
            depth -= 1
        elif depth == 0 and (up in _CLAUSE_END or tok == "{"):
            end = sig[n]
            break
        elif kind == "word" and up in _AGGREGATES:
            return text
        elif kind == "punct" and tok == "*" and depth == 0:
            return text
        elif kind == "var" and depth == 0:
            names.append(tok[1:])
    else:
        return text
    extra = "".join(f"(STR(?{v}) AS ?{LEXICAL_PREFIX}{v}) " for v in names)
    head = "".join(t for _, t, _ in toks[:end])
    return head + extra + "".join(t for _, t, _ in toks[end:])


def graph_constants_to_values(text: str) -> str:
    """``GRAPH <iri> { ... }`` rewritten as ``VALUES ?_pg_gN { <iri> } GRAPH ?_pg_gN { ... }``
    (the same solutions: an inline VALUES joins its group, SPARQL 1.1 §10.2.1).

    Virtuoso 7.2 matches nothing in ``GRAPH <iri>`` once a ``define
    input:default-graph-exclude`` pragma is in force, but matches ``GRAPH ?g``.

    Example:
        >>> graph_constants_to_values("ASK { GRAPH <urn:g> { ?s ?p ?o } }")
        'ASK { VALUES ?_pg_g1 { <urn:g> } GRAPH ?_pg_g1 { ?s ?p ?o } }'
    """
    toks = list(tokens(text))
    out: list[str] = []
    n = 0
    i = 0
    while i < len(toks):
        kind, tok, _ = toks[i]
        if kind == "word" and tok.upper() == "GRAPH":
            j = i + 1
            while j < len(toks) and toks[j][0] in ("ws", "comment"):
                j += 1
            if j < len(toks) and toks[j][0] == "iri":
                n += 1
                var = f"?{HIDDEN_PREFIX}g{n}"
                out.append(f"VALUES {var} {{ {toks[j][1]} }} {tok} {var}")
                i = j + 1
                continue
        out.append(tok)
        i += 1
    return "".join(out)


def values_into_where(text: str, clause: str) -> str:
    """``text`` with ``clause`` (a ``VALUES`` block) put last inside the outer ``WHERE``
    group: the join a trailing ``VALUES`` makes, before ``ORDER BY`` and the other
    solution modifiers (SPARQL 1.1 §18.2.4.3), which Virtuoso 7.2 applies first.

    Example:
        >>> values_into_where("SELECT ?s { ?s ?p ?o } ORDER BY ?s", "VALUES ?s { <urn:a> }")
        'SELECT ?s { ?s ?p ?o VALUES ?s { <urn:a> } } ORDER BY ?s'

    Raises:
        ValueError: the query has no group to put it in.
    """
    toks = list(tokens(text))
    depth = 0
    for i, (kind, tok, _) in enumerate(toks):
        if kind != "punct" or tok not in "{}":
            continue
        depth += 1 if tok == "{" else -1
        if depth == 0:
            return "".join(t for _, t, _ in toks[:i]) + clause + " " + "".join(
                t for _, t, _ in toks[i:])
    raise ValueError("the query has no WHERE group")


def exists_as_boolean(text: str) -> str:
    """``EXISTS { ... }`` used as a value (after ``(``, ``,``, ``||``, ``&&``) rewritten
    as ``STRDT(IF(EXISTS { ... }, "true", "false"), xsd:boolean)``: the same value, which
    Virtuoso 7.2 returns as an ``xsd:boolean`` (a bare ``EXISTS`` comes back as the
    integer 0 or 1, even under IF). ``FILTER EXISTS`` and ``NOT EXISTS`` are left alone.

    Example:
        >>> exists_as_boolean("SELECT * { BIND(EXISTS { ?s ?p ?o } AS ?x) }")
        'SELECT * { BIND(STRDT(IF(EXISTS { ?s ?p ?o }, "true", "false"), <http://www.w3.org/2001/XMLSchema#boolean>) AS ?x) }'
    """
    toks = list(tokens(text))
    out: list[str] = []
    prev = ""
    i = 0
    while i < len(toks):
        kind, tok, _ = toks[i]
        if kind == "word" and tok.upper() == "EXISTS" and prev in ("(", ",", "|", "&"):
            j = i + 1
            while j < len(toks) and toks[j][0] in ("ws", "comment"):
                j += 1
            depth, k = 0, j
            while k < len(toks):
                if toks[k][0] == "punct" and toks[k][1] in "{}":
                    depth += 1 if toks[k][1] == "{" else -1
                    if depth == 0:
                        break
                k += 1
            if j < len(toks) and toks[j][1] == "{" and k < len(toks):
                out.append("STRDT(IF(" + "".join(t for _, t, _ in toks[i:k + 1])
                           + ', "true", "false"), <http://www.w3.org/2001/XMLSchema#boolean>)')
                prev = ")"
                i = k + 1
                continue
        out.append(tok)
        if kind not in ("ws", "comment"):
            prev = tok
        i += 1
    return "".join(out)


def boolean_constants_typed(text: str) -> str:
    """``(true AS ?x)`` and ``(false AS ?x)`` rewritten with ``STRDT("true", xsd:boolean)``:
    the same value, which Virtuoso 7.2 returns as an ``xsd:boolean`` (a bare ``true``
    comes back as the integer 1).

    Example:
        >>> boolean_constants_typed("SELECT * { BIND(true AS ?x) }")
        'SELECT * { BIND(STRDT("true", <http://www.w3.org/2001/XMLSchema#boolean>) AS ?x) }'
    """
    toks = list(tokens(text))
    sig = [i for i, t in enumerate(toks) if t[0] not in ("ws", "comment")]
    out = [t[1] for t in toks]
    for n, i in enumerate(sig):
        kind, tok, _ = toks[i]
        if (kind == "word" and tok.lower() in ("true", "false") and 0 < n < len(sig) - 1
                and toks[sig[n - 1]][1] == "(" and toks[sig[n + 1]][1].upper() == "AS"):
            out[i] = f'STRDT("{tok.lower()}", <http://www.w3.org/2001/XMLSchema#boolean>)'
    return "".join(out)


def values_first_in_where(text: str, clause: str) -> str:
    """``text`` with ``clause`` (a ``VALUES`` block) put first inside the outer ``WHERE``
    group of a SELECT or ASK query: the variables keep their names (projections,
    ``GROUP BY`` and ``GRAPH ?g`` see them) and are bound before the group's patterns.

    Example:
        >>> values_first_in_where("SELECT ?s { ?s ?p ?o }", "VALUES ?s { <urn:a> }")
        'SELECT ?s { VALUES ?s { <urn:a> } ?s ?p ?o }'

    Raises:
        ValueError: the query has no group to put it in.
    """
    toks = list(tokens(text))
    for i, (kind, tok, _) in enumerate(toks):
        if kind == "punct" and tok == "{":
            return ("".join(t for _, t, _ in toks[:i + 1]) + " " + clause + "".join(
                t for _, t, _ in toks[i + 1:]))
    raise ValueError("the query has no WHERE group")
