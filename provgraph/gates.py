"""Release gates (issue 18): the evaluation metrics held to a policy's thresholds, for CI.

A policy is a TOML file (``examples/gate-policy.toml`` is a complete one)::

    version = "example-1"                  # recorded in the report
    [gates.resolvable_originals]
    min = 1.0                              # share of citations, 0..1
    [gates.quotation_fidelity]
    max_generated_target = 0               # citations whose outcome is generated_target
    min = 0.0                              # verified quotations / quoting claims
    [gates.warranted_derivations]
    min = 1.0
    [gates.claim_accounting]
    min = 1.0
    [gates.correct_abstentions]
    min = 1.0
    required = false                       # fail when it cannot be evaluated?
    [gates.review_coverage]
    min = 1.0
    required = false
    [gates.retrieval_reported_apart]
    min = 1.0
    required = false

A gate left out of the file is evaluated with these defaults. The gates:

=========================  ====================================================================
gate                       passes when
=========================  ====================================================================
resolvable_originals       citations resolved to a retained original (``quote_match``,
                           ``normalized_match``, ``located``, ``quote_mismatch``,
                           ``context_not_extracted``: the original was found, whatever the quote) / all citations >= ``min``; a citation
                           not yet resolved counts as not resolvable
quotation_fidelity         citations with outcome ``generated_target`` (generated wording
                           attributed to a source) <= ``max_generated_target``, and
                           ``quotation_fidelity`` (:mod:`provgraph.evaluation`) >= ``min``
warranted_derivations      derivation claims with at least one operand and a ``pg:warrant`` /
                           derivation claims >= ``min``
claim_accounting           ``claim_coverage``: every claim has eligible evidence or is an
                           abstention or uncertain (``unsupported.rq``) >= ``min``
correct_abstentions        ``correct_abstention`` (:mod:`provgraph.evaluation`) >= ``min``; not
                           evaluated while no answer of the runs has an answerability label
                           (:mod:`provgraph.labels`; fails then only when ``required``)
review_coverage            claims with at least one review (``pg:Review``, ``provgraph review``)
                           / claims >= ``min``; not evaluated while the store holds no review
                           at all (fails then only when ``required``)
retrieval_reported_apart   kinds of generated aid used by the runs' retrievals (``pg:aidUsed``)
                           whose retrieval benefit was measured and reported apart (a
                           ``with_aid`` run of ``provgraph evaluate exposure --end-to-end``
                           used an aid of that kind) / kinds used >= ``min``; passes when no
                           retrieval used an aid; not evaluated while the store holds no
                           end-to-end run at all (fails then only when ``required``)
=========================  ====================================================================

An empty denominator passes (nothing to hold to the threshold) and says so.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._rows import _iri, _Row, _run_query
from .end_to_end import CONFIG_KEY as END_TO_END
from .errors import ProvgraphError
from .evaluation import SHARE_DIGITS, claim_facts, metrics
from .schema import aid as aid_schema
from .schema import claim as claim_schema
from .schema import review as review_schema
from .schema import run as run_schema
from .store import ProvStore
from .terms import IRI
from .vocab import PG, RDF

__all__ = ["GateRow", "GatePolicy", "PolicyError", "load_policy", "parse_policy", "gate",
           "GATES", "RESOLVABLE_OUTCOMES"]

RESOLVABLE_OUTCOMES = ("quote_match", "normalized_match", "located", "quote_mismatch",
                       "context_not_extracted")
"""Outcomes where the resolver found the cited retained original (the quote may still differ)."""

_DEFAULTS: dict[str, dict[str, Any]] = {
    "resolvable_originals": {"min": 1.0},
    "quotation_fidelity": {"min": 0.0, "max_generated_target": 0},
    "warranted_derivations": {"min": 1.0},
    "claim_accounting": {"min": 1.0},
    "correct_abstentions": {"min": 1.0, "required": False},
    "review_coverage": {"min": 1.0, "required": False},
    "retrieval_reported_apart": {"min": 1.0, "required": False},
}
GATES = tuple(_DEFAULTS)
"""The gates, in report order."""


class PolicyError(ProvgraphError):
    """A gate policy file that cannot be used: not TOML, an unknown key, a value of the
    wrong type or range. The message names the file, the key and the fix."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GatePolicy:
    """A parsed policy.

    Attributes:
        version: the policy's ``version`` (``""`` when not given).
        gates: per gate of :data:`GATES`, its settings with the defaults filled in.
    """

    version: str
    gates: Mapping[str, Mapping[str, Any]]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GateRow(_Row):
    """One gate's verdict.

    Attributes:
        gate: one of :data:`GATES`.
        status: ``pass``, ``fail`` or ``not evaluated``.
        numerator, denominator: the counts held to the threshold (``None`` when not evaluated).
        value: their share, 4 decimal places (``None`` when the denominator is 0 or not evaluated).
        threshold: the policy's threshold, as text (``>= 1.0``; ``generated_target <= 0; >= 0.0``).
        note: the numbers behind a failure, or why it was not evaluated.
    """

    gate: str
    status: str
    numerator: int | None
    denominator: int | None
    value: float | None
    threshold: str
    note: str


