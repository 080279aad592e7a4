"""Start-up stays small: the command line imports only what a command uses (issue 16, item 3).

The time itself is shown in bench/, not asserted here; what is asserted is the cause
of a slow start: heavy optional libraries loaded by ``import provgraph.cli``."""

from __future__ import annotations

import json
import subprocess
import sys

from provgraph import EmbeddedStore, Recorder

HEAVY = ("networkx", "rich", "prov", "rdflib", "pyshacl")


def _loaded_after(code: str) -> list[str]:
    probe = (f"{code}; import json, sys; "
             f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout
    return list(json.loads(out))


def test_importing_the_cli_loads_no_heavy_library():
    assert _loaded_after("import provgraph.cli") == []


def test_importing_the_package_loads_no_submodule_until_a_name_is_used():
    probe = ("import provgraph, sys; "
             "print(sorted(m for m in sys.modules if m.startswith('provgraph.')))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "[]"


def test_lineage_loads_only_what_its_output_needs(tmp_path):
    # rows need none of the heavy libraries, nor does the tree off a terminal (issue 16:
    # rich draws it only on one); --dot needs networkx
    store = EmbeddedStore(tmp_path / "s")
    snap = Recorder(store, packages=[]).snapshot(b"Water boils at 100 C.", uri="file:///f.txt",
                                                 media_type="text/plain")
    store.close()
    for fmt, needs in (("--nl", []), ("--tree", [])):
        code = ("from click.testing import CliRunner; from provgraph.cli import cli; "
                f"r = CliRunner().invoke(cli, ['--store', {str(tmp_path / 's')!r}, 'lineage', "
                f"{str(snap.iri)!r}, {fmt!r}]); "
                "assert r.exit_code == 0 and 'SourceSnapshot' in r.output, r.output")
        assert _loaded_after(code) == needs, fmt
