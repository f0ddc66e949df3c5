"""Which tables' examples already passed: a marker file per table and analyser version.

Checking examples needs the shell analysis, which a bundle that never judges a call would not
load (see :mod:`.plugin`). So a table whose examples passed is remembered under seamhost's cache
directory (``$SEAMHOST_HOME/cache``, else ``$XDG_CACHE_HOME/seamhost``), keyed by the table's
rules and floors and by the size and modification time of every module of this package: a changed
rule, example or analyser checks them again. A cache that cannot be read or written only costs
the check.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seamhost import jsonvalue
from seamhost.schema import cache_dir


def _marker(config: Mapping[str, Any], here: Path = Path(__file__).parent) -> Path:
    code = sorted(
        (e.name, e.stat().st_size, e.stat().st_mtime_ns)
        for e in os.scandir(here)
        if e.name.endswith(".py")  # not __pycache__, which changes whenever bytecode is written
    )
    tables = {key: jsonvalue.thaw(config.get(key, ())) for key in ("rules", "floor")}
    key = jsonvalue.digest({"tables": tables, "code": code}).rpartition(":")[2]
    return cache_dir().parent / "tool-policy-examples" / key


def passed(config: Mapping[str, Any]) -> bool:
    """Whether this table's examples passed before, with this code."""
    return _marker(config).exists()


def remember(config: Mapping[str, Any]) -> None:
    """Note that this table's examples passed."""
    marker = _marker(config)
    with contextlib.suppress(OSError):
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
