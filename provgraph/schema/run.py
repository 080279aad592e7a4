"""The run: one PROV bundle (named graph) with the runtime identity of the pipeline
(PROV-DM §5.4.1 Bundle; PROV-O ``prov:Bundle``)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import PG, PROV, RDFS
from ._table import Field, Table

__all__ = ["RunRecord", "RUN", "to_quads", "load"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRecord:
    """A run: one PROV bundle (named graph) with the runtime identity of the pipeline.

    Args:
        iri: the run IRI, which is also the name of its graph.
        label: a human-readable name (``rdfs:label``; ``""``: none).
        started_at: aware start time (``prov:generatedAtTime`` of the bundle).
        packages: installed versions of the recorded distributions (``pg:packageVersions``).
        config: the pipeline configuration (``pg:configuration``, JSON), ``None`` if not given.
        models: model identifiers in use (``pg:modelIds``, JSON), ``None`` if not given.
        code_revision: the pipeline's code revision, ``None`` if not given.
    """

    iri: IRI
    label: str
    started_at: _dt.datetime
    packages: dict[str, str] | None = None
    config: dict[str, Any] | None = None
    models: dict[str, str] | None = None
    code_revision: str | None = None


RUN = Table(
    "run", (PROV.Bundle, PROV.Entity, PG.Run),
    fields=(Field("started_at", PROV.generatedAtTime, "datetime"),
            Field("packages", PG.packageVersions, "json"),
            Field("label", RDFS.label, default="", omit_empty=True), Field("config", PG.configuration, "json"),
            Field("models", PG.modelIds, "json", omit_empty=True),
            Field("code_revision", PG.codeRevision, omit_empty=True)),
    record=RunRecord)


def to_quads(run: RunRecord) -> list[Quad]:
    """The run's identity statements, in its own graph (an empty label is not written)."""
    return RUN.quads(run.iri, run, run.iri)


def load(store: ProvStore, iris: Sequence[IRI]) -> list[RunRecord]:
    """The runs among ``iris``, in IRI order (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = RUN.read_typed(store, iris, PG.Run)
    return [RUN.build(props[i], nodes, i, iri=i) for i in sorted(props)]



