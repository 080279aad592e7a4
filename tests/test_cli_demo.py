"""The commands the demo report suggests trying next all run on a demo store, exactly
as printed, in a shell where provgraph is not on PATH (right after 'make demo'); the
demo writes where --store or $PROVGRAPH_STORE say; what it prints agrees with itself."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from provgraph.cli import cli
from provgraph.demo import run_demo
from provgraph.demo.report import next_commands

ROOT = Path(__file__).resolve().parents[1]
EXE = Path(sys.executable).with_name("provgraph")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return run_demo(tmp_path_factory.mktemp("demo") / "store", quiet=True)


def test_every_suggested_command_runs_on_the_demo_store(demo, runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # 'export ... -o claim.prov.json' writes here
    suggested = next_commands(demo)
    assert len(suggested) == 12
    for line in suggested:
        argv = shlex.split(line)
        assert argv[0] == "provgraph"
        res = runner.invoke(cli, argv[1:], catch_exceptions=False)
        # 'gate' exits 1 on the demo run: the report shows which gates fail and why
        assert res.exit_code == (1 if "gate" in argv else 0), (line, res.output)
        assert res.stdout or res.stderr, line
    assert (tmp_path / "claim.prov.json").stat().st_size > 0


def _no_provgraph_path() -> str:
    """$PATH without any directory holding a provgraph program (a shell after 'make demo'
    that did not activate the venv)."""
    return os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if d and not (Path(d) / "provgraph").exists())


def test_make_demo_then_the_printed_commands_run_as_printed(tmp_path):
    """Issue 17: the report said 'provgraph ...', which is not on PATH after 'make demo'
    (bash: provgraph: command not found). Run as make runs it (.venv/bin/provgraph demo,
    from the checkout: here a directory with the same .venv), the report prints the
    path that works, and each line runs in bash exactly as printed."""
    (tmp_path / ".venv").symlink_to(EXE.parent.parent)
    env = {**os.environ, "PATH": _no_provgraph_path(), "COLUMNS": "100"}
    env.pop("PROVGRAPH_STORE", None)
    res = subprocess.run([".venv/bin/provgraph", "demo"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    printed = res.stdout.split("  try next:\n", 1)[1].splitlines()
    lines = [ln.strip() for ln in printed if ln.strip()]
    assert len(lines) == 12 and all(ln.startswith(".venv/bin/provgraph ") for ln in lines)
    assert f"(check it: .venv/bin/provgraph verify-bundle " in res.stdout
    for line in lines:
        ran = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=120)
        assert ran.returncode == (1 if " gate --policy " in line else 0), (line, ran.stderr)
        assert "command not found" not in ran.stderr
    assert (tmp_path / "claim.prov.json").stat().st_size > 0
    assert (tmp_path / ".provgraph-demo" / "PROVGRAPH_DEMO_STORE").is_file()


@pytest.mark.parametrize("argv, env, expected", [
    (["--store", "X", "demo"], {}, "X"),
    (["demo"], {"PROVGRAPH_STORE": "Y"}, "Y"),
    (["--store", "X", "demo", "--store", "Z"], {}, "Z"),  # the command's own option wins
    (["demo"], {}, None),  # run_demo's default, ./.provgraph-demo
])
def test_the_demo_writes_where_store_and_the_environment_say(runner, monkeypatch, argv, env,
                                                             expected):
    """Issue 17: 'provgraph --store X demo' and $PROVGRAPH_STORE were ignored: the demo
    wrote ./.provgraph-demo. (A real run with the default is the test above.)"""
    import provgraph.demo

    got = []
    monkeypatch.setattr(provgraph.demo, "run_demo", lambda path, **kw: got.append(path))
    monkeypatch.delenv("PROVGRAPH_STORE", raising=False)
    res = runner.invoke(cli, argv, env=env, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert got == [None if expected is None else Path(expected)]


def test_the_stale_footnote_agrees_with_the_stale_table(demo):
    """Issue 17: the footnote said a derivation claim's span is unknown while the q18/q19
    derivation rows said 'unchanged'."""
    from rich.console import Console

    from provgraph.demo.report import render

    console = Console(record=True, width=200)
    render(demo, console)
    text = console.export_text()
    section = text.split("Stale claims after Flask 3.0.3", 2)[2].split("Claims affected", 1)[0]
    rows = [ln for ln in section.splitlines() if "[derivation]" in ln]
    assert len(rows) == 2 and all("unchanged" in r for r in rows)
    spans = set(re.findall(r"│ (unchanged|changed|unknown|-) ", section))
    footnote = " ".join(section.split("└", 1)[1].split())
    assert "derivation" in footnote
    assert ("unknown" in footnote) == ("unknown" in spans), footnote


def test_a_library_module_that_fails_to_import_fails_the_demo(runner, tmp_path, monkeypatch):
    """Issue 17: a dependency that failed to import gave a note and exit 0. The report
    still shows what could be shown; the command exits 2 naming the module and why."""
    import importlib

    real = importlib.import_module

    def broken(name, *args):  # type: ignore[no-untyped-def]
        if name == "provgraph.io.bundle":
            raise ImportError("No module named 'prov'", name="prov")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", broken)
    res = runner.invoke(cli, ["--store", str(tmp_path / "d"), "demo"])
    assert res.exit_code == 2, res.output
    assert "(not available: provgraph.io.bundle missing: No module named 'prov')" in res.stdout
    assert res.stderr == ("Error: the demo ran without provgraph.io.bundle (No module named "
                          "'prov'); reinstall provgraph with its dependencies ('make demo', or "
                          "pip install -e .) and run it again\n")


def test_a_missing_demo_dependency_is_an_error_line(runner, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m.startswith("provgraph.demo")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "rank_bm25", None)  # import rank_bm25 -> ImportError
    res = runner.invoke(cli, ["--store", str(tmp_path / "d"), "demo"])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("Error: provgraph demo needs rank_bm25, which does not import")
    assert "Traceback" not in res.output
