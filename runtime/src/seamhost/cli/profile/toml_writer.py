"""Writing TOML: the value types profiles hold, in the layout a person would write by hand.

Strings, integers, floats (``inf``, ``nan`` included), booleans, dates, times and date-times,
arrays and tables. A table is a ``[header]`` with its plain keys first, then its sub-tables; a
non-empty list of tables is an array of tables (``[[header]]``); a small table of plain values
deep inside (a secret marker, a rule's ``args``) is written inline, as ``{ path = "x" }``. Keys
are bare when TOML allows it and quoted otherwise. What this writes, :mod:`tomllib` reads back
as the same value (tests hold it to that for generated documents).
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}
_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f"\\\x7f]')
INLINE_DEPTH = 3  # tables at least this deep may be inline: plugins.NAME.KEY = { ... }
INLINE_WIDTH = 60


def dumps(doc: Mapping[str, Any], notes: Mapping[str, list[str]] | None = None) -> str:
    """`doc` as a TOML document; `notes` (dotted path of an array of tables -> one line per
    element) puts a comment above each element's ``[[header]]``."""
    lines: list[str] = []
    _table(doc, (), lines, header=None, notes=notes or {})
    return "\n".join(lines).lstrip("\n") + "\n" if lines else ""


def key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else _string(name)


def dotted(path: tuple[str, ...]) -> str:
    return ".".join(key(part) for part in path)


def value(v: Any) -> str:
    """One value as inline TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, datetime.time) and v.utcoffset() is not None:
        raise TypeError("a TOML time has no UTC offset; use a date-time")
    if isinstance(v, datetime.date | datetime.time):  # datetime is a date
        return v.isoformat()
    if isinstance(v, Mapping):
        return (
            "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
        )
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"TOML has no type for {type(v).__name__} values")


def _block(v: Any) -> str:
    """A value on its key's line; a long array one element per line."""
    text = value(v)
    if len(text) <= INLINE_WIDTH + 28 or not isinstance(v, list | tuple):
        return text
    return "[\n" + "".join(f"    {value(x)},\n" for x in v) + "]"


def _string(s: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m[0], f"\\u{ord(m[0]):04x}"), s) + '"'


def _is_array_of_tables(v: Any) -> bool:
    return isinstance(v, list | tuple) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _inline(v: Any, depth: int) -> bool:
    """Whether `v`, `depth` keys deep, is written on its key's line."""
    if not isinstance(v, Mapping):
        return not _is_array_of_tables(v)
    plain = all(not isinstance(x, Mapping | list | tuple) for x in v.values())
    return depth >= INLINE_DEPTH and bool(v) and plain and len(value(v)) <= INLINE_WIDTH


def _table(
    table: Mapping[str, Any],
    path: tuple[str, ...],
    lines: list[str],
    header: str | None,
    *,
    notes: Mapping[str, list[str]],
    note: str = "",
) -> None:
    depth = len(path) + 1
    plain = [(k, v) for k, v in table.items() if _inline(v, depth)]
    nested = [(k, v) for k, v in table.items() if not _inline(v, depth)]
    if header is not None and (plain or not nested or header.startswith("[[")):
        lines += ["", f"# {note}", header] if note else ["", header]
    lines += [f"{key(k)} = {_block(v)}" for k, v in plain]
    for k, v in nested:
        sub = (*path, k)
        if isinstance(v, Mapping):
            _table(v, sub, lines, f"[{dotted(sub)}]", notes=notes)
        else:
            said = notes.get(".".join(sub), [])
            for index, element in enumerate(v):
                note = said[index] if index < len(said) else ""
                _table(element, sub, lines, f"[[{dotted(sub)}]]", notes=notes, note=note)
