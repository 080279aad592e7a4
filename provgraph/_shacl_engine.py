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

import codecs
import dataclasses
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from .shacl import Violation


def main() -> int:
    """Validate standard input; exit status 0 with the JSON report on standard output."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C at a terminal reaches it too
    # standard input is read from the start, so the command never waits on a full pipe
    # while this process loads and compiles the shapes; it is made text as it comes
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(read_text(sys.stdin.buffer)),
                              daemon=True)
    reader.start()
    from .shacl import _compiled_shapes, report_to_json, validate_text

    _compiled_shapes()
    reader.join()
    text, labels = ascii_labels(received.pop() if received else "")
    conforms, violations = validate_text(text)
    del text
    if labels:
        violations = old_labels(violations, labels)
    sys.stdout.buffer.write(report_to_json(conforms, violations))
    sys.stdout.buffer.flush()
    return 0


def read_text(stream: BinaryIO) -> str:
    """N-Triples (UTF-8) from ``stream``, to its end, as one ``str`` that holds only ASCII
    where it can: each character past ASCII in an IRI or a literal is written as its
    N-Triples escape (``\\u00E9``, ``\\U0001F600``), which names the same term. The
    engine reads an ASCII ``str`` as it is, while one with any other character is first
    encoded to UTF-8 again, a copy of the whole text (issue 16, item 2: with the decoding,
    20 ms on the demo store, after the last statement came). A block of lines where such
    a character may be in a blank node label (which has no escapes) is kept as it is.

    The text is decoded block by block as it comes, while the command still writes it.

    Raises:
        UnicodeDecodeError: the bytes are not UTF-8.

    Example:
        >>> import io
        >>> read_text(io.BytesIO('<urn:x:é> <urn:x:p> "ÿ😀" .\\n'.encode()))
        '<urn:x:\\\\u00E9> <urn:x:p> "\\\\u00FF\\\\U0001F600" .\\n'
        >>> read_text(io.BytesIO('_:é <urn:x:p> "é" .\\n'.encode()))
        '_:é <urn:x:p> "é" .\\n'
    """
    parts: list[str] = []
    carry = b""
    while chunk := stream.read1(1 << 20):  # type: ignore[attr-defined]
        data = carry + chunk
        cut = data.rfind(b"\n") + 1  # whole lines: no character is cut in two
        carry = data[cut:]
        if cut:
            parts.append(_ascii_lines(data[:cut]))
    if carry:
        parts.append(_ascii_lines(carry))
    return "".join(parts)


def ascii_labels(text: str) -> tuple[str, dict[str, str]]:
    """``text`` (N-Triples, one statement a line, as the store writes it) with every blank
    node label that holds a character past ASCII replaced by a fresh ASCII label, and the
    map from each fresh label to the one it replaces (``{}``: nothing replaced, ``text``
    as it is). N-Triples allows such labels (``PN_CHARS_U``), but the rdflib reader
    pyshacl-turbo reads its report back with refuses them, so the engine failed on a store
    holding one; :func:`old_labels` puts them back in the report. The fresh labels start
    with a prefix no label of ``text`` starts with. A line that is not a statement of that
    form is left as it is.

    Example:
        >>> ascii_labels('_:é <urn:x:p> _:ü .\\n<urn:x:s> <urn:x:p> "_:é" .\\n')
        ('_:pgu0 <urn:x:p> _:pgu1 .\\n<urn:x:s> <urn:x:p> "_:é" .\\n', {'pgu0': 'é', 'pgu1': 'ü'})
    """
    if text.isascii():
        return text, {}
    prefix = "pgu"
    while "_:" + prefix in text:
        prefix += "u"
    fresh: dict[str, str] = {}  # old label -> fresh label

    def relabel(label: str) -> str:
        if label.isascii():
            return label
        if label not in fresh:
            fresh[label] = f"{prefix}{len(fresh)}"
        return fresh[label]

    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines):
        if "_:" in line and not line.isascii():
            lines[n] = _relabelled(line, relabel)
    return "".join(lines), {new: old for old, new in fresh.items()}


def _relabelled(line: str, relabel: Callable[[str], str]) -> str:
    """One N-Triples statement line with its subject's and object's blank node labels
    passed through ``relabel``; a line of another form is returned as it is."""
    try:
        if line.startswith("_:"):
            end = line.index(" ")
            line = "_:" + relabel(line[2:end]) + line[end:]
        obj = line.index("> ", line.index(" ") + 1) + 2  # past the predicate IRI
        if line.startswith("_:", obj):
            end = line.rindex(" .")
            line = line[:obj] + "_:" + relabel(line[obj + 2:end]) + line[end:]
    except ValueError:
        pass
    return line


def old_labels(violations: list[Violation], labels: dict[str, str]) -> list[Violation]:
    """``violations`` with the blank nodes :func:`ascii_labels` relabelled given their
    labels in the store again (``labels``: fresh label -> old label), in the report's
    order."""
    from .shacl import _violation_order
    from .terms import BNode

    def back(t: Any) -> Any:
        return BNode(labels[str(t)]) if isinstance(t, BNode) and str(t) in labels else t

    out = [dataclasses.replace(v, focus_node=back(v.focus_node), value=back(v.value))
           for v in violations]
    out.sort(key=_violation_order)
    return out


def _ascii_lines(block: bytes) -> str:
    if block.isascii():
        return block.decode("ascii")
    text = block.decode("utf-8")
    try:
        return text.encode("ascii", _ESCAPE).decode("ascii")
    except _InLabel:
        return text


class _InLabel(Exception):
    """A character past ASCII may be in a blank node label, which has no escapes."""


def _escape(exc: UnicodeError) -> tuple[str, int]:
    """The ``str.encode`` error handler that writes N-Triples escapes (:func:`read_text`):
    raises :class:`_InLabel` when the characters may be in a blank node label (their word
    starts with ``_:``; inside a literal that is only a look-alike, and keeping the text
    as it is is right all the same)."""
    assert isinstance(exc, UnicodeEncodeError)
    text, start = exc.object, exc.start
    word = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start),
               text.rfind("\t", 0, start)) + 1
    if text.startswith("_:", word):
        raise _InLabel
    return "".join(f"\\u{ord(c):04X}" if ord(c) < 0x10000 else f"\\U{ord(c):08X}"
                   for c in text[start:exc.end]), exc.end


_ESCAPE = "provgraph-ntriples-escape"
codecs.register_error(_ESCAPE, _escape)


if __name__ == "__main__":
    status = main()
    # the report is out: end now, without the interpreter's teardown (freeing the data
    # graph's text and rdflib's modules), which the command would otherwise wait for,
    # since it reads the report to the end of the pipe (issue 16, item 2)
    sys.stderr.flush()
    os._exit(status)
