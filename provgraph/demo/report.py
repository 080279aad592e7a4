"""The demo's audit report (rich) and the calls into provgraph's libraries behind it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.tree import Tree

from ..store import ProvStore
from ..terms import term_value
from .findings import Finding, optional_module, unavailable
from .pipeline import PipelineResult
from .rst import PARSER_V1, PARSER_V2

if TYPE_CHECKING:
    from . import DemoResult

__all__ = ["library_findings", "counts", "render", "LINEAGE_QUESTION"]

LINEAGE_QUESTION = "q01"
"""The question whose quoted claim the report shows the lineage tree of."""

_COUNT_TYPES = """PREFIX pg: <https://w3id.org/provgraph/ns#>
SELECT ?type (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?type } GROUP BY ?type"""


def counts(store: ProvStore, result: PipelineResult) -> dict[str, Any]:
    """What the store holds, by provgraph class name, plus statements and runs."""
    out: dict[str, Any] = {}
    for row in store.select(_COUNT_TYPES):
        t = str(row["type"])
        if t.startswith("https://w3id.org/provgraph/ns#"):
            out[t.rsplit("#", 1)[1]] = term_value(row["n"])
    out["statements"] = len(store)
    out["named graphs"] = len(store.named_graphs())
    out["index entries"] = result.index_size
    return out


def library_findings(store: ProvStore, demo: DemoResult) -> dict[str, Finding]:
    """Ask provgraph's resolver, query library and exporter about the demo store."""
    findings: dict[str, Finding] = {}
    _, note = optional_module("provgraph.resolve", "resolve_run")
    findings["resolver"] = unavailable(note)
    _, note = optional_module("provgraph.analytics", "lineage", "stale", "impact",
                              "generated_evidence")
    for name in ("lineage", "stale", "impact", "generated_evidence"):
        findings[name] = unavailable(note)
    _, note = optional_module("provgraph.io", "get")
    findings["prov_json"] = unavailable(note)
    return findings


# ------------------------------------------------------------------ rendering
def _short(iri: str) -> str:
    if iri.startswith("ni:///sha-256;"):
        return "ni:///sha-256;" + iri[14:26] + "…"
    if iri.startswith("urn:provgraph:") and len(iri) > 40:
        return iri[:40] + "…"
    return iri


def _claim_label(demo: DemoResult, claim: str) -> str:
    qid = demo.claim_question.get(claim, "?")
    fact = demo.facts.get(claim)
    text = fact.text if fact else ""
    if len(text) > 70:
        text = text[:67] + "…"
    return escape(f"{qid} [{fact.kind if fact else '?'}] {text}")


def _recorded(demo: DemoResult) -> Table:
    c = demo.counts
    t = Table(title="What was recorded", show_header=True, header_style="bold")
    t.add_column("what")
    t.add_column("count", justify="right")
    p = demo.pipeline
    rows = [
        ("documents (pages)", c.get("Document", 0)),
        ("snapshots (2.0.3 + changed 3.0.3 pages; sha-256 retained)", c.get("SourceSnapshot", 0)),
        ("pages unchanged in 3.0.3 / removed in 3.0.3",
         f"{len(p.unchanged)} / {len(p.deleted)}" if p else "?"),
        ("extractions (docutils; parser 1.0, then 1.1 for every snapshot)", c.get("Extraction", 0)),
        ("chunks", c.get("Chunk", 0)),
        ("contextual prefixes / generated questions / HyDE documents (generated)",
         f"{c.get('ContextualPrefix', 0)} / {c.get('GeneratedQuestion', 0)} / "
         f"{c.get('HypotheticalDocument', 0)}"),
        ("indexed representations (prefix + chunk + question)", c.get("IndexedRepresentation", 0)),
        ("questions / retrievals / prompts / answers",
         f"{c.get('Query', 0)} / {c.get('Retrieval', 0)} / {c.get('GeneratorInput', 0)} / "
         f"{c.get('Answer', 0)}"),
        ("claims / citations", f"{c.get('Claim', 0)} / {c.get('Citation', 0)}"),
        ("statements in the store / named graphs", f"{c['statements']} / {c['named graphs']}"),
    ]
    for k, v in rows:
        t.add_row(k, str(v))
    return t


def _answers(demo: DemoResult) -> Table:
    t = Table(title="Answers (deterministic extractive reader over BM25 hits)", header_style="bold",
              show_lines=False)
    t.add_column("id")
    t.add_column("expects")
    t.add_column("answer", overflow="fold")
    t.add_column("cites")
    for q in demo.questions.values():
        pages = sorted({p for ps in q.cited_pages for p in ps if p})
        expect = q.expect.replace("stress_generated", "STRESS")
        t.add_row(q.id, expect, escape(q.answer),
                  ", ".join(p.replace("docs/", "") for p in pages) or "-")
    return t


def _note(console: Console, finding: Finding) -> bool:
    if not finding.available:
        console.print(f"  [yellow]{escape(finding.note)}[/yellow]")
        return False
    return True


