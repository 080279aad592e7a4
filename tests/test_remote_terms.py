"""The terms a remote store reads from SPARQL 1.1 Query Results JSON (no server needed):
an engine's own forms of the values provgraph writes come back in the forms the Recorder
writes and the embedded store returns, so the two stores give one literal (and one claim
bundle digest) for one value."""

from __future__ import annotations

import pytest

from provgraph.remote import _term
from provgraph.terms import XSD, Literal

DT = XSD + "dateTime"


@pytest.mark.parametrize(("engine", "ours"), [
    ("2026-12-02T14:23:13.711030Z", "2026-12-02T14:23:13.71103Z"),  # Virtuoso: six digits
    ("2026-12-02T14:23:13.000000Z", "2026-12-02T14:23:13Z"),
    ("2026-12-02T14:23:13+00:00", "2026-12-02T14:23:13Z"),
    ("2026-12-02T14:23:13.5+01:00", "2026-12-02T14:23:13.5+01:00"),
    ("not a time", "not a time"),  # ill-typed: kept as the engine gave it
])
def test_a_remote_time_reads_in_the_recorded_form(engine: str, ours: str) -> None:
    assert _term({"type": "literal", "value": engine, "datatype": DT}, False) == Literal(ours, DT)
