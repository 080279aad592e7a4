"""The review commands (issue 18 part 4): ``review`` records a reviewer's verdicts on a claim
and ``adjudicate`` the final ones, as PROV in the claim's run; thin over
:mod:`provgraph.review`. :mod:`provgraph.cli` adds them to its group (:data:`COMMANDS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from .cli_support import _Ctx, _iri_option, pass_ctx

__all__ = ["COMMANDS"]


def _verdicts(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> dict[str, str]:
    from .vocab import REVIEW_VERDICTS

    out: dict[str, str] = {}
    for item in value:
        kind, eq, verdict = item.partition("=")
        if not eq or not kind or not verdict:
            raise click.BadParameter(f"{item!r} is not KIND=VALUE (kinds: "
                                     f"{', '.join(REVIEW_VERDICTS)}); e.g. quotation=faithful")
        if kind in out:
            raise click.BadParameter(f"{kind} is given twice; give one verdict per kind")
        out[kind] = verdict
    return out


def _review_options(role: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed((
            click.argument("claim", callback=_iri_option, metavar="CLAIM"),
            click.option("--verdict", "verdicts", multiple=True, required=True,
                         metavar="KIND=VALUE", callback=_verdicts,
                         help="A verdict (repeatable): answerability=answerable|unanswerable, "
                         "origin=original|generated|mixed|unknown, "
                         "quotation=faithful|unfaithful|not_applicable, "
                         "derivation=warranted|unwarranted|not_applicable, "
                         "coverage=supported|partially_supported|unsupported|uncertain."),
            click.option("--reviewer", required=True, metavar="NAME",
                         help="Who: a person's name, or a model id with --model."),
            click.option("--model", is_flag=True,
                         help="The reviewer is a model (prov:SoftwareAgent), not a person."),
            click.option("--model-version", "version", default="", metavar="V",
                         help="The model reviewer's version."),
            click.option("--role", default=role, show_default=True, metavar="ROLE",
                         help="The reviewer's role (prov:hadRole)."),
            click.option("--policy-version", "policy", metavar="POLICY@V",
                         help="The review policy and its version (pg:policy)."),
        )):
            fn = option(fn)
        return fn
    return deco


def _said(what: str, rec: Any) -> None:
    click.echo(f"{what}: recorded {rec.iri} of claim {rec.claim} in run {rec.run}: "
               + ", ".join(f"{v.kind}={v.value}" for v in rec.verdicts)
               + f" (by {rec.reviewer.label}, role {rec.role})", err=True)


@click.command()
@_review_options("reviewer")
@click.option("--saw", metavar="SNAPSHOT", callback=_iri_option,
              help="The source snapshot (version) the reviewer read.")
@pass_ctx
def review(obj: _Ctx, claim: str, verdicts: dict[str, str], reviewer: str, model: bool,
           version: str, role: str, policy: str | None, saw: str | None) -> None:
    """Record a reviewer's verdicts on a claim, as PROV, in the claim's run.

    A pg:Review activity (now, UTC) associated with the reviewer (a prov:Person,
    or a prov:SoftwareAgent with --model) in ROLE generates one pg:Verdict per
    --verdict, attributed to the reviewer. Reviews that disagree are all kept;
    'provgraph adjudicate' resolves them. A bad verdict stores nothing (exit 2).

    \b
    Example:
        provgraph review urn:uuid:0190... --verdict quotation=faithful \\
            --verdict origin=original --reviewer ana --role annotator \\
            --policy-version review-guide@2 --saw ni:///sha-256;...
    """
    from .review import review_claim

    _said("review", review_claim(obj.store(), claim, verdicts=verdicts, reviewer=reviewer,
                                 version=version, model=model, role=role, policy=policy,
                                 saw=saw))


@click.command()
@_review_options("adjudicator")
@pass_ctx
def adjudicate(obj: _Ctx, claim: str, verdicts: dict[str, str], reviewer: str, model: bool,
               version: str, role: str, policy: str | None) -> None:
    """Record the final verdicts on a claim's reviews (a pg:Adjudication).

    For each --verdict kind, the adjudication prov:used every review verdict of
    that kind recorded for the claim and generates the final verdict,
    prov:wasDerivedFrom them; 'provgraph query unadjudicated-disagreements' no
    longer lists the claim for that kind. A kind no review judged is an error.

    \b
    Example:
        provgraph adjudicate urn:uuid:0190... --verdict quotation=unfaithful --reviewer lead
    """
    from .review import adjudicate_claim

    _said("adjudicate", adjudicate_claim(obj.store(), claim, verdicts=verdicts,
                                         reviewer=reviewer, version=version, model=model,
                                         role=role, policy=policy))


COMMANDS = (review, adjudicate)
"""The commands :mod:`provgraph.cli` adds to its group."""
