"""docs/embedding.md's examples, each run as its own program, print what the page shows.

Every ``python`` block of the page is a whole program: it is run from the repository's root (its
paths are the examples'), in a fresh interpreter with a temporary ``SEAMHOST_HOME``, and the
``text`` block right after it is what it must print, line for line (``...`` in a line stands for
any text). So the page cannot drift from what the API does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "embedding.md"
EXAMPLE = re.compile(r"^```python\n(?P<code>.*?)^```\n\n```text\n(?P<output>.*?)^```$", re.M | re.S)


def examples() -> list[tuple[str, str]]:
    return [(m["code"], m["output"]) for m in EXAMPLE.finditer(PAGE.read_text(encoding="utf-8"))]


def matches(shown: str, printed: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, printed) is not None


def test_every_python_block_has_its_output() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert len(examples()) == text.count("```python") == 5


@pytest.mark.parametrize(("code", "output"), examples(), ids=lambda v: str(v)[:30])
def test_an_example_prints_what_the_page_shows(code: str, output: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    env["SEAMHOST_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed, shown = done.stdout.splitlines(), output.splitlines()
    assert len(printed) == len(shown), done.stdout
    for want, got in zip(shown, printed, strict=True):
        assert matches(want, got), f"the page shows {want!r}, the example printed {got!r}"
