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
from ..terms import IRI, Literal, term_value
from ..vocab import OA, PG, PROV, RDF
from .findings import Finding, optional_module, unavailable
from .pipeline import PipelineResult
from .rst import PARSER_V1, PARSER_V2

if TYPE_CHECKING:
    from . import DemoResult

__all__ = ["library_findings", "counts", "render", "LINEAGE_QUESTION", "RESOLVER_POLICY"]

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


RESOLVER_POLICY = "whitespace"
"""Normalization policy for the resolver: the reader quotes across line breaks with a
single space, as language models do."""


def library_findings(store: ProvStore, demo: DemoResult) -> dict[str, Finding]:
    """Ask provgraph's resolver, query library and exporter about the demo store.

    Resolves the QA run's citations (writing the outcomes), then exports the PROV-JSON
    bundle of the lineage question's claim into ``<store>/exports/``.
    """
    findings: dict[str, Finding] = {}
    qa_run = demo.runs["flask-docs-qa"]
    claim = demo.questions[LINEAGE_QUESTION].claims[0]
    mod, note = optional_module("provgraph.resolve", "resolve_run")
    if mod is None:
        findings["resolver"] = unavailable(note)
    else:
        rr = mod.resolve_run(store, qa_run, policy=RESOLVER_POLICY)
        findings["resolver"] = Finding(
            True, {k: v for k, v in rr.counts().items() if v},
            extra={"by_citation": {str(c.iri): r.outcome for c, r in rr.items},
                   "reasons": {str(c.iri): r.reason for c, r in rr.items},
                   "policy": f"{rr.items[0][1].policy}@{rr.items[0][1].policy_version}"
                   if rr.items else RESOLVER_POLICY,
                   "added": rr.added})
    _, note = optional_module("provgraph.analytics", "stale", "impact", "generated_evidence")
    for name in ("stale", "impact", "generated_evidence"):
        findings[name] = unavailable(note)
    bundle, note = optional_module("provgraph.io.bundle", "export", "lineage_closure")
    if bundle is None:
        findings["lineage"] = findings["prov_json"] = unavailable(note)
        return findings
    findings["lineage"] = Finding(True, bundle.lineage_closure(store, [IRI(claim)]),
                                  extra={"source": "provgraph.io.bundle.lineage_closure"})
    result = bundle.export(store, "prov-json", claim=claim)
    path = demo.store_path / "exports" / f"{LINEAGE_QUESTION}-claim.prov.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(result.data)
    findings["prov_json"] = Finding(True, path, extra={"digest": result.digest,
                                                       "statements": result.statements,
                                                       "bundle": result.bundle})
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


class _Quads:
    """The lineage closure as a small subject -> predicate -> objects index."""

    def __init__(self, quads: list[Any]) -> None:
        self.index: dict[str, dict[str, list[Any]]] = {}
        for s, p, o, _ in quads:
            self.index.setdefault(str(s), {}).setdefault(str(p), []).append(o)

    def all(self, s: str, p: str) -> list[Any]:
        return sorted(self.index.get(str(s), {}).get(str(p), []), key=str)

    def one(self, s: str, p: str) -> Any:
        got = self.all(s, p)
        if not got:
            return None
        return term_value(got[0]) if isinstance(got[0], Literal) else str(got[0])


