"""PROV-CONSTRAINTS subset (provgraph.validate) on small documents and the recorded pipeline."""

from __future__ import annotations

import pytest

from provgraph.cli import cli
from provgraph.errors import NotFound
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore
from provgraph.validate import check_document, validate

HEAD = b"document\nprefix ex <http://example.org/>\n"


def violations(provn: bytes | str, fmt: str = "provn"):
    data = provn.encode() if isinstance(provn, str) else provn
    store = EmbeddedStore()
    report = import_document(store, HEAD + data + b"\nendDocument" if fmt == "provn" else data, fmt)
    return report, validate(store, shapes=False)


CASES = [
    ("activity(ex:a, 2024-01-01T00:00:00Z, -)\nactivity(ex:a, 2024-01-02T00:00:00Z, -)",
     "C22 key-object", "activity <http://example.org/a> has 2 different startedAtTime values"),
    ("wasGeneratedBy(ex:g; ex:e1, ex:a, -)\nwasGeneratedBy(ex:g; ex:e2, ex:a, -)",
     "C23 key-properties", "relation <http://example.org/g> qualifies 2 different subjects"),
    ("wasGeneratedBy(ex:g1; ex:e, ex:a, -)\nwasGeneratedBy(ex:g2; ex:e, ex:a, -)",
     "C24 unique-generation", "<http://example.org/e> has 2 generations by <http://example.org/a> "
     "with different ids (<http://example.org/g1>, <http://example.org/g2>)"),
    ("activity(ex:a, 2024-01-02T00:00:00Z, 2024-01-01T00:00:00Z)",
     "C30 start-precedes-end", "activity <http://example.org/a> ends before it starts"),
    ("wasGeneratedBy(ex:e, -, 2024-01-02T00:00:00Z)\nwasInvalidatedBy(ex:e, -, 2024-01-01T00:00:00Z)",
     "C36 generation-precedes-invalidation", "<http://example.org/e> is invalidated before it is generated"),
    ("wasGeneratedBy(ex:e, -, 2024-01-02T00:00:00+01:00)\nused(ex:u; ex:a, ex:e, 2024-01-01T22:59:59Z)",
     "C37 generation-precedes-usage", "<http://example.org/e> is used before it is generated"),
    ("activity(ex:a1, 2024-01-02T00:00:00Z, -)\nactivity(ex:a2, -, 2024-01-01T00:00:00Z)\n"
     "wasGeneratedBy(ex:e, ex:a1, -)\nused(ex:a2, ex:e, -)",
     "C37 generation-precedes-usage", "<http://example.org/e> is used by <http://example.org/a2>, "
     "which ended before <http://example.org/a1> that generated it started"),
    ("activity(ex:a1, 2024-01-02T00:00:00Z, -)\nactivity(ex:a3, -, 2024-01-01T00:00:00Z)\n"
     "wasGeneratedBy(ex:e, ex:a1, -)\nwasInvalidatedBy(ex:e, ex:a3, -)",
     "C36 generation-precedes-invalidation", "<http://example.org/e> is invalidated by "
     "<http://example.org/a3>, which ended before <http://example.org/a1> that generated it "
     "started"),
    ("wasDerivedFrom(ex:b, ex:a)\nwasDerivedFrom(ex:c, ex:b, [prov:type='prov:Revision'])\n"
     "wasDerivedFrom(ex:a, ex:c, [prov:type='prov:Quotation'])",
     "C42 derivation acyclicity", "derivation cycle through <http://example.org/a>, "
     "<http://example.org/b>, <http://example.org/c>"),
    ("specializationOf(ex:e, ex:e)", "C52 impossible-specialization-reflexive",
     "<http://example.org/e> is a specialization of itself"),
    ("wasDerivedFrom(ex:d; ex:e2, ex:e1, -, ex:g, -)", "C51 impossible-unspecified-derivation-"
     "generation-use", "derivation <http://example.org/d> names a generation or usage but no "
     "activity"),
    ("specializationOf(ex:e2, ex:e1)\nspecializationOf(ex:e1, ex:e2)",
     "C52 impossible-specialization-reflexive", "specialization cycle through "
     "<http://example.org/e1>, <http://example.org/e2>: each is a specialization of itself"),
    ("wasDerivedFrom(ex:e2, ex:e1)\nspecializationOf(ex:e1, ex:e2)",
     "C42 derivation acyclicity", "derivation cycle through <http://example.org/e1>, "
     "<http://example.org/e2> and specialization (C45 specialization-generation-ordering)"),
    ("wasStartedBy(ex:s1; ex:a, ex:e, ex:a0, -)\nwasStartedBy(ex:s2; ex:a, ex:e, ex:a0, -)",
     "C26 unique-wasStartedBy", "activity <http://example.org/a> has 2 starts by "
     "<http://example.org/a0> with different ids"),
    ("wasEndedBy(ex:s1; ex:a, ex:e, ex:a0, -)\nwasEndedBy(ex:s2; ex:a, ex:e, ex:a0, -)",
     "C27 unique-wasEndedBy", "activity <http://example.org/a> has 2 ends by "
     "<http://example.org/a0> with different ids"),
    ("wasStartedBy(ex:s1; ex:a, -, ex:a0, 2024-01-01T00:00:00Z)\n"
     "wasStartedBy(ex:a, ex:e, ex:a0, 2024-01-02T00:00:00Z)",
     "C26 unique-wasStartedBy", "the starts of activity <http://example.org/a> by "
     "<http://example.org/a0> are one start (C26), which then has 2 different times"),
    ("activity(ex:a, 2024-01-01T00:00:00Z, -)\nwasStartedBy(ex:s; ex:a, -, -, 2024-01-02T00:00:00Z)",
     "C28 unique-startTime", "activity <http://example.org/a> has one start time, but its "
     "starts and <http://www.w3.org/ns/prov#startedAtTime> give different times"),
    ("activity(ex:a, -, 2024-01-01T00:00:00Z)\nwasEndedBy(ex:s; ex:a, -, -, 2024-01-02T00:00:00Z)",
     "C29 unique-endTime", "activity <http://example.org/a> has one end time, but its "
     "ends and <http://www.w3.org/ns/prov#endedAtTime> give different times"),
    ("used(ex:x; ex:a, ex:e, -)\nwasGeneratedBy(ex:x; ex:e2, ex:a, -)",
     "C53 impossible-property-overlap", "<http://example.org/x> is the id of relations of "
     "different kinds (Generation, Usage)"),
    ("entity(ex:e)\nwasGeneratedBy(ex:e; ex:f, ex:a, -)", "C54 impossible-object-property-overlap",
     "<http://example.org/e> is the id of a Generation and also an entity"),
    ("entity(ex:e)\nused(ex:e, ex:x, -)", "C55 entity-activity-disjoint",
     "<http://example.org/e> is both an entity and an activity"),
    ("entity(ex:c, [prov:type='prov:EmptyCollection'])\nhadMember(ex:c, ex:e)",
     "C56 membership-empty-collection", "<http://example.org/c> is a prov:EmptyCollection but has "
     "member <http://example.org/e>"),
]