def _fail(where: str, key: str, problem: str, fix: str) -> PolicyError:
    return PolicyError(f"{where}: {key} {problem}; {fix}")


def parse_policy(text: str, where: str = "policy") -> GatePolicy:
    """Parse a policy from TOML text (see the module docstring).

    Args:
        text: the TOML document.
        where: the file name used in error messages.

    Raises:
        PolicyError: not TOML, an unknown key or gate, or a value of the wrong type or range.
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{where}: not TOML ({exc}); fix the syntax "
                          "(examples/gate-policy.toml is a complete policy)") from exc
    for key in doc:
        if key not in ("version", "gates"):
            raise _fail(where, f"'{key}'", "is not a policy key",
                        "use 'version' and '[gates.NAME]' tables")
    version = doc.get("version", "")
    if not isinstance(version, (str, int, float)) or isinstance(version, bool):
        raise _fail(where, "'version'", "is not a string", 'give version = "..."')
    gates_doc = doc.get("gates", {})
    if not isinstance(gates_doc, dict):
        raise _fail(where, "'gates'", "is not a table", "write [gates.NAME] tables")
    gates: dict[str, dict[str, Any]] = {g: dict(v) for g, v in _DEFAULTS.items()}
    for name, settings in gates_doc.items():
        if name not in _DEFAULTS:
            raise _fail(where, f"'gates.{name}'", "is not a gate",
                        f"use one of {', '.join(GATES)}")
        if not isinstance(settings, dict):
            raise _fail(where, f"'gates.{name}'", "is not a table", f"write [gates.{name}]")
        for key, value in settings.items():
            full = f"'gates.{name}.{key}'"
            if key not in _DEFAULTS[name]:
                raise _fail(where, full, "is not a setting of this gate",
                            f"use {', '.join(_DEFAULTS[name])}")
            if key == "min":
                if isinstance(value, bool) or not isinstance(value, (int, float)) \
                        or not 0 <= value <= 1:
                    raise _fail(where, full, f"= {value!r} is not a share",
                                "give a number from 0 to 1 (1.0 means every one)")
                value = float(value)
            elif key == "max_generated_target":
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise _fail(where, full, f"= {value!r} is not a count",
                                "give a whole number, 0 or more (0: none allowed)")
            elif key == "required" and not isinstance(value, bool):
                raise _fail(where, full, f"= {value!r} is not true or false",
                            "give required = true or required = false")
            gates[name][key] = value
    return GatePolicy(version=str(version), gates=gates)


def load_policy(path: str | Path) -> GatePolicy:
    """Read and parse a policy file (:func:`parse_policy`).

    Raises:
        PolicyError: the file cannot be read or is not a valid policy.
    """
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise PolicyError(f"{p}: cannot be read ({exc.strerror or exc}); give the path of "
                          "a policy file (examples/gate-policy.toml)") from exc
    except UnicodeDecodeError as exc:
        raise PolicyError(f"{p}: not UTF-8 text; save the policy as UTF-8") from exc
    return parse_policy(text, str(p))


def _share(n: int, d: int) -> float | None:
    return round(n / d, SHARE_DIGITS) if d else None


def _held(gate_name: str, n: int, d: int, minimum: float, extra: str = "",
          failed_extra: bool = False) -> GateRow:
    value = _share(n, d)
    ok = (d == 0 or n / d >= minimum) and not failed_extra
    note = extra
    if d == 0:
        note = "; ".join(x for x in ("nothing to hold to the threshold (denominator 0)", extra) if x)
    elif n / d < minimum:
        note = "; ".join(x for x in (f"{n}/{d} = {value} < {minimum}", extra) if x)
    return GateRow(gate=gate_name, status="pass" if ok else "fail", numerator=n, denominator=d,
                   value=value, threshold=f">= {minimum}", note=note)


def _not_evaluated(gate_name: str, minimum: float, required: bool, why: str) -> GateRow:
    return GateRow(gate=gate_name, status="fail" if required else "not evaluated",
                   numerator=None, denominator=None, value=None, threshold=f">= {minimum}",
                   note=f"not evaluated: {why}" + ("; the policy requires it" if required else ""))


def gate(store: ProvStore, policy: GatePolicy, *, runs: Sequence[str] | None = None) -> list[GateRow]:
    """Hold the runs (``None``: every run with claims or citations) to ``policy``.

    Returns:
        ``list[GateRow]``, one per gate of :data:`GATES`, in that order. The
        counts are summed over the runs.

    Raises:
        QueryParameterError: a run is not an absolute IRI.
        NotFound: a run is not in the store.
    """
    g = policy.gates
    rows = metrics(store, runs=runs)
    outcome_rows = metrics(store, runs=runs, by="outcome")

    def total(metric: str) -> tuple[int, int]:
        sel = [r for r in rows if r.metric == metric]
        return sum(r.numerator or 0 for r in sel), sum(r.denominator or 0 for r in sel)

    by_outcome: dict[str, int] = {}
    unresolved_by_run: dict[str, int] = {}
    for r in outcome_rows:
        by_outcome[r.group] = by_outcome.get(r.group, 0) + (r.numerator or 0)
        unresolved_by_run[r.run] = r.excluded
    unresolved = sum(unresolved_by_run.values())
    citations = sum(by_outcome.values()) + unresolved
    out: list[GateRow] = []
    resolvable = sum(by_outcome.get(o, 0) for o in RESOLVABLE_OUTCOMES)
    out.append(_held("resolvable_originals", resolvable, citations,
                     g["resolvable_originals"]["min"],
                     f"{unresolved} not resolved yet (run 'provgraph resolve')" if unresolved else ""))
    generated = by_outcome.get("generated_target", 0)
    cap = g["quotation_fidelity"]["max_generated_target"]
    n, d = total("quotation_fidelity")
    row = _held("quotation_fidelity", n, d, g["quotation_fidelity"]["min"],
                f"generated_target {generated} > {cap} ('provgraph generated-evidence' lists them)"
                if generated > cap else "", failed_extra=generated > cap)
    out.append(dataclasses.replace(
        row, threshold=f"generated_target <= {cap}; {row.threshold}"))
    derivations = [f for f in claim_facts(store, runs) if f.kind == "derivation"]
    warranted = sum(f.operands > 0 and f.warrants > 0 for f in derivations)
    out.append(_held("warranted_derivations", warranted, len(derivations),
                     g["warranted_derivations"]["min"]))
    n, d = total("claim_coverage")
    out.append(_held("claim_accounting", n, d, g["claim_accounting"]["min"],
                     f"{d - n} of {d} claims without eligible evidence ('provgraph unsupported')"
                     if d - n else ""))
    ca = g["correct_abstentions"]
    if all(r.denominator is None for r in rows if r.metric == "correct_abstention"):
        out.append(_not_evaluated("correct_abstentions", ca["min"], ca["required"],
                                  "no answerability labels recorded (a fixture's expected "
                                  "answer, or a review's answerability verdict)"))
    else:
        n, d = total("correct_abstention")
        out.append(_held("correct_abstentions", n, d, ca["min"],
                         f"{d - n} of {d} answers to unanswerable questions do not abstain "
                         "('provgraph metrics --by question')" if d - n else ""))
    rc = g["review_coverage"]
    if next(iter(store.quads(None, RDF.type, PG.Review)), None) is None:
        out.append(_not_evaluated("review_coverage", rc["min"], rc["required"],
                                  "no reviews (pg:Review) recorded in the store "
                                  "('provgraph review' records them)"))
    else:
        claims = claim_schema.claims_of_runs(
            store, [IRI(r) for r in runs] if runs is not None else None)
        reviewed = review_schema.reviewed_claims(store) & set(claims)
        n = len(reviewed)
        out.append(_held("review_coverage", n, len(claims), rc["min"],
                         f"{len(claims) - n} claims released without review "
                         "('provgraph query unreviewed-claims')" if len(claims) - n else ""))
    out.append(_retrieval_reported_apart(store, runs, g["retrieval_reported_apart"]))
    return out


def _retrieval_reported_apart(store: ProvStore, runs: Sequence[str] | None,
                              settings: Mapping[str, Any]) -> GateRow:
    """The ``retrieval_reported_apart`` gate (module docstring)."""
    kinds_of: dict[IRI, set[str]] = {}  # run -> aid kinds its retrievals used
    types: dict[tuple[IRI, IRI], list[IRI]] = {}
    for r in _run_query(store, "retrieval-aid-kinds", {}):
        run, aid, cls = _iri(r["run"]), _iri(r["aid"]), _iri(r["class"])
        if run and aid and cls:
            types.setdefault((run, aid), []).append(cls)
    for (run, _), classes in types.items():
        kind = aid_schema.kind_of(classes)
        if kind:
            kinds_of.setdefault(run, set()).add(kind)
    e2e = {rr.iri for rr in run_schema.load(store, list(kinds_of))
           if ((rr.config or {}).get(END_TO_END) or {}).get("arm") == "with_aid"}
    gated = set(kinds_of) - e2e if runs is None else {IRI(r) for r in runs} - e2e
    used = set().union(*(kinds_of.get(r, set()) for r in gated))
    compared = set().union(*(kinds_of[r] for r in e2e))
    # every run's configuration is read only when it decides the verdict
    if used and not e2e and not any(END_TO_END in (rr.config or {})
                                    for rr in run_schema.load(store, _all_runs(store))):
        return _not_evaluated("retrieval_reported_apart", settings["min"], settings["required"],
                              "no end-to-end retrieval comparison recorded ('provgraph evaluate "
                              "exposure --end-to-end' records one)")
    missing = sorted(used - compared)
    return _held("retrieval_reported_apart", len(used & compared), len(used), settings["min"],
                 f"no end-to-end comparison of {', '.join(missing)} ('provgraph evaluate "
                 "exposure --end-to-end')" if missing else
                 "" if used else "no retrieval of these runs used a generated aid")


def _all_runs(store: ProvStore) -> list[IRI]:
    return list(dict.fromkeys(IRI(str(q[0])) for q in store.quads(None, RDF.type, PG.Run)))
