"""The PROV-CONSTRAINTS test cases (tests/prov_constraints/, where README.md says where each
file came from): every case is imported and validated, and its verdict must be the expected
one, so a run reports each false accept and false reject by case name (issue 15).

A case is *rejected* when the import refuses it, when the import reports a PROV-CONSTRAINTS
key conflict that PROV-O cannot keep (:func:`provgraph.validate.check_document`: a ``-``
and a value for a non-expandable argument under one id), or when
:func:`provgraph.validate.validate` reports a violation; otherwise it is *accepted*. The
SHACL shapes are provgraph's own RAG shapes, not PROV-CONSTRAINTS, and are not run here.

The expected verdict is the W3C Provenance Working Group's (``w3c-suite.txt``) where the W3C
suite carries the case, else the verdict in the upstream file name (``-success``/``-PASS``
valid, ``-fail``/``-FAIL`` invalid), except the cases in :data:`READ_AS_VALID`, whose upstream
``fail`` rests on a rule PROV-CONSTRAINTS does not have. The W3C cases with no file here are
listed in :data:`UNOBTAINABLE` with the reason; :data:`NOT_RUN` lists the files that are here
but are not a rendering of their case.

The W3C ``ordering-*`` cases were built from ProvToolbox's ``ordering/*.provn`` (the W3C
``ordering-activity1-PASS-c30`` is ``activity1.provn``) and run through them; their names
carry no verdict, the W3C suite's is used. Each file's content was read against the
constraint its W3C name gives: they agree (22 valid, and ``derivation2``, two derivations
in a cycle, and ``specialization4``, ``e1`` derived from its own specialization ``e2``,
invalid through C42 with C45). ``association1`` and ``association2`` make the agent an
entity and an activity respectively, which PROV-CONSTRAINTS allows (only entities and
activities are disjoint, C55). ``ordering-communication-PASS-c35`` has no ProvToolbox file.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from provgraph.errors import SerializationError
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore
from provgraph.validate import validate

from .conftest import SHARED_CASES, shared_cases

ROOT = Path(__file__).parent / "prov_constraints"
FORMATS = {".xml": "prov-xml", ".provx": "prov-xml", ".json": "prov-json", ".provn": "provn"}

SHARED_DIRS = {
    "provtoolbox-provn": ("prov/provtoolbox/validate", True),
    "w3c": ("prov/trungdong-prov/unification/constraints", False),
    "trungdong-prov": ("prov/trungdong-prov/unification", False),
}
"""Case directories (as named in the case ids) whose files are read from ../shared/cases
(the subdirectory, and whether its subdirectories count), not committed here; the
committed ``trungdong-prov/`` files are the ones the shared folder does not have."""

W3C_SUITE: dict[str, bool] = {
    line.split()[0]: line.split()[1] == "PASS"
    for line in (ROOT / "w3c-suite.txt").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")}
"""The W3C suite's case names and verdicts (``True``: valid), as pgroth/prov-check lists them."""

READ_AS_VALID = {
    "provtoolbox/unification/usage-fail1.xml":
        "two usages of one entity by one activity under two ids; PROV-CONSTRAINTS has no "
        "uniqueness constraint for usage (§6.1 has them for generation, invalidation, start "
        "and end: C24-C27), and the W3C suite does not carry this case, while it carries "
        "usage-fail5/-6/-7 (the same rule with times) as PASS",
    "provtoolbox/unification/mention-fail4.xml":
        "mentionOf(e2, e1, b) and mentionOf(e2, e1-other, b); mentionOf is PROV-Links, which "
        "PROV-CONSTRAINTS does not cover, and the W3C suite has no mention case; provgraph "
        "implements no uniqueness for mentionOf",
}
"""ProvToolbox cases labelled ``fail`` that provgraph reads as valid, with the reason."""

NOT_RUN = {
    "provtoolbox-provn/unification/bundle-fail1.provn":
        "not a PROV-N rendering of the case: ProvToolbox's converter wrote the bundles as "
        'string attributes (prov:entity = """...""") and the reader refuses it; the case runs '
        "from provtoolbox/unification/bundle-fail1.xml",
}
"""Files that are here but are not their case; the test checks the import refuses them."""

