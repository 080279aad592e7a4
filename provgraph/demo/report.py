"""The demo's audit report (rich) and the calls into provgraph's libraries behind it."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.tree import Tree

from ..exposure import PRESENTATIONS
from ..store import ProvStore
from ..terms import term_value
from .evaluation import policy_path
from .findings import Finding, optional_module, unavailable
from .pipeline import QUOTE_POLICY, PipelineResult
from .rst import PARSER_V1, PARSER_V2

if TYPE_CHECKING:
    from . import DemoResult

__all__ = ["library_findings", "counts", "render", "next_commands", "LINEAGE_QUESTION"]

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
    """Ask provgraph's resolver, query library and exporter about the demo store.

    Resolves the QA run's citations as a plain ``provgraph resolve`` does (the default
    policy; each quote declares :data:`~provgraph.demo.pipeline.QUOTE_POLICY`, which wins),
    so resolving the demo store again changes nothing; then exports the PROV-JSON
    bundle of the lineage question's claim into ``<store>/exports/``.
    """
    findings: dict[str, Finding] = {}
    qa_run = demo.runs["flask-docs-qa"]
    claim = demo.questions[LINEAGE_QUESTION].claims[0]
    mod, note = optional_module("provgraph.resolve", "resolve_run")
    if mod is None:
        findings["resolver"] = unavailable(note)
    else:
        rr = mod.resolve_run(store, qa_run)
        findings["resolver"] = Finding(
            True, {k: v for k, v in rr.counts().items() if v},
            extra={"by_citation": {str(c.iri): r.outcome for c, r in rr.items},
                   "reasons": {str(c.iri): r.reason for c, r in rr.items},
                   "policy": ", ".join(sorted({f"{r.policy}@{r.policy_version}"
                                               for c, r in rr.items if c.quote is not None}))
                   or QUOTE_POLICY,
                   "added": rr.added})
    an, note = optional_module("provgraph.analytics", "lineage", "stale", "impact",
                               "generated_evidence")
    if an is None:
        for name in ("lineage", "stale", "impact", "generated_evidence"):
            findings[name] = unavailable(note)
    else:
        findings["lineage"] = Finding(True, an.lineage(store, claim))
        findings["stale"] = Finding(True, an.stale(store, run=qa_run))
        findings["impact"] = Finding(True, an.impact(store, PARSER_V1.name,
                                                     version=PARSER_V1.version, run=qa_run),
                                     extra={"agent": PARSER_V1.agent})
        findings["generated_evidence"] = Finding(True, an.generated_evidence(store, run=qa_run))
    bundle, note = optional_module("provgraph.io.bundle", "export")
    if bundle is None:
        findings["prov_json"] = unavailable(note)
        return findings
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


def _claim_label(demo: DemoResult, claim: str, width: int = 70) -> str:
    qid = demo.claim_question.get(claim, "?")
    fact = demo.facts.get(claim)
    text = fact.text if fact else ""
    if len(text) > width:
        text = text[:width - 1] + "…"
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


_EVIDENCE_KINDS = {"Claim", "Citation", "Chunk", "Chunking", "Chunker", "ExtractedText",
                   "Extraction", "Parser", "SourceSnapshot", "Document", "Observation"}
"""Kinds of the lineage shown in the report: the claim's evidence chain (the prompt,
retrieval and aids are in ``provgraph lineage``'s full tree)."""


def _lineage_tree(rows: list[Any]) -> Tree:
    """The rows of :func:`provgraph.analytics.lineage` on the evidence chain, as a tree
    (each node under the node it was first reached from)."""
    kept = {r.node: r for r in rows if r.kind in _EVIDENCE_KINDS}
    root = next(r for r in rows if r.depth == 0)
    tree = Tree(escape(f"{root.kind} {root.node}  {root.label}"))
    nodes = {root.node: tree}
    for r in sorted(rows, key=lambda x: x.depth):
        if r.node not in kept or r.depth == 0 or r.parent not in nodes:
            continue
        nodes[r.node] = nodes[r.parent].add(escape(f"{r.relation} [{r.kind}] {r.node}  {r.label}"))
    return tree


def _lineage(console: Console, demo: DemoResult) -> None:
    q = demo.questions[LINEAGE_QUESTION]
    console.print(f"Claim of {q.id}: {escape(q.question)}")
    finding = demo.findings["lineage"]
    if not _note(console, finding):
        return
    console.print(_lineage_tree(finding.value))
    kinds: dict[str, int] = {}
    for r in finding.value:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    console.print(f"  provgraph.analytics.lineage: {len(finding.value)} nodes upstream of the claim, "
                  f"the evidence chain shown; the rest: " + ", ".join(
                      f"{n} {k}" for k, n in sorted(kinds.items()) if k not in _EVIDENCE_KINDS),
                  highlight=False)


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


def _ground_truth_table(title: str, rows: Sequence[tuple[Any, ...]], headers: tuple[str, ...]
                        ) -> Table:
    t = Table(title=title, header_style="bold")
    for h in headers:
        t.add_column(h, overflow="fold")
    for r in rows:
        t.add_row(*r)
    return t


