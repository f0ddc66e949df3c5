"""Hostile profiles and secrets, through the real CLI: one line naming the file and key, exit 2.

Each kind of bad input the issue lists (nesting, ``~user``, NUL bytes, invalid UTF-8, sizes
past the caps of :mod:`seamhost.input_limits`) in each place a profile holds it. On main before
issue 12 the deep profile and ``~nouser`` ended in a traceback with exit 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.input_limits import MAX_DEPTH, PROFILE_BYTES, SECRET_BYTES
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source, run_cli

SCHEMA = '{"type": "object", "properties": {"word": {"type": "string"}}}'


@pytest.fixture
def site(plugin_site: PluginSite) -> PluginSite:
    plugin_site.add("greet", plugin_source("pass\n", name="greet", schema=SCHEMA))
    return plugin_site


def refused(site: PluginSite, profile: Path, *named: str) -> str:
    """Run ``profile check`` on `profile`: exit 2, one stderr line naming `named`; that line."""
    done = run_cli("profile", "check", str(profile), site=site)
    assert done.returncode == ExitCode.USAGE, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"seamhost: error: {profile}: "), lines[0]
    for text in named:
        assert text in lines[0], lines[0]
    return lines[0]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (f"[plugins.greet]\nword = {nested(5000)}\n", ("nested deeper than 64 levels",)),
        (f"[plugins.greet]\nword = {nested(MAX_DEPTH + 1)}\n", ("plugins.greet.word[0][0][0]...",)),
        ('[sandbox]\nwritable_roots = ["~nouser/x"]\n', ("sandbox.writable_roots", "'nouser'")),
        ('[sandbox]\nwritable_roots = ["a\\u0000b"]\n', ("sandbox.writable_roots", "NUL")),
        ('[profile]\nextends = "~nouser/p.toml"\n', ("profile.extends", "'nouser'")),
        ('[profile]\nextends = "a\\u0000b.toml"\n', ("profile.extends", "NUL")),
    ],
    ids=["deep", "over-the-cap", "unknown-user", "nul-root", "extends-user", "extends-nul"],
)
def test_a_hostile_profile_is_one_line(site: PluginSite, text: str, named: tuple[str]) -> None:
    refused(site, site.profile("p.toml", text), *named)


def test_a_profile_that_is_not_utf8(site: PluginSite) -> None:
    profile = site.profile("p.toml", "")
    profile.write_bytes(b'[profile]\ndescription = "\xff"\n')
    refused(site, profile, "not UTF-8 text (byte 25)")


def test_a_profile_past_the_size_cap(site: PluginSite) -> None:
    profile = site.profile("p.toml", "#" * PROFILE_BYTES + "\n")
    refused(site, profile, "larger than 1 MiB")


@pytest.mark.parametrize(
    ("secret", "content", "named"),
    [
        ("~nouser/token", None, "'nouser'"),
        ("tok\\u0000en", None, "NUL"),
        ("token.txt", b"\xff\xfe", "not UTF-8"),
        ("token.txt", b"x" * (SECRET_BYTES + 1), "larger than 64 KiB"),
    ],
    ids=["unknown-user", "nul", "not-utf8", "too-large"],
)
def test_a_hostile_secret_file_is_one_line(
    site: PluginSite, secret: str, content: bytes | None, named: str
) -> None:
    profile = site.profile("p.toml", f'[plugins.greet]\nword = {{ "$file" = "{secret}" }}\n')
    if content is not None:
        (profile.parent / secret).write_bytes(content)
    refused(site, profile, "plugins.greet.word", named)