BUNDLE_DIALECT = re.compile(rb"<(/?)prov:bundle\b")
"""ProvToolbox's ``bundle-*.xml`` wrap a bundle in ``<prov:bundle>``; the PROV-XML schema's
element is ``<prov:bundleContent>`` (trungdong/prov issue #254). The test reads them with
that one element renamed; the files are left as upstream wrote them."""

VALID_BY_UPSTREAM_TEST = {
    "provtoolbox-provn/primer.provn", "provtoolbox-provn/pc1-full.provn",
    "provtoolbox-provn/issue/expansion.provn"}
"""ProvToolbox files without a verdict in their name: ValidateTest.java expects each valid."""


def _w3c_name(rel: str) -> str | None:
    """The W3C case a ProvToolbox unification file (``usage-fail5.xml``) or ordering file
    (``ordering/activity1.provn``), or a W3C ``.provx`` file, is, or ``None``."""
    stem = Path(rel).stem
    if stem in W3C_SUITE:
        return stem
    if "ordering" in rel and re.fullmatch(r"[a-z]+\d", stem):
        prefix = f"ordering-{stem}-"
    else:
        m = re.fullmatch(r"([a-z-]+)-(success|fail)(\d+)", stem)
        if m is None or "unification" not in rel:
            return None
        prefix = f"unification-{m[1]}-{m[2][0]}{m[3]}-"
    found = [n for n in W3C_SUITE if n.startswith(prefix)]
    return found[0] if found else None


def expected_valid(rel: str) -> bool:
    """The verdict a case file must get (``True``: valid); see the module docstring."""
    if rel in READ_AS_VALID or rel in VALID_BY_UPSTREAM_TEST:
        return True
    name = _w3c_name(rel)
    if name is not None:
        return W3C_SUITE[name]
    stem = Path(rel).stem
    if re.search(r"-(success\d+|PASS)", stem):
        return True
    if re.search(r"-(fail\d+|FAIL)", stem):
        return False
    raise AssertionError(f"{rel}: no expected verdict")


def case_files() -> dict[str, Path]:
    """Every case file by case id (``provtoolbox/unification/usage-fail1.xml``): the
    committed ones under ``tests/prov_constraints/`` and those of :data:`SHARED_DIRS` that
    ../shared/cases holds (none when it is absent; :func:`_require_shared` says so)."""
    files = {p.relative_to(ROOT).as_posix(): p for p in ROOT.rglob("*")
             if p.suffix in FORMATS and p.is_file()}
    for rel_dir, (sub, deep) in SHARED_DIRS.items():
        base = SHARED_CASES / sub
        if base.is_dir():
            for p in base.rglob("*") if deep else base.glob("*"):
                if p.suffix in FORMATS and p.is_file():
                    files[f"{rel_dir}/{p.relative_to(base).as_posix()}"] = p
    return dict(sorted(files.items()))


def _require_shared() -> None:
    """Skip (fail in CI) when the shared cases of :data:`SHARED_DIRS` are absent."""
    for sub, _ in SHARED_DIRS.values():
        shared_cases(sub)


FILES = case_files()
CASES = [rel for rel in FILES if rel not in NOT_RUN]

W3C_CARRIED = {n: [rel for rel in CASES if _w3c_name(rel) == n] for n in W3C_SUITE}
"""Per W3C case, the files here that carry it (a ProvToolbox file it derives from, by name,
or the W3C ``.provx`` file)."""

UNOBTAINABLE_REASONS = {
    "ordering-": "ProvToolbox has no ordering case of this name (the W3C suite's other "
                 "ordering cases were built from ProvToolbox's ordering/*.provn, which run "
                 "here); its file (testcases/process/) is not on this machine",
    "prov-o-": "the W3C suite's PROV-O cases (one per PROV-O class and property) are not on "
               "this machine",
    "prov-dm-": "the W3C suite's PROV-DM example cases are not on this machine",
    "unification-": "ProvToolbox carries no case of this name here (the W3C case was not "
                    "derived from one of the 153 ProvToolbox files)",
    "type-": "the W3C .provx file of this case is not here",
}
UNOBTAINABLE: dict[str, str] = {
    n: next(reason for prefix, reason in UNOBTAINABLE_REASONS.items() if n.startswith(prefix))
    for n, carried in sorted(W3C_CARRIED.items()) if not carried}
