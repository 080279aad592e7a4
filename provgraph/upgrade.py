"""Bringing a store written by an older provgraph up to the shape the current one writes
(``provgraph upgrade``).

What is upgraded, each a fix that :func:`provgraph.validate.validate` reports with the
same text until it is made:

* removal records in :data:`provgraph.vocab.GRAPH.REMOVALS`
  (:func:`provgraph.schema.removal.outdated`): a deleted run typed ``pg:Run`` (before
  ``pg:RemovedRun``), and a run deleted, recorded again and deleted again with every
  removal on the run itself (two ``prov:invalidatedAtTime`` values).

The whole upgrade is one transaction through the store layer, so the ledger records it as
one line (``provgraph verify`` and ``provgraph rebuild`` keep working); nothing outside the
statements listed is changed, and running it again changes nothing.
"""

from __future__ import annotations

from .schema import removal as removal_schema
from .schema.removal import OutdatedRemoval
from .store import ProvStore
from .vocab import GRAPH

__all__ = ["upgrade"]


def upgrade(store: ProvStore, *, dry_run: bool = False) -> list[OutdatedRemoval]:
    """Bring the store's removal records up to date, in one transaction.

    Reads the statements of :data:`GRAPH.REMOVALS` once; writes only when something is
    outdated (one :meth:`~provgraph.store.ProvStore.replace`, recorded by the ledger).

    Args:
        store: the store.
        dry_run: find and return what would change, write nothing.

    Returns:
        What was (with ``dry_run``: would be) upgraded, one
        :class:`~provgraph.schema.removal.OutdatedRemoval` per problem, by run IRI;
        ``[]``: the store is up to date. An entry without a ``fix`` is reported, not
        fixed (its problem says why and what to do by hand).

    Raises:
        StoreError: the store cannot be written; nothing is changed.

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> upgrade(EmbeddedStore())
        []
    """
    found = removal_schema.outdated(
        (q[0], q[1], q[2]) for q in store.quads(graph=GRAPH.REMOVALS))
    remove = [q for o in found if o.fix for q in o.remove]
    add = [q for o in found if o.fix for q in o.add]
    if not dry_run and (remove or add):
        store.replace(remove, add)
    return found
