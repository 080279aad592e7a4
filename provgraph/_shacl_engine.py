"""The SHACL engine's process: ``python -m provgraph._shacl_engine``.

:class:`provgraph.shacl.ShapesData` starts it and writes the data graph to its standard
input as N-Triples (UTF-8, the ontology mixed in); it validates that text against the
bundled shapes (:func:`provgraph.shacl.validate_text`, pyshacl-turbo) once standard input
ends and writes the report to standard output as JSON
(:func:`provgraph.shacl.report_to_json`). Any failure is a Python exception on standard
error and a non-zero exit status. It runs apart from the command so that Ctrl-C stops it
at once (the engine holds the interpreter lock while it validates) and so that it loads
and compiles the shapes while the command reads the store (issue 16, item 2). It reads
nothing but standard input and the bundled files, and reaches no network.
"""

from __future__ import annotations

import signal
import sys
import threading


def main() -> int:
    """Validate standard input; exit status 0 with the JSON report on standard output."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C at a terminal reaches it too
    # standard input is read from the start, so the command never waits on a full pipe
    # while this process loads and compiles the shapes
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(sys.stdin.buffer.read()),
                              daemon=True)
    reader.start()
    from .shacl import _compiled_shapes, report_to_json, validate_text

    _compiled_shapes()
    reader.join()
    text = received.pop().decode("utf-8") if received else ""  # one copy of the text
    conforms, violations = validate_text(text)
    sys.stdout.buffer.write(report_to_json(conforms, violations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
