"""HTML of the auditor's page (issue 19), rendered on the server from :mod:`provgraph.ui.views`.

Every value from the store (claim text, retained source text, IRIs, agent names) goes
through :func:`html.escape` and nowhere else: the page is built as text, never from a
store value as markup, so a retained source holding ``<script>`` shows those characters.
The pages carry no script at all; links and GET forms are the only interaction. The
lineage graph is inline SVG laid out here (no Graphviz).

A cited PDF region (issue 21) is drawn as inline SVG in the page's own coordinates: one
SVG user unit is one PDF point, and a box ``(x0, y0, x1, y1)`` of PDF user space (origin
bottom-left) becomes the rectangle ``x = x0, y = H - y1, width = x1 - x0, height = y1 - y0``
on a page of height ``H`` (SVG's origin is top-left): :func:`svg_rect` is that one
conversion. The PDF's words are SVG ``<text>`` holding escaped text, never markup.
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlencode

from .._rows import curie
from ..runs import RunRow
from ..schema.citation import Citation
from ..schema.claim import ClaimRecord
from ..schema.table import Box, TableRecord
from .views import (FILTERS, ClaimDrawer, CitationView, LineageView, RegionView, RunAnswers,
                    SnapshotView, outcome_class)

__all__ = ["page", "runs_page", "run_page", "claim_page", "lineage_page", "node_page",
           "stale_page", "impact_page", "error_page", "link", "svg_rect", "region_svg",
           "region_table"]

STATUS_LABELS = {"supported": "supported", "partial": "partially supported",
                 "unsupported": "uncertain / unsupported"}


def h(value: object) -> str:
    """``value`` as HTML text (``&``, ``<``, ``>``, quotes escaped); ``None`` is empty."""
    return "" if value is None else html.escape(str(value), quote=True)


def link(path: str, **params: object) -> str:
    """A URL of the page: ``path`` with ``params`` (``None`` values left out) encoded
    as a query string (the caller escapes it into an attribute with :func:`h`)."""
    q = {k: str(v) for k, v in params.items() if v is not None and v != ""}
    return f"{path}?{urlencode(q)}" if q else path


def a(path: str, text: object, cls: str = "", **params: object) -> str:
    c = f' class="{h(cls)}"' if cls else ""
    return f'<a href="{h(link(path, **params))}"{c}>{h(text)}</a>'


def page(title: str, body: str) -> str:
    """A whole HTML document: the navigation, ``title`` and ``body`` (already HTML)."""
    nav = " ".join((a("/ui/", "Runs"), a("/ui/stale", "Stale claims"),
                    a("/ui/impact", "Impact")))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{h(title)} · provgraph</title>"
            "<link rel=\"stylesheet\" href=\"/ui/static/ui.css\"></head><body>"
            f"<header><span class=\"brand\">provgraph</span><nav>{nav}</nav></header>"
            f"<main><h1>{h(title)}</h1>{body}</main></body></html>\n")


def error_page(status: int, message: str) -> str:
    """The page of a refused request: the status and the message, escaped."""
    return page(f"{status}", f'<p class="error" id="error">{h(message)}</p>')


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    head = "".join(f"<th>{h(x)}</th>" for x in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{h(cls)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def badge(display: str) -> str:
    return (f'<span class="badge status-{h(display)}" data-status="{h(display)}">'
            f"{h(STATUS_LABELS.get(display, display))}</span>")


def outcome_badge(outcome: str | None) -> str:
    o = outcome or "not resolved"
    return f'<span class="outcome outcome-{h(o.replace(" ", "_"))}" data-outcome="{h(o)}">{h(o)}</span>'


# ----------------------------------------------------------------------- runs

def runs_page(rows: list[RunRow]) -> str:
    """The runs list: one row per run, linking to its answers."""
    body = _table(("run", "label", "kind", "started", "claims", "statements"),
                  ((a("/ui/run", r.run, "run-link", iri=r.run), h(r.label), h(r.kind),
                    h(r.started.isoformat() if r.started else ""), h(r.claims), h(r.statements))
                   for r in rows), "runs")
    return page("Runs", f"<p>{len(rows)} runs. Open one to see its answers and claims.</p>{body}")


def _claim_item(run: str, c: ClaimRecord, cits: list[Citation], q: dict[str, Any],
                opened: str | None) -> str:
    display = outcome_class(c.status, [x.outcome for x in cits])
    mine = " open" if c.iri == opened else ""
    outcomes = " ".join(outcome_badge(x.outcome) for x in cits) or '<span class="muted">no citation</span>'
    href = link("/ui/run", iri=run, claim=c.iri, **q) + "#drawer"
    return (f'<li class="claim status-{h(display)}{mine}" data-claim="{h(c.iri)}">{badge(display)} '
            f'<span class="kind">{h(c.kind)}</span> '
            f'<a class="claim-link" href="{h(href)}">{h(c.text)}</a> {outcomes}</li>')


def run_page(view: RunAnswers, drawer: ClaimDrawer | None, q: dict[str, Any]) -> str:
    """A run's answers with their claims, the filter bar and, when a claim is open,
    its drawer beside them."""
    run = view.run
    filters = [a("/ui/run", "all claims", "filter" + (" on" if not view.filter else ""), iri=run)]
    for f in FILTERS:
        if f == "impacted":
            continue
        filters.append(a("/ui/run", f.replace("unreviewed", "not reviewed"),
                         "filter" + (" on" if view.filter == f else ""), iri=run, filter=f))
    form = (f'<form method="get" action="/ui/run" class="inline"><input type="hidden" name="iri" '
            f'value="{h(run)}"><input type="hidden" name="filter" value="impacted">'
            f'<label>impacted by agent <input name="agent" value="{h(q.get("agent"))}" size="18"></label>'
            f' <label>@ version <input name="version" value="{h(q.get("version"))}" size="6"></label>'
            ' <button type="submit">filter</button></form>')
    answers = []
    for ans in view.answers:
        opened = drawer.claim.iri if drawer else None
        items = "".join(_claim_item(run, c, cits, q, opened) for c, cits in ans.claims)
        answers.append(f'<section class="answer" data-answer="{h(ans.iri)}"><p class="answer-text">'
                       f"{h(ans.text)}</p><ul class=\"claims\">{items}</ul></section>")
    shown = (f'<p class="count" id="count">{view.shown} of {view.total} claims'
             + (f" ({h(view.filter)})" if view.filter else "")
             + (f"; answers page {view.page} of {view.pages}" if view.pages > 1 else "") + "</p>")
    if view.pages > 1:
        shown += '<p class="pager">' + " ".join(
            f"<strong>{p}</strong>" if p == view.page else a("/ui/run", p, iri=run, page=p, **q)
            for p in range(1, view.pages + 1)) + "</p>"
    left = (f'<div class="filters">{" ".join(filters)} {form}</div>{shown}'
            + ("".join(answers) or '<p class="muted">No claim matches.</p>'))
    right = f'<aside id="drawer" class="drawer">{drawer_html(drawer)}</aside>' if drawer else ""
    title = f"Run {view.label or run}"
    return page(title, f'<p class="iri">{h(run)}</p><div class="split"><div class="list">{left}'
                f"</div>{right}</div>")


# --------------------------------------------------------------------- drawer

_CONTEXT_LINES = 4


def _highlighted(n: int, s: SnapshotView) -> str:
    """The retained original with the cited span in a ``<mark>``: the lines around it
    first (``_CONTEXT_LINES`` either side, whole lines), then the whole text folded."""
    assert s.text is not None and s.span is not None
    text, (c0, c1) = s.text, s.span
    b0, b1 = s.span_bytes or (None, None)
    starts = [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]
    first = bisect.bisect_right(starts, c0) - 1
    last = bisect.bisect_right(starts, max(c0, c1 - 1)) - 1
    lo_line, hi_line = max(0, first - _CONTEXT_LINES), min(len(starts) - 1, last + _CONTEXT_LINES)
    lo = starts[lo_line]
    hi = starts[hi_line + 1] if hi_line + 1 < len(starts) else len(text)

    ident = f' id="hl-{n}"'

    def marked(ident: str) -> str:
        return (f'<mark{ident} class="cited-span" data-codepoint-start="{c0}" '
                f'data-codepoint-end="{c1}" data-byte-start="{h(b0)}" data-byte-end="{h(b1)}" '
                f'data-snapshot="{h(s.record.iri)}">{h(text[c0:c1])}</mark>')
    return (f'<h4>Retained original, cited span highlighted: code points [{c0}, {c1}), '
            f'bytes [{h(b0)}, {h(b1)}); lines {lo_line + 1}–{hi_line + 1} shown</h4>'
            f'<pre class="source excerpt">{h(text[lo:c0])}{marked(ident)}'
            f'{h(text[c1:hi])}</pre><details><summary>The whole retained original '
            f'({len(text)} code points)</summary><pre class="source whole">{h(text[:c0])}'
            f'{marked("")}{h(text[c1:])}</pre></details>')


def _snapshot_html(n: int, s: SnapshotView) -> str:
    r = s.record
    rows = [("source URI", h(r.source_uri)), ("sha-256", f'<code class="sha">{h(r.sha256)}</code>'),
            ("observed", h(r.observed_at.isoformat())), ("media type", h(r.media_type)),
            ("snapshot", a("/ui/node", r.iri, iri=r.iri))]
    out: list[str] = []
    if s.deleted:
        out.append('<p class="banner deleted" data-stale="deleted">This snapshot (or its document) '
                   "was deleted.</p>")
    if s.newer:
        tip = s.newer[0]
        out.append(f'<p class="banner newer" data-stale="updated">Newer version exists: observed '
                   f"{h(tip.observed_at.isoformat())}, sha-256 <code>{h(tip.sha256[:16])}…</code> "
                   f"({a('/ui/node', 'snapshot', iri=tip.iri)}).</p>")
    if s.text is not None and s.span is not None:
        out.append(_highlighted(n, s))
    elif s.text is not None:
        out.append(f'<h4>Retained original</h4><pre class="source">{h(s.text)}</pre>')
    out.append(_table(("", ""), rows, "facts"))
    chain = [*reversed(s.newer), r, *s.older]
    if len(chain) > 1:
        items = "".join(f'<li class="{"cited" if x.iri == r.iri else ""}">'
                        f"{h(x.observed_at.isoformat())} <code>{h(x.sha256[:16])}…</code>"
                        f"{' (cited)' if x.iri == r.iri else ''}</li>" for x in chain)
        out.append(f'<h4>Revision chain (newest first)</h4><ol class="revisions">{items}</ol>')
    if s.diff:
        lines = []
        for tag, old, new in s.diff:
            if tag == "equal":
                lines.append('<p class="muted" data-diff="unchanged">The cited lines are unchanged '
                             "in the newest version.</p>")
                continue
            lines += [f'<div class="del">- {h(x.rstrip())}</div>' for x in old]
            lines += [f'<div class="ins">+ {h(x.rstrip())}</div>' for x in new]
        out.append(f'<h4>Cited lines, against the newest version</h4><div class="diff">'
                   f'{"".join(lines)}</div>')
    if s.note:
        out.append(f'<p class="note">{h(s.note)}</p>')
    return "".join(out)


# --------------------------------------------------------------- PDF region

def _n(v: float) -> str:
    """A coordinate as the page writes it: up to 3 decimals (the recorded precision)."""
    return f"{v:.3f}".rstrip("0").rstrip(".") or "0"


def svg_rect(box: Box, height: float) -> tuple[str, str, str, str]:
    """``(x, y, width, height)`` of the SVG rectangle of ``box`` (PDF user space points,
    origin bottom-left) on a page ``height`` points high (SVG origin top-left), as the
    page writes them.

    >>> svg_rect((252.0, 622.0, 372.0, 642.0), 792.0)
    ('252', '150', '120', '20')
    """
    x0, y0, x1, y1 = box
    return _n(x0), _n(height - y1), _n(x1 - x0), _n(y1 - y0)


def _rect(box: Box, height: float, cls: str, extra: str = "") -> str:
    x, y, w, hh = svg_rect(box, height)
    return f'<rect class="{cls}" x="{x}" y="{y}" width="{w}" height="{hh}"{extra}/>'


def region_svg(n: int, rv: RegionView) -> str:
    """The region's page as inline SVG (one unit = one point): the page, its recorded words
    at their boxes (``<text>`` fitted to the box with ``textLength``; boxes only when the
    layout has no word boxes), the table's cell grid and the cited region's box. Drawn
    twice: the whole page, and zoomed to the table (or the region) with a margin."""
    r = rv.region
    assert rv.page_size is not None
    width, height = rv.page_size
    parts = [f'<rect class="page" x="0" y="0" width="{_n(width)}" height="{_n(height)}"/>']
    if rv.table is not None:
        parts.append(_rect(rv.table.bbox, height, "table-box"))
        for c in rv.table.cells:
            if c.bbox is not None:
                cls = "cell header" if c.header else "cell"
                parts.append(_rect(c.bbox, height, cls,
                                   f' data-row="{c.row}" data-column="{c.col}"'))
    words = []
    for text, (x0, y0, x1, y1) in rv.page_words:
        size = max(1.0, (y1 - y0) * 0.9)
        words.append(f'<text x="{_n(x0)}" y="{_n(height - y0 - (y1 - y0) * 0.2)}" '
                     f'font-size="{_n(size)}" textLength="{_n(x1 - x0)}" '
                     f'lengthAdjust="spacingAndGlyphs">{h(text)}</text>')
    if not rv.page_words:
        words.append('<text class="note" x="8" y="16" font-size="11">no word boxes recorded: '
                     "boxes only</text>")
    x, y, w, hh = svg_rect(r.bbox, height)

    def cited(ident: str) -> str:
        return (f'<rect class="cited-region" id="{ident}" x="{x}" y="{y}" width="{w}" '
                f'height="{hh}" data-bbox="{",".join(_n(v) for v in r.bbox)}" '
                f'data-page-height="{_n(height)}" data-precision="{h(r.precision)}"/>')
    grid, text = "".join(parts), "".join(words)
    inner_whole = grid + cited(f"region-rect-{n}") + text
    inner_zoom = grid + cited(f"region-zoom-rect-{n}") + text
    focus = rv.table.bbox if rv.table is not None else r.bbox
    m = 24.0
    fx, fy = max(0.0, focus[0] - m), max(0.0, height - focus[3] - m)
    fw, fh = min(width, focus[2] + m) - fx, min(height, height - focus[1] + m) - fy
    label = h(f"page {r.page} of {rv.document}")
    whole = (f'<svg xmlns="http://www.w3.org/2000/svg" class="pdf-page" id="region-page-{n}" '
             f'viewBox="0 0 {_n(width)} {_n(height)}" width="{_n(width / 2)}" '
             f'height="{_n(height / 2)}" role="img" aria-label="{label}">{inner_whole}</svg>')
    zoom = (f'<svg xmlns="http://www.w3.org/2000/svg" class="pdf-page zoom" id="region-zoom-{n}" '
            f'viewBox="{_n(fx)} {_n(fy)} {_n(fw)} {_n(fh)}" width="{_n(min(560.0, fw * 1.4))}" '
            f'role="img" aria-label="{label}, the region enlarged">{inner_zoom}</svg>')
    return f'<div class="pdf-drawing">{zoom}{whole}</div>'


def region_table(n: int, rv: RegionView) -> str:
    """The region's table as an HTML table (escaped text): its header rows as extracted,
    or a visible "header not extracted" row; the cited cell marked, its row and column
    shaded."""
    t: TableRecord | None = rv.table
    if t is None:
        return ""
    r = rv.region
    rows = []
    if t.header_rows == 0:
        rows.append(f'<tr class="header-missing"><td colspan="{t.cols}">header not extracted '
                    "(no header row of this table was extracted)</td></tr>")
    for i in range(t.rows):
        cells = []
        for j in range(t.cols):
            c = t.cell(i, j)
            if c is None:
                cells.append('<td class="merged"></td>')
                continue
            cited = r.row == i and r.column == j
            cls = " ".join(x for x in (
                "cited-cell" if cited else "", "cited-row" if r.row == i else "",
                "cited-column" if r.column == j else "",
                "cited-table" if r.precision == "table" else "") if x)
            tag = "th" if c.header else "td"
            ident = f' id="cited-cell-{n}"' if cited else ""
            cells.append(f'<{tag}{ident} class="{cls}" data-row="{i}" data-column="{j}">'
                         f"{h(c.text)}</{tag}>")
        rows.append(f'<tr class="{"header" if i < t.header_rows else ""}">{"".join(cells)}</tr>')
    return f'<table class="pdf-table" id="region-table-{n}"><tbody>{"".join(rows)}</tbody></table>'


def _region_html(n: int, rv: RegionView) -> str:
    """The cited PDF region: page, box and units, precision, outcome and gaps in words, the
    drawing of the page, the table, the header path and the RFC 8118 fragment as text."""
    r = rv.region
    box = ",".join(_n(v) for v in r.bbox)
    where = [f"page {r.page}"]
    if r.row is not None and r.column is not None:
        where.append(f"row {r.row}, column {r.column}, counted from 0")
    rows = [("page", f'<span class="region-page">{r.page}</span>'),
            ("box", f'<span class="region-box">[{h(box.replace(",", ", "))}]</span> PDF points (1/72 inch), origin '
             "bottom-left of the page (x0, y0, x1, y1)"),
            ("precision", f'<span class="region-precision">{h(r.precision or "not resolved")}</span>'),
            ("outcome", f'<span class="region-outcome">{outcome_badge(r.outcome)}</span>'
             + (" " + " ".join(f'<span class="gap" data-gap="{h(g)}">{h(g)}</span>'
                               for g in r.context_gaps))),
            ("in words", f'<span class="region-words">{h(rv.words)}</span>'),
            ("header path", f'<span class="header-path">{h(" > ".join(r.header_path))}</span>'
             if r.header_path else '<span class="header-path none">(none extracted)</span>'),
            ("cell", f'<q class="region-text">{h(r.text)}</q> ({h(", ".join(where))})'
             if r.text is not None else h(", ".join(where))),
            ("fragment", f'<code class="fragment">{h(rv.document)}#{h(rv.fragment)}</code> '
             "(RFC 8118)")]
    out = [f'<div class="pdf-region" id="region-{n}" data-page="{r.page}" data-bbox="{h(box)}" '
           f'data-precision="{h(r.precision)}" data-outcome="{h(r.outcome)}" '
           f'data-gaps="{h(" ".join(r.context_gaps))}" data-table="{h(r.table)}" '
           f'data-row="{h(r.row)}" data-column="{h(r.column)}">',
           f"<h4>Cited region of the PDF: page {r.page}</h4>", _table(("", ""), rows, "facts region-facts")]
    if rv.page_size is not None:
        out.append(region_svg(n, rv))
    else:
        out.append('<p class="note">The extraction recorded no page layout: no drawing.</p>')
    if rv.table is not None:
        out.append(f"<h4>The table as extracted ({rv.table.rows} rows × {rv.table.cols} columns, "
                   f"{rv.table.header_rows} header row(s))</h4>" + region_table(n, rv))
    out.append("</div>")
    return "".join(out)


def _citation_html(n: int, v: CitationView) -> str:
    c = v.citation
    rng = (f"[{c.start}, {c.end}{']' if c.end_inclusive else ')'} {c.unit}" if c.has_range else "none")
    rows = [("outcome", outcome_badge(c.outcome)), ("reason", h(c.reason)),
            ("target", h(c.target_id)), ("range", h(rng))]
    if c.quote is not None:
        rows.append(("quote", f'<q class="quote">{h(c.quote)}</q>'))
    out = [f'<section class="citation" data-citation="{h(c.iri)}" data-outcome="{h(c.outcome)}">'
           f"<h3>Citation {n}</h3>", _table(("", ""), rows, "facts")]
    if v.region is not None:
        out.append(_region_html(n, v.region))
    if v.generated_text is not None:
        out.append('<h4>Generated text it pointed at (not an original)</h4>'
                   f'<pre class="generated">{h(v.generated_text)}</pre>')
    if v.snapshot is not None:
        out.append(_snapshot_html(n, v.snapshot))
    elif v.generated_text is None:
        out.append('<p class="muted">No retained snapshot was located for this citation.</p>')
    out.append("</section>")
    return "".join(out)


def _formed(d: ClaimDrawer) -> str:
    """The compact 'how this was formed' line."""
    c = d.claim
    outcomes = ", ".join(v.citation.outcome or "not resolved" for v in d.citations) or "no citation"
    snaps = [v.snapshot for v in d.citations if v.snapshot is not None]
    src = "; ".join(f"{s.record.source_uri} observed {s.record.observed_at.date().isoformat()}"
                    for s in snaps)
    agents = ", ".join(f"{x.role} {x.label}" for x in d.agents)
    parts = [f"A {c.kind} claim recorded {c.status}", f"resolver: {outcomes}"]
    if d.operands:
        parts.append(f"derived from {len(d.operands)} operand(s) by {c.warrant or 'no stated warrant'}")
    if src:
        parts.append(f"from {src}")
    if agents:
        parts.append(f"through {agents}")
    return h(". ".join(parts) + ".")


def drawer_html(d: ClaimDrawer) -> str:
    """The citation drawer's HTML (see :class:`provgraph.ui.views.ClaimDrawer`)."""
    c = d.claim
    out = [f'<div class="drawer-inner status-{h(d.display)}" data-claim="{h(c.iri)}">',
           f"<h2>Claim {badge(d.display)}</h2>",
           f'<blockquote class="claim-text" id="claim-text">{h(c.text)}</blockquote>',
           f'<p class="formed" id="formed">{_formed(d)}</p>',
           '<p class="actions">' + a("/ui/lineage", "Lineage", "button", iri=c.iri) + " "
           + a("/ui/bundle", "Export this claim's bundle", "button", iri=c.iri) + " "
           + a("/ui/claim", "Open alone", "", iri=c.iri) + "</p>"]
    if d.operands:
        items = "".join("<li>" + (a("/ui/claim", text, "operand", iri=o) if text is not None
                                  else a("/ui/node", o, "operand", iri=o)) + "</li>"
                        for o, text in d.operands)
        out.append(f'<h3>Derived from</h3><ol class="operands">{items}</ol>'
                   f'<p>Warrant: <code id="warrant">{h(c.warrant)}</code></p>')
    out += [_citation_html(i + 1, v) for i, v in enumerate(d.citations)]
    if d.stale:
        stale_rows = [(h(r.kind), a("/ui/node", r.newest, iri=r.newest) if r.newest else "",
                       h(r.changed_at.isoformat() if r.changed_at else ""),
                       h({True: "unchanged", False: "changed", None: "cannot tell"}[r.span_unchanged]))
                      for r in d.stale]
        out.append("<h3>Stale (as 'provgraph stale')</h3>"
                   + _table(("kind", "newest", "changed at", "cited span"), stale_rows, "stale-rows"))
    out.append("<h3>Claim record</h3>" + _table(("", ""), [
        ("claim", h(c.iri)), ("kind", h(c.kind)), ("recorded status", h(c.status)),
        ("run", a("/ui/run", c.run, iri=c.run))], "facts"))
    if not d.citations:
        out.append('<p class="muted">This claim cites nothing'
                   + (" of its own: it rests on its operands." if d.operands else ".") + "</p>")
    if d.prompt:
        parts = "".join(f'<span class="origin-{h(p.origin)}" title="{h(p.origin)} {h(p.source)}">'
                        f"{h(p.text)}</span>" for p in d.prompt)
        legend = " ".join(f'<span class="origin-{o}">{o}</span>'
                          for o in ("original", "generated", "instruction", "query"))
        out.append(f'<h3>The prompt the model saw</h3><p class="legend">{legend}</p>'
                   f'<pre class="prompt" id="prompt">{parts}</pre>')
    if d.reviews:
        rows = [(h(r.reviewer.label if hasattr(r.reviewer, "label") else r.reviewer),
                 h("adjudication" if r.adjudication else "review"),
                 h(", ".join(f"{v.kind}={v.value}" for v in r.verdicts))) for r in d.reviews]
        out.append("<h3>Reviews</h3>" + _table(("by", "what", "verdicts"), rows, "reviews"))
    else:
        out.append('<p class="muted" id="review-status">Not reviewed.</p>')
    out.append("</div>")
    return "".join(out)


