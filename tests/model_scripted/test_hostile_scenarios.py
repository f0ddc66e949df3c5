"""Hostile scenarios and result files, through the real CLI: one line naming the file, exit 2.

``seamhost run`` reads a scenario (TOML or JSON) and ``seamhost
session reconcile --result`` reads a JSON value; each kind of bad input fails before anything
runs. On main before issue 12 a scenario nested 5,000 levels deep ended in a traceback, exit 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.input_limits import MAX_DEPTH, RESULT_BYTES, SCENARIO_BYTES
from tests.conftest import run_cli

CALL = (
    '[[turn]]\nuser = "x"\n[[turn.step]]\n[[turn.step.call]]\ntool = "shell"\nargs = {{ a = {} }}\n'
)


def one_line_error(args: list[str], home: Path, *named: str) -> str:
    done = run_cli(*args, env={"SEAMHOST_HOME": str(home)})
    assert done.returncode == ExitCode.USAGE, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("seamhost: error: "), lines[0]
    for text in named:
        assert text in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("name", "content", "named"),
    [
        ("deep.toml", CALL.format("[" * 5000 + "]" * 5000), ("nested deeper than 64 levels",)),
        (
            "over.toml",
            CALL.format("[" * MAX_DEPTH + "]" * MAX_DEPTH),
            ("turn[0].step[0].call[0]...", "nested deeper than 64 levels"),
        ),
        ("deep.json", '{"turn": ' + "[" * 5000 + "]" * 5000 + "}", ("not valid JSON",)),
        ("over.json", '{"turn": ' + "[" * 70 + "]" * 70 + "}", ("turn[0][0][0][0][0]...",)),
        ("bad.toml", b'[[turn]]\nuser = "\xff"\n', ("not UTF-8 text (byte 17)",)),
        ("bad.json", b'{"turn": "\xff"}', ("not valid JSON",)),
    ],
    ids=["deep-toml", "over-the-cap-toml", "deep-json", "over-the-cap-json", "utf8", "utf8-json"],
)
def test_a_hostile_scenario_is_one_line(
    tmp_path: Path, name: str, content: str | bytes, named: tuple[str]
) -> None:
    scenario = tmp_path / name
    if isinstance(content, bytes):
        scenario.write_bytes(content)
    else:
        scenario.write_text(content)
    one_line_error(["run", str(scenario)], tmp_path / "home", str(scenario), *named)


def test_a_scenario_past_the_size_cap(tmp_path: Path) -> None:
    scenario = tmp_path / "huge.toml"
    with scenario.open("wb") as fh:
        fh.truncate(SCENARIO_BYTES + 1)  # NUL bytes: never read past the cap
    one_line_error(["run", str(scenario)], tmp_path / "home", str(scenario), "larger than 16 MiB")


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("[" * 5000 + "]" * 5000, "not valid JSON"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "[0][0][0][0][0][0]...: nested deeper"),
        (b'"\xff"', "not valid JSON"),
        (b" " * (RESULT_BYTES + 1), "larger than 16 MiB"),
    ],
    ids=["deep", "over-the-cap", "utf8", "too-large"],
)
def test_a_hostile_result_file_is_one_line(
    tmp_path: Path, content: str | bytes, named: str
) -> None:
    result = tmp_path / "result.json"
    if isinstance(content, bytes):
        result.write_bytes(content)
    else:
        result.write_text(content)
    args = ["session", "reconcile", "s", "c", "--result", str(result), "--source", "ops"]
    one_line_error(args, tmp_path / "home", str(result), named)