@pytest.mark.parametrize("provn,constraint,message", CASES, ids=[c[1].split()[0] for c in CASES])
def test_each_constraint_is_reported_with_the_statements_involved(provn, constraint, message):
    _, report = violations(provn)
    found = [v for v in report.violations if v.constraint == constraint]
    assert found, [str(v) for v in report.violations]
    assert message in found[0].message
    assert found[0].statements and all(s.endswith(" .") for s in found[0].statements)
    assert not report.conforms


MISSING_OBJECT_TTL = """@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix ex: <http://example.org/> .
ex:e prov:qualifiedAttribution ex:at . ex:at a prov:Attribution .
ex:a2 prov:qualifiedCommunication ex:c . ex:c a prov:Communication .
ex:x prov:qualifiedInfluence ex:i .
ex:a prov:qualifiedGeneration ex:g . ex:g a prov:Generation .
ex:a3 prov:qualifiedAssociation ex:as . ex:as prov:hadPlan ex:p .
"""


def test_a_relation_without_its_mandatory_object_is_a_violation():
    # `provgraph import` refuses such nodes (tests/test_io_mandatory.py); a store filled
    # another way (a bulk load, SPARQL Update, another tool on a shared engine) can hold
    # them, and validate reports them
    store = EmbeddedStore()
    store.load(MISSING_OBJECT_TTL.encode(), "turtle")
    report = validate(store, shapes=False)
    got = sorted((v.constraint, v.message.split(";")[0]) for v in report.violations)
    assert got == [
        ("PROV-DM mandatory-argument", "Attribution <http://example.org/at> has no agent "
         "(<http://www.w3.org/ns/prov#agent>)"),
        ("PROV-DM mandatory-argument", "Communication <http://example.org/c> has no informant "
         "(<http://www.w3.org/ns/prov#activity>)"),
        ("PROV-DM mandatory-argument", "Influence <http://example.org/i> has no influencer "
         "(<http://www.w3.org/ns/prov#influencer>)"),
    ]  # a generation's activity and an association's agent may be '-' (Table 3)


