"""``[require] plugins``: PEP 440 requirements on installed plugin versions, through packaging."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.errors import ConfigError
from seamhost.kernel.profile.files import shipped_profiles
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.kernel.profile.versions import InvalidRequirement, parse_requirement, satisfies
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source, run_cli


@pytest.mark.parametrize(
    ("version", "requirement", "expected"),
    [
        # the operators the hand-written subset had, unchanged
        ("0.1.0", ">=0.1", True),
        ("0.1.0", ">=0.1, <2", True),
        ("2.0", ">=0.1, <2", False),
        ("1.4.2", "~=1.4", True),
        ("2.0", "~=1.4", False),
        ("1.0", "!=1.0", False),
        # epochs: 1!0.1 is newer than every version without an epoch
        ("1!0.1", ">=2024.1", True),
        ("2024.1", ">=1!0.1", False),
        # local versions: ==1.0 matches 1.0+anything, ==1.0+abc only itself
        ("1.0+ubuntu.1", "==1.0", True),
        ("1.0+abc", "==1.0+abc", True),
        ("1.0+abc", "==1.0+xyz", False),
        # prefix matching
        ("1.7.3", "==1.*", True),
        ("2.0", "==1.*", False),
        ("1.9", "!=1.*", False),
        # pre-releases: an installed pre-release counts, except where PEP 440 excludes it
        ("2.0rc1", ">=1.0", True),
        ("2.0rc1", "<2.0", False),
        ("2.0rc1", ">=2.0", False),
        ("2.0rc1", ">=2.0rc1", True),
        ("1.0.dev3", "<1.0", False),
        ("1.0a2", ">=1.0a1, <1.0", False),  # <1.0 excludes 1.0's own pre-releases
        ("1.0a2", ">=1.0a1, <1.0rc1", True),
    ],
)
def test_requirements_mean_what_they_mean_to_pip(
    version: str, requirement: str, expected: bool
) -> None:
    assert satisfies(version, requirement) is expected


@pytest.mark.parametrize(
    ("requirement", "clause"),
    [("two", "two"), (">=0.1, =>2", "=>2"), (">=1,", ""), ("", ""), ("==1.*.2", "==1.*.2")],
)
def test_an_invalid_requirement_names_its_bad_clause(requirement: str, clause: str) -> None:
    with pytest.raises(InvalidRequirement) as info:
        parse_requirement(requirement)
    message = str(info.value)
    assert (repr(clause) in message) if requirement.strip() else ("empty" in message), message


def test_an_installed_version_outside_pep_440_is_named() -> None:
    with pytest.raises(InvalidRequirement, match="'banana' is not a PEP 440 version"):
        satisfies("banana", ">=1")


@pytest.fixture
def site(plugin_site: PluginSite) -> PluginSite:
    plugin_site.add("epoch", plugin_source("pass\n", name="epoch"), version="1!2.0+local.7")
    plugin_site.add("pre", plugin_source("pass\n", name="pre"), version="3.0rc2")
    return plugin_site


@pytest.mark.parametrize(
    ("plugin", "requirement", "ok"),
    [
        ("epoch", ">=1!1.0", True),
        ("epoch", "==1!2.0", True),  # a local version matches its public one
        ("epoch", "==1!2.*", True),
        ("epoch", "<3", False),
        ("pre", ">=2.5", True),
        ("pre", "<3.0", False),
    ],
)
def test_requirements_are_checked_against_installed_plugins(
    site: PluginSite, plugin: str, requirement: str, ok: bool
) -> None:
    path = site.profile(
        "p.toml", f'[plugins.{plugin}]\n[require]\nplugins = {{ {plugin} = "{requirement}" }}\n'
    )
    if ok:
        assert resolve_profile(str(path)).require_plugins == {plugin: requirement}
        return
    with pytest.raises(ConfigError) as info:
        resolve_profile(str(path))
    assert (info.value.file, info.value.key) == (str(path), f"require.plugins.{plugin}")
    assert f"pip install 'seamhost-{plugin}{requirement.replace(' ', '')}'" in info.value.problem


def test_an_invalid_specifier_is_exit_2_naming_file_key_and_clause(site: PluginSite) -> None:
    path = site.profile("p.toml", '[plugins.pre]\n[require]\nplugins = { pre = ">=1, =<2" }\n')
    result = run_cli("profile", "check", str(path), site=site)
    assert result.returncode == ExitCode.USAGE
    assert result.stderr.startswith(
        f"seamhost: error: {path}: require.plugins.pre: '=<2' is not a PEP 440 version clause"
    ), result.stderr
    assert "Traceback" not in result.stderr


def test_the_shipped_profiles_resolve_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # the anthropic profile's secret
    for name in shipped_profiles():
        resolve_profile(name)


PROBE = """
import json, sys
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile

build_bundle(resolve_profile(sys.argv[1]))
print(json.dumps("packaging" in sys.modules))
"""


def test_packaging_is_imported_only_by_a_profile_that_pins_versions(
    site: PluginSite, tmp_path: Path
) -> None:
    pinned = site.profile("pinned.toml", '[plugins.pre]\n[require]\nplugins = { pre = ">=1" }\n')
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    environ |= {
        "SEAMHOST_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site.root), os.environ.get("PYTHONPATH")])),
    }
    loaded = {}
    for profile in ("default", str(pinned)):
        result = subprocess.run(
            [sys.executable, "-c", PROBE, profile],
            capture_output=True,
            text=True,
            check=True,
            env=environ,
            timeout=60,
        )
        loaded[profile] = json.loads(result.stdout)
    assert loaded == {"default": False, str(pinned): True}
