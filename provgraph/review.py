"""Reviewing claims (issue 18 part 4): record a reviewer's verdicts or an adjudication in
the claim's own run.

:func:`review_claim` and :func:`adjudicate_claim` continue the run (named graph) the claim
was recorded in with a :class:`~provgraph.recorder.Recorder` and call
:meth:`~provgraph.recorder.Recorder.review` or :meth:`~provgraph.recorder.Recorder.adjudicate`,
so a run's bundle holds its reviews. :mod:`provgraph.schema.review` has the PROV
modelling; the queries ``unreviewed-claims``, ``review-version-mismatch`` and
``unadjudicated-disagreements`` read it, and the ``review_coverage`` gate
(:mod:`provgraph.gates`) counts it.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping

from .errors import NotFound
from .recorder import Recorder
from .schema import claim as claim_schema
from .schema.review import ReviewRecord
from .store import ProvStore
from .terms import IRI
from .vocab import PG

__all__ = ["review_claim", "adjudicate_claim", "claim_run"]


def claim_run(store: ProvStore, claim: str) -> IRI:
    """The run (graph) ``claim`` is recorded in (one query).

    Raises:
        NotFound: no ``pg:Claim`` has that IRI.
    """
    _, _, graphs = claim_schema.CLAIM.read_typed(store, [IRI(claim)], PG.Claim)
    run = graphs.get(IRI(claim))
    if run is None:
        raise NotFound(claim, "claim")
    return run


def review_claim(store: ProvStore, claim: str, *, verdicts: Mapping[str, str], reviewer: str,
                 version: str = "", model: bool = False, role: str = "reviewer",
                 policy: str | None = None, saw: str | None = None,
                 at: _dt.datetime | None = None) -> ReviewRecord:
    """Record a review of ``claim`` in the claim's run (:meth:`Recorder.review`).

    Args:
        store: the store holding the claim.
        claim: the claim's IRI.
        verdicts, reviewer, version, model, role, policy, saw, at: as
            :meth:`provgraph.recorder.Recorder.review` (``at=None``: now, UTC).

    Returns:
        the :class:`~provgraph.schema.review.ReviewRecord` stored.

    Raises:
        NotFound: ``claim`` is not a recorded claim.
        RecordError: a bad verdict, reviewer, role, time or snapshot; nothing is stored.
    """
    rec = Recorder(store, run_iri=claim_run(store, claim), packages=[])
    return rec.review(claim, verdicts=verdicts, reviewer=reviewer, version=version, model=model,
                      role=role, policy=policy, saw=saw, at=at)


def adjudicate_claim(store: ProvStore, claim: str, *, verdicts: Mapping[str, str], reviewer: str,
                     version: str = "", model: bool = False, role: str = "adjudicator",
                     policy: str | None = None, at: _dt.datetime | None = None) -> ReviewRecord:
    """Record an adjudication of ``claim``'s reviews in the claim's run
    (:meth:`Recorder.adjudicate`).

    Raises:
        NotFound: ``claim`` is not a recorded claim.
        RecordError: as :func:`review_claim`, or no review of the claim has a verdict of a
            kind given (nothing to adjudicate); nothing is stored.
    """
    rec = Recorder(store, run_iri=claim_run(store, claim), packages=[])
    return rec.adjudicate(claim, verdicts=verdicts, reviewer=reviewer, version=version,
                          model=model, role=role, policy=policy, at=at)