@pytest.mark.parametrize("text", [
    "wasAssociatedWith(ex:as; ex:a, ex:ag, ex:p)\nwasAssociatedWith(ex:as; ex:a, ex:ag, -)",
    "actedOnBehalfOf(ex:d; ex:ag2, ex:ag1, ex:a)\nactedOnBehalfOf(ex:d; ex:ag2, ex:ag1, -)"])
def test_a_non_expandable_placeholder_and_a_value_under_one_id_are_reported_on_import(text):
    report, _ = violations(text)
    (w,) = report.warnings
    assert "C23 key-properties" in w and "non-expandable" in w


def test_starts_by_different_starters_or_without_times_pass():
    for text in ("wasStartedBy(ex:s1; ex:a, ex:e, ex:a0, -)\nwasStartedBy(ex:s2; ex:a, ex:e, ex:b0, -)",
                 "wasStartedBy(ex:s1; ex:a, ex:e, -, -)\nwasStartedBy(ex:s2; ex:a, ex:e, -, -)",
                 "activity(ex:a, 2024-01-01T00:00:00Z, -)\n"
                 "wasStartedBy(ex:s; ex:a, -, -, 2024-01-01T01:00:00+01:00)",
                 "specializationOf(ex:e3, ex:e2)\nspecializationOf(ex:e2, ex:e1)\n"
                 "wasDerivedFrom(ex:e3, ex:e1)"):
        _, report = violations(text)
        assert report.violations == [], [str(v) for v in report.violations]


def test_attribute_warnings_carry_their_location_and_do_not_fail_the_report():
    _, report = violations(
        "entity(ex:e, [prov:label=1, prov:value=1, prov:value=\"x\"])\n"
        "activity(ex:a, -, -, [prov:value=2, prov:label=\"fine\"@en])\nagent(ex:ag)\n"
        "wasAttributedTo(ex:at; ex:e, ex:ag, [prov:role=\"author\"])\n"
        "used(ex:u; ex:a, ex:e, -, [prov:role='ex:input'])")
    assert report.violations == [] and report.conforms
    got = [(w.rule, w.subject, w.predicate, w.graph) for w in report.warnings]
    assert got == [
        ("PROV-DM 5.7.2.1 prov:label", "<http://example.org/e>",
         "<http://www.w3.org/2000/01/rdf-schema#label>", None),
        ("PROV-DM 5.7.2.3 prov:role", "<http://example.org/at>",
         "<http://www.w3.org/ns/prov#hadRole>", None),
        ("PROV-DM 5.7.2.5 prov:value", "<http://example.org/a>",
         "<http://www.w3.org/ns/prov#value>", None),
        ("PROV-DM 5.7.2.5 prov:value", "<http://example.org/e>",
         "<http://www.w3.org/ns/prov#value>", None),
    ]
    messages = [w.message for w in report.warnings]
    assert "the label of <http://example.org/e> is " in messages[0] and "not a string" in messages[0]
    assert messages[1] == ("<http://example.org/at> is an attribution: prov:role belongs to a "
                           "usage, generation, invalidation, association, start or end")
    assert messages[2] == ("<http://example.org/a> is an activity: prov:value belongs to "
                           "entities only")
    assert messages[3] == ("<http://example.org/e> has 2 prov:value values; an entity has at "
                           "most one")
    assert str(report.warnings[0]).startswith("warning PROV-DM 5.7.2.1 prov:label: the label of")
    assert "(subject <http://example.org/e>, predicate " in str(report.warnings[0])


