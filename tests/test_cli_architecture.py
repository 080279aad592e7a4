"""Structure that must not drift: the package's import graph has no cycle, and every choice
list of the command line is the library's own registry (issue 12, item 4)."""

from __future__ import annotations

import ast
from pathlib import Path

import click
import networkx as nx
import pytest

import provgraph
from provgraph import importers, io, normalize, vocab
from provgraph.cli import cli

PACKAGE = Path(provgraph.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:`` (imports for annotations only, never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (
                (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def import_graph() -> nx.DiGraph:
    """provgraph's intra-package imports, module-level and function-level alike: an edge
    ``a -> b`` (with the line) when module ``a`` imports module ``b``. ``from p import x``
    is an edge to ``p.x`` when that is a module, else to ``p``; a parent package's
    ``__init__``, which Python runs first, is not counted as imported."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        skip = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph.add_edge(name, target, line=node.lineno)
    return graph


def test_the_import_graph_is_built_from_real_imports():
    # the walk must see what is there, or the no-cycle test below could not fail
    graph = import_graph()
    assert graph.has_edge("provgraph.cli", "provgraph.output")  # module level
    assert graph.has_edge("provgraph.cli", "provgraph.analytics")  # inside a command function
    assert graph.has_edge("provgraph.demo", "provgraph.demo.report")  # 'from . import report'
    assert graph.has_edge("provgraph.io.bundle", "provgraph.store")
    assert len(graph) > 50 and graph.number_of_edges() > 150


def test_the_package_import_graph_has_no_cycle():
    graph = import_graph()
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return
    # module:line of the import statement that makes each step
    path = " -> ".join(f"{a}:{graph.edges[a, b]['line']}" for a, b in cycle)
    pytest.fail(f"import cycle: {path} -> {cycle[0][0]}")


STORE_LAYER = frozenset({"provgraph.store", "provgraph._store_base", "provgraph._oxrdf",
                         "provgraph.embedded", "provgraph.remote"})
"""The only modules that may import pyoxigraph (STYLE.md §1, "only the store layer imports
pyoxigraph"): the store layer's face, the contract, term conversion and RDF syntax I/O, the
embedded store, and the remote store."""


def _imports_pyoxigraph(path: Path) -> bool:
    """Whether ``path`` imports pyoxigraph anywhere (module or function level, or by
    ``importlib.import_module``/``__import__`` of the literal name)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and getattr(node.func, "attr", getattr(node.func, "id", None))
              in ("import_module", "__import__")):
            names = [str(node.args[0].value)]
        if any(n == "pyoxigraph" or n.startswith("pyoxigraph.") for n in names):
            return True
    return False


def test_only_the_store_layer_imports_pyoxigraph():
    importers = {_module_name(p) for p in PACKAGE.rglob("*.py") if _imports_pyoxigraph(p)}
    # the walk must see the imports that are there, or the check below could not fail
    assert {"provgraph._oxrdf", "provgraph.embedded"} <= importers
    outside = sorted(importers - STORE_LAYER)
    assert not outside, f"pyoxigraph imported outside the store layer: {outside}"


# ------------------------------------------------------------ choice lists = library registries

def _choices(command: str, option: str) -> list[str]:
    cmd = cli.commands[command]
    param = next(p for p in cmd.params if option in getattr(p, "opts", ()))
    assert isinstance(param.type, click.Choice), (command, option)
    return list(param.type.choices)


def test_export_formats_are_the_io_registry():
    assert _choices("export", "--format") == list(io.FORMATS)


def test_import_formats_are_auto_the_readable_io_formats_and_the_importers():
    readable = [name for name, f in io.FORMATS.items() if f.readable]
    assert _choices("import", "--format") == ["auto", *readable, *importers.FORMATS]
    assert _choices("verify-bundle", "--format") == ["auto", *readable]


@pytest.mark.parametrize("command", ["resolve", "check-quote"])
def test_policies_are_the_normalization_registry(command):
    assert _choices(command, "--policy") == list(normalize.POLICIES)


def test_offset_units_are_the_vocabulary_units():
    assert _choices("check-quote", "--unit") == list(vocab.UNITS)


def test_resolve_citation_columns_are_the_resolution_rows_keys(rag_store):
    # the column order is the CLI's (resolve.py has no column list yet); the names must be
    # exactly the keys of RunResolution.rows(), less the resolved text
    from provgraph.cli import RESOLUTION_COLUMNS
    from provgraph.resolve import resolve_run

    store, r = rag_store
    rows = resolve_run(store, r["run"]).rows()
    assert rows and all(set(row) - {"text"} == set(RESOLUTION_COLUMNS) for row in rows)
    assert len(set(RESOLUTION_COLUMNS)) == len(RESOLUTION_COLUMNS)
