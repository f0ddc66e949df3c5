"""Profiles: extends, merge, secrets, validation, and the errors a new user would meet."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.errors import (
    ConfigError,
    MissingSeams,
    PluginLoadError,
    PluginNotInstalled,
    ProfileCycle,
    ProfileNotFound,
)
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.sandbox.policy import SandboxMode
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source, run_cli

GREET_SCHEMA = """{
    "type": "object",
    "properties": {
        "word": {"type": "string", "description": "what to say"},
        "count": {"type": "integer", "minimum": 1},
        "rules": {"type": "array", "items": {"type": "string"}},
        "floor": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
}"""


@pytest.fixture
def site(plugin_site: PluginSite) -> PluginSite:
    plugin_site.add(
        "greet",
        plugin_source("pass\n", name="greet", schema=GREET_SCHEMA).replace(
            "config_schema=", "accumulate={'floor'}, config_schema="
        ),
    )
    plugin_site.add(
        "store",
        plugin_source(
            "@hookimpl\ndef session_store(self):\n    return None\n",
            name="store",
            provides='["session/store"]',
        ),
    )
    return plugin_site


def write(site: PluginSite, name: str, text: str) -> Path:
    return site.profile(name, text)


# -- the errors a new user meets, through the real CLI -----------------------------------------


BAD_PROFILES = {
    "toml-syntax": ('[plugins.greet\nword = "hi"\n', "not valid TOML", "line 1"),
    "unknown-plugin": (
        "[plugins.nosuch]\n",
        "plugins.nosuch",
        "install the distribution 'seamhost-nosuch'",
    ),
    "unknown-key": ('[plugins.greet]\ncolour = "red"\n', "plugins.greet.colour", "unknown key"),
    "wrong-type": ('[plugins.greet]\ncount = "three"\n', "plugins.greet.count", "must be integer"),
    "unmet-version": (
        '[plugins.greet]\n[require]\nplugins = { greet = ">=2.0" }\n',
        "require.plugins.greet",
        "seamhost-greet 0.1.0 is installed",
    ),
    "missing-seam": (
        '[plugins.greet]\n[require]\nseams = ["session/flush"]\n',
        "require.seams",
        "session/flush",
    ),
    "unset-env": (
        '[plugins.greet]\nword = { "$env" = "SEAMHOST_TEST_UNSET" }\n',
        "plugins.greet.word",
        "'SEAMHOST_TEST_UNSET' is not set",
    ),
    "bad-sandbox-mode": ('[sandbox]\nmode = "yolo"\n', "sandbox.mode", "read-only"),
    "gateway-not-a-boolean": (
        '[gateway]\nelicitation_may_escalate = "yes"\n',
        "gateway.elicitation_may_escalate",
        "expected true or false",
    ),
    "gateway-unknown-key": (
        "[gateway]\nmay_escalate = true\n",
        "gateway.may_escalate",
        "expected one of: elicitation_may_escalate",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_PROFILES))
def test_bad_profile_exits_2_naming_file_and_key(site: PluginSite, case: str) -> None:
    text, key, detail = BAD_PROFILES[case]
    path = write(site, f"{case}.toml", text)
    result = run_cli("profile", "check", str(path), site=site)
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    message = result.stderr.strip()
    assert message.startswith(f"seamhost: error: {path}"), message
    assert key in message, message
    assert detail in message, message


def test_extends_cycle_exits_2_naming_the_cycle(site: PluginSite) -> None:
    a = write(site, "a.toml", '[profile]\nextends = ["b.toml"]\n')
    b = write(site, "b.toml", '[profile]\nextends = "a.toml"\n')
    result = run_cli("profile", "check", str(a), site=site)
    assert result.returncode == ExitCode.USAGE
    assert f"profile.extends: cycle: {a} -> {b} -> {a}" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_profile_exits_2(site: PluginSite) -> None:
    result = run_cli("profile", "check", "no-such-profile", site=site)
    assert result.returncode == ExitCode.USAGE
    assert "profile 'no-such-profile' not found" in result.stderr


def test_factory_failure_is_reported_by_plugin_with_its_cause(site: PluginSite) -> None:
    site.add(
        "fragile",
        plugin_source(
            "pass\n",
            name="fragile",
        ).replace(
            "class Plugin:\n    def __init__(self, ctx):\n        self.ctx = ctx\n",
            "class Plugin:\n    def __init__(self, ctx):\n        raise OSError('no device')\n",
        ),
    )
    path = write(site, "p.toml", "[plugins.fragile]\n")
    result = run_cli("profile", "check", str(path), site=site)
    assert result.returncode == ExitCode.USAGE
    assert result.stderr.count("no device") == 1, "the cause is shown once, not repeated"
    assert 'plugin "fragile" failed to load (factory): OSError: no device' in result.stderr
    with pytest.raises(PluginLoadError) as info:
        build_bundle(resolve_profile(str(path)))
    assert isinstance(info.value.__cause__, OSError)


def test_import_failure_is_reported_by_plugin(site: PluginSite) -> None:
    site.add("broken", "import does_not_exist_anywhere\n")
    with pytest.raises(PluginLoadError) as info:
        resolve_profile(str(write(site, "p.toml", "[plugins.broken]\n")))
    assert info.value.plugin == "broken"
    assert info.value.stage == "import"
    assert isinstance(info.value.__cause__, ModuleNotFoundError)


# -- merge semantics ----------------------------------------------------------------------------


def test_extends_merges_parents_left_to_right_then_the_file(site: PluginSite) -> None:
    write(
        site,
        "base.toml",
        '[plugins.greet]\nword = "base"\ncount = 1\n[sandbox]\nmode = "workspace-write"\n',
    )
    write(site, "left.toml", '[profile]\nextends = "base.toml"\n[plugins.greet]\nword = "left"\n')
    write(site, "right.toml", '[profile]\nextends = "base.toml"\n[plugins.greet]\ncount = 3\n')
    top = write(
        site, "top.toml", '[profile]\nname = "top"\nextends = ["left.toml", "right.toml"]\n'
    )
    profile = resolve_profile(str(top))
    assert profile.name == "top"
    assert [Path(f).name for f in profile.files] == [
        "base.toml",
        "left.toml",
        "right.toml",
        "top.toml",
    ]
    greet = profile.plugin("greet")
    assert greet is not None
    assert dict(greet.config) == {"word": "left", "count": 3}
    assert profile.sandbox.mode is SandboxMode.WORKSPACE_WRITE


def test_gateway_keys_merge_later_wins_and_default_to_false(site: PluginSite) -> None:
    base = write(site, "base.toml", "[plugins.greet]\n")
    assert resolve_profile(str(base)).gateway.elicitation_may_escalate is False
    on = write(
        site,
        "on.toml",
        '[profile]\nextends = "base.toml"\n[gateway]\nelicitation_may_escalate = true\n',
    )
    assert resolve_profile(str(on)).gateway.elicitation_may_escalate is True
    off = write(
        site,
        "off.toml",
        '[profile]\nextends = "on.toml"\n[gateway]\nelicitation_may_escalate = false\n',
    )
    profile = resolve_profile(str(off))
    assert profile.gateway.elicitation_may_escalate is False
    assert profile.to_json()["gateway"] == {"elicitation_may_escalate": False}


def test_enabled_false_removes_an_inherited_plugin(site: PluginSite) -> None:
    write(site, "base.toml", "[plugins.greet]\n[plugins.nosuch]\n")
    top = write(
        site,
        "top.toml",
        '[profile]\nextends = "base.toml"\n[plugins.nosuch]\nenabled = false\n'
        "[plugins.greet]\nenabled = false\n",
    )
    assert resolve_profile(str(top)).plugins == ()


def test_accumulated_keys_concatenate_and_cannot_be_disabled(site: PluginSite) -> None:
    write(site, "base.toml", '[plugins.greet]\nfloor = ["a"]\nrules = ["x"]\n')
    child = write(
        site,
        "child.toml",
        '[profile]\nextends = "base.toml"\n[plugins.greet]\nfloor = ["b"]\nrules = ["y"]\n',
    )
    greet = resolve_profile(str(child)).plugin("greet")
    assert greet is not None
    assert greet.config["floor"] == ("a", "b")
    assert greet.config["rules"] == ("y",)
    bad = write(
        site, "bad.toml", '[profile]\nextends = "base.toml"\n[plugins.greet]\nenabled = false\n'
    )
    with pytest.raises(ConfigError) as info:
        resolve_profile(str(bad))
    assert info.value.file == str(bad)
    assert info.value.key == "plugins.greet.enabled"
    assert "base.toml" in info.value.problem


def test_secrets_are_resolved_for_the_factory_but_never_shown(site: PluginSite) -> None:
    (site.root.parent / "token.txt").write_text("s3cret-file\n")
    path = write(
        site,
        "p.toml",
        '[plugins.greet]\nword = { "$file" = "token.txt" }\n'
        'rules = [{ "$env" = "SEAMHOST_TEST_TOKEN" }]\n',
    )
    profile = resolve_profile(str(path), environ={"SEAMHOST_TEST_TOKEN": "s3cret-env"})
    greet = profile.plugin("greet")
    assert greet is not None
    assert greet.config["word"] == "s3cret-file"
    assert greet.config["rules"] == ("s3cret-env",)
    shown = str(profile.to_json())
    assert "s3cret" not in shown
    assert "$file" in shown
    result = run_cli(
        "profile", "show", str(path), "--json", site=site, env={"SEAMHOST_TEST_TOKEN": "s3cret-env"}
    )
    assert result.returncode == 0, result.stderr
    assert "s3cret" not in result.stdout


def test_an_overridden_secret_is_never_read(site: PluginSite) -> None:
    write(site, "base.toml", '[plugins.greet]\nword = { "$env" = "SEAMHOST_TEST_UNSET" }\n')
    top = write(
        site, "top.toml", '[profile]\nextends = "base.toml"\n[plugins.greet]\nword = "plain"\n'
    )
    greet = resolve_profile(str(top), environ={}).plugin("greet")
    assert greet is not None
    assert greet.config["word"] == "plain"


def test_shipped_names_come_from_the_profile_path(site: PluginSite, tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "team.toml").write_text(
        '[profile]\ndescription = "team"\n[plugins.greet]\nword = "hi"\n'
    )
    top = write(site, "mine.toml", '[profile]\nextends = "team"\n')
    env = {"SEAMHOST_PROFILE_PATH": str(shelf)}
    profile = resolve_profile(str(top), environ=env)
    assert profile.files[0] == str(shelf / "team.toml")
    assert resolve_profile("team", environ=env).description == "team"
    with pytest.raises(ProfileNotFound) as info:
        resolve_profile("absent", environ=env)
    assert str(shelf) in str(info.value)


def test_blocked_plugin_is_reported_as_blocked(site: PluginSite) -> None:
    path = write(site, "p.toml", "[plugins.greet]\n")
    with pytest.raises(PluginNotInstalled) as info:
        resolve_profile(str(path), environ={"SEAMHOST_DISABLE_PLUGINS": "other, greet"})
    assert info.value.disabled
    assert "SEAMHOST_DISABLE_PLUGINS" in str(info.value)


def test_distribution_hint_names_what_to_install(site: PluginSite) -> None:
    path = write(site, "p.toml", '[plugins.acme]\ndistribution = "acme-seamhost-plugin"\n')
    with pytest.raises(PluginNotInstalled, match="pip install acme-seamhost-plugin"):
        resolve_profile(str(path))


def test_only_named_plugins_are_imported(site: PluginSite) -> None:
    marker = site.root / "imported.txt"
    site.add("unused", f"open({str(marker)!r}, 'w').close()\nraise SystemExit('must not run')\n")
    resolve_profile(str(write(site, "p.toml", "[plugins.greet]\n")))
    assert not marker.exists()


def test_required_seams_are_all_listed_in_one_error(site: PluginSite) -> None:
    path = write(
        site,
        "p.toml",
        "[plugins.store]\n[require]\n"
        'seams = ["session/flush", "sandbox/confine", "session/store"]\n',
    )
    with pytest.raises(MissingSeams) as info:
        resolve_profile(str(path))
    assert [seam for seam, _ in info.value.missing] == ["sandbox/confine", "session/flush"]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[other]\n", "other"),
        ('[profile]\ncolour = "x"\n', "profile.colour"),
        ("[plugins]\ngreet = 3\n", "plugins.greet"),
        ('[sandbox]\nwritable_roots = "/tmp"\n', "sandbox.writable_roots"),
        ('[require]\nplugins = { greet = "two" }\n', "require.plugins.greet"),
        ("[plugins.greet]\nenabled = 1\n", "plugins.greet.enabled"),
    ],
)
def test_shape_errors_name_the_key(site: PluginSite, text: str, key: str) -> None:
    path = write(site, "p.toml", text)
    with pytest.raises(ConfigError) as info:
        resolve_profile(str(path))
    assert (info.value.file, info.value.key) == (str(path), key)


def test_env_is_read_from_the_process_by_default(
    site: PluginSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEAMHOST_TEST_WORD", "hello")
    path = write(site, "p.toml", '[plugins.greet]\nword = { "$env" = "SEAMHOST_TEST_WORD" }\n')
    greet = resolve_profile(str(path)).plugin("greet")
    assert greet is not None
    assert greet.config["word"] == os.environ["SEAMHOST_TEST_WORD"]


def test_cycle_error_names_every_file() -> None:
    err = ProfileCycle(("a.toml", "b.toml", "a.toml"))
    assert str(err).startswith("a.toml: profile.extends: cycle: a.toml -> b.toml -> a.toml")