def test_statement_text_names_the_offending_triples():
    _, report = violations("entity(ex:e)\nused(ex:e, ex:x, -)")
    (v,) = report.violations
    assert v.statements == (
        "<http://example.org/e> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
        "<http://www.w3.org/ns/prov#Entity> .",
        "<http://example.org/e> <http://www.w3.org/ns/prov#used> <http://example.org/x> .")
    assert str(v).startswith("C55 entity-activity-disjoint: <http://example.org/e> is both")


def test_valid_documents_pass():
    for text in ("entity(ex:e)\nactivity(ex:a, 2024-01-01T00:00:00Z, 2024-01-01T01:00:00Z)\n"
                 "wasGeneratedBy(ex:e, ex:a, 2024-01-01T00:30:00Z)\nused(ex:b, ex:e, 2024-01-01T02:00:00Z)",
                 "agent(ex:x)\nentity(ex:x)",  # an entity may be an agent
                 "wasGeneratedBy(ex:e, -, 2024-01-01T00:00:00)\nused(ex:u; ex:a, ex:e, 2024-01-01T00:00:00Z)"):
        _, report = violations(text)
        assert report.violations == [] and report.conforms


def test_an_imprecise_and_a_precise_derivation_under_one_id_are_found_by_validate_too():
    report, store_report = violations(
        "wasDerivedFrom(ex:d; ex:b, ex:a, ex:act, ex:g, ex:u)\nwasDerivedFrom(ex:d; ex:b, ex:a)")
    assert len(report.warnings) == 1 and "C23 key-properties" in report.warnings[0]
    assert "Definition 4" in report.warnings[0]
    # PROV-O merges the two records into one node; the import marks it pg:imprecise,
    # so validate (on the stored statements alone) reports what the import warned about
    (v,) = store_report.violations
    assert v.constraint == "C23 key-properties"
    assert v.message == ("derivation <http://example.org/d> is given once without activity, "
                         "generation and usage (pg:imprecise) and once with them; the '-' markers "
                         "of an imprecise derivation do not unify with values (PROV-CONSTRAINTS "
                         "Definition 4)")
    assert v.statements == (
        '<http://example.org/d> <https://w3id.org/provgraph/ns#imprecise> '
        '"true"^^<http://www.w3.org/2001/XMLSchema#boolean> .',
        "<http://example.org/d> <http://www.w3.org/ns/prov#hadActivity> <http://example.org/act> .",
        "<http://example.org/d> <http://www.w3.org/ns/prov#hadGeneration> <http://example.org/g> .",
        "<http://example.org/d> <http://www.w3.org/ns/prov#hadUsage> <http://example.org/u> .")


def test_an_imprecise_derivation_alone_is_not_marked():
    for text in ("wasDerivedFrom(ex:d; ex:b, ex:a)\nwasDerivedFrom(ex:d; ex:b, ex:a)",
                 "wasDerivedFrom(ex:d; ex:b, ex:a, ex:act, -, -)\n"
                 "wasDerivedFrom(ex:d; ex:b, ex:a, -, ex:g, -)"):
        report, store_report = violations(text)
        assert report.warnings == [] and store_report.violations == []


