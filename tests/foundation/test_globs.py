"""The one glob dialect (seamhost.globs): syntax, segments, text only known at run time."""

from __future__ import annotations

import pytest

from seamhost.globs import UNKNOWN, Glob, GlobError, Match

U = UNKNOWN


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("git push*", "git push origin main", True),
        ("git push*", "git pull", False),
        ("rm -rf /*", "rm -rf /", True),
        ("rm -rf /*", "rm -rf /home/me", False),  # * stays within one segment
        ("rm -rf /**", "rm -rf /home/me", True),
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
        ("release/notes/*.md", "release/notes/internal/keys/prod.md", False),
        ("release/notes/**.md", "release/notes/internal/keys/prod.md", True),
    ],
)
def test_text_globs(pattern: str, text: str, expected: bool) -> None:
    assert Glob.of(pattern).matches(text) is expected


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
def test_globs_keep_to_segments(pattern: str, text: str, expected: bool) -> None:
    assert Glob.of(pattern).matches(text) is expected


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
        Glob.of(pattern)
    assert info.value.pattern == pattern


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("a**", "a/b/c"), ("**b", "x/y/b"), ("a/**b", "a/x/yb"), ("x**/y", "xz/w/y")],
)
def test_a_globstar_inside_a_segment_spans_slashes_too(pattern: str, text: str) -> None:
    assert Glob.of(pattern).matches(text)
    assert not Glob.of(pattern.replace("**", "*")).matches(text)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        # an unknown stretch wholly under a star: whatever it becomes, the glob matches
        ("git **", f"git {U}", Match.MUST),
        ("**", U, Match.MUST),
        ("rm -rf **", f"rm -rf {U}/x", Match.MUST),
        # under a single star it may hold a /, so it only may match
        ("git *", f"git {U}", Match.MAY),
        ("*", U, Match.MAY),
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