def _stale(console: Console, demo: DemoResult) -> None:
    finding = demo.findings["stale"]
    library: dict[str, list[Any]] = {}
    if _note(console, finding):
        for row in finding.value:
            library.setdefault(str(row.claim), []).append(row)
    claims = sorted(set(demo.stale) | set(library),
                    key=lambda c: (demo.claim_question.get(c, "?"), c))
    t = Table(title="Stale claims after Flask 3.0.3: provgraph.analytics.stale, and the demo's "
                    "own check", header_style="bold")
    for h in ("claim", "library: stale", "library: cited span in the newest snapshot",
              "demo: cited text in the new extracted text"):
        t.add_column(h, overflow="fold")
    for c in claims:
        rows = library.get(c, [])
        kinds = ", ".join(sorted({r.kind for r in rows})) or ("-" if finding.available else "n/a")
        spans = {r.span_unchanged for r in rows if r.kind == "updated"}
        span = ("n/a" if not finding.available else "-" if not spans else
                " / ".join({True: "unchanged", False: "changed", None: "unknown"}[x]
                           for x in sorted(spans, key=str)))
        t.add_row(_claim_label(demo, c, 24), kinds, span, demo.stale.get(c, "not stale"))
    console.print(t)
    if finding.available:
        console.print("  The library looks for the cited text, whitespace-normalized, in the newest "
                      "snapshot's bytes and in every text extracted from it; the demo compares it "
                      "with the text the same parser extracts from the newest snapshot. A derivation "
                      "claim quotes no text of its own: it rests on its operands' cited spans, so "
                      "its row says what theirs say.", highlight=False)


def _parser(console: Console, demo: DemoResult) -> None:
    finding = demo.findings["impact"]
    if _note(console, finding):
        claims = {str(r.claim) for r in finding.value}
        console.print(f"  provgraph.analytics.impact({PARSER_V1.name}, version {PARSER_V1.version}): "
                      f"{len(claims)} claims of {len(demo.questions_of(claims))} questions: every "
                      "answer's prompt and citations passed through that parser.", highlight=False)
    affected = sorted(demo.parser_affected, key=lambda c: demo.claim_question.get(c, ""))
    rows = [(_claim_label(demo, c),) for c in affected]
    console.print(_ground_truth_table(
        f"Re-check: claims whose cited text parser {PARSER_V2.version} no longer produces from the "
        f"same snapshot ({PARSER_V2.name} {PARSER_V1.version} -> {PARSER_V2.version}: function "
        "references rendered as url_for())", rows, ("claim",)))


def _generated(console: Console, demo: DemoResult) -> None:
    finding = demo.findings["generated_evidence"]
    res = demo.findings["resolver"]
    rows = []
    if _note(console, finding):
        for r in finding.value:
            cit = str(r.citation) if r.citation else ""
            outcome = res.extra["by_citation"].get(cit, "?") if res.available else "n/a"
            rows.append((demo.claim_question.get(str(r.claim), "?"), r.basis, r.aid_type or "-",
                         _short(str(r.aid or r.target)), outcome))
        console.print(_ground_truth_table(
            "provgraph.analytics.generated_evidence (labelled stress condition)", rows,
            ("question", "basis", "aid type", "aid", "resolver")))
    quotes = []
    for cit in sorted(demo.generated_targets, key=lambda c: demo.citation_question.get(c, "")):
        fact = next(c for f in demo.facts.values() for c in f.citations if c.iri == cit)
        quotes.append((demo.citation_question[cit], escape(fact.cited_text or "")))
    console.print(_ground_truth_table("What those answers quoted as if it were the page", quotes,
                                      ("question", "quoted (generated prefix text)")))


def _fmt(x: float | None) -> str:
    return "undefined" if x is None else f"{x:g}"


