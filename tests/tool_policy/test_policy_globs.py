"""Globs: syntax, path segments, and matching text only known at run time."""

from __future__ import annotations

import pytest
from seamhost_tool_policy.globs import Glob, GlobError, Match
from seamhost_tool_policy.splitter import UNKNOWN

U = UNKNOWN


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("git push*", "git push origin main", True),
        ("git push*", "git pull", False),
        ("rm -rf /*", "rm -rf /", True),
        ("rm -rf /*", "rm -rf /home/me", True),
        ("*", "", True),
        ("a?c", "abc", True),
        ("a?c", "ac", False),
        ("[abc]x", "bx", True),
        ("[!abc]x", "bx", False),
        ("[^abc]x", "dx", True),
        ("[a-c]", "b", True),
        ("[a-c]", "d", False),
        ("[]]", "]", True),
        ("[!]]", "a", True),
        ("[a-]", "-", True),
        ("\\*", "*", True),
        ("\\*", "x", False),
        ("a\\?b", "a?b", True),
        ("shell", "shell", True),
        ("shell", "shells", False),
        ("file_*", "file_a\nb", True),
    ],
)
def test_text_globs(pattern: str, text: str, expected: bool) -> None:
    assert Glob.text(pattern).matches(text) is expected


def test_command_globs_read_runs_of_blanks_as_one_space() -> None:
    glob = Glob.command("  rm   -rf\t/*  ")
    assert glob.matches("rm -rf /tmp")
    assert not glob.matches("rm  -rf /tmp")  # commands arrive joined by single spaces


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("**/.env", ".env", True),
        ("**/.env", "a/b/.env", True),
        ("**/.env", "/home/me/.env", True),
        ("**/.env", "a/.envrc", False),
        ("src/**", "src", True),
        ("src/**", "src/a/b.py", True),
        ("src/**", "srcx/a", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("**", "anything/at/all", True),
        ("*.py", "main.py", True),
        ("*.py", "pkg/main.py", False),
        ("?", "/", False),
        ("[!a]", "/", False),
        ("[/]", "/", False),
        ("/etc/**", "/etc/passwd", True),
        ("/etc/*", "/etc/ssh/sshd_config", False),
    ],
)
def test_path_globs_keep_to_segments(pattern: str, text: str, expected: bool) -> None:
    assert Glob.path(pattern).matches(text) is expected


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("[abc", "is never closed"),
        ("x[", "is never closed"),
        ("[]", "is never closed"),
        ("ab\\", "lone backslash"),
        ("[z-a]", "runs backwards"),
    ],
)
def test_malformed_globs_are_refused(pattern: str, problem: str) -> None:
    with pytest.raises(GlobError, match=problem) as info:
        Glob.text(pattern)
    assert info.value.pattern == pattern


@pytest.mark.parametrize("pattern", ["a**", "**b", "a/**b", "x**/y"])
def test_globstar_must_be_a_whole_segment(pattern: str) -> None:
    with pytest.raises(GlobError, match="whole path segment"):
        Glob.path(pattern)
    assert Glob.text(pattern).matches(pattern.replace("*", ""))  # text globs: ** is *


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        # an unknown stretch wholly under a star: whatever it becomes, the glob matches
        ("git *", f"git {U}", Match.MUST),
        ("*", U, Match.MUST),
        ("rm -rf *", f"rm -rf {U}/x", Match.MUST),
        # it could become text that matches, or not
        ("rm -rf /*", f"rm -rf {U}", Match.MAY),
        ("git push*", f"git {U} origin", Match.MAY),
        ("a?c", f"a{U}c", Match.MAY),
        ("[xy]", U, Match.MAY),
        ("abc", f"a{U}", Match.MAY),
        ("", U, Match.MAY),
        # no text it could become matches
        ("rm *", f"ls {U}", Match.NO),
        ("abc", f"x{U}", Match.NO),
        ("a", f"a{U}b", Match.NO),
    ],
)
def test_unknown_text_matches_over_everything_it_could_become(
    pattern: str, text: str, expected: Match
) -> None:
    assert Glob.command(pattern).match(text) is expected


def test_known_text_is_must_or_no() -> None:
    glob = Glob.command("git push*")
    assert glob.match("git push -f") is Match.MUST
    assert glob.match("git status") is Match.NO