def claim_page(d: ClaimDrawer) -> str:
    """The drawer of one claim as a page of its own."""
    return page("Claim", f'<div id="drawer" class="drawer alone">{drawer_html(d)}</div>')


# -------------------------------------------------------------------- lineage

_ACTIVITY = {"prov:wasGeneratedBy", "prov:wasInformedBy", "prov:wasStartedBy", "prov:wasEndedBy",
             "prov:hadActivity", "prov:used"}
_AGENT = {"prov:wasAssociatedWith", "prov:wasAttributedTo", "prov:actedOnBehalfOf"}
_W, _H, _GX, _GY = 230, 38, 60, 12


def _category(relation: str | None) -> str:
    if relation in _AGENT:
        return "agent"
    if relation in _ACTIVITY - {"prov:used"}:
        return "activity"
    return "entity"


def lineage_svg(view: LineageView) -> str:
    """The lineage graph as inline SVG: one column per depth, PROV's colours (entities
    yellow, activities blue, agents orange), each node a link to its page."""
    pos = {n.row.node: (20 + n.layer * (_W + _GX), 20 + n.slot * (_H + _GY)) for n in view.nodes}
    width = 40 + (max((n.layer for n in view.nodes), default=0) + 1) * (_W + _GX)
    height = 40 + (max((n.slot for n in view.nodes), default=0) + 1) * (_H + _GY)
    lines = []
    for src, rel, up in view.edges:
        (x1, y1), (x2, y2) = pos[src], pos[up]
        sx, ex = (x1 + _W, x2) if x2 > x1 else (x1, x2 + _W) if x2 < x1 else (x1 + _W, x2 + _W)
        lines.append(f'<path class="edge" d="M{sx},{y1 + _H // 2} C{(sx + ex) // 2},{y1 + _H // 2} '
                     f'{(sx + ex) // 2},{y2 + _H // 2} {ex},{y2 + _H // 2}"><title>{h(rel)}</title></path>')
    nodes = []
    for n in view.nodes:
        x, y = pos[n.row.node]
        cat = "entity" if n.row.depth == 0 else _category(n.row.relation)
        label = n.row.label if len(n.row.label) <= 34 else n.row.label[:33] + "…"
        nodes.append(f'<a class="node node-{cat}" href="{h(link("/ui/node", iri=n.row.node))}" '
                     f'data-node="{h(n.row.node)}" data-kind="{h(n.row.kind)}">'
                     f"<title>{h(n.row.kind)} {h(n.row.node)}\n{h(n.row.label)}</title>"
                     f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="{12 if cat == "entity" else 2}"/>'
                     f'<text x="{x + 6}" y="{y + 15}" class="k">{h(n.row.kind)}</text>'
                     f'<text x="{x + 6}" y="{y + 31}">{h(label)}</text></a>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="lineage" id="lineage-graph" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="lineage graph">{"".join(lines)}{"".join(nodes)}</svg>')


