"""The fenced blocks of a markdown guide, and the ``seamhost`` command lines written in them.

A block may be preceded by one HTML comment addressed to the docs test::

    <!-- docs-test: skip REASON -->     not run or resolved (still parsed), listed with REASON
    <!-- docs-test: reproduce CASE -->  an output the test reproduces with its case CASE
    <!-- docs-test: fragment -->        a TOML part of a profile: checked inside one that extends
                                        ``default``
    <!-- docs-test: needs B... -->      run only where each sandbox-local backend B works
                                        (``a-backend``: any one), else skipped saying so

Expected output may hold ``...``: inside a line it stands for any text, alone on a line for any
number of lines; a run of spaces stands for any run of spaces (columns are padded to fit).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field

FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>[a-z]*)[ ]*$")
DIRECTIVE = re.compile(r"^\s*<!-- docs-test: (?P<verb>[a-z-]+)(?: (?P<arg>.*?))? -->\s*$")
VERBS = {"skip", "reproduce", "fragment", "needs"}


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts, its language, its text, what the test is told."""

    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    verb: str = ""
    arg: str = ""

    @property
    def where(self) -> str:
        return f"docs/user-guide.md:{self.line} ({self.lang or 'untagged'})"


def blocks(markdown: str) -> list[Block]:
    """Every fenced block, its indentation removed, with the directive just above it."""
    lines = markdown.split("\n")
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent = len(opening["indent"])
        start = index
        index += 1
        body: list[str] = []
        while not re.match(r"^[ ]*```[ ]*$", lines[index]):
            body.append(lines[index][indent:])
            index += 1
        index += 1
        above = next((line for line in reversed(lines[:start]) if line.strip()), "")
        directive = DIRECTIVE.match(above)
        verb, arg = (directive["verb"], directive["arg"] or "") if directive else ("", "")
        if directive and verb not in VERBS:
            raise ValueError(f"docs/user-guide.md:{start}: unknown docs-test directive {verb!r}")
        found.append(Block(start + 1, opening["lang"], "\n".join(body) + "\n", verb, arg))
    return found


@dataclass
class Command:
    """A ``seamhost`` invocation of a shell line, with the variables set for it."""

    argv: list[str]
    environ: dict[str, str] = field(default_factory=dict)
    unset: list[str] = field(default_factory=list)


@dataclass
class Step:
    """A ``$`` line of a console block (or a line of a script) and the output shown after it."""

    source: str
    commands: list[Command]
    exported: dict[str, str]
    output: list[str]


ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SEPARATORS = {"|", "||", "&&", ";", "&", "(", ")"}


def shell_commands(line: str, subcommands: set[str]) -> tuple[list[Command], dict[str, str]]:
    """The seamhost invocations of one shell line, and what an ``export`` in it sets.

    ``seamhost`` counts as the program where it is followed by one of its subcommands or a
    top-level option, so ``claude mcp add seamhost -- seamhost mcp serve`` is one invocation.
    """
    line = re.sub(r"(?<=\s)\d(?=>)", "", line)  # 2>/dev/null: a redirection, not a word
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words = list(lexer)
    segments: list[list[str]] = [[]]
    for word in words:
        if word in SEPARATORS:
            segments.append([])
        else:
            segments[-1].append(word)
    commands: list[Command] = []
    exported: dict[str, str] = {}
    for written in segments:
        segment = _without_redirections(written)
        if segment[:1] == ["export"]:
            exported.update(_assignments(segment[1:]))
            continue
        environ: dict[str, str] = {}
        unset: list[str] = []
        while segment and ASSIGNMENT.match(segment[0]):
            environ.update(_assignments(segment[:1]))
            segment = segment[1:]
        if segment[:1] == ["env"]:
            segment = segment[1:]
            while segment[:1] == ["-u"]:
                unset.append(segment[1])
                segment = segment[2:]
        for position, word in enumerate(segment):
            following = segment[position + 1 : position + 2]
            if (
                word == "seamhost"
                and following
                and (following[0] in subcommands or following[0].startswith("--"))
            ):
                if following[0] == "--":
                    continue
                commands.append(Command(segment[position + 1 :], environ, unset))
                break
    return commands, exported


def _without_redirections(segment: list[str]) -> list[str]:
    kept: list[str] = []
    skip_next = False
    for word in segment:
        if skip_next:
            skip_next = False
            continue
        if word in {">", ">>", "<"}:
            skip_next = True
            continue
        if re.fullmatch(r"\d?>>?", word):
            skip_next = True
            continue
        if re.fullmatch(r"\d?>.+", word):
            continue
        kept.append(word)
    return kept


def _assignments(words: list[str]) -> dict[str, str]:
    return dict(word.split("=", 1) for word in words if "=" in word)


def joined_lines(text: str) -> Iterator[str]:
    """The lines of a script, a trailing backslash joining a line to the next."""
    pending = ""
    for line in text.splitlines():
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield pending + line
        pending = ""
    if pending:
        yield pending


def steps(block: Block, subcommands: set[str]) -> list[Step]:
    """The steps of a block: each ``$`` line (or, in a script, each line) and its output."""
    console = block.lang == "console" or block.text.startswith("$ ")
    found: list[Step] = []
    for line in joined_lines(block.text):
        if console and not line.startswith("$ "):
            if found:
                found[-1].output.append(line)
            continue
        source = line[2:] if console else line
        if not source.strip() or source.lstrip().startswith("#"):
            continue
        commands, exported = shell_commands(source, subcommands)
        found.append(Step(source, commands, exported, []))
    return found


def output_pattern(expected: list[str]) -> re.Pattern[str]:
    """A pattern for output shown as `expected` (see the module docstring for ``...``)."""
    parts: list[str] = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        pieces = [
            "[ ]+".join(re.escape(run) for run in re.split(r" {2,}", piece))
            for piece in line.rstrip().split("...")
        ]
        parts.append("[^\\n]*?".join(pieces) + "[ ]*\n")
    return re.compile("".join(parts), re.S)