def _lineage_tree(demo: DemoResult, claim: str, quads: list[Any]) -> Tree:
    """claim -> citation -> chunk -> extracted text -> extraction (parser) -> snapshot -> document."""
    g = _Quads(quads)
    tree = Tree(f"[bold]claim[/bold] {escape(claim)}  {escape(repr(g.one(claim, PG.text)))} "
                f"({g.one(claim, PG.claimKind)}, {g.one(claim, PG.claimStatus)})")
    quoted = g.all(claim, PROV.wasQuotedFrom)
    if quoted:
        tree.add(f"prov:wasQuotedFrom {_short(str(quoted[0]))} (written by the resolver)")
    for cit in g.all(claim, PG.citation):
        sel = g.one(cit, OA.hasSelector)
        node = tree.add(f"[bold]citation[/bold] {escape(str(cit))}: outcome "
                        f"[bold]{g.one(cit, PG.outcome) or 'unresolved'}[/bold] "
                        f"(policy {g.one(cit, PG.policy) or '-'}); quote "
                        f"{escape(repr(g.one(sel, OA.exact))) if sel else '-'}, code points "
                        f"[{g.one(cit, PG.start)}, {g.one(cit, PG.end)}) of the target")
        if g.one(cit, PG.resolvedByteStart) is not None:
            node.add(f"resolved to bytes [{g.one(cit, PG.resolvedByteStart)}, "
                     f"{g.one(cit, PG.resolvedByteEnd)}) of {_short(str(g.one(cit, PG.resolvedSnapshot)))}")
        for chunk in g.all(cit, PG.target):
            cnode = node.add(f"[bold]chunk[/bold] {escape(str(chunk))}: code points "
                             f"[{g.one(chunk, PG.start)}, {g.one(chunk, PG.end)}) of the extracted text")
            chunking = g.one(chunk, PROV.wasGeneratedBy)
            for agent in g.all(chunking, PROV.wasAssociatedWith):
                cnode.add(f"chunked by {g.one(agent, PG.agentName)} {g.one(agent, PG.agentVersion)} "
                          f"{escape(str(g.one(chunking, PG.configuration)))}")
            for text in g.all(chunk, PROV.wasDerivedFrom):
                tnode = cnode.add(f"[bold]extracted text[/bold] {escape(str(text))} "
                                  f"(sha-256 {str(g.one(text, PG.sha256))[:16]}…)")
                ext = g.one(text, PROV.wasGeneratedBy)
                for agent in g.all(ext, PROV.wasAssociatedWith):
                    tnode.add(f"[bold]extraction[/bold] by parser {g.one(agent, PG.agentName)} "
                              f"version {g.one(agent, PG.agentVersion)}")
                for snap in g.all(text, PROV.wasDerivedFrom):
                    snode = tnode.add(f"[bold]snapshot[/bold] {escape(str(snap))}")
                    snode.add(f"sha-256 {g.one(snap, PG.sha256)}, {g.one(snap, PG.byteSize)} bytes")
                    snode.add(f"observed {g.one(snap, PG.observedAt)}")
                    snode.add(escape(f"from {g.one(snap, PG.sourceUri)}"))
                    for doc in g.all(snap, PROV.specializationOf):
                        snode.add(f"[bold]document[/bold] {escape(str(doc))}")
    return tree


def _lineage(console: Console, demo: DemoResult) -> None:
    q = demo.questions[LINEAGE_QUESTION]
    claim = q.claims[0]
    console.print(f"Claim of {q.id}: {escape(q.question)}")
    finding = demo.findings["lineage"]
    if not _note(console, finding):
        return
    console.print(_lineage_tree(demo, claim, finding.value))
    console.print(f"  ({len(finding.value)} statements in the claim's lineage closure, from "
                  f"{finding.extra['source']})")


def _resolver(console: Console, demo: DemoResult) -> None:
    finding = demo.findings["resolver"]
    if not _note(console, finding):
        return
    by_cit = finding.extra["by_citation"]
    t = Table(title=f"provgraph.resolve.resolve_run, policy {finding.extra['policy']}: "
                    f"{len(by_cit)} citations", header_style="bold")
    t.add_column("outcome")
    t.add_column("citations", justify="right")
    t.add_column("questions")
    for outcome, n in sorted(finding.value.items(), key=lambda kv: (-kv[1], kv[0])):
        qids = sorted({demo.citation_question[c] for c, o in by_cit.items() if o == outcome})
        t.add_row(outcome, str(n), " ".join(qids))
    console.print(t)


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
        res = demo.findings["resolver"]
        outcome = res.extra["by_citation"].get(cit, "?") if res.available else "(resolver missing)"
        rows.append((qid, escape(fact.cited_text or ""), _short(fact.target or fact.target_id),
                     outcome))
    console.print(_ground_truth_table(
        "Citations whose target is generated text (labelled stress condition)", rows,
        ("question", "quoted as if it were the source", "target (a ContextualPrefix)",
         "resolver")))


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
        ("resolve", f"provgraph --store {store} resolve --run {demo.runs['flask-docs-qa']} "
                    f"--policy {RESOLVER_POLICY} --citations --table"),
        ("export", f"provgraph --store {store} export --claim {claim} -o claim.prov.json"),
        ("verify-bundle", f"provgraph verify-bundle {store}/exports/{LINEAGE_QUESTION}-claim.prov.json"),
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
    _resolver(console, demo)
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
        console.print(f"  bundle {finding.extra['bundle']}: {finding.extra['statements']} statements, "
                      f"sha-256 {finding.extra['digest']} (check it: provgraph verify-bundle "
                      f"{finding.value})", soft_wrap=True)
    console.rule("Where things are")
    console.print(f"  store: {demo.store_path}  ({demo.counts.get('statements')} statements; "
                  f"originals under {demo.store_path / 'originals'})")
    console.print(f"  runs: " + ", ".join(f"{k} = {v}" for k, v in demo.runs.items()))
    console.print(f"  finished in {demo.seconds:.1f} s")
    console.print("  try next:")
    for cmd in _commands(demo):
        console.print(f"    {cmd}", soft_wrap=True, highlight=False)