def lineage_page(view: LineageView, bundle: Any, check: Any) -> str:
    """The lineage graph of a claim, its rows (as ``provgraph lineage --table``), and
    the claim bundle's verification."""
    ok = check.ok
    verdict = (f'<p class="banner {"ok" if ok else "deleted"}" id="bundle-check" data-ok="{str(ok).lower()}" '
               f'data-sha256="{h(check.actual)}">Bundle <code>{h(bundle.bundle)}</code> '
               + (f"verifies: sha-256 <code>{h(check.actual)}</code> over {check.statements} statements."
                  if ok else f"does NOT verify: recorded {h(check.recorded)}, content {h(check.actual)}.")
               + " " + a("/ui/bundle", "Download the sealed PROV-JSON", "button", iri=view.root)
               + "</p>")
    rows = [(h(n.row.depth), h(n.row.kind), h(n.row.relation), a("/ui/node", n.row.node, iri=n.row.node),
             h(n.row.label)) for n in view.nodes]
    body = (f'<p class="iri">{h(view.root)} · {len(view.nodes)} nodes · '
            + a("/ui/claim", "citation drawer", iri=view.root) + "</p>" + verdict
            + f'<div class="graph">{lineage_svg(view)}</div><h2>Nodes</h2>'
            + _table(("depth", "kind", "relation", "node", "label"), rows, "lineage-rows"))
    return page("Lineage", body)


