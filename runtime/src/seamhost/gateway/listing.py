"""``tools/list``: each bundle tool as an MCP tool, its schemas and hints from its declaration.

The input schema is the one the model is shown (:meth:`ToolSpec.model_declaration
<seamhost.tool.declaration.ToolSpec.model_declaration>`: a tool that may ask for a wider sandbox
offers ``sandbox_permissions`` and ``justification``).
MCP wants both schemas to describe objects: an output schema that does not is carried wrapped,
``{"value": <the tool's value>}``, and ``structuredContent`` is wrapped the same way
(:func:`structured`). The annotations are derived, never declared twice: ``readOnlyHint`` from
``effect = "read-only"``, ``destructiveHint`` from ``effect = "write"``, ``idempotentHint`` from
``idempotent`` (a read-only tool is idempotent too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.tool.declaration import ToolSpec


def is_object_schema(schema: Mapping[str, Any]) -> bool:
    """Whether `schema` describes a JSON object, as MCP wants a tool's schemas to."""
    return schema.get("type") == "object"


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    """The tool's output schema as MCP carries it: an object, wrapped when it is not one."""
    schema = dict(spec.output_schema)
    if is_object_schema(schema):
        return schema
    return {"type": "object", "properties": {"value": schema}, "required": ["value"]}


def structured(spec: ToolSpec, value: Any) -> dict[str, Any]:
    """The ``structuredContent`` of a successful call: its value, wrapped as its schema is."""
    if is_object_schema(spec.output_schema) and isinstance(value, dict):
        return value
    return {"value": value}


def mcp_tool(spec: ToolSpec) -> types.Tool:
    """One tool as ``tools/list`` shows it."""
    declared = spec.model_declaration()
    read_only = spec.effect == "read-only"
    return types.Tool(
        name=spec.name,
        title=spec.name,
        description=spec.description,
        input_schema=dict(declared["input_schema"]),
        output_schema=output_schema(spec),
        annotations=types.ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=not read_only,
            idempotent_hint=read_only or spec.idempotent,
            open_world_hint=False,
        ),
    )


def mcp_tools(bundle: Bundle) -> list[types.Tool]:
    """The bundle's tools, sorted by name (a stable listing for clients that cache it)."""
    return [mcp_tool(bundle.tools[name].spec) for name in sorted(bundle.tools)]


__all__ = ["mcp_tool", "mcp_tools", "output_schema", "structured"]
