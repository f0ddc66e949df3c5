"""Shared output helpers for the CLI: JSON to stdout, rich consoles created on demand.

The consoles escape control characters in whatever they render
(:mod:`seamhost.cli.terminal`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


def emit_json(value: Any) -> None:
    """Print `value` as indented JSON on stdout."""
    # Imported here, not at the top: `seamhost --help` loads this module and prints no JSON.
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def console(*, stderr: bool = False) -> Console:
    """A console for people: every string it renders is made terminal-safe (see the module)."""
    # Imported here, not at the top: rich's console weighs more than the rest of a quick
    # command, and a --json run never builds one.
    from seamhost.cli.console import SafeConsole

    # Emoji codes off too: ":warning:" in a tool's output is shown as written, not as a glyph.
    return SafeConsole(stderr=stderr, highlight=False, soft_wrap=True, emoji=False)
