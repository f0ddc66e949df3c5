"""Names a module exports but imports only when first read (PEP 562 module ``__getattr__``).

Building a bundle, which every command does, must not import what only a running session needs,
yet a module's public names should not move when its heavier half does. A module keeps those
names importable from itself with::

    __getattr__ = lazy_exports(__name__, {"ToolContext": "seamhost.tool.call"})

(and imports them under ``TYPE_CHECKING`` for type checkers). The first read imports the
defining module and keeps the value in the exporting module, so later reads cost nothing.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(module: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for `module`: each name of `exports` from the module it names."""
    table = dict(exports)

    def __getattr__(name: str) -> Any:
        source = table.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        setattr(sys.modules[module], name, value)
        return value

    return __getattr__


__all__ = ["lazy_exports"]