def test_the_imprecise_record_survives_prov_n_and_rdf_exports():
    from provgraph.io.bundle import export

    store = EmbeddedStore()
    import_document(store, HEAD + b"wasDerivedFrom(ex:d; ex:b, ex:a, ex:act, ex:g, ex:u, "
                    b"[prov:type='prov:Revision'])\nwasDerivedFrom(ex:d; ex:b, ex:a, "
                    b"[prov:type='prov:Revision'])\nendDocument")
    text = export(store, "provn", everything=True).data.decode()
    assert "wasDerivedFrom(ex:d; ex:b, ex:a, ex:act, ex:g, ex:u, [prov:type='prov:Revision'])" \
        in text.replace("example:", "ex:")
    assert "wasDerivedFrom(ex:d; ex:b, ex:a, -, -, -, [prov:type='prov:Revision'])" \
        in text.replace("example:", "ex:")
    for fmt in ("provn", "prov-json", "prov-xml", "trig"):
        again = EmbeddedStore()
        import_document(again, export(store, fmt, everything=True).data, fmt)
        assert sorted(again.quads(), key=str) == sorted(store.quads(), key=str), fmt
        assert [v.constraint for v in validate(again, shapes=False).violations] == [
            "C23 key-properties"]


def test_check_document_on_prov_records():
    import prov

    doc = prov.read(HEAD + b"activity(ex:a, 2024-01-01T00:00:00Z, -)\n"
                    b"activity(ex:a, 2024-01-01T01:00:00+01:00, -)\nendDocument", format="provn")
    assert check_document(doc) == []  # one instant, written two ways
    doc = prov.read(HEAD + b"activity(ex:a, 2024-01-01T00:00:00Z, -)\n"
                    b"activity(ex:a, 2024-01-01T00:00:01Z, -)\nendDocument", format="provn")
    (v,) = check_document(doc)
    assert v.constraint == "C22 key-object" and "startTime 2 different values" in v.message


def test_bundles_are_validated_separately():
    trig = b"""@prefix prov: <http://www.w3.org/ns/prov#> .
    <urn:g1> { <urn:x> a prov:Entity . }
    <urn:g2> { <urn:x> a prov:Activity . }"""
    _, report = violations(trig, "trig")
    assert report.violations == [] and report.graphs == [None, "urn:g1", "urn:g2"]


def test_recorded_pipeline_satisfies_the_constraints(rag_store):
    store, r = rag_store
    report = validate(store, shapes=False)
    assert report.violations == []
    assert validate(store, r["run"], shapes=False).graphs == [r["run"]]
    with pytest.raises(NotFound):
        validate(store, "urn:uuid:none")


def test_shapes_are_checked_when_provgraph_shacl_exists(rag_store):
    store, _ = rag_store
    report = validate(store)
    try:
        import provgraph.shacl  # noqa: F401
    except ImportError:
        assert report.shacl is None and "provgraph.shacl is not installed" in report.shacl_note
    else:
        assert report.shacl is not None and report.shacl_note == ""


def test_cli_validate_exit_codes(runner, tmp_path):
    store = str(tmp_path / "s")
    bad = tmp_path / "bad.provn"
    bad.write_bytes(HEAD + b"specializationOf(ex:e, ex:e)\nendDocument")
    good = tmp_path / "good.provn"
    good.write_bytes(HEAD + b"entity(ex:e)\nendDocument")
    assert runner.invoke(cli, ["--store", store, "import", str(good)]).exit_code == 0
    res = runner.invoke(cli, ["--store", store, "validate"])
    assert res.exit_code == 0 and "0 violation(s)" in res.stderr
    assert runner.invoke(cli, ["--store", store, "import", str(bad)]).exit_code == 0
    res = runner.invoke(cli, ["--store", store, "validate"])
    assert res.exit_code == 1
    assert res.stdout.startswith("C52 impossible-specialization-reflexive: <http://example.org/e>")
    assert "<http://example.org/e> <http://www.w3.org/ns/prov#specializationOf> " \
           "<http://example.org/e> ." in res.stdout


