"""The lazy groups: each summary is its command's, and a group's --help imports no command.

A group lists its commands by the summaries it holds (:mod:`seamhost.cli.lazy_group`), so that
``seamhost --help`` or ``seamhost session --help`` does not import every command module with
all it imports at its top. These tests keep the summaries true to the commands they stand for.
"""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from seamhost.cli import main
from seamhost.cli.lazy_group import LazyGroup


def lazy_entries(group: LazyGroup, path: str = "seamhost") -> list[tuple[str, LazyGroup, str]]:
    """Every lazy command under `group`: its path, its group and its name."""
    found = []
    ctx = click.Context(group)
    for name in sorted(group.lazy):
        found.append((f"{path} {name}", group, name))
        command = group.get_command(ctx, name)
        if isinstance(command, LazyGroup):
            found += lazy_entries(command, f"{path} {name}")
    return found


ENTRIES = lazy_entries(main)


@pytest.mark.parametrize(("group", "name"), [e[1:] for e in ENTRIES], ids=[e[0] for e in ENTRIES])
def test_each_summary_is_the_first_paragraph_of_the_commands_help(
    group: LazyGroup, name: str
) -> None:
    command = group.get_command(click.Context(group), name)
    assert command is not None
    assert command.short_help is None
    assert not command.hidden
    assert not command.deprecated
    first = (command.help or "").split("\n\n")[0]
    assert group.lazy[name].summary.split() == first.split()


PROBE = """
import json, sys
from click.testing import CliRunner
from seamhost.cli import main
before = set(sys.modules)
result = CliRunner().invoke(main, sys.argv[1:])
assert result.exit_code == 0, result.output
print(json.dumps(sorted(m for m in set(sys.modules) - before if m.startswith("seamhost.cli."))))
"""


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["--help"], set()),
        (["session", "--help"], {"seamhost.cli.session"}),
        (["profile", "--help"], {"seamhost.cli.profile"}),
        (["runs", "--help"], {"seamhost.cli.runs"}),
        (["mcp", "--help"], {"seamhost.cli.mcp"}),
    ],
)
def test_a_groups_help_imports_none_of_its_commands(args: list[str], allowed: set[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert set(json.loads(result.stdout)) <= allowed


SDK_PROBE = """
import json, sys
from click.testing import CliRunner
from seamhost.cli import main
result = CliRunner().invoke(main, sys.argv[1:])
sdk = [m for m in sys.modules if m == "a2a" or m.startswith(("a2a.", "seamhost.a2a"))]
print(json.dumps({"code": result.exit_code, "output": result.output, "sdk": sorted(sdk)}))
"""


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["a2a", "serve", "--help"], 0),
        (["a2a", "serve", "--max-sessions", "0"], 2),
        (["a2a", "serve", "--token-env", "SEAMHOST_TEST_UNSET_TOKEN_VAR"], 2),
    ],
)
def test_a2a_serve_imports_the_a2a_sdk_only_to_serve(args: list[str], code: int) -> None:
    # Importing the SDK costs seconds of CPU: its help and a refused option must not pay it.
    result = subprocess.run(
        [sys.executable, "-c", SDK_PROBE, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    report = json.loads(result.stdout)
    assert report["code"] == code, report["output"]
    assert report["sdk"] == []
