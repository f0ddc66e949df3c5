"""A user's terminal for the user guide's examples: a temporary home, store and directory."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from seamhost.cli import main
from tests.docs.guide_blocks import Command

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "user-guide.md"


class Shell:
    """A user's terminal for the guide's examples: a home, a store, a directory of files."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.home = root / "home"
        self.cwd = root / "work"
        self.home.mkdir()
        shutil.copytree(
            REPO / "examples", self.cwd / "examples", ignore=shutil.ignore_patterns(".seamhost")
        )
        # the guide's user keeps a profile of their own named like a shipped one
        profiles = self.home / ".config" / "seamhost" / "profiles"
        profiles.mkdir(parents=True)
        (profiles / "strict.toml").write_text(
            '[profile]\nname = "strict"\nextends = ["default"]\n', encoding="utf-8"
        )
        # the parent of the guide's `team` profile that is the reader's own
        (self.cwd / "local.toml").write_text('[profile]\nname = "local"\n', encoding="utf-8")
        monkeypatch.chdir(self.cwd)
        self.environ: dict[str, str | None] = {
            name: None for name in os.environ if name.startswith("SEAMHOST_")
        }
        self.environ |= {"HOME": str(self.home), "SEAMHOST_HOME": str(self.home / "seamhost")}
        self.environ |= {"COLUMNS": "100"}

    def expand(self, word: str) -> str:
        return str(self.home) + word[1:] if word == "~" or word.startswith("~/") else word

    def invoke(self, command: Command, extra: dict[str, str] | None = None) -> Result:
        environ = dict(self.environ) | dict(extra or {})
        environ |= {name: self.expand(value) for name, value in command.environ.items()}
        environ |= dict.fromkeys(command.unset)
        argv = [self.expand(word) for word in command.argv]
        return CliRunner().invoke(main, argv, env=environ, catch_exceptions=False)

    def run(self, *argv: str) -> Result:
        return self.invoke(Command(list(argv)))


def shown(result: Result) -> str:
    text = "\n".join(line.rstrip() for line in result.output.splitlines())
    return text + "\n" if text else ""
