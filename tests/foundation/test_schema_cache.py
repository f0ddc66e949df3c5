"""Compiled schema validators are cached on disk like bytecode, and never trusted blindly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
from seamhost.schema import compile_schema
check = compile_schema({"type": "object", "properties": {"n": {"type": "integer", "minimum": 2}}})
print(check({"n": 1}).problem, check({"n": 3}), "fastjsonschema" in sys.modules)
"""


def run(cache: Path) -> str:
    env = {**os.environ, "SEAMHOST_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_cached_validator_is_used_without_importing_fastjsonschema(tmp_path: Path) -> None:
    first = run(tmp_path)
    assert first == "must be bigger than or equal to 2 None True"
    entries = list((tmp_path / "schemas").glob("*.marshal"))
    assert len(entries) == 1
    assert run(tmp_path) == "must be bigger than or equal to 2 None False"


def test_a_damaged_cache_entry_is_regenerated(tmp_path: Path) -> None:
    run(tmp_path)
    [entry] = (tmp_path / "schemas").glob("*.marshal")
    entry.write_bytes(b"\x00garbage")
    assert run(tmp_path) == "must be bigger than or equal to 2 None True"
    assert entry.read_bytes() != b"\x00garbage"


def test_an_unwritable_cache_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert run(blocker) == "must be bigger than or equal to 2 None True"


NUMBERS = """
import sys
from seamhost.schema import compile_schema
check = compile_schema({"type": "object", "properties": {"n": {"type": "number", "minimum": 1}}})
print(check({"n": 0.5}).problem, check({"n": "1"}).problem, "decimal" in sys.modules, sep="|")
import decimal
print(check({"n": decimal.Decimal("0.5")}).problem, check({"n": decimal.Decimal("2")}), sep="|")
"""


def test_a_cached_number_check_knows_decimals_without_importing_decimal(tmp_path: Path) -> None:
    env = {**os.environ, "SEAMHOST_CACHE": str(tmp_path)}

    def run_numbers() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", NUMBERS], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.splitlines()

    run_numbers()  # generates the validator (fastjsonschema itself imports decimal)
    assert run_numbers() == [
        "must be bigger than or equal to 1|must be number|False",
        "must be bigger than or equal to 1|None",
    ]
