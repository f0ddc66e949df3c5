"""``seamhost profile ls|show|check`` through the real CLI: listings, TOML, --why, --json."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.kernel.profile.files import SHIPPED_DIR
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source, run_cli

SCHEMA = """{
    "type": "object",
    "properties": {
        "word": {"type": "string"},
        "token": {"type": "string"},
        "floor": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
}"""


@pytest.fixture
def site(plugin_site: PluginSite) -> PluginSite:
    plugin_site.add(
        "greet",
        plugin_source("pass\n", name="greet", schema=SCHEMA).replace(
            "config_schema=", "accumulate={'floor'}, config_schema="
        ),
    )
    plugin_site.profile("base.toml", '[plugins.greet]\nword = "base"\nfloor = ["a"]\n')
    plugin_site.profile(
        "child.toml",
        '[profile]\nname = "child"\nextends = "base.toml"\n'
        '[plugins.greet]\nword = "child"\nfloor = ["b"]\ntoken = { "$env" = "GREET_TOKEN" }\n'
        '[sandbox]\nmode = "workspace-write"\n',
    )
    return plugin_site


def child(site: PluginSite) -> str:
    return str(site.root.parent / "child.toml")


def base(site: PluginSite) -> str:
    return str(site.root.parent / "base.toml")


SECRET = {"GREET_TOKEN": "s3cret"}


# -- profile ls ---------------------------------------------------------------------------------


def test_ls_lists_shipped_and_user_profiles_and_says_what_shadows_what(tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "default.toml").write_text('[profile]\nextends = "minimal"\n', encoding="utf-8")
    (shelf / "team.toml").write_text(
        '[profile]\nextends = ["strict"]\ndescription = "ours"\n', encoding="utf-8"
    )
    (shelf / "broken.toml").write_text("[profile\n", encoding="utf-8")
    env = {"SEAMHOST_PROFILE_PATH": str(shelf)}
    result = run_cli("profile", "ls", "--json", env=env)
    assert result.returncode == ExitCode.OK, result.stderr
    listed = {entry["name"]: entry for entry in json.loads(result.stdout)}
    shipped = {path.stem for path in SHIPPED_DIR.glob("*.toml")}
    assert set(listed) == shipped | {"team", "broken"}
    assert listed["default"]["origin"] == "user"
    assert listed["default"]["path"] == str(shelf / "default.toml")
    assert listed["default"]["shadows"] == [
        {"path": str(SHIPPED_DIR / "default.toml"), "origin": "shipped"}
    ]
    assert listed["team"]["extends"] == ["strict"]
    # the user's default, which extends minimal, shadows the shipped one for strict too
    assert listed["team"]["chain"] == ["minimal", "default", "strict", "team"]
    assert listed["team"]["description"] == "ours"
    assert listed["strict"] | {"path": ""} == {
        "name": "strict",
        "path": "",
        "origin": "shipped",
        "description": listed["strict"]["description"],
        "extends": ["default"],
        "chain": ["minimal", "default", "strict"],
        "shadows": [],
    }
    assert "not valid TOML" in listed["broken"]["error"]

    text = run_cli("profile", "ls", env=env)
    assert text.returncode == ExitCode.OK
    assert f"shadows the shipped profile {SHIPPED_DIR / 'default.toml'}" in text.stdout
    team = next(line for line in text.stdout.splitlines() if line.startswith("team "))
    assert team.split() == ["team", "user", "extends", "strict", str(shelf / "team.toml")]


# -- profile show -------------------------------------------------------------------------------


def test_show_prints_toml_that_is_the_merged_configuration(site: PluginSite) -> None:
    shown = run_cli("profile", "show", child(site), site=site, env=SECRET)
    assert shown.returncode == ExitCode.OK, shown.stderr
    info = json.loads(
        run_cli("profile", "show", child(site), "--json", site=site, env=SECRET).stdout
    )
    doc = tomllib.loads(shown.stdout)
    assert doc == info["config"]
    assert doc["plugins"]["greet"] == {
        "word": "child",
        "floor": ["a", "b"],
        "token": {"$env": "GREET_TOKEN"},  # the marker, never the secret
    }
    assert "s3cret" not in shown.stdout
    assert doc["sandbox"] == {
        "mode": "workspace-write",
        "writable_roots": [],
        "read_only_paths": [],
        "network": False,
    }
    # the bundle's facts are there as comments
    greet = info["profile"]["plugins"]["greet"]
    assert f"# seamhost-greet {greet['version']}: provides no seams" in shown.stdout
    assert f"# config {greet['config_digest']}" in shown.stdout
    assert f"# bundle {info['bundle_digest']}" in shown.stdout
    assert f"#   {base(site)}\n#   {child(site)}\n" in shown.stdout
    assert "# tools: none" in shown.stdout


@pytest.mark.parametrize("name", ["default", "ci", "strict", "minimal"])
def test_a_shipped_profile_shown_as_toml_checks_as_the_same_bundle(
    name: str, tmp_path: Path
) -> None:
    env = {"SEAMHOST_HOME": str(tmp_path / "home")}
    shown = run_cli("profile", "show", name, env=env)
    assert shown.returncode == ExitCode.OK, shown.stderr
    flat = tmp_path / "flat.toml"
    flat.write_text(shown.stdout, encoding="utf-8")
    original = json.loads(run_cli("profile", "show", name, "--json", env=env).stdout)
    again = json.loads(run_cli("profile", "show", str(flat), "--json", env=env).stdout)
    assert again["config"] == original["config"]
    digests = {n: p["config_digest"] for n, p in original["profile"]["plugins"].items()}
    assert {n: p["config_digest"] for n, p in again["profile"]["plugins"].items()} == digests
    assert [t["digest"] for t in again["tools"]] == [t["digest"] for t in original["tools"]]


def test_why_names_the_file_that_set_the_key_and_the_files_it_overrode(site: PluginSite) -> None:
    result = run_cli(
        "profile", "show", child(site), "--why", "plugins.greet.word", site=site, env=SECRET
    )
    assert result.returncode == ExitCode.OK, result.stderr
    assert result.stdout.splitlines() == [
        'plugins.greet.word = "child"',
        f"  set by   {child(site)} (profile child)",
        f'  overrode {base(site)} (profile base): "base"',
    ]
    data = json.loads(
        run_cli(
            "profile", "show", child(site), "--why", "sandbox.mode", "--json", site=site, env=SECRET
        ).stdout
    )
    assert data["kind"] == "set"
    assert data["value"] == "workspace-write"
    assert data["set_by"] == {"file": child(site), "profile": "child", "value": "workspace-write"}
    assert data["overrode"] == []


def test_why_on_an_accumulated_key_and_a_default(site: PluginSite) -> None:
    floor = run_cli(
        "profile", "show", child(site), "--why", "plugins.greet.floor", site=site, env=SECRET
    )
    assert floor.stdout.splitlines()[1:] == [
        "  accumulates: each file adds entries, and no file can remove them",
        f"  1 added by {base(site)} (profile base)",
        f"  1 added by {child(site)} (profile child)",
    ]
    network = run_cli(
        "profile", "show", child(site), "--why", "sandbox.network", site=site, env=SECRET
    )
    assert network.stdout == "sandbox.network = false\n  set by no file: its default applies\n"


def test_why_an_unknown_key_is_exit_2_suggesting_close_ones(site: PluginSite) -> None:
    result = run_cli(
        "profile", "show", child(site), "--why", "plugins.greet.wrd", site=site, env=SECRET
    )
    assert result.returncode == ExitCode.USAGE
    assert result.stdout == ""
    assert result.stderr.startswith(
        "seamhost: error: --why: 'plugins.greet.wrd' is not a key of profile 'child'; "
        "did you mean plugins.greet.word or "
    )
    assert result.stderr.count("\n") == 1


# -- profile check --json -----------------------------------------------------------------------


def test_check_json_on_a_valid_profile(site: PluginSite) -> None:
    result = run_cli("profile", "check", child(site), "--json", site=site, env=SECRET)
    assert result.returncode == ExitCode.OK, result.stderr
    data = json.loads(result.stdout)
    assert (data["valid"], data["profile"], data["plugins"]) == (True, "child", ["greet"])


FAILURES = {
    "unknown-key": ('[plugins.greet]\ncolour = "red"\n', "{p}", "plugins.greet.colour"),
    "bad-toml": ("[plugins.greet\n", "{p}", None),
    "not-installed": ("[plugins.nosuch]\n", "{p}", "plugins.nosuch"),
    "unmet-version": (
        '[plugins.greet]\n[require]\nplugins = { greet = ">=2" }\n',
        "{p}",
        "require.plugins.greet",
    ),
    "missing-parent": ('[profile]\nextends = "nowhere.toml"\n', "{p}", "profile.extends"),
    "cycle": ('[profile]\nextends = "p.toml"\n', "{p}", "profile.extends"),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_check_json_on_an_invalid_profile_lists_file_key_and_message(
    site: PluginSite, case: str
) -> None:
    text, file, key = FAILURES[case]
    path = site.profile("p.toml", text)
    result = run_cli("profile", "check", str(path), "--json", site=site, env=SECRET)
    assert result.returncode == ExitCode.USAGE
    data = json.loads(result.stdout)
    assert data["valid"] is False
    [error] = data["errors"]
    assert (error["file"], error["key"]) == (file.format(p=path), key)
    assert error["message"]
    assert not error["message"].startswith(str(path)), "file and key are not repeated"
    assert result.stderr.startswith("seamhost: error: "), "stderr keeps the one-line error"


def test_check_json_lists_each_missing_seam(site: PluginSite) -> None:
    path = site.profile(
        "p.toml", '[plugins.greet]\n[require]\nseams = ["session/flush", "llm/adapter"]\n'
    )
    result = run_cli("profile", "check", str(path), "--json", site=site, env=SECRET)
    assert result.returncode == ExitCode.USAGE
    errors = json.loads(result.stdout)["errors"]
    assert [(e["file"], e["key"]) for e in errors] == [(str(path), "require.seams")] * 2
    assert ["llm/adapter" in errors[0]["message"], "session/flush" in errors[1]["message"]] == [
        True,
        True,
    ]


def test_check_json_when_the_profile_is_not_found() -> None:
    result = run_cli("profile", "check", "no-such-profile", "--json")
    assert result.returncode == ExitCode.USAGE
    [error] = json.loads(result.stdout)["errors"]
    assert (error["file"], error["key"]) == (None, None)
    assert "profile 'no-such-profile' not found" in error["message"]
