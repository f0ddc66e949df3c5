"""Modules stay small: none over 400 lines, and the median well under 120.

A module longer than that is a question to ask (STYLE: one reason to change). The one kind of
module allowed to be longer is a table of data, and it must say so in its docstring (the word
"table"), so a reader knows why.
"""

from __future__ import annotations

import ast
import statistics
from pathlib import Path

ROOT = Path(__file__).parent.parent
LIMIT = 400
MEDIAN = 120


def sources() -> list[Path]:
    found = sorted((ROOT / "runtime" / "src").rglob("*.py"))
    for src in sorted((ROOT / "plugins").glob("*/src")):
        found += sorted(src.rglob("*.py"))
    return found


def test_no_module_is_over_the_limit_unless_it_is_a_table() -> None:
    long = []
    for path in sources():
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if lines > LIMIT and "table" not in docstring:
            long.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not long, "modules over the limit:\n" + "\n".join(long)


def test_the_median_module_is_small() -> None:
    sizes = [path.read_text(encoding="utf-8").count("\n") for path in sources()]
    assert len(sizes) > 100
    assert statistics.median(sizes) < MEDIAN, statistics.median(sizes)