def node_page(iri: str, statements: list[tuple[str, str, bool]], kinds: list[str]) -> str:
    """One node's own statements: ``(predicate IRI, object, object is an IRI)``."""
    rows: list[tuple[str, str]] = [(h(curie(p)), a("/ui/node", o, iri=o) if is_iri else h(o))
                                   for p, o, is_iri in statements]
    body = (f'<p class="iri">{h(iri)} ({h(", ".join(kinds))})</p><p class="actions">'
            + a("/ui/lineage", "Lineage", "button", iri=iri) + " "
            + (a("/ui/claim", "Citation drawer", "button", iri=iri) if "pg:Claim" in kinds else "")
            + "</p>" + _table(("predicate", "object"), rows, "statements"))
    return page("Node", body)


# -------------------------------------------------------------- stale, impact

_GROUPS: tuple[tuple[str, Callable[[Any], bool]], ...] = (("updated, cited span changed", lambda r: r.kind == "updated" and r.span_unchanged is False),
           ("updated, cited span unchanged", lambda r: r.kind == "updated" and r.span_unchanged is True),
           ("updated, cannot tell", lambda r: r.kind == "updated" and r.span_unchanged is None),
           ("deleted", lambda r: r.kind == "deleted"))


def stale_page(rows: list[Any], texts: dict[str, str], run: str | None,
               snaps: dict[str, str]) -> str:
    """Stale claims (``provgraph stale``) in groups: updated with the cited span changed,
    unchanged or undecidable, and deleted; with the CSV link."""
    out = [f'<p>{len(rows)} stale claims{" in run " + h(run) if run else ""}. '
           + a("/ui/stale.csv", "Download CSV", "button", run=run) + "</p>"]
    for title, test in _GROUPS:
        group = [r for r in rows if test(r)]
        trs = [(a("/ui/claim", texts.get(r.claim, r.claim), "claim-link", iri=r.claim),
                a("/ui/node", snaps.get(r.snapshot, r.snapshot), iri=r.snapshot),
                a("/ui/node", snaps.get(r.newest, r.newest), iri=r.newest) if r.newest else "",
                h(r.changed_at.isoformat() if r.changed_at else "")) for r in group]
        out.append(f'<section class="stale-group" data-group="{h(title)}"><h2>{h(title)} '
                   f"({len(group)})</h2>"
                   + (_table(("claim", "cited snapshot", "newest", "changed at"), trs, "stale")
                      if group else '<p class="muted">none</p>') + "</section>")
    return page("Stale claims", "".join(out))


