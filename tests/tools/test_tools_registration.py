"""The tools plugin as operators use it: named in a profile, found through its installed entry
point, configured, and registered in a real bundle."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from seamhost_tools import CONFIG_SCHEMA, TOOL_NAMES, descriptor

from seamhost.errors import ConfigError
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.schema import compile_schema

EXPECTED = {
    # name: (effect, concurrency_safe, runs_subprocesses)
    "read_file": ("read-only", True, False),
    "list_dir": ("read-only", True, False),
    "write_file": ("write", False, False),
    "edit_file": ("write", False, False),
    "shell": ("write", False, True),
}


def bundle_of(tmp_path: Path, table: str = "") -> Bundle:
    profile = tmp_path / "tools.toml"
    profile.write_text(
        textwrap.dedent(
            """\
            [profile]
            name = "tools-test"

            [plugins.tools]
            """
        )
        + textwrap.dedent(table)
    )
    return build_bundle(resolve_profile(str(profile), environ={}), environ={})


def test_every_tool_is_registered_by_the_plugin(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path)
    assert sorted(bundle.tools) == sorted(TOOL_NAMES)
    for name, tool in bundle.tools.items():
        spec = tool.spec
        assert tool.plugin == "tools"
        assert (spec.effect, spec.concurrency_safe, spec.runs_subprocesses) == EXPECTED[name]
        assert spec.description
        assert "\n" not in spec.description
        assert spec.input_schema["additionalProperties"] is False
        compile_schema(spec.input_schema)
        compile_schema(spec.output_schema)
    identities = {t.name: t for t in bundle.snapshot.tools}
    assert identities["shell"].digest == bundle.tools["shell"].digest
    [plugin] = bundle.snapshot.plugins
    assert plugin.distribution == "seamhost-tools"
    assert plugin.provides == ("tools/guard", "tools/register")


def test_a_subset_of_tools(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path, 'tools = ["read_file", "list_dir"]\n')
    assert sorted(bundle.tools) == ["list_dir", "read_file"]


def test_unknown_tool_names_fail_the_factory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as failed:
        bundle_of(tmp_path, 'tools = ["read_file", "rm_rf", "eval"]\n')
    assert failed.value.file == str(tmp_path / "tools.toml")
    assert failed.value.key == "plugins.tools.tools"
    assert failed.value.problem == (
        "unknown tool(s) 'rm_rf', 'eval'; "
        "choose among read_file, list_dir, write_file, edit_file, shell"
    )


def test_unknown_config_keys_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"plugins\.tools"):
        bundle_of(tmp_path, "max_read_byte = 10\n")


def test_default_timeout_above_the_maximum_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="60 exceeds shell_max_timeout_seconds"):
        bundle_of(tmp_path, "shell_timeout_seconds = 60\nshell_max_timeout_seconds = 30\n")


def test_settings_reach_the_tools(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path, "shell_max_timeout_seconds = 30\nshell_timeout_seconds = 5\n")
    timeout = bundle.tools["shell"].spec.input_schema["properties"]["timeout_seconds"]
    assert timeout["maximum"] == 30
    assert "default 5" in timeout["description"]


def test_descriptor() -> None:
    assert descriptor.problems() == []
    assert descriptor.name == "tools"
    assert descriptor.provides == frozenset({"tools/register", "tools/guard"})
    assert descriptor.requires == frozenset()
    assert descriptor.config_schema["additionalProperties"] is False
    for key, prop in CONFIG_SCHEMA["properties"].items():
        assert prop.get("description"), f"config key {key} has no description"
