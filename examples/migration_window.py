"""The migration-window case (issue 21), end to end, on examples/ops-guide.pdf.

An assistant answers "The migration window is four hours", citing page 18 of an
operations guide, where a two-column table gives four hours for a standard migration and
eight for one with data backfill. Run it in the checkout's directory (needs the pdf extra:
pip install 'provgraph[pdf]'):

    python examples/migration_window.py

1. The guide is ingested with pdfplumber's ``lines-strict`` table settings: the header row,
   drawn on a shaded band with no ruling line above it, is not extracted. The claim cites
   the cell "Four hours" and the resolver says ``context_not_extracted``
   (``header_not_extracted``): the quote is in the cell, but the extraction cannot show
   what the number is the window of.
2. The guide is ingested again with the ``lines`` settings (a new parser version), which
   keep the header. The same claim on the new cell is a verified quotation
   (``quote_match``) with the header path ``Window`` and the row ``Standard``.
3. ``impact`` of the old parser version lists every claim that went through it (also a
   claim on the on-call table, which both versions parse alike);
   ``changed_cells`` narrows it to the claims on cells the new version parsed differently.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from provgraph import EmbeddedStore, Recorder
from provgraph.analytics import impact
from provgraph.pdf import parser_version, record_pdf
from provgraph.regions import changed_cells, region_for_citation
from provgraph.resolve import resolve_run

PDF = Path(__file__).with_name("ops-guide.pdf")
ANSWER = "The migration window is four hours. Page the database team at db-oncall."
T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.timezone.utc)


def ask(store: EmbeddedStore, snapshot: object, profile: str, minute: int) -> tuple[object, list[object]]:
    """Ingest the guide with ``profile`` and record one answer citing its cells."""
    rec = Recorder(store, label=f"ops-assistant ({profile})", packages=[],
                   clock=lambda: T0 + dt.timedelta(minutes=minute))
    _, tables = record_pdf(rec, snapshot, profile=profile)  # type: ignore[arg-type]
    migration, contacts = tables[0], tables[1]
    four = next(c for c in migration.cells if c.text == "Four hours")
    pager = next(c for c in contacts.cells if c.text == "db-oncall")
    prompt = rec.context_packing(text=f"{four.text}\n{pager.text}", segments=[])
    answer = rec.generation(prompt, model=("ops-model", "2026-02"), text=ANSWER)
    first = rec.claim(answer, start=0, end=35, kind="paraphrase")
    second = rec.claim(answer, start=36, end=len(ANSWER), kind="paraphrase")
    cits = [rec.citation(first, target=four.iri, quote="Four hours"),
            rec.citation(second, target=pager.iri, quote="db-oncall")]
    return rec, cits


def record_case(store: EmbeddedStore) -> list[tuple[object, list[object], object]]:
    """Record the case into ``store``: the guide's snapshot, its two ingestions
    (``lines-strict``, then ``lines``) with one answer each, resolved. Returns one
    ``(recorder, citations, resolution)`` per parser version, in that order; the first
    citation of each cites the "Four hours" cell (tests and bench/bench_ui.py reuse this)."""
    ingest = Recorder(store, label="ingest", packages=[], clock=lambda: T0)
    snap = ingest.snapshot(PDF.read_bytes(), uri="https://example.org/ops-guide.pdf",
                           media_type="application/pdf")
    out = []
    for minute, profile in ((1, "lines-strict"), (2, "lines")):
        rec, cits = ask(store, snap, profile, minute)
        out.append((rec, cits, resolve_run(store, rec.iri)))  # type: ignore[attr-defined]
    return out


def main() -> None:
    store = EmbeddedStore()
    data = PDF.read_bytes()
    cases = record_case(store)
    first = cases[0][1][0]
    print(f"ops-guide.pdf: {len(data)} bytes, snapshot "
          f"{region_for_citation(store, str(first.iri)).snapshot}")  # type: ignore[attr-defined]
    for (rec, cits, res), profile in zip(cases, ("lines-strict", "lines")):
        print(f"\n== parser pdfplumber {parser_version(profile)}")
        for cit, r in res.items[:1]:  # type: ignore[attr-defined]
            reg = region_for_citation(store, str(cit.iri))
            print(f"claim: {ANSWER[:35]!r} cites {cit.quote!r}")
            print(f"  outcome:     {r.outcome}" + (f" ({', '.join(r.context_gaps)})"
                                                  if r.context_gaps else ""))
            print(f"  precision:   {reg.precision}; page {reg.page}, table {reg.table.rsplit(':', 1)[-1][:8]}, "
                  f"row {reg.row}, column {reg.column}")
            print(f"  box (pt):    {list(reg.bbox)} (PDF user space, origin bottom-left)")
            print(f"  header path: {list(reg.header_path) or '(none extracted)'}; "
                  f"row: {list(reg.row_cells)}")
            print(f"  selector:    {reg.selectors[0]['value']}")
            print(f"  reason:      {r.reason}")
    old = parser_version("lines-strict")
    print(f"\n== impact --agent pdfplumber --version {old}")
    for row in impact(store, "pdfplumber", version=old):
        print(f"  {row.claim}")
    print("== of which, on a cell the new parser version reads differently")
    for ch in changed_cells(store, "pdfplumber", old):
        print(f"  {ch.claim}: {ch.change} {ch.old_header_path or '(no header)'!s} -> "
              f"{ch.new_header_path} (cell {ch.old_text!r})")
    store.close()


if __name__ == "__main__":
    main()
