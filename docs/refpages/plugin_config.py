"""``plugins.md``: each first-party plugin's profile table, from its descriptor and docstrings.

For each plugin: what its descriptor says (distribution, seams provided and required), its
module docstring (which documents its table, by the project's rule), every key of its config
schema with type, default and description (arrays of tables flattened as ``rules[].tool``), and
the docstrings of the modules in :data:`MORE`, where a plugin documents a sub-language. The
tool-policy matcher examples (:mod:`.policy_examples`) are evaluated by the real plugin.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator, Mapping
from typing import Any

from refpages.policy_examples import render_examples
from refpages.shipped import Shipped, shipped_plugins
from refpages.text import cell, header, markdown

MORE = {"user-approval": ("seamhost_user_approval.rules",)}


def schema_type(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return " \\| ".join(f"`{value!r}`".replace("'", '"') for value in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {schema_type(schema.get('items', {}))}"
    if kind == "object" and "properties" not in schema:
        values = schema.get("additionalProperties")
        return f"table of {schema_type(values)}" if isinstance(values, Mapping) else "table"
    return str(kind) if kind != "object" else "table"


def schema_keys(schema: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, str, str, str]]:
    """(key, type, default, description) of each key of an object schema, nested ones after."""
    required = set(schema.get("required", ()))
    for name, sub in schema.get("properties", {}).items():
        key = f"{prefix}{name}"
        default = "required" if name in required else "-"
        if "default" in sub:
            default = f"`{sub['default']!r}`".replace("'", '"')
        yield key, schema_type(sub), default, sub.get("description", "")
        items = sub.get("items", {})
        if sub.get("type") == "array" and "properties" in items:
            yield from schema_keys(items, f"{key}[].")


def plugin_section(shipped: Shipped) -> list[str]:
    descriptor = shipped.descriptor
    lines = [
        f"## {descriptor.name}",
        "",
        f"`[plugins.{descriptor.name}]`, from the distribution `{shipped.distribution}`: "
        f"{descriptor.description}",
        "",
        f"- **provides:** {', '.join(f'`{s}`' for s in sorted(descriptor.provides)) or '-'}",
        f"- **requires:** {', '.join(f'`{s}`' for s in sorted(descriptor.requires)) or '-'}",
    ]
    if descriptor.accumulate:
        floors = ", ".join(f"`{key}`" for key in sorted(descriptor.accumulate))
        lines.append(f"- **accumulate across `extends`:** {floors}")
    lines += ["", markdown(inspect.getdoc(importlib.import_module(shipped.module)) or "")]
    keys = list(schema_keys(descriptor.config_schema))
    if keys:
        lines += ["", "### Keys", "", "| key | type | default | meaning |", "|---|---|---|---|"]
        lines += [f"| `{k}` | {t} | {d} | {cell(markdown(text))} |" for k, t, d, text in keys]
    for module in MORE.get(descriptor.name, ()):
        doc = inspect.getdoc(importlib.import_module(module)) or ""
        title, _, body = doc.partition("\n")
        lines += ["", f"### {markdown(title).rstrip('.')}", "", markdown(body.strip())]
    if descriptor.name == "tool-policy":
        lines += render_examples()
    return [*lines, ""]


def render() -> str:
    lines = header("First-party plugins", "the descriptors, docstrings and config schemas")
    plugins = shipped_plugins()
    lines += [
        "What each plugin seamhost ships does and how its profile table is written. "
        "`seamhost profile schema` prints the same keys as one JSON Schema for editors; "
        "`seamhost plugins` lists what is installed.",
        "",
        ", ".join(f"[{s.descriptor.name}](#{s.descriptor.name})" for s in plugins),
        "",
    ]
    for shipped in plugins:
        lines += plugin_section(shipped)
    return "\n".join(lines).rstrip("\n") + "\n"