def impact_page(rows: list[Any], texts: dict[str, str], agent: str | None, version: str | None,
                agents: list[tuple[str, str]], stale: dict[str, str]) -> str:
    """Claims impacted by an agent (``provgraph impact``), with the agent form and CSV link."""
    choices = " ".join(a("/ui/impact", f"{n} {v}".strip(), "agent", agent=n, version=v)
                       for n, v in agents)
    form = ('<form method="get" action="/ui/impact" class="inline"><label>agent <input name="agent" '
            f'value="{h(agent)}"></label> <label>version <input name="version" value="{h(version)}" '
            'size="8"></label> <button type="submit">show</button></form>')
    out = [form, f'<p class="agents">Agents: {choices}</p>']
    if agent:
        out.append(f'<p id="count">{len(rows)} claims went through {h(agent)} {h(version or "(any version)")}. '
                   + a("/ui/impact.csv", "Download CSV", "button", agent=agent, version=version) + "</p>")
        trs = [(a("/ui/claim", texts.get(r.claim, r.claim), "claim-link", iri=r.claim),
                a("/ui/run", r.run, iri=r.run), h(f"{r.agent_name} {r.agent_version}"),
                f'<span data-stale="{h(stale.get(r.claim, "current"))}">{h(stale.get(r.claim, "current"))}</span>')
               for r in rows]
        out.append(_table(("claim", "run", "agent", "source since"), trs, "impact"))
    return page("Impact of an agent version", "".join(out))
