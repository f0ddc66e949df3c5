"""The programs table (``programs.toml``, data): global options, valued options, aliases.

Read on the first shell command the structured matchers look at, never when a bundle is built.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any, NamedTuple


class Program(NamedTuple):
    """What the table says of one program (all empty for a program it does not list)."""

    global_flags: frozenset[str] = frozenset()
    global_valued: frozenset[str] = frozenset()
    valued: str = ""
    aliases: Mapping[str, str] = {}

    def canonical(self, flag: str) -> str:
        """The spelling the matchers compare for `flag` (``--recursive`` → ``-r`` for rm)."""
        return self.aliases.get(flag, flag)


@functools.cache
def _table() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("programs.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@functools.cache
def program(name: str) -> Program:
    """The entry of the program `name` (its basename)."""
    entry = _table().get(name, {})
    return Program(
        frozenset(entry.get("global_flags", ())),
        frozenset(entry.get("global_valued", ())),
        entry.get("valued", ""),
        dict(entry.get("aliases", {})),
    )


def split_flag(word: str, entry: Program) -> list[str]:
    """The options one word spells, as the matchers compare them (``-fr`` → ``-f``, ``-r``)."""
    if word.startswith("--"):
        return [entry.canonical(word.partition("=")[0])]
    letters: list[str] = []
    for letter in word[1:]:
        letters.append(entry.canonical("-" + letter))
        if letter in entry.valued:
            break  # the rest of the word is its value
    return letters
