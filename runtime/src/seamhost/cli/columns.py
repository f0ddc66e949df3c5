"""Tables that fit the terminal without cutting what matters.

A listing declares its columns in order of importance. Columns marked `keep` (a session id, a
plugin name) are always shown and never shortened; the others are added while they fit the
console's width (80 when the output is not a terminal), and those that do not fit are dropped
whole, never cut, with a note on stderr naming them. A `wrap` column may break onto several
lines between words (a list of seams, a path), but never inside one. ``--json`` always has
every field.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
from rich.cells import cell_len

from seamhost.cli.output import console

if TYPE_CHECKING:
    from rich.console import Console

GAP = 2  # columns are separated by one space of padding on each side


@attrs.frozen
class Column:
    """One column: its header, whether it is never dropped, whether it may wrap."""

    header: str
    keep: bool = False
    wrap: bool = False


def _cell_len(text: str) -> int:
    return cell_len(text)


def min_width(column: Column, cells: Sequence[str]) -> int:
    """The narrowest the column can be without cutting a cell (or, if it wraps, a word)."""
    words = [word for cell in cells for word in cell.split()] if column.wrap else list(cells)
    return max([_cell_len(column.header), *map(_cell_len, words)])


def fit(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """The indexes of the columns to show within `width`: every kept one, then the others in
    order while they fit."""
    widths = [min_width(c, [row[i] for row in rows]) for i, c in enumerate(columns)]
    shown = [i for i, c in enumerate(columns) if c.keep]
    used = sum(widths[i] for i in shown) + GAP * max(len(shown) - 1, 0)
    for index, column in enumerate(columns):
        if column.keep:
            continue
        extra = widths[index] + (GAP if shown else 0)
        if used + extra <= width:
            shown.append(index)
            used += extra
    return sorted(shown)


def widths_within(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int
) -> list[int]:
    """Each column's natural width (its widest cell), wrapping columns narrowed, widest first,
    toward their minimum until the table fits `width` (or cannot narrow further)."""
    natural = [
        max([_cell_len(c.header), *(_cell_len(r[i]) for r in rows)]) for i, c in enumerate(columns)
    ]
    floor = [min_width(c, [r[i] for r in rows]) for i, c in enumerate(columns)]
    excess = sum(natural) + GAP * (len(columns) - 1) - width
    while excess > 0:
        slack = [(natural[i] - floor[i], i) for i, c in enumerate(columns) if c.wrap]
        room, widest = max(slack, default=(0, -1))
        if room <= 0:
            break
        natural[widest] -= 1
        excess -= 1
    return natural


def render(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> list[str]:
    """The table's lines: the fitted columns, cells padded, wrapping cells broken at spaces."""
    shown = fit(columns, rows, width)
    picked = [columns[i] for i in shown]
    cells = [[_printable(row[i]) for i in shown] for row in rows]
    widths = widths_within(picked, cells, width)
    lines = []
    for row in [[c.header for c in picked], *cells]:
        parts = [
            textwrap.wrap(cell, w, break_long_words=False, break_on_hyphens=False) or [""]
            if column.wrap
            else [cell]
            for column, cell, w in zip(picked, row, widths, strict=True)
        ]
        for n in range(max(map(len, parts))):
            texts = [part[n] if n < len(part) else "" for part in parts]
            padded = [t + " " * (w - _cell_len(t)) for t, w in zip(texts, widths, strict=True)]
            lines.append((" " * GAP).join(padded).rstrip())
    return lines


def _printable(text: str) -> str:
    """`text` with control characters shown as ``?``: a cell never moves the cursor."""
    return text.translate(_CONTROL)


_CONTROL = dict.fromkeys((*range(32), 127), "?")


def print_table(
    out: Console, columns: Sequence[Column], rows: Sequence[Sequence[str]], *, what: str
) -> None:
    """Print `rows` (plain text cells) under `columns`, fitted to `out`'s width.

    Written straight to the console's file: rich's own tables take about a second for 2,000
    rows, which a listing cannot afford.
    """
    lines = render(columns, rows, out.width)
    header, body = lines[0], lines[1:]
    out.print(header, style="bold", markup=False, highlight=False)
    out.file.write("".join(line + "\n" for line in body))
    out.file.flush()
    shown = fit(columns, rows, out.width)
    dropped = [columns[i].header for i in range(len(columns)) if i not in shown]
    if dropped:
        console(stderr=True).print(
            f"({what}: {', '.join(dropped)} not shown to fit {out.width} columns; "
            "--json prints every field)",
            style="dim",
            highlight=False,
        )


def format_size(size: int) -> str:
    """A byte count as a person reads it: ``512 B``, ``3.8 KiB``, ``1.2 MiB``."""
    if size < 1024:
        return f"{size} B"
    value, unit = size / 1024, 0
    while value >= 1024 and unit < 2:
        value, unit = value / 1024, unit + 1
    return f"{value:.1f} {('KiB', 'MiB', 'GiB')[unit]}"