ILL_TYPED_TTL = b"""@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
ex:e a prov:Entity ; prov:generatedAtTime "2026-02-30T00:00:00Z"^^xsd:dateTime .
ex:a a prov:Activity ; prov:startedAtTime "yesterday" .
ex:f a prov:Entity ; ex:count "abc"^^xsd:integer .
"""
_E = "<http://example.org/"
_XSD = "<http://www.w3.org/2001/XMLSchema#"


def test_ill_typed_literals_are_reported_with_their_statement():
    _, report = violations(ILL_TYPED_TTL, "turtle")
    got = [(v.constraint, v.message, v.statements) for v in report.violations]
    assert got == [
        ("PROV-O range xsd:dateTime", "<http://www.w3.org/ns/prov#startedAtTime> takes an "
         'xsd:dateTime literal, not "yesterday"',
         (f'{_E}a> <http://www.w3.org/ns/prov#startedAtTime> "yesterday" .',)),
        ("ill-typed literal", f'"2026-02-30T00:00:00Z"^^{_XSD}dateTime> is not a valid value of '
         "its datatype: day 30 is not in 2026-02",
         (f'{_E}e> <http://www.w3.org/ns/prov#generatedAtTime> '
          f'"2026-02-30T00:00:00Z"^^{_XSD}dateTime> .',)),
        ("ill-typed literal", f'"abc"^^{_XSD}integer> is not a valid value of its datatype: '
         "not an integer (digits with an optional sign)",
         (f'{_E}f> {_E}count> "abc"^^{_XSD}integer> .',)),
    ]
    assert not report.conforms


def test_prov_export_of_an_ill_typed_time_names_the_statement_and_suggests_validate(
        runner, tmp_path):
    store = str(tmp_path / "s")
    src = tmp_path / "ill.ttl"
    src.write_bytes(ILL_TYPED_TTL)
    assert runner.invoke(cli, ["--store", store, "import", str(src)]).exit_code == 0
    res = runner.invoke(cli, ["--store", store, "validate"])
    assert res.exit_code == 1 and "3 violation(s)" in res.stderr
    res = runner.invoke(cli, ["--store", store, "export", "--all", "-o", str(tmp_path / "x.json")])
    assert res.exit_code == 2
    assert res.stderr == (
        f'Error: the statement {_E}e> <http://www.w3.org/ns/prov#generatedAtTime> '
        f'"2026-02-30T00:00:00Z"^^{_XSD}dateTime> . has no PROV-JSON, PROV-N or PROV-XML form: '
        "the value is not a valid xsd:dateTime, which PROV-DM needs there. Run 'provgraph "
        "validate' to list every ill-typed literal; correct the value, or export in an RDF "
        "format (trig, nquads, turtle, json-ld), which keeps it as it is\n")
    res = runner.invoke(cli, ["--store", store, "export", "--all", "-o", str(tmp_path / "x.nq")])
    assert res.exit_code == 0  # RDF keeps the literals as they are
    assert '"yesterday"' in (tmp_path / "x.nq").read_text()


def test_cli_validate_prints_warnings_on_stderr_with_their_location_and_exits_0(runner, tmp_path):
    store = str(tmp_path / "s")
    doc = tmp_path / "warn.provn"
    doc.write_bytes(HEAD + b"activity(ex:a, -, -, [prov:value=2])\nendDocument")
    assert runner.invoke(cli, ["--store", store, "import", str(doc)]).exit_code == 0
    res = runner.invoke(cli, ["--store", store, "validate"])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines()[0] == (
        "warning PROV-DM 5.7.2.5 prov:value: <http://example.org/a> is an activity: prov:value "
        "belongs to entities only (subject <http://example.org/a>, predicate "
        "<http://www.w3.org/ns/prov#value>)")
    assert "0 violation(s), 1 warning(s)" in res.stderr


