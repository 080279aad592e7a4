"""provgraph.gates and 'provgraph gate' (issue 18): thresholds held on a run of known counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from provgraph import EmbeddedStore
from provgraph.cli import cli
from provgraph.gates import GATES, PolicyError, gate, load_policy, parse_policy
from provgraph.resolve import resolve_run

from . import eval_runs

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "gate-policy.toml"


def test_known_counts_against_the_example_policy(evaluated):
    store, _ = evaluated
    rows = {r.gate: r for r in gate(store, load_policy(EXAMPLE))}
    assert list(rows) == list(GATES)
    got = {k: (r.status, r.numerator, r.denominator) for k, r in rows.items()}
    assert got == {
        "resolvable_originals": ("fail", 2, 3),  # cit1, cit2 found their original; cit7 is an aid
        "quotation_fidelity": ("fail", 1, 3),    # cit7 is generated_target
        "warranted_derivations": ("pass", 1, 1),
        "claim_accounting": ("fail", 4, 8),
        "correct_abstentions": ("not evaluated", None, None),
        "review_coverage": ("not evaluated", None, None),
        "retrieval_reported_apart": ("not evaluated", None, None),  # HyDE used, never compared
    }
    assert rows["quotation_fidelity"].note.startswith("generated_target 1 > 0")
    assert rows["claim_accounting"].note.startswith("4/8 = 0.5 < 1.0")


FIXTURES = Path(__file__).resolve().parents[1] / "examples" / "fixtures"


def test_retrieval_gate_asks_for_an_end_to_end_comparison_of_each_aid_kind_used(tmp_path):
    from provgraph import fixtures
    from provgraph.demo.exposure import retrieve
    from provgraph.end_to_end import run_end_to_end

    policy = load_policy(EXAMPLE)
    with EmbeddedStore(tmp_path / "s") as store:
        runs = eval_runs.record(store)
        resolve_run(store)

        def row():  # type: ignore[no-untyped-def]
            return next(r for r in gate(store, policy) if r.gate == "retrieval_reported_apart")

        assert row().status == "not evaluated"
        assert "no end-to-end retrieval comparison recorded" in row().note
        # a comparison of another kind (generated_question) does not cover HyDE
        run_end_to_end(store, [fixtures.load(FIXTURES / "quotation.json")], retrieve,
                       resamples=50)
        assert (row().status, row().numerator, row().denominator) == ("fail", 0, 1)
        assert "no end-to-end comparison of hypothetical_document" in row().note
        # the end-to-end runs are not gated themselves: still one kind used
        run_end_to_end(store, [fixtures.load(FIXTURES / "calculation.json")], retrieve,
                       resamples=50)
        assert (row().status, row().numerator, row().denominator) == ("pass", 1, 1)
        only = next(r for r in gate(store, policy, runs=[runs["run"]])
                    if r.gate == "retrieval_reported_apart")
        assert (only.numerator, only.denominator) == (1, 1)


def test_thresholds_from_the_policy(evaluated):
    store, _ = evaluated
    lenient = parse_policy("""
[gates.resolvable_originals]
min = 0.6
[gates.quotation_fidelity]
max_generated_target = 1
min = 0.3
[gates.claim_accounting]
min = 0.5
""")
    assert all(r.status != "fail" for r in gate(store, lenient))
    strict = parse_policy("[gates.review_coverage]\nrequired = true\n")
    review = next(r for r in gate(store, strict) if r.gate == "review_coverage")
    assert review.status == "fail" and "the policy requires it" in review.note


@pytest.mark.parametrize("text, key", [
    ("[gates.quotation_fidelity]\nmax_generated_target = -1\n",
     "'gates.quotation_fidelity.max_generated_target' = -1 is not a count"),
    ("[gates.claim_accounting]\nmin = 2\n", "'gates.claim_accounting.min' = 2 is not a share"),
    ("[gates.speed]\nmin = 1\n", "'gates.speed' is not a gate"),
    ("[gates.review_coverage]\nmax = 1\n", "'gates.review_coverage.max' is not a setting"),
    ("treshold = 1\n", "'treshold' is not a policy key"),
    ("[gates\n", "not TOML"),
])
def test_a_bad_policy_names_the_key_and_the_fix(text, key):
    with pytest.raises(PolicyError, match="^p.toml: ") as exc:
        parse_policy(text, "p.toml")
    assert key in str(exc.value) and ";" in str(exc.value)


def test_gate_cli_exit_status_and_report(runner, tmp_path):
    path = tmp_path / "store"
    with EmbeddedStore(path) as s:
        eval_runs.record(s)
        resolve_run(s)
    res = runner.invoke(cli, ["--store", str(path), "gate", "--policy", str(EXAMPLE), "--csv"])
    assert res.exit_code == 1
    assert "gate: 3 of 7 gates failed: resolvable_originals (2/3 = 0.6667 < 1.0)" in res.stderr
    assert "quotation_fidelity (generated_target 1 > 0" in res.stderr
    assert res.stdout.splitlines()[0] == "gate,status,numerator,denominator,value,threshold,note"
    ok = tmp_path / "ok.toml"
    ok.write_text("[gates.resolvable_originals]\nmin = 0.5\n[gates.quotation_fidelity]\n"
                  "max_generated_target = 1\n[gates.claim_accounting]\nmin = 0.5\n")
    res = runner.invoke(cli, ["--store", str(path), "gate", "--policy", str(ok)])
    assert res.exit_code == 0, res.output
    bad = tmp_path / "bad.toml"
    bad.write_text("[gates.claim_accounting]\nmin = 'all'\n")
    res = runner.invoke(cli, ["--store", str(path), "gate", "--policy", str(bad)])
    assert res.exit_code == 2
    assert "Error: " in res.stderr and "'gates.claim_accounting.min'" in res.stderr
    res = runner.invoke(cli, ["--store", str(path), "gate", "--policy", str(tmp_path / "no.toml")])
    assert res.exit_code == 2 and "cannot be read" in res.stderr


@pytest.mark.parametrize("columns", [80, 200])
def test_gate_table_never_folds_a_header_word(runner, tmp_path, columns):
    """At 80 columns 'gate --table' printed the header 'numerator' as 'nume', 'rato',
    'r' on three lines (a numeric column sized to its values): a column is now never
    narrower than its header, and a table that cannot fit so is printed as blocks of
    'column value' lines; wide enough, it is one table with every header whole."""
    import re

    from provgraph.gates import GateRow

    path = tmp_path / "store"
    with EmbeddedStore(path) as s:
        eval_runs.record(s)
        resolve_run(s)
    res = runner.invoke(cli, ["--store", str(path), "gate", "--policy", str(EXAMPLE), "--table"],
                        env={"COLUMNS": str(columns)})
    assert res.exit_code == 1, res.output
    lines = res.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= columns
    words = {w for ln in lines for w in ln.split()}
    names = GateRow.columns()
    assert [n for n in names if n not in words] == []  # every header whole on its line
    folded = [w for w in words for n in names if w != n and len(w) >= 3 and n.startswith(w)
              and w not in {"gate", "not"}]
    assert folded == [], folded
    if columns == 200:  # one table: its header line holds every column in order
        header = next(ln for ln in lines if ln.lstrip().startswith("gate "))
        assert re.findall(r"\S+", header) == list(names)
    else:  # blocks: one 'gate' line per gate of the policy
        assert sum(1 for ln in lines if ln.startswith("gate ")) == 7
