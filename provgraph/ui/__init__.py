"""The auditor's web page (issue 19): from a claim to its highlighted source span.

Modules:

* :mod:`provgraph.ui.views`: what each view shows, as data, read through the library the
  CLI uses (``lineage``, ``stale``, ``impact``, ``export``), so the page and the CLI
  agree about a citation; for a citation of a PDF table, cell or page box, the region
  (:func:`provgraph.regions.region_for_citation`) with its page layout and table.
* :mod:`provgraph.ui.pages`: the HTML, rendered on the server; every store value is
  escaped; no script; the lineage graph and a cited PDF region's page are inline SVG
  (no Graphviz, no PDF renderer).
* :mod:`provgraph.ui.app`: the HTTP side: :func:`~provgraph.ui.app.handle` (GET and
  HEAD only, security headers on every response), the stand-alone server of
  ``provgraph ui``; ``provgraph serve`` mounts the same handler under ``/ui/``.
* ``static/ui.css``: the hand-written stylesheet (package data).
"""