def _lineage(console: Console, demo: DemoResult) -> None:
    q = demo.questions[LINEAGE_QUESTION]
    claim = q.claims[0]
    console.print(f"Claim of {q.id} ({q.question}):")
    console.print(f"  {claim}")
    finding = demo.findings["lineage"]
    if not _note(console, finding):
        return
    tree = Tree(_claim_label(demo, claim))
    for row in finding.value:
        tree.add(str(row))
    console.print(tree)


def _ground_truth_table(title: str, rows: list[tuple[str, ...]], headers: tuple[str, ...]) -> Table:
    t = Table(title=title, header_style="bold")
    for h in headers:
        t.add_column(h, overflow="fold")
    for r in rows:
        t.add_row(*r)
    return t


def _stale(console: Console, demo: DemoResult) -> None:
    _note(console, demo.findings["stale"])
    rows = []
    for claim, category in sorted(demo.stale.items(), key=lambda kv: (kv[1], demo.claim_question[kv[0]])):
        rows.append((category, _claim_label(demo, claim)))
    console.print(_ground_truth_table(
        "Stale claims: demo's own check from the recorded revisions, deletions and retained text",
        rows, ("why", "claim")))


def _parser(console: Console, demo: DemoResult) -> None:
    _note(console, demo.findings["impact"])
    rows = [(_claim_label(demo, c),) for c in sorted(demo.parser_affected, key=demo.claim_question.get)]
    console.print(_ground_truth_table(
        f"Claims whose cited text parser {PARSER_V2.version} no longer produces "
        f"({PARSER_V2.name} {PARSER_V1.version} -> {PARSER_V2.version}: function references "
        "rendered as url_for())", rows, ("claim",)))


def _generated(console: Console, demo: DemoResult) -> None:
    _note(console, demo.findings["generated_evidence"])
    rows = []
    for cit in sorted(demo.generated_targets, key=demo.citation_question.get):
        qid = demo.citation_question[cit]
        fact = next(c for f in demo.facts.values() for c in f.citations if c.iri == cit)
        rows.append((qid, escape(fact.cited_text or ""), _short(fact.target or fact.target_id)))
    console.print(_ground_truth_table(
        "Citations whose target is generated text (labelled stress condition)", rows,
        ("question", "quoted as if it were the source", "target (a ContextualPrefix)")))


def _commands(demo: DemoResult) -> list[str]:
    from ..cli import cli

    store = str(demo.store_path)
    claim = demo.questions[LINEAGE_QUESTION].claims[0]
    wanted = [
        ("query", f"provgraph --store {store} query lineage -p entity={claim} --table"),
        ("lineage", f"provgraph --store {store} lineage {claim}"),
        ("stale", f"provgraph --store {store} stale --table"),
        ("impact", f"provgraph --store {store} impact --agent {PARSER_V1.name} "
                   f"--version {PARSER_V1.version} --table"),
        ("resolve", f"provgraph --store {store} resolve"),
        ("export", f"provgraph --store {store} export {claim} -o claim.prov.json"),
        ("queries", "provgraph queries"),
    ]
    return [cmd for name, cmd in wanted if name in cli.commands]


def render(demo: DemoResult, console: Any = None) -> None:
    """Print the audit report of a demo run."""
    console = console or Console(file=sys.stdout)
    console.print(Panel.fit(
        "provgraph demo: a RAG pipeline over the Flask documentation, 2.0.3 then 3.0.3\n"
        "docutils parser -> chunker -> generated prefixes/questions/HyDE -> rank-bm25 -> "
        "context packing -> extractive reader\n"
        "no network, no language model: every generated text comes from "
        "provgraph-demo-generator 1.0, recorded as such", title="provgraph demo"))
    console.print(_recorded(demo))
    console.print(_answers(demo))
    console.rule("Resolver outcomes")
    if _note(console, demo.findings["resolver"]):
        for outcome, n in sorted(demo.findings["resolver"].value.items()):
            console.print(f"  {outcome}: {n}")
    console.rule("Lineage of one quoted claim")
    _lineage(console, demo)
    console.rule("Stale claims after Flask 3.0.3")
    _stale(console, demo)
    console.rule("Claims affected by the parser change")
    _parser(console, demo)
    console.rule("Generated evidence")
    _generated(console, demo)
    console.rule("PROV-JSON bundle")
    finding = demo.findings["prov_json"]
    if _note(console, finding):
        console.print(f"  {finding.value}")
    console.rule("Where things are")
    console.print(f"  store: {demo.store_path}  ({demo.counts.get('statements')} statements; "
                  f"originals under {demo.store_path / 'originals'})")
    console.print(f"  runs: " + ", ".join(f"{k} = {v}" for k, v in demo.runs.items()))
    console.print(f"  finished in {demo.seconds:.1f} s")
    console.print("  try next:")
    for cmd in _commands(demo):
        console.print(f"    {cmd}", soft_wrap=True, highlight=False)
