"""Peak memory of ``provgraph import`` per input format, for a large document (issue 16,
item 6: under 500 MB for a 200 MB document, all or nothing).

Manual, not part of ``python -m bench --quick`` (a 200 MB import takes minutes):

    python -m bench.bench_import_memory --statements 1000000 --formats nquads,turtle,trig,prov-json

The document is the benchmark workload (:func:`bench.bench_import.write_workload_nquads`:
ingestion, then answers) cut after the answer that reaches ``--statements`` statements, about 200 bytes a statement
in N-Quads (1,000,000 statements: 193 MB). Turtle, TriG, RDF/XML and JSON-LD are the
same statements written by pyoxigraph (Turtle and RDF/XML: the triples, without their
graphs); PROV-JSON is
``provgraph export --run`` of the workload's run loaded into a scratch store (the run
holds nearly every statement; PROV-JSON is terser, 63 MB for 938,299 statements).

Each import is ``provgraph import FILE`` into an empty on-disk store, run in its own
child process (``python -m bench.bench_import_memory --child STORE FILE``) whose peak is
its ``VmHWM`` (:func:`bench.bench_import.peak_rss_mb`); beside it, the raw-engine floor
of the RDF formats: pyoxigraph ``Store.bulk_load`` of the same file in its own child
(not atomic, no checks). Reported per format: file MB, statements stored, peak MB,
CPU seconds and wall seconds, the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .bench_import import peak_rss_mb, write_workload_nquads

_EXT = {"nquads": ".nq", "turtle": ".ttl", "trig": ".trig", "prov-json": ".json",
        "prov-xml": ".provx", "rdf-xml": ".rdf", "json-ld": ".jsonld", "provn": ".provn"}
_FLOOR = ("nquads", "turtle", "trig", "rdf-xml", "json-ld")
"""Formats with a raw-engine floor (pyoxigraph reads no PROV-DM syntax)."""
_RUN = "urn:uuid:00000000-0000-7000-8000-000000000000"
"""The workload's run (bench/workload.py): every answer's statements are in its graph."""


def _child(store: str, path: str) -> dict[str, Any]:
    from provgraph.cli import cli

    c0, t0 = time.process_time(), time.perf_counter()
    try:
        cli(["--store", store, "import", path], standalone_mode=False)
    finally:
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    return {"peak_mb": peak_rss_mb(), "cpu_s": cpu, "wall_s": wall}


def _floor_child(store: str, path: str, fmt: str) -> dict[str, Any]:
    import pyoxigraph as ox

    kind = {"nquads": ox.RdfFormat.N_QUADS, "turtle": ox.RdfFormat.TURTLE,
            "trig": ox.RdfFormat.TRIG, "rdf-xml": ox.RdfFormat.RDF_XML,
            "json-ld": ox.RdfFormat.JSON_LD}[fmt]
    c0, t0 = time.process_time(), time.perf_counter()
    st = ox.Store(store)
    st.bulk_load(path=path, format=kind)
    st.flush()
    return {"peak_mb": peak_rss_mb(), "cpu_s": time.process_time() - c0,
            "wall_s": time.perf_counter() - t0, "statements": len(st)}


def _spawn(*args: str) -> dict[str, Any]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = subprocess.run([sys.executable, "-m", "bench.bench_import_memory", *args],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{out.stderr[-3000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["message"] = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else ""
    return dict(res)


def _write_documents(root: Path, statements: int, formats: list[str]) -> dict[str, Path]:
    """The documents of ``formats`` in ``root``; those already there (``--docs``) are reused."""
    import pyoxigraph as ox

    nq = root / "workload.nq"
    if not nq.exists():
        write_workload_nquads(nq, statements, whole_answers=True)
    paths = {"nquads": nq}
    have = {f for f in formats if (root / f"workload{_EXT[f]}").exists()}
    for f in have:
        paths[f] = root / f"workload{_EXT[f]}"
    formats = [f for f in formats if f not in have]
    if "turtle" in formats:
        triples = (ox.Triple(q.subject, q.predicate, q.object)
                   for q in ox.parse(path=str(nq), format=ox.RdfFormat.N_QUADS))
        ox.serialize(triples, str(root / "workload.ttl"), ox.RdfFormat.TURTLE)
        paths["turtle"] = root / "workload.ttl"
    if "rdf-xml" in formats:  # one graph: the triples, as for Turtle
        triples = (ox.Triple(q.subject, q.predicate, q.object)
                   for q in ox.parse(path=str(nq), format=ox.RdfFormat.N_QUADS))
        ox.serialize(triples, str(root / "workload.rdf"), ox.RdfFormat.RDF_XML)
        paths["rdf-xml"] = root / "workload.rdf"
    if "json-ld" in formats:  # pyoxigraph's writer: keys in the Streaming JSON-LD order
        ox.serialize(ox.parse(path=str(nq), format=ox.RdfFormat.N_QUADS),
                     str(root / "workload.jsonld"), ox.RdfFormat.JSON_LD)
        paths["json-ld"] = root / "workload.jsonld"
    if "trig" in formats:
        ox.serialize(ox.parse(path=str(nq), format=ox.RdfFormat.N_QUADS),
                     str(root / "workload.trig"), ox.RdfFormat.TRIG)
        paths["trig"] = root / "workload.trig"
    if "prov-json" in formats:
        from provgraph.io.bundle import export
        from provgraph.store import EmbeddedStore

        scratch = root / "scratch"
        pg = EmbeddedStore(scratch)
        pg.bulk_load(nq, "nquads")
        with open(root / "workload.json", "wb") as fh:
            export(pg, "prov-json", run=_RUN, out=fh)
        pg.close()
        shutil.rmtree(scratch, ignore_errors=True)
        paths["prov-json"] = root / "workload.json"
    if "prov-xml" in formats:  # the same run bundle, as the prov package writes PROV-XML
        from provgraph.io import provxml
        from provgraph.io._prov import read_with_prov

        doc = read_with_prov(paths["prov-json"].read_bytes(), "json", "PROV-JSON").document
        (root / "workload.provx").write_bytes(provxml.write(doc))
        paths["prov-xml"] = root / "workload.provx"
    return paths


def write_synthetic_prov(path: Path, fmt: str, megabytes: float) -> int:
    """A PROV-JSON, PROV-XML or PROV-N document of about ``megabytes`` MB written directly (no
    ``prov`` package, no store: exporting a run of 3 million statements takes most of an
    hour on the shared machine), one unit after another until the size is reached: per unit
    an agent, an activity with start and end times, two entities (one with a label and an
    ``xsd:dateTime`` attribute), ``used``, ``wasGeneratedBy`` with a time,
    ``wasAssociatedWith`` and an identified ``wasDerivedFrom`` (a qualified node). The
    records of each kind are grouped (PROV-JSON sections; PROV-XML writes them in the same
    order). Returns the number of units."""
    target = int(megabytes * 1e6)
    t = "2026-01-01T00:00:%02dZ"
    kinds = ("agent", "activity", "entity", "used", "wasGeneratedBy", "wasAssociatedWith",
             "wasDerivedFrom")
    per_unit = {
        "prov-json": lambda i: {
            "agent": [(f"ex:ag{i}", {"prov:type": {"$": "prov:SoftwareAgent",
                                                   "type": "xsd:QName"}})],
            "activity": [(f"ex:a{i}", {"prov:startTime": t % (i % 60),
                                       "prov:endTime": t % ((i + 1) % 60)})],
            "entity": [(f"ex:src{i}", {"prov:label": f"source {i}",
                                       "ex:observed": {"$": t % (i % 60), "type": "xsd:dateTime"}}),
                       (f"ex:out{i}", {})],
            "used": [(f"ex:u{i}", {"prov:activity": f"ex:a{i}", "prov:entity": f"ex:src{i}"})],
            "wasGeneratedBy": [(f"ex:g{i}", {"prov:entity": f"ex:out{i}",
                                             "prov:activity": f"ex:a{i}",
                                             "prov:time": t % ((i + 1) % 60)})],
            "wasAssociatedWith": [(f"ex:w{i}", {"prov:activity": f"ex:a{i}",
                                                "prov:agent": f"ex:ag{i}"})],
            "wasDerivedFrom": [(f"ex:d{i}", {"prov:generatedEntity": f"ex:out{i}",
                                             "prov:usedEntity": f"ex:src{i}"})]},
    }
    import json

    units = 0
    if fmt == "prov-json":
        # sections written one after another: estimate the units from one unit's size
        one = sum(len(json.dumps(dict(v))) for v in per_unit["prov-json"](0).values())
        units = max(1, target // (one + 20))
        with open(path, "w", encoding="utf-8") as out:
            out.write('{"prefix": {"ex": "urn:example:"}')
            for kind in kinds:
                out.write(f', "{kind}": {{')
                for i in range(units):
                    for k, (key, value) in enumerate(per_unit["prov-json"](i)[kind]):
                        sep = "" if i == 0 and k == 0 else ", "
                        out.write(f"{sep}{json.dumps(key)}: {json.dumps(value)}")
                out.write("}")
            out.write("}\n")
        return units
    rec = {
        "agent": lambda i: (f'<prov:agent prov:id="ex:ag{i}"><prov:type xsi:type="xsd:QName">'
                            'prov:SoftwareAgent</prov:type></prov:agent>'),
        "activity": lambda i: (f'<prov:activity prov:id="ex:a{i}"><prov:startTime>{t % (i % 60)}'
                               f'</prov:startTime><prov:endTime>{t % ((i + 1) % 60)}'
                               '</prov:endTime></prov:activity>'),
        "entity": lambda i: (f'<prov:entity prov:id="ex:src{i}"><prov:label>source {i}'
                             f'</prov:label><ex:observed xsi:type="xsd:dateTime">{t % (i % 60)}'
                             f'</ex:observed></prov:entity><prov:entity prov:id="ex:out{i}"/>'),
        "used": lambda i: (f'<prov:used prov:id="ex:u{i}"><prov:activity prov:ref="ex:a{i}"/>'
                           f'<prov:entity prov:ref="ex:src{i}"/></prov:used>'),
        "wasGeneratedBy": lambda i: (
            f'<prov:wasGeneratedBy prov:id="ex:g{i}"><prov:entity prov:ref="ex:out{i}"/>'
            f'<prov:activity prov:ref="ex:a{i}"/><prov:time>{t % ((i + 1) % 60)}</prov:time>'
            '</prov:wasGeneratedBy>'),
        "wasAssociatedWith": lambda i: (
            f'<prov:wasAssociatedWith prov:id="ex:w{i}"><prov:activity prov:ref="ex:a{i}"/>'
            f'<prov:agent prov:ref="ex:ag{i}"/></prov:wasAssociatedWith>'),
        "wasDerivedFrom": lambda i: (
            f'<prov:wasDerivedFrom prov:id="ex:d{i}"><prov:generatedEntity prov:ref="ex:out{i}"/>'
            f'<prov:usedEntity prov:ref="ex:src{i}"/></prov:wasDerivedFrom>'),
    }
    if fmt == "provn":
        return _write_synthetic_provn(path, target, kinds, t)
    one = sum(len(rec[k](0)) + 3 for k in kinds)
    units = max(1, target // one)
    with open(path, "w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<prov:document '
                  'xmlns:prov="http://www.w3.org/ns/prov#" xmlns:ex="urn:example:" '
                  'xmlns:xsd="http://www.w3.org/2001/XMLSchema#" '
                  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n')
        for kind in kinds:
            for i in range(units):
                out.write("  " + rec[kind](i) + "\n")
        out.write("</prov:document>\n")
    return units


def _write_synthetic_provn(path: Path, target: int, kinds: tuple[str, ...], t: str) -> int:
    """:func:`write_synthetic_prov`'s units in PROV-N (the records of each kind grouped)."""
    rec = {
        "agent": lambda i: f"agent(ex:ag{i}, [prov:type='prov:SoftwareAgent'])",
        "activity": lambda i: f"activity(ex:a{i}, {t % (i % 60)}, {t % ((i + 1) % 60)})",
        "entity": lambda i: (f'entity(ex:src{i}, [prov:label="source {i}", ex:observed='
                             f'"{t % (i % 60)}" %% xsd:dateTime])\n  entity(ex:out{i})'),
        "used": lambda i: f"used(ex:u{i}; ex:a{i}, ex:src{i}, -)",
        "wasGeneratedBy": lambda i: f"wasGeneratedBy(ex:g{i}; ex:out{i}, ex:a{i}, {t % ((i + 1) % 60)})",
        "wasAssociatedWith": lambda i: f"wasAssociatedWith(ex:w{i}; ex:a{i}, ex:ag{i}, -)",
        "wasDerivedFrom": lambda i: f"wasDerivedFrom(ex:d{i}; ex:out{i}, ex:src{i})",
    }
    one = sum(len(rec[k](0)) + 3 for k in kinds)
    units = max(1, target // one)
    with open(path, "w", encoding="utf-8") as out:
        out.write("document\n  prefix ex <urn:example:>\n")
        for kind in kinds:
            for i in range(units):
                out.write("  " + rec[kind](i) + "\n")
        out.write("endDocument\n")
    return units


def run(statements: int, formats: list[str], *, workdir: str | None = None,
        docs: str | None = None, floor: bool = True, synthetic: float | None = None,
        log: Any = None) -> dict[str, Any]:
    """Peak memory of ``provgraph import`` per format (module docstring).

    Returns:
        ``{"statements", "load_before", "load_after", "formats": {format: {"file_mb",
        "provgraph": {"peak_mb", "cpu_s", "wall_s", "message"}, "floor": {...} or
        None}}}``.
    """
    say = log or (lambda *_: None)
    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-importmem-", dir=workdir))
    try:
        load_before = os.getloadavg()
        where = Path(docs) if docs else root
        where.mkdir(parents=True, exist_ok=True)
        if synthetic:  # PROV-JSON, PROV-XML, PROV-N written directly (write_synthetic_prov)
            paths = {}
            for fmt in formats:
                path = where / f"synthetic-{synthetic:g}MB{_EXT[fmt]}"
                if not path.exists():
                    write_synthetic_prov(path, fmt, synthetic)
                paths[fmt] = path
        else:
            needs = formats + (["prov-json"] if "prov-xml" in formats else [])
            paths = _write_documents(where, statements, list(dict.fromkeys(needs)))
        out: dict[str, Any] = {}
        for fmt in formats:
            path = paths[fmt]
            got: dict[str, Any] = {"file_mb": path.stat().st_size / 1e6}
            got["provgraph"] = _spawn("--child", str(root / f"pg-{fmt}"), str(path))
            shutil.rmtree(root / f"pg-{fmt}", ignore_errors=True)
            if floor and fmt in _FLOOR:
                got["floor"] = _spawn("--floor", str(root / f"ox-{fmt}"), str(path), fmt)
                shutil.rmtree(root / f"ox-{fmt}", ignore_errors=True)
            say(f"  {fmt}: {json.dumps(got)}")
            out[fmt] = got
        return {"statements": statements, "load_before": load_before,
                "load_after": os.getloadavg(), "formats": out}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    """Command line (module docstring); JSON to stdout."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--statements", type=int, default=1_000_000)
    p.add_argument("--formats", default="nquads,turtle,trig,prov-json")
    p.add_argument("--workdir")
    p.add_argument("--docs", help="keep the documents in DIR and reuse those already there "
                   "(written for --statements; delete them to change the size)")
    p.add_argument("--no-floor", action="store_true", help="skip the raw-engine floor")
    p.add_argument("--synthetic", type=float, metavar="MB",
                   help="PROV-JSON/PROV-XML/PROV-N only: documents of MB megabytes written directly "
                   "(write_synthetic_prov) instead of the workload's run export")
    a = p.parse_args(argv)
    formats = [f for f in a.formats.split(",") if f]
    unknown = sorted(set(formats) - set(_EXT))
    if unknown:
        p.error(f"unknown formats {unknown}; choose from {sorted(_EXT)}")
    if a.synthetic and set(formats) - {"prov-json", "prov-xml", "provn"}:
        p.error("--synthetic writes prov-json, prov-xml and provn documents only")
    if "provn" in formats and not a.synthetic:
        p.error("provn documents are written by --synthetic only (the prov package takes "
                "most of an hour to write the workload's run as PROV-N)")
    res = run(a.statements, formats, workdir=a.workdir, docs=a.docs, floor=not a.no_floor,
              synthetic=a.synthetic, log=lambda m: print(m, file=sys.stderr))
    json.dump(res, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) > 4 and sys.argv[1] == "--write-synthetic":  # FORMAT MB PATH
        print(write_synthetic_prov(Path(sys.argv[4]), sys.argv[2], float(sys.argv[3])))
    elif len(sys.argv) > 3 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2], sys.argv[3])))
    elif len(sys.argv) > 4 and sys.argv[1] == "--floor":
        print(json.dumps(_floor_child(sys.argv[2], sys.argv[3], sys.argv[4])))
    else:
        main()
