"""The evaluation commands (issue 18): ``metrics`` (claim-level metrics with their
denominators), ``evaluate exposure`` (the paired exposure test, and the end-to-end retrieval
comparison) and ``gate`` (a release-gate policy for CI); thin over
:mod:`provgraph.evaluation`, :mod:`provgraph.exposure`, :mod:`provgraph.end_to_end` and
:mod:`provgraph.gates`. :mod:`provgraph.cli` adds them to its group (:data:`COMMANDS`)."""

from __future__ import annotations

from typing import Any, cast

import click

from .cli_support import (CONTEXT_SETTINGS, EXIT_FOUND, _Ctx, _iri_option, _write_result,
                          pass_ctx)
from .output import output_options, write_rows

__all__ = ["COMMANDS"]


def _duration(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """A click callback: ``30d``, ``12h``, ``45m``, ``90s`` or a number of days, as a timedelta."""
    if value is None:
        return None
    import datetime as dt

    units = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
    text = value.strip().lower()
    scale = units.get(text[-1:], 0.0) if text else 0.0
    number = text[:-1] if scale else text
    try:
        seconds = float(number) * (scale or 86400.0)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise click.BadParameter(f"{value!r} is not a duration; give a number with d, h, m or s "
                                 "(30d, 12h), or a number of days")
    return dt.timedelta(seconds=seconds)


@click.command()
@click.option("--run", "runs", multiple=True, metavar="RUN", callback=lambda c, p, v: tuple(
    _iri_option(c, p, x) for x in v), help="Only this run (repeatable); default: every run "
              "with claims or citations.")
@click.option("--by", "by", type=click.Choice(["run", "question", "outcome"]), default="run",
              show_default=True, help="One row per metric per run, per answer (question), or "
              "each resolver outcome's share of the resolved citations.")
@click.option("--max-age", callback=_duration, metavar="AGE",
              help="Freshness window: a revised or deleted cited snapshot still complies when "
              "observed at most AGE ago (30d, 12h; a plain number is days).")
@output_options
@pass_ctx
def metrics(obj: _Ctx, runs: tuple[str, ...], by: str, max_age: Any, fmt: str | None,
            no_headers: bool) -> None:
    """Evaluation metrics with numerator, denominator and exclusions (issue 18).

    Claim coverage, cited-claim rate (undefined, not 0, for an answer without
    citations), quotation fidelity, generated-target rate, locator precision,
    freshness compliance, transformation completeness, correct abstention (on
    answers labelled unanswerable by their fixture or a review); contradiction
    visibility is undefined until contradiction labels are recorded. README,
    "Evaluation", defines each.

    \b
    Example:
        provgraph metrics --table
        provgraph metrics --run urn:uuid:0190... --by question --csv
    """
    from . import evaluation

    _write_result(evaluation.metrics(obj.store(read_only=True), runs=list(runs) or None, by=by,
                                     max_age=max_age),
                  evaluation.MetricRow, fmt, no_headers, "metrics")


@click.group(context_settings=CONTEXT_SETTINGS)
def evaluate() -> None:
    """Controlled experiments over recorded provenance (issue 18): the paired exposure test.

    \b
    Example:
        provgraph --memory evaluate exposure --fixture examples/fixtures/quotation.json \\
            --pipeline provgraph.demo.exposure:answer --table
    """


def _arms_option(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    from .exposure import ARMS

    arms = tuple(a.strip() for a in value.split(",") if a.strip())
    unknown = [a for a in arms if a not in ARMS]
    if not arms or unknown or len(set(arms)) != len(arms):
        what = (f"unknown arm {unknown[0]!r}" if unknown else "an arm is given twice"
                if arms else "no arm given")
        raise click.BadParameter(f"{what}; give distinct arms among {','.join(ARMS)}, the "
                                 "reference first")
    return arms


@evaluate.command("exposure")
@click.option("--fixture", "fixture_files", multiple=True, required=True, metavar="F",
              type=click.Path(dir_okay=False),
              help="A frozen fixture: one query of the comparison (repeatable; the query is "
              "the bootstrap's resampling unit).")
@click.option("--pipeline", "pipeline_spec", required=True, metavar="MODULE:CALLABLE",
              help="The pipeline: a callable taking a provgraph.exposure.ArmContext and "
              "returning an ArmOutput.")
@click.option("--arms", default="baseline,omit,label,expose,mislabel", show_default=True,
              callback=_arms_option, metavar="ARM,...",
              help="Arms to run; differences are against the first.")
@click.option("--repeats", type=click.IntRange(min=1), default=1, show_default=True,
              metavar="N", help="Pipeline repetitions per arm and query (pooled per query).")
@click.option("--seed", type=int, default=0, show_default=True, metavar="S",
              help="Seeds the generation seeds and the bootstrap.")
@click.option("--resamples", type=click.IntRange(min=1), default=2000, show_default=True,
              metavar="B", help="Bootstrap resamples.")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.95, show_default=True, help="Coverage of the bootstrap interval.")
@click.option("--end-to-end", "end_to_end", is_flag=True,
              help="Compare retrieval with and without the aids instead (arms without_aid, "
              "with_aid): relevance, latency and cost, reported apart from the origin "
              "figures; --pipeline then names a retriever (provgraph.end_to_end).")
@click.option("--k", "k", type=click.IntRange(min=1), default=3, show_default=True, metavar="K",
              help="With --end-to-end: the rank cut-off of recall and precision.")
@output_options(json_default="table")
@pass_ctx
def evaluate_exposure(obj: _Ctx, fixture_files: tuple[str, ...], pipeline_spec: str,
                      arms: tuple[str, ...], repeats: int, seed: int, resamples: int,
                      confidence: float, end_to_end: bool, k: int, fmt: str | None,
                      no_headers: bool) -> None:
    """Run a pipeline once per arm under fixed originals; compare the arms.

    Arms vary only how generated aids reach the generator: baseline (the
    pipeline unmodified), omit, label (marked as generated), expose (unlabelled),
    mislabel (presented as source text). The retrieved originals, their order,
    the original-evidence budget and the generation seed are held fixed, with
    room reserved for aids. Each arm is recorded as its own run, linked to the
    fixture's run in its configuration, and resolved. Arms whose recorded
    originals, order or budget differ from the first arm's are refused (exit 2,
    naming the arm and the first difference).

    One row per arm and metric: the pooled value with numerator and
    denominator, and for each arm but the first the mean paired difference
    over queries with its percentile bootstrap interval (seeded), the queries
    in it and those left out (undefined in either arm: complete pairs only).
    Standard error lists the arm runs and states the queries, repetitions,
    resamples, confidence, seed and missing-data policy.

    With --end-to-end the question is what the aids buy in retrieval: the
    pipeline is a retriever, called once without and once with the fixture's
    aids per query and repetition; each call is recorded as a run holding its
    retrieval (no answer, no claim), and the table gives recall@K,
    precision@K, reciprocal rank, latency (seconds, measured around the call)
    and the cost the retriever reports, with paired differences with_aid minus
    without_aid. These numbers never enter the origin figures (metrics, gate,
    the arms above).

    \b
    Example:
        provgraph --memory evaluate exposure --fixture examples/fixtures/quotation.json \\
            --fixture examples/fixtures/calculation.json \\
            --pipeline provgraph.demo.exposure:answer --repeats 2 --seed 7
        provgraph --memory evaluate exposure --end-to-end \\
            --fixture examples/fixtures/quotation.json \\
            --pipeline provgraph.demo.exposure:retrieve
    """
    from . import exposure
    from .fixtures import load, require_clean

    click_ctx = click.get_current_context()
    if end_to_end and click_ctx.get_parameter_source("arms") is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError("--arms does not apply with --end-to-end (its arms are "
                               "without_aid and with_aid); leave --arms out")
    if not end_to_end and click_ctx.get_parameter_source("k") is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError("--k applies only with --end-to-end; add --end-to-end or "
                               "leave --k out")
    loaded = [load(f) for f in fixture_files]
    for fx in loaded:
        require_clean(fx)  # before any store is opened
    if end_to_end:
        _evaluate_end_to_end(obj, loaded, pipeline_spec, k=k, repeats=repeats, seed=seed,
                             resamples=resamples, confidence=confidence, fmt=fmt,
                             no_headers=no_headers)
        return
    pipeline = exposure.load_pipeline(pipeline_spec)
    store = obj.store(create=True)
    report = exposure.run_exposure(store, loaded, pipeline, arms=arms, repeats=repeats,
                                   seed=seed, resamples=resamples, confidence=confidence,
                                   pipeline_name=pipeline_spec)
    _write_comparison(report, exposure.ExposureRow, f"exposure: arms against {report.reference}",
                      fmt, no_headers)


def _write_comparison(report: Any, row_type: Any, title: str, fmt: str | None,
                      no_headers: bool) -> None:
    """Both exposure modes' output: each arm run and the design on standard error, the
    rows (a table by default) on standard output."""
    for r in report.runs:
        click.echo(f"run {r.run}: fixture {r.fixture}, arm {r.arm}, repetition {r.repeat}, "
                   f"seed {r.seed}", err=True)
    click.echo(report.summary(), err=True)
    write_rows([r.to_dict() for r in report.rows], row_type.columns(), fmt=fmt or "table",
               no_headers=no_headers, title=title, plain_values=True)


def _evaluate_end_to_end(obj: _Ctx, loaded: list[Any], pipeline_spec: str, *, k: int,
                         repeats: int, seed: int, resamples: int, confidence: float,
                         fmt: str | None, no_headers: bool) -> None:
    from . import end_to_end
    from .exposure import load_pipeline

    retriever = cast(end_to_end.Retriever, load_pipeline(pipeline_spec))
    store = obj.store(create=True)
    report = end_to_end.run_end_to_end(store, loaded, retriever, k=k, repeats=repeats,
                                       seed=seed, resamples=resamples, confidence=confidence,
                                       retriever_name=pipeline_spec)
    _write_comparison(report, end_to_end.RetrievalRow,
                      "end-to-end retrieval: with_aid against without_aid", fmt, no_headers)


@click.command()
@click.option("--policy", "policy_file", required=True, metavar="POLICY.toml",
              help="The gate policy (TOML; examples/gate-policy.toml is a complete one).")
@click.option("--run", "runs", multiple=True, metavar="RUN", callback=lambda c, p, v: tuple(
    _iri_option(c, p, x) for x in v), help="Only this run (repeatable); default: every run "
              "with claims or citations.")
@output_options(json_default="table")
@pass_ctx
def gate(obj: _Ctx, policy_file: str, runs: tuple[str, ...], fmt: str | None,
         no_headers: bool) -> None:
    """Hold the runs to a release-gate policy; exit 1 when a gate fails (for CI).

    Gates: resolvable originals, quotation fidelity (no generated_target
    citations by default), warranted derivations, complete claim accounting,
    correct abstentions, review coverage and retrieval reported apart (these
    three are 'not evaluated' while no answerability labels, reviews or
    end-to-end comparisons are recorded, and fail then only if the policy
    requires them). A policy that cannot be used is an input error (exit 2).

    \b
    Example:
        provgraph gate --policy examples/gate-policy.toml
        provgraph gate --policy release.toml --run urn:uuid:0190... --json
    """
    from . import gates

    policy = gates.load_policy(policy_file)
    rows = gates.gate(obj.store(read_only=True), policy, runs=list(runs) or None)
    write_rows([r.to_dict() for r in rows], gates.GateRow.columns(), fmt=fmt or "table",
               no_headers=no_headers, title=f"gates (policy {policy.version or policy_file})",
               plain_values=True)
    failed = [r for r in rows if r.status == "fail"]
    if failed:
        click.echo(f"gate: {len(failed)} of {len(rows)} gates failed: "
                   + "; ".join(f"{r.gate} ({r.note})" for r in failed), err=True)
        raise click.exceptions.Exit(EXIT_FOUND)
    click.echo(f"gate: all {len(rows)} gates passed or were not evaluated", err=True)


COMMANDS = (metrics, evaluate, gate)
"""The commands :mod:`provgraph.cli` adds to its group."""
