"""Nothing changed on import or export (issue 15, "Silent loss or change on import and
export"): bundle names resolved where they appear, PROV-XML identifiers, PROV-XML
detection, and bug classes replayed from peer tools' trackers and test suites."""

from __future__ import annotations

import pytest

from provgraph import io as pio
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI

from .io_helpers import canon

OUTER, INNER = "http://example.org/outer/", "http://example.org/inner/"
ENTITY = IRI("http://www.w3.org/ns/prov#Entity")
RDF_TYPE = IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def _stored(data: bytes, fmt: str) -> tuple[EmbeddedStore, list[str]]:
    store = EmbeddedStore()
    report = import_document(store, data, fmt, name="doc")
    return store, report.warnings


BUNDLE_PROVN = f"""document
  prefix ex <{OUTER}>
  entity(ex:b, [prov:type='prov:Bundle'])
  bundle ex:b
    prefix ex <{INNER}>
    entity(ex:e)
  endBundle
endDocument
""".encode()

BUNDLE_JSON = (f'{{"prefix": {{"ex": "{OUTER}"}}, "entity": {{"ex:b": {{"prov:type": '
               f'{{"$": "prov:Bundle", "type": "prov:QUALIFIED_NAME"}}}}}}, "bundle": {{"ex:b": '
               f'{{"prefix": {{"ex": "{INNER}"}}, "entity": {{"ex:e": {{}}}}}}}}}}').encode()


@pytest.mark.parametrize("data,fmt", [(BUNDLE_PROVN, "provn"), (BUNDLE_JSON, "prov-json")],
                         ids=["provn", "prov-json"])
def test_a_bundle_name_is_resolved_with_the_prefixes_where_it_appears(data, fmt):
    """PROV-N §3.3: a bundle's own prefix declarations apply to its body, not to its
    name; the document's description of ex:b and the bundle's graph are one IRI."""
    store, _ = _stored(data, fmt)
    b = IRI(OUTER + "b")
    assert canon(store.quads()) == canon([
        (b, RDF_TYPE, ENTITY, None),
        (b, RDF_TYPE, IRI("http://www.w3.org/ns/prov#Bundle"), None),
        (IRI(INNER + "e"), RDF_TYPE, ENTITY, b)])


def test_a_bundle_name_whose_prefix_only_the_bundle_declares_keeps_it_with_a_warning():
    data = (f"document\n bundle ex:b\n  prefix ex <{INNER}>\n  entity(ex:e)\n endBundle\n"
            "endDocument\n").encode()
    store, warnings = _stored(data, "provn")
    assert store.named_graphs() == [IRI(INNER + "b")]
    assert any("line 2, column 9: the bundle name ex:b uses prefix 'ex', which only the "
               "bundle declares" in w for w in warnings), warnings
