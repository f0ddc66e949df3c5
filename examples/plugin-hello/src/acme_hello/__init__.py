"""acme-seamhost-hello: an example third-party seamhost plugin.

It supplies one tool and one policy:

* the ``hello`` tool (seam ``tools/register``): ``hello {name}`` answers ``"<greeting>, <name>!"``.
  It reads nothing and changes nothing, so it is declared read-only, idempotent and safe to run
  in parallel with other calls.
* a vote on ``tools/pre-execute``: a ``hello`` call whose ``name`` the profile lists in
  ``deny_names`` is denied, with a reason; on every other call this plugin abstains, so it can
  only ever narrow what the other policies decide.

Its profile table::

    [plugins.hello]
    greeting = "Hi"              # default "Hello"
    deny_names = ["mallory"]     # compared case-insensitively; accumulates across `extends`

The entry point ``hello = "acme_hello:descriptor"`` names this module. seamhost imports it only
when a profile names the plugin (or ``seamhost plugins`` shows its details), so importing it must
stay cheap and have no effect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost import Decision, PluginDescriptor, ToolOutput, ToolSpec, hookimpl

if TYPE_CHECKING:
    from seamhost import PluginContext, ToolContext, ToolInvocation, ToolRegistrar

TOOL = "hello"
DEFAULT_GREETING = "Hello"

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "greeting": {
            "type": "string",
            "minLength": 1,
            "default": DEFAULT_GREETING,
            "description": "The word the hello tool greets with.",
        },
        "deny_names": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "default": [],
            "description": (
                "Names the hello tool refuses to greet (case-insensitive). Entries inherited "
                "through `extends` cannot be removed by a child profile."
            ),
        },
    },
    "additionalProperties": False,
}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "Who to greet.",
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"greeting": {"type": "string", "description": "The whole greeting."}},
    "required": ["greeting"],
    "additionalProperties": False,
}


class HelloPlugin:
    """What the factory returns: seamhost registers this object with its plugin manager."""

    def __init__(self, ctx: PluginContext) -> None:
        # ctx.config was validated against CONFIG_SCHEMA, but seamhost fills in no defaults:
        # a key the profile leaves out is absent.
        self.greeting: str = ctx.config.get("greeting", DEFAULT_GREETING)
        self.denied = frozenset(name.casefold() for name in ctx.config.get("deny_names", ()))

    @hookimpl
    def tools_register(self, register: ToolRegistrar) -> None:
        register(
            ToolSpec(
                name=TOOL,
                description="Greet someone by name.",
                input_schema=INPUT_SCHEMA,
                output_schema=OUTPUT_SCHEMA,
                effect="read-only",
                concurrency_safe=True,
                idempotent=True,
                body=self.hello,
            )
        )

    async def hello(self, ctx: ToolContext) -> ToolOutput:
        """The tool body. Its arguments arrive validated against INPUT_SCHEMA and frozen."""
        text = f"{self.greeting}, {ctx.arguments['name']}!"
        return ToolOutput(content=text, value={"greeting": text})

    @hookimpl
    def tools_pre_execute(self, call: ToolInvocation) -> Decision | None:
        # A plain function: nothing here waits. Returning None abstains from the vote.
        if call.name != TOOL:
            return None
        name: str = call.arguments["name"]
        if name.casefold() in self.denied:
            return Decision.deny(
                f"the profile refuses to greet {name!r} (plugins.hello.deny_names)"
            )
        return None


descriptor = PluginDescriptor(
    name="hello",
    factory=HelloPlugin,
    config_schema=CONFIG_SCHEMA,
    provides=["tools/register", "tools/pre-execute"],
    accumulate=["deny_names"],
    description="A hello tool, and a policy that refuses the names the profile lists.",
)
