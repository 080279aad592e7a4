"""Docs that must not drift: the CLI reference matches --help; the README names every command."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from provgraph.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def _render() -> str:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "docs" / "generate_cli_reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.render()


def test_cli_reference_is_current():
    committed = (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8")
    assert committed == _render(), (
        "docs/cli-reference.md is out of date: run "
        "'python docs/generate_cli_reference.py > docs/cli-reference.md'")


def test_readme_mentions_every_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name in cli.commands if f"provgraph {name}" not in readme
               and f"  {name} " not in readme]
    assert not missing, f"README does not mention: {missing}"
