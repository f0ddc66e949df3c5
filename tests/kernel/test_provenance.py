"""Provenance: which file set each key of a resolved profile (``profile show --why``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from seamhost.kernel.profile.resolve import OVERRIDE_ORIGIN, resolve_profile
from seamhost.kernel.profile.why import UnknownKey, explain, parse_key
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source

SCHEMA = """{
    "type": "object",
    "properties": {
        "word": {"type": "string", "default": "hello"},
        "count": {"type": "integer"},
        "floor": {"type": "array", "items": {"type": "string"}},
        "rules": {"type": "array", "items": {"type": "object"}},
    },
    "additionalProperties": False,
}"""


@pytest.fixture
def chain(plugin_site: PluginSite) -> dict[str, Path]:
    plugin_site.add(
        "greet",
        plugin_source("pass\n", name="greet", schema=SCHEMA).replace(
            "config_schema=", "accumulate={'floor'}, config_schema="
        ),
    )
    plugin_site.add("extra", plugin_source("pass\n", name="extra"))
    base = plugin_site.profile(
        "base.toml",
        """
        [profile]
        name = "base"
        [plugins.greet]
        word = "base"
        count = 1
        floor = ["a", "b"]
        [[plugins.greet.rules]]
        tool = "shell"
        [plugins.extra]
        [sandbox]
        mode = "workspace-write"
        """,
    )
    child = plugin_site.profile(
        "child.toml",
        """
        [profile]
        name = "child"
        extends = "base.toml"
        [plugins.greet]
        word = "child"
        floor = ["c"]
        [plugins.extra]
        enabled = false
        [sandbox]
        mode = "read-only"
        [require]
        plugins = { greet = ">=0.1" }
        """,
    )
    return {"base": base, "child": child}


def test_a_replaced_key_names_the_file_that_won_and_those_it_overrode(
    chain: dict[str, Path],
) -> None:
    answer = explain(resolve_profile(str(chain["child"])), "plugins.greet.word")
    assert answer.kind == "set"
    assert answer.value == "child"
    assert [(s.file, s.profile, s.value) for s in answer.setters] == [
        (str(chain["base"]), "base", "base"),
        (str(chain["child"]), "child", "child"),
    ]
    data = answer.to_json()
    assert data["set_by"]["file"] == str(chain["child"])
    assert [o["file"] for o in data["overrode"]] == [str(chain["base"])]


def test_a_key_only_a_parent_sets_names_the_parent(chain: dict[str, Path]) -> None:
    answer = explain(resolve_profile(str(chain["child"])), "plugins.greet.count")
    assert [(s.profile, s.value) for s in answer.setters] == [("base", 1)]


def test_an_accumulated_key_lists_every_file_and_each_entry_its_own(
    chain: dict[str, Path],
) -> None:
    profile = resolve_profile(str(chain["child"]))
    whole = explain(profile, "plugins.greet.floor")
    assert (whole.kind, whole.value) == ("accumulate", ["a", "b", "c"])
    assert [(s.profile, s.value) for s in whole.setters] == [("base", ["a", "b"]), ("child", ["c"])]
    assert explain(profile, "plugins.greet.floor[2]").setters[0].profile == "child"
    assert explain(profile, "plugins.greet.floor[0]").setters[0].profile == "base"


def test_a_key_inside_a_value_is_explained_by_the_file_that_set_the_value(
    chain: dict[str, Path],
) -> None:
    answer = explain(resolve_profile(str(chain["child"])), "plugins.greet.rules[0].tool")
    assert (answer.value, answer.setters[-1].profile) == ("shell", "base")


def test_kernel_tables_and_a_disabled_plugin_have_provenance(chain: dict[str, Path]) -> None:
    profile = resolve_profile(str(chain["child"]))
    mode = explain(profile, "sandbox.mode")
    assert [(s.profile, s.value) for s in mode.setters] == [
        ("base", "workspace-write"),
        ("child", "read-only"),
    ]
    assert explain(profile, "require.plugins.greet").setters[-1].profile == "child"
    disabled = explain(profile, "plugins.extra.enabled")
    assert (disabled.value, disabled.setters[-1].profile) == (False, "child")


def test_tables_defaults_and_overrides(chain: dict[str, Path]) -> None:
    profile = resolve_profile(str(chain["child"]), overrides={"greet": {"count": 7}})
    table = explain(profile, "plugins.greet")
    assert table.kind == "table"
    assert table.keys["word"] == str(chain["child"])
    assert table.keys["count"] == OVERRIDE_ORIGIN
    assert explain(profile, "sandbox.network").kind == "default"
    assert explain(profile, "sandbox.network").value is False
    overridden = explain(profile, "plugins.greet.count")
    assert [s.file for s in overridden.setters] == [str(chain["base"]), OVERRIDE_ORIGIN]


def test_an_unset_plugin_key_shows_its_schema_default(plugin_site: PluginSite) -> None:
    plugin_site.add("greet", plugin_source("pass\n", name="greet", schema=SCHEMA))
    path = plugin_site.profile("p.toml", "[plugins.greet]\n")
    answer = explain(resolve_profile(str(path)), "plugins.greet.word")
    assert (answer.kind, answer.value) == ("default", "hello")


@pytest.mark.parametrize(
    ("key", "close"),
    [
        ("sandbox.mod", "sandbox.mode"),
        ("plugins.greet.wrd", "plugins.greet.word"),
        ("plugins.gret", "plugins.greet"),
        ("plugins.greet.floor[9]", "plugins.greet.floor"),
    ],
)
def test_an_unknown_key_suggests_close_ones(chain: dict[str, Path], key: str, close: str) -> None:
    with pytest.raises(UnknownKey) as info:
        explain(resolve_profile(str(chain["child"])), key)
    assert info.value.key == key
    assert close in info.value.close


def test_keys_parse_as_profiles_spell_them() -> None:
    assert parse_key("plugins.tool-policy.rules[0].tool") == (
        "plugins",
        "tool-policy",
        "rules",
        0,
        "tool",
    )
    assert parse_key("a[1][2]") == ("a", 1, 2)
    assert parse_key("a..b") == ()
    assert parse_key("a[x]") == ()
