"""What a plugin declares through ``tools/register``: a tool, and the tool tagged by its plugin.

A plugin registers :class:`ToolSpec` values through the :class:`ToolRegistrar` it receives; the
bundle tags each with its plugin and descriptor digest (:class:`RegisteredTool`), which the
bundle snapshot and every ``tool/call`` record carry.

A tool's schemas take two forms, both fixed by its declaration: what the model is shown
(:meth:`ToolSpec.model_declaration`, where a tool that may escalate offers the two escalation
fields) and what its calls are checked against (:class:`RegisteredTool`'s validators, compiled
once per registered tool, on its first call). Nothing about either is worked out again per call.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, Protocol

import attrs

from seamhost.jsonvalue import digest
from seamhost.sandbox.policy import SandboxMode
from seamhost.schema import Validator, check_references, compile_schema

Effect = Literal["read-only", "write"]
# A coroutine function taking the call's ToolContext and returning its ToolOutput: precisely
# seamhost.tool.call.Body. Named loosely here so that declaring tools, which every bundle does,
# needs none of the values of a running call (and tool.call can depend on this module).
ToolBody = Callable[[Any], Awaitable[Any]]


@attrs.frozen
class ToolSpec:
    """A tool as a plugin declares it through `tools/register`."""

    name: str  # what the model calls
    description: str  # what the model and the operator read
    input_schema: Mapping[str, Any]  # JSON Schema of the arguments; make it strict
    output_schema: Mapping[str, Any]  # JSON Schema of the output's `value`
    effect: Effect  # read-only | write
    concurrency_safe: bool  # True when calls may run in parallel
    body: ToolBody = attrs.field(eq=False, repr=False)
    """async def body(ctx: ToolContext) -> ToolOutput"""
    idempotent: bool = False  # True when repeating a call with the same key is harmless
    runs_subprocesses: bool = False  # True when the body starts processes (needs sandbox/confine)
    status_query: bool = False  # its effect can be looked up by key (implement tools/reconcile)
    origin: Mapping[str, Any] | None = attrs.field(default=None, eq=False)
    """where a mounted tool comes from (an MCP server's identity and the tool's upstream
    descriptor with its digest): part of the declaration, so of the digest and the snapshot"""

    @property
    def retry_safe(self) -> bool:
        """Whether dispatching the call again cannot double its effect (read-only or idempotent)."""
        return self.effect == "read-only" or self.idempotent

    @functools.cached_property
    def escalates(self) -> bool:
        """Whether a call may ask for a wider sandbox mode (the tool writes or runs processes)."""
        return self.effect == "write" or self.runs_subprocesses

    def declaration(self) -> dict[str, Any]:
        """The JSON declaration shown to operators and digested into the bundle."""
        declared = {
            "name": self.name,
            "description": self.description,
            "effect": self.effect,
            "concurrency_safe": self.concurrency_safe,
            "idempotent": self.idempotent,
            "runs_subprocesses": self.runs_subprocesses,
            "input_schema": dict(self.input_schema),
            "output_schema": dict(self.output_schema),
        }
        if self.status_query:
            declared["status_query"] = True
        if self.origin is not None:
            declared["origin"] = dict(self.origin)
        return declared

    def model_declaration(self) -> dict[str, Any]:
        """The declaration the model is shown: an escalating tool's schema offers the two fields.

        Presentation only (design.md §12): governance takes them out of the arguments again
        before it checks the arguments against the tool's own schema.
        """
        declared = self.declaration()
        if not self.escalates or declared["input_schema"].get("type") != "object":
            return declared
        schema = dict(declared["input_schema"])
        properties = dict(schema.get("properties", {}))
        properties["sandbox_permissions"] = {
            "enum": [m.value for m in SandboxMode],
            "description": "a wider sandbox mode for this call only; a person is asked to approve",
        }
        properties["justification"] = {
            "type": "string",
            "description": "why this call needs the wider mode (required with sandbox_permissions)",
        }
        schema["properties"] = properties
        declared["input_schema"] = schema
        return declared


@attrs.frozen
class RegisteredTool:
    """A tool tagged with the plugin that registered it and its descriptor digest."""

    spec: ToolSpec
    plugin: str
    digest: str

    @classmethod
    def of(cls, spec: ToolSpec, plugin: str) -> RegisteredTool:
        """`spec` tagged; raises `SchemaReferenceError` when one of its schemas refers outside
        itself (no schema may make the host fetch or read anything: docs/design.md §13)."""
        check_references(spec.input_schema, f"tool {spec.name!r} input_schema")
        check_references(spec.output_schema, f"tool {spec.name!r} output_schema")
        return cls(spec, plugin, digest({"plugin": plugin, **spec.declaration()}))

    # Compiled on a call's first use, not at registration: building a bundle compiles nothing.
    @functools.cached_property
    def arguments_validator(self) -> Validator:
        """The tool's input schema, compiled: what every call's arguments are checked against."""
        return compile_schema(self.spec.input_schema)

    @functools.cached_property
    def value_validator(self) -> Validator:
        """The tool's output schema, compiled: what every successful result's value must meet."""
        return compile_schema(self.spec.output_schema)


class ToolRegistrar(Protocol):
    """The callback `tools/register` implementations receive."""

    def __call__(self, spec: ToolSpec) -> None: ...