def _evaluation(console: Console, demo: DemoResult) -> None:
    ev = demo.evaluation
    if ev is None:
        return
    t = Table(title=f"provgraph.evaluation.metrics of flask-docs-qa (as 'provgraph metrics "
                    f"--run {ev.run}')", header_style="bold")
    for h in ("metric", "value", "numerator / denominator", "note"):
        t.add_column(h, overflow="fold")
    for r in ev.metrics:
        nd = "-" if r.denominator is None else f"{r.numerator} / {r.denominator}"
        t.add_row(r.metric, _fmt(r.value), nd, escape(r.note))
    console.print(t)
    g = Table(title=f"provgraph.gates.gate of flask-docs-qa, policy {ev.policy.version} "
                    f"({escape(str(policy_path()))})",
              header_style="bold")
    for h in ("gate", "status", "value", "threshold", "why"):
        g.add_column(h, overflow="fold")
    for v in ev.gates:
        style = {"pass": "green", "fail": "red"}.get(v.status, "yellow")
        g.add_row(v.gate, f"[{style}]{v.status}[/{style}]", _fmt(v.value), escape(v.threshold),
                  escape(v.note))
    console.print(g)
    failed = [v.gate for v in ev.gates if v.status == "fail"]
    console.print(f"  gate: {len(failed)} of {len(ev.gates)} gates fail"
                  + (f" ({', '.join(failed)}): 'provgraph gate' exits 1 on this run"
                     if failed else ""), highlight=False)
    rep = ev.exposure
    e = Table(title="Paired exposure test on the demo's own pipeline: generated_target_rate "
                    f"by arm, against {rep.reference}", header_style="bold")
    for h in ("arm", "aids presented", "generated_target / resolved citations", "rate",
              "paired difference", f"{rep.confidence:.0%} interval", "queries (excluded)"):
        e.add_column(h, overflow="fold")
    for x in rep.rows:
        if x.metric != "generated_target_rate":
            continue
        ci = "-" if x.ci_low is None or x.ci_high is None else f"[{x.ci_low:g}, {x.ci_high:g}]"
        e.add_row(x.arm, PRESENTATIONS[x.arm], f"{x.numerator} / {x.denominator}",
                  _fmt(x.value), "-" if x.difference is None else f"{x.difference:+g}", ci,
                  f"{x.queries} ({x.excluded})")
    console.print(e)
    questions = ", ".join(f.stem.removeprefix("demo-") for f in ev.fixtures)
    console.print(f"  {rep.queries} demo questions ({questions}) frozen as fixtures in "
                  f"{ev.fixtures[0].parent}: the chunks the demo packed, in order, and its "
                  "generated prefixes and HyDE document; each arm answered by the demo's reader "
                  f"and recorded as its own run ({len(rep.runs)} runs, {ev.statements} "
                  "statements). Only the arms that show the aids unlabelled (expose) or as "
                  "sources (mislabel) quote them. " + escape(rep.summary()), highlight=False)


def next_commands(demo: DemoResult, program: str | None = None) -> list[str]:
    """The command lines the report suggests trying next on the demo store.

    Each names a provgraph command, spelled ``program`` (default: ``demo.program``,
    ``.venv/bin/provgraph`` after ``make demo``). ``tests/test_cli_demo.py`` runs every
    one of them on a demo store, and in bash exactly as printed after ``make demo``, so a
    renamed command or option fails there, not in a user's shell.
    """
    pg = program or demo.program
    store = shlex.quote(str(demo.store_path))
    claim = demo.questions[LINEAGE_QUESTION].claims[0]
    qa_run = demo.runs["flask-docs-qa"]
    return [
        f"{pg} --store {store} lineage {claim}",
        f"{pg} --store {store} stale --table",
        f"{pg} --store {store} impact --agent {PARSER_V1.name} --version {PARSER_V1.version} "
        "--table",
        f"{pg} --store {store} resolve --run {qa_run} --citations --table",
        f"{pg} --store {store} export --claim {claim} -o claim.prov.json",
        f"{pg} verify-bundle {store}/exports/{LINEAGE_QUESTION}-claim.prov.json",
        f"{pg} --store {store} generated-evidence --table",
        f"{pg} --store {store} coverage --run {qa_run} --table",
        f"{pg} queries",
        *_evaluation_commands(demo, pg, store, qa_run),
    ]


def _evaluation_commands(demo: DemoResult, pg: str, store: str, qa_run: str) -> list[str]:
    """The evaluation step's commands; ``gate`` exits 1 on the demo run (it fails gates)."""
    ev = demo.evaluation
    if ev is None:
        return []
    fixtures = " ".join(f"--fixture {shlex.quote(str(f))}" for f in ev.fixtures)
    return [
        f"{pg} --store {store} metrics --run {qa_run} --table",
        f"{pg} --store {store} gate --policy {shlex.quote(str(policy_path()))} --run {qa_run}",
        f"{pg} --memory evaluate exposure {fixtures} --pipeline provgraph.demo.exposure:answer",
    ]


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
    console.rule("Evaluation: metrics, release gates, the paired exposure test")
    _evaluation(console, demo)
    console.rule("PROV-JSON bundle")
    finding = demo.findings["prov_json"]
    if _note(console, finding):
        console.print(f"  {finding.value}")
        console.print(f"  bundle {finding.extra['bundle']}: {finding.extra['statements']} statements, "
                      f"sha-256 {finding.extra['digest']} (check it: {demo.program} verify-bundle "
                      f"{shlex.quote(str(finding.value))})", soft_wrap=True)
    console.rule("Where things are")
    console.print(f"  store: {demo.store_path}  ({demo.counts.get('statements')} statements; "
                  f"originals under {demo.store_path / 'originals'})")
    console.print("  runs: " + ", ".join(f"{k} = {v}" for k, v in demo.runs.items()))
    console.print(f"  finished in {demo.seconds:.1f} s")
    console.print("  try next:")
    for cmd in next_commands(demo):
        console.print(f"    {cmd}", soft_wrap=True, highlight=False)