def test_the_mandatory_object_is_the_relations_own_slot_or_prov_influencer():
    ttl = b"""@prefix prov: <http://www.w3.org/ns/prov#> .
    @prefix ex: <http://example.org/> .
    ex:e prov:qualifiedAttribution ex:at1 , ex:at2 . ex:at1 prov:entity ex:x . ex:at2 prov:influencer ex:ag .
    ex:y prov:qualifiedInfluence ex:i . ex:i prov:agent ex:ag ."""
    store = EmbeddedStore()  # loaded as is: `import` refuses ex:at1 already
    store.load(ttl, "turtle")
    report = validate(store, shapes=False)
    assert [v.message.split(";")[0] for v in report.violations] == [
        "Attribution <http://example.org/at1> has no agent (<http://www.w3.org/ns/prov#agent>)"]


def test_statements_read_back_from_the_shacl_text_give_the_report_read_from_the_store(
        rag_store, monkeypatch):
    """issue 16, item 2: validate hands the SHACL engine each graph's N-Triples first and
    reads the statements back from that text (while it is small) instead of the store;
    both reads give one report, violations of both kinds, retained originals and
    warnings alike, in one order, with blank nodes and literals the store keeps under a
    private datatype."""
    import provgraph.validate as v
    from provgraph.terms import IRI, XSD, BNode, Literal
    from provgraph.vocab import PG, PROV, RDF

    store, r = rag_store
    run, ex = r["run"], "http://example.org/"
    node = BNode("n1")
    store.add([
        (IRI(ex + "x"), RDF.type, PROV.Entity, run), (IRI(ex + "x"), RDF.type, PROV.Activity, run),
        (IRI(ex + "a"), PROV.startedAtTime, Literal("2026-02-30T00:00:00Z", XSD + "dateTime"), run),
        (IRI(ex + "a"), PROV.endedAtTime, Literal("2026-01-01T00:00:00", XSD + "dateTime"), None),
        (IRI(ex + "e"), PROV.qualifiedGeneration, node, None),
        (node, PROV.atTime, Literal("007", XSD + "int"), None),
        (IRI(ex + "q"), RDF.type, PG.Query, run), (IRI(ex + "q"), PG.text, Literal("a\\"), run),
    ])
    kept = v.validate(store)
    monkeypatch.setattr(v, "_KEPT_TEXT", 0)
    read = v.validate(store)
    assert kept.messages() == read.messages() and kept.warnings == read.warnings
    assert kept.violations == read.violations and kept.originals == read.originals
    constraints = {x.constraint for x in kept.violations}
    assert {"C55 entity-activity-disjoint", "ill-typed literal",
            "PROV-O range xsd:dateTime"} <= constraints
    assert kept.shacl is not None and not kept.shacl.conforms
    assert any(w.rule == "zone-less xsd:dateTime" for w in kept.warnings)


def test_an_interrupt_during_the_checks_stops_the_shacl_engine_too(rag_store, monkeypatch):
    """issue 16, item 2: the SHACL engine validates in its own process while the
    PROV-CONSTRAINTS checks run; Ctrl-C there must stop it with the command, not leave it
    validating (it would go on for 23 s at 930,000 statements)."""
    import provgraph.validate as v
    from provgraph import shacl

    store, _ = rag_store
    made: list[shacl.ShapesData] = []

    class Watched(shacl.ShapesData):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    engines = []

    def interrupted(*args: object) -> None:
        engines.append(made[0]._engine)  # running, its data closed
        assert engines[0] is not None and engines[0].poll() is None
        raise KeyboardInterrupt

    monkeypatch.setattr(shacl, "ShapesData", Watched)
    monkeypatch.setattr(v, "_check_graphs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        v.validate(store)
    assert engines[0].poll() is not None and made[0]._engine is None
