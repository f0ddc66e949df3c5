"""The marker of a table whose examples passed: keyed by the table and the package's modules, so
a changed rule or analyser checks the examples again, and writing bytecode does not."""

from __future__ import annotations

import os
from pathlib import Path

from seamhost_tool_policy.examples_cache import _marker

TABLE = {"rules": [{"tool": "shell", "command": "git push*", "decision": "deny"}]}


def package(tmp_path: Path) -> Path:
    here = tmp_path / "seamhost_tool_policy"
    (here / "__pycache__").mkdir(parents=True)
    (here / "analyser.py").write_text("RULES = 1\n")
    return here


def test_bytecode_written_beside_the_modules_keeps_the_marker(tmp_path: Path) -> None:
    here = package(tmp_path)
    before = _marker(TABLE, here)
    (here / "__pycache__" / "analyser.cpython-311.pyc").write_bytes(b"\0" * 16)
    os.utime(here / "__pycache__", ns=(1, 10**18))
    assert _marker(TABLE, here) == before


def test_a_changed_module_or_table_changes_the_marker(tmp_path: Path) -> None:
    here = package(tmp_path)
    before = _marker(TABLE, here)
    (here / "analyser.py").write_text("RULES = 22\n")
    changed_code = _marker(TABLE, here)
    assert changed_code != before
    assert _marker({"rules": [], "floor": []}, here) != changed_code