"""The W3C cases no file here carries, with the reason. Fetch them to run them."""


def verdict(rel: str) -> tuple[bool, list[str]]:
    """``(accepted, reasons)`` for one case file (see the module docstring)."""
    path = FILES[rel]
    data = path.read_bytes()
    if path.stem.startswith("bundle-") and path.suffix == ".xml":
        data = BUNDLE_DIALECT.sub(rb"<\1prov:bundleContent", data)
    store = EmbeddedStore()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the prov package's own reader warnings
            report = import_document(store, data, FORMATS[path.suffix], name=rel)
    except SerializationError as exc:
        return False, [f"import refused: {exc}"]
    reasons = [w for w in report.warnings if "PROV-CONSTRAINTS" in w or re.search(r"\bC\d\d\b", w)]
    reasons += [str(v) for v in validate(store, shapes=False).violations]
    store.close()
    return not reasons, reasons


@pytest.mark.parametrize("rel", CASES, ids=CASES)
def test_case_verdict(rel):
    accepted, reasons = verdict(rel)
    if expected_valid(rel):
        assert accepted, f"false reject of a valid case: {reasons}"
    else:
        assert not accepted, "false accept of an invalid case"


@pytest.mark.parametrize("rel", sorted(NOT_RUN), ids=sorted(NOT_RUN))
def test_files_that_are_not_their_case_are_refused_on_import(rel):
    _require_shared()
    accepted, reasons = verdict(rel)
    assert not accepted and reasons[0].startswith("import refused:"), reasons


def test_the_corpus_and_the_w3c_suite_are_all_accounted_for():
    _require_shared()
    files = list(FILES)
    assert len(files) == 216 and set(NOT_RUN) <= set(files)
    assert set(READ_AS_VALID) <= set(files) and VALID_BY_UPSTREAM_TEST <= set(files)
    assert all(not Path(rel).stem.endswith(("-success", "-PASS")) for rel in READ_AS_VALID)
    # 279 names (pgroth/prov-check speaks of 280 cases; its lists name 279)
    assert len(W3C_SUITE) == 279 and sum(W3C_SUITE.values()) == 218
    carried = {n for n, files in W3C_CARRIED.items() if files}
    assert carried | set(UNOBTAINABLE) == set(W3C_SUITE) and not carried & set(UNOBTAINABLE)
    # where the W3C verdict and ProvToolbox's file name disagree, the W3C verdict is used
    named = [rel for rel in CASES if re.search(r"-(success|fail|PASS|FAIL)", Path(rel).stem)]
    disagree = sorted(rel for rel in named if (n := _w3c_name(rel)) is not None
                      and W3C_SUITE[n] != bool(re.search(r"-(success\d+|PASS)", Path(rel).stem)))
    assert disagree == ["provtoolbox/unification/usage-fail5.xml",
                        "provtoolbox/unification/usage-fail6.xml",
                        "provtoolbox/unification/usage-fail7.xml"]
    # the ordering files carry no verdict in their names: all 24 of the W3C suite's
    # ordering cases but ordering-communication-PASS-c35 run through them
    ordering = {n: files for n, files in W3C_CARRIED.items() if n.startswith("ordering-")}
    assert [n for n, files in ordering.items() if len(files) != 1] == [
        "ordering-communication-PASS-c35"]


def score() -> dict[str, int]:
    """The numbers the README gives (``python -c 'from tests.test_prov_constraints import
    score; print(score())'``)."""
    valid = [rel for rel in CASES if expected_valid(rel)]
    return {"case files run": len(CASES), "valid": len(valid),
            "invalid": len(CASES) - len(valid), "read as valid": len(READ_AS_VALID),
            "not run": len(NOT_RUN), "w3c cases": len(W3C_SUITE),
            "w3c cases run": sum(1 for files in W3C_CARRIED.values() if files),
            "w3c cases unobtainable": len(UNOBTAINABLE)}
