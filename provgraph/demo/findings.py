"""What provgraph's own libraries report about the demo store.

Each function calls one public provgraph function (resolver, query library,
PROV-JSON export) and returns a :class:`Finding`: the rows it returned, or, when
the module is not part of this installation, ``available=False`` and a note
``(not available: <module> missing)``. Nothing is ever made up in its place.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Finding", "optional_module"]


@dataclass(slots=True)
class Finding:
    """A library result: ``value`` when ``available``, else ``note`` says why not."""

    available: bool
    value: Any = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def optional_module(name: str, *attrs: str) -> tuple[Any, str]:
    """``(module, "")`` when ``name`` imports and has every attribute in ``attrs``,
    else ``(None, "(not available: <what> missing)")``, with ``: <why>`` when a library
    the module imports is what failed."""
    try:
        mod = importlib.import_module(name)
    except ImportError as exc:  # the module, or a library it imports (issue 17: say which)
        why = "" if exc.name == name else f": {exc}"
        return None, f"(not available: {name} missing{why})"
    for a in attrs:
        if not hasattr(mod, a):
            return None, f"(not available: {name}.{a} missing)"
    return mod, ""


def unavailable(note: str) -> Finding:
    """A :class:`Finding` for a module that is not installed."""
    return Finding(available=False, note=note)
