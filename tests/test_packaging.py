"""Bundled queries/, ontologies/ and schemas/ load from a source checkout (editable
install) and from an installed wheel (STYLE.md §8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import provgraph
from provgraph.resources import data_dir, ontology_files

ROOT = Path(__file__).resolve().parents[1]


def test_checkout_resources_resolve_to_the_source_tree():
    assert data_dir("queries") == ROOT / "queries"
    assert data_dir("ontologies") == ROOT / "ontologies"
    assert "rag-prov.ttl" in ontology_files()


@pytest.fixture(scope="module")
def wheel_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "-w", str(out), str(ROOT)], check=True)
    wheels = list(out.glob("provgraph-*.whl"))
    assert len(wheels) == 1
    site = out / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                    str(site), str(wheels[0])], check=True)
    return site


def _run_outside_checkout(site: Path, code: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(site)}
    res = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                         text=True, check=True)
    return res.stdout


def test_installed_wheel_carries_its_data(wheel_site, tmp_path):
    code = (
        "import json, provgraph\n"
        "from provgraph.resources import data_dir, ontology_files\n"
        "from provgraph.queries import QueryCatalog\n"
        "from provgraph.events import schema\n"
        "print(json.dumps({'module': provgraph.__file__, 'queries': str(data_dir('queries')),"
        " 'names': QueryCatalog().names(), 'ontologies': ontology_files(),"
        " 'schema': schema()['title']}))\n"
    )
    got = json.loads(_run_outside_checkout(wheel_site, code, tmp_path))
    assert got["module"].startswith(str(wheel_site))
    assert got["queries"] == str(wheel_site / "provgraph" / "_data" / "queries")
    from provgraph.queries import QueryCatalog
    assert got["names"] == QueryCatalog().names()
    assert got["ontologies"] == ontology_files()
    assert got["schema"] == "provgraph event log, version 1"


def test_installed_wheel_cli_lists_queries(wheel_site, tmp_path):
    out = _run_outside_checkout(
        wheel_site, "import sys; sys.argv=['provgraph','queries','--nl']; "
        "from provgraph.cli import main; main()", tmp_path)
    assert [json.loads(l)["name"] for l in out.splitlines()] == provgraph.QueryCatalog().names()


def test_installed_wheel_carries_the_demo_gate_policy(wheel_site, tmp_path):
    """Issue 18 part 7: the demo's gate run reads examples/gate-policy.toml, which the wheel
    carries as _data/policies (the demo must run from an installed package)."""
    code = ("from provgraph.demo.evaluation import policy_path\n"
            "from provgraph.gates import load_policy\n"
            "p = policy_path(); print(p); print(load_policy(p).version)\n")
    path, version = _run_outside_checkout(wheel_site, code, tmp_path).split()
    assert path == str(wheel_site / "provgraph" / "_data" / "policies" / "gate-policy.toml")
    assert version == "example-1"


def test_installed_wheel_serves_the_page_stylesheet(wheel_site, tmp_path):
    """Issue 19: the page's stylesheet is package data (provgraph/ui/static/) and the
    installed handler serves it with no network and no build step."""
    code = ("import provgraph.ui.app as a\n"
            "from provgraph.store import EmbeddedStore\n"
            "r = a.handle(EmbeddedStore(), 'GET', '/ui/static/ui.css')\n"
            "print(a.__file__); print(r.status, len(r.body))\n")
    where, status, size = _run_outside_checkout(wheel_site, code, tmp_path).split()
    assert where.startswith(str(wheel_site))
    assert (wheel_site / "provgraph" / "ui" / "static" / "ui.css").is_file()
    assert status == "200"
    assert int(size) == (ROOT / "provgraph" / "ui" / "static" / "ui.css").stat().st_size
