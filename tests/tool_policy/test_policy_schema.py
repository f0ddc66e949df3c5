"""The descriptor and its config schema: closed objects, a description on every key."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from seamhost_tool_policy import descriptor

from seamhost.jsonvalue import thaw
from seamhost.kernel.plugins import discover


def objects(schema: Mapping[str, Any], path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every object schema inside `schema`, with where it is."""
    if schema.get("type") == "object":
        yield path or "(root)", schema
    for key, value in schema.get("properties", {}).items():
        yield from objects(value, f"{path}.{key}")
    if isinstance(schema.get("items"), Mapping):
        yield from objects(schema["items"], f"{path}[]")


def test_the_installed_entry_point_is_this_descriptor() -> None:
    installed = discover().get("tool-policy")
    assert installed is not None
    assert installed.distribution == "seamhost-tool-policy"
    assert installed.load() is descriptor
    assert descriptor.problems() == []
    assert descriptor.provides == {"tools/pre-execute", "tools/guard"}
    assert descriptor.accumulate == {"floor"}


def test_every_object_is_closed_and_every_key_described() -> None:
    schema = thaw(descriptor.config_schema)
    found = dict(objects(schema))
    assert set(found) == {"(root)", ".rules[]", ".floor[]", ".rules[].args", ".floor[].args"}
    for where, item in found.items():
        if where.endswith(".args"):
            # argument names are the tools' own; each value must be a glob string
            assert item["additionalProperties"] == {"type": "string"}
            continue
        assert item["additionalProperties"] is False, where
        for key, value in item["properties"].items():
            assert value.get("description"), f"{where}.{key} has no description"
