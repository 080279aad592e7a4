"""``provgraph serve``: one process owns the embedded store and serves it (issue 13).

Modules:

* :mod:`provgraph.serve.server`: the HTTP server (standard library
  ``ThreadingHTTPServer``): the SPARQL 1.1 Protocol endpoint ``/sparql``, the ingest
  endpoint ``/ingest`` for the JSONL event log, the store contract's own endpoints
  (``/quads``, ``/load``, ``/dump``, ``/graphs``, ``/originals``), ``/health`` and
  ``/version``.
* :mod:`provgraph.serve.client`: :class:`~provgraph.serve.client.ServedStore`, the
  :class:`~provgraph.store.ProvStore` over that server, which
  :func:`provgraph.store.open_store` returns for an ``http://`` location.
* :mod:`provgraph.serve._wire`: what both sides share (term encoding, the token).

Nothing here imports the engine: the server works through the store contract.
"""
