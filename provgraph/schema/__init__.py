"""The schema layer: one module per recorded concept, the only place that builds or
decodes its statements (STYLE.md §1; issue 12).

Each module holds the concept's frozen record type, its field -> predicate
:class:`~provgraph.schema._table.Table` (checked against ``ontologies/rag-prov.ttl``
in both directions by ``tests/test_schema.py``), ``to_quads(record, graph)`` and a
batch ``load(store, iris)`` that runs a fixed number of store queries per call,
whatever the number of records (stated in each docstring).

=================  ==========================================================
module             concept
=================  ==========================================================
``agent``          software agents (role, name, version) and the statements
                   every activity shares
``run``            the run: a PROV bundle (named graph)
``removal``        a deleted run: the removal that invalidated it (audit trail)
``snapshot``       documents, snapshots, revisions, deletions
``extraction``     parser runs and the extracted text with its offset map
``chunk``          chunking and chunks with their position selectors
``aid``            generated retrieval aids (HyDE documents, contextual
                   prefixes, generated questions)
``segment``        original / generated / instruction / query ranges of a text
``indexed``        indexed representations (the text that was embedded)
``query``          user queries
``retrieval``      retrievals and their ranked hits
``prompt``         context packing and the generator input (the exact prompt)
``generation``     generations and their answers
``claim``          claims, derivation operands and warrants, support shortcuts
``citation``       citations: target, range, quote selector, pinned digest,
                   recorded outcome; the one interpretation of a cited range
``table``          PDF page layout (page and box maps) and tables with their cells
                   (issue 21)
``review``         reviewers, reviews and adjudications of claims, and their
                   verdicts (issue 18)
=================  ==========================================================

Layering: the schema imports only :mod:`provgraph.store` (the store contract),
:mod:`provgraph.terms`, :mod:`provgraph.vocab`, :mod:`provgraph.ids` and
:mod:`provgraph.offsets`; the Recorder, importers, resolver, analytics, exports and
demo import the schema, never the reverse.
"""

from __future__ import annotations

from . import (
    agent, aid, chunk, citation, claim, extraction, generation, indexed, prompt, query, retrieval,
    removal, review, run, segment, snapshot, table,
)
from ._table import Field, Part, Table, all_tables

__all__ = ["Field", "Part", "Table", "all_tables", "agent", "aid", "chunk", "citation", "claim",
           "extraction", "generation", "indexed", "prompt", "query", "removal", "retrieval", "review", "run",
           "segment", "snapshot", "table"]
