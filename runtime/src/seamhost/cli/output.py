"""Shared output helpers for the CLI: JSON to stdout, rich consoles created on demand."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from rich.console import Console


def emit_json(value: Any) -> None:
    """Print `value` as indented JSON on stdout."""
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def console(*, stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)
