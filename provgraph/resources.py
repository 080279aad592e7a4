"""Locates the bundled data folders: ``queries/``, ``ontologies/``, ``schemas/``, the
demo corpus (``examples/corpus/`` in a checkout) and the example gate policy
(``policies``: ``examples/gate-policy.toml`` in a checkout).

This is the only module that knows where they are. It looks in exactly two places:

1. the installed wheel: ``importlib.resources.files("provgraph") / "_data" / kind``
   (hatchling force-includes the top-level folders there);
2. the source checkout (editable installs): ``Path(__file__).parents[1] / kind``
   (``examples/corpus`` for ``corpus``).

Texts are cached; callers get fresh strings and lists.

When provgraph is imported from a directory (every pip install, wheel or editable),
``importlib.resources.files("provgraph")`` is that directory, so place 1 is computed from
``__file__`` and ``importlib.resources`` is imported only otherwise (a zip): importing it
loads tempfile, shutil, bz2 and lzma, about 10 ms of every command's start (issue 16).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import ProvgraphError

__all__ = ["data_dir", "data_files", "data_text", "ontology_files", "ontology_text"]

KINDS = ("queries", "ontologies", "schemas", "corpus", "policies")
_CHECKOUT = {"corpus": "examples/corpus", "policies": "examples"}


@lru_cache(maxsize=None)
def data_dir(kind: str) -> Path:
    """The directory holding bundled ``kind`` files (``queries``, ``ontologies``, ``schemas``,
    ``corpus``, ``policies``: in a checkout ``examples/``, of which the wheel carries
    ``gate-policy.toml`` only).

    Raises:
        ProvgraphError: ``kind`` is unknown, or neither location exists (the message
            lists both paths searched).
    """
    if kind not in KINDS:
        raise ProvgraphError(f"unknown data folder {kind!r}; use one of {KINDS}")
    candidates: list[Path] = []
    package = Path(__file__).parent
    if (package / "__init__.py").is_file():  # a package directory: files() is that directory
        candidates.append(package / "_data" / kind)
    else:  # pragma: no cover - a zipped install
        import importlib.resources

        try:
            candidates.append(Path(str(importlib.resources.files("provgraph") / "_data" / kind)))
        except (ModuleNotFoundError, TypeError):  # namespace edge cases
            pass
    candidates.append(Path(__file__).resolve().parents[1] / _CHECKOUT.get(kind, kind))
    for c in candidates:
        if c.is_dir():
            return c
    raise ProvgraphError(
        f"provgraph's {kind}/ folder was not found; looked in "
        + " and ".join(str(c) for c in candidates)
        + ". Reinstall provgraph (pip install provgraph) or run from a full source checkout."
    )


def data_files(kind: str, suffix: str) -> list[Path]:
    """Bundled ``kind`` files ending in ``suffix``, sorted by name."""
    return sorted(p for p in data_dir(kind).iterdir() if p.name.endswith(suffix))


@lru_cache(maxsize=None)
def data_text(kind: str, name: str) -> str:
    """The text of bundled file ``name`` in folder ``kind``.

    Raises:
        ProvgraphError: the file does not exist.
    """
    path = data_dir(kind) / name
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProvgraphError(f"bundled file {path} is missing; reinstall provgraph") from None


def ontology_files() -> list[str]:
    """Names of the bundled ontology and shapes files (``*.ttl``)."""
    return [p.name for p in data_files("ontologies", ".ttl")]


def ontology_text(name: str) -> str:
    """The Turtle text of bundled ontology file ``name`` (e.g. ``rag-prov.ttl``)."""
    return data_text("ontologies", name)


def json_schema(name: str) -> dict[str, Any]:
    """A bundled JSON Schema (``schemas/NAME``) as a fresh dict (the caller may change it).

    Raises:
        ProvgraphError: the bundled ``schemas/`` folder is missing (a broken install).
    """
    from .limits import loads_json

    loaded: dict[str, Any] = loads_json(data_text("schemas", name))
    return loaded


@lru_cache(maxsize=None)
def schema_validator(name: str) -> Any:
    """A JSON Schema 2020-12 validator (``jsonschema.Draft202012Validator``) of the bundled
    schema ``schemas/NAME``, made once per process."""
    import jsonschema

    return jsonschema.Draft202012Validator(json_schema(name))
