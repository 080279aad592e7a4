"""Loading the bundled ontology and SHACL shapes into a store.

``provgraph init`` puts ``ontologies/*.ttl`` into the named graph
:data:`provgraph.vocab.GRAPH.ONTOLOGY`, replacing what was there, so a store
always carries the vocabulary version it was written with.
"""

from __future__ import annotations

from .resources import ontology_files, ontology_text
from .store import ProvStore
from .vocab import GRAPH

__all__ = ["init_store"]


def init_store(store: ProvStore) -> int:
    """(Re)load the bundled ontology files into the ontology graph; return the statement count.

    Raises:
        SerializationError: a bundled file does not parse (a broken install).
        StoreError: the store cannot be written.
    """
    store.remove_graph(GRAPH.ONTOLOGY)
    total = 0
    for name in ontology_files():
        total += store.load(ontology_text(name), "turtle", graph=GRAPH.ONTOLOGY)
    return total
