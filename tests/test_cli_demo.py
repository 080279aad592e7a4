"""The commands the demo report suggests trying next all run on a demo store."""

from __future__ import annotations

import shlex

import pytest

from provgraph.cli import cli
from provgraph.demo import run_demo
from provgraph.demo.report import next_commands


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return run_demo(tmp_path_factory.mktemp("demo") / "store", quiet=True)


def test_every_suggested_command_runs_on_the_demo_store(demo, runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # 'export ... -o claim.prov.json' writes here
    suggested = next_commands(demo)
    assert len(suggested) == 9
    for line in suggested:
        argv = shlex.split(line)
        assert argv[0] == "provgraph"
        res = runner.invoke(cli, argv[1:], catch_exceptions=False)
        assert res.exit_code == 0, (line, res.output)
        assert res.stdout or res.stderr, line
    assert (tmp_path / "claim.prov.json").stat().st_size > 0
