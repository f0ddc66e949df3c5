"""A backstop for module size; the rule itself is a review rule (docs/contributing.md).

The rule is one concept per module: a module is split when it holds two concepts, not to fit a
number. A reviewer sees that; a line count does not, and a hard cap at a size modules reach in
ordinary work made people cut a module where the count fell instead of where the concepts part.
So this test only flags what no review should have let through: a module over 600 lines (well
past the ~400 at which STYLE says to ask the question) is almost surely two concepts.

Two checks stay, because they still catch what a diff review cannot:

* A table of data (options of each wrapper, kernel constants...) is one concept however long it
  grows, so a module whose docstring calls itself a table (the word "table" or "tables", as a
  word) is exempt, and the docstring tells the reader why it is long.
* The median module stays small. No module is judged by it; it watches the whole code base drift,
  which no single diff shows: modules growing a little each, each review saying "still fine".
"""

from __future__ import annotations

import ast
import re
import statistics
from pathlib import Path

ROOT = Path(__file__).parent.parent
LIMIT = 600
MEDIAN = 120
TABLE = re.compile(r"\btables?\b", re.IGNORECASE)


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
        if lines > LIMIT and not TABLE.search(docstring):
            long.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not long, (
        "modules over the limit (one concept each? see docs/contributing.md):\n" + "\n".join(long)
    )


def test_the_median_module_is_small() -> None:
    sizes = [path.read_text(encoding="utf-8").count("\n") for path in sources()]
    assert len(sizes) > 100
    assert statistics.median(sizes) < MEDIAN, statistics.median(sizes)
