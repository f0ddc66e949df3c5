"""What the deferred-approval tests share: a counting tool that is always asked about, and a
scenario that parks on it.

``count_write`` appends one line to the counter file its config names, outside the session log,
so a test can tell how many times a body really ran; its ``tools/pre-execute`` asks about every
call, so a profile whose user-approval answers ``defer`` parks on it. With ``DEFER_PHASES`` set,
the plugin notes in that file when a command's bundle is built (the crash tests time kills by it).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import plugin_source

COUNTER = plugin_source(
    """
    @hookimpl
    def tools_register(self, register):
        import os
        phases = os.environ.get("DEFER_PHASES")
        if phases:  # the bundle is built: the command's own work starts now
            with open(phases, "a", encoding="utf-8") as fh:
                fh.write("ready\\n")
        path = self.ctx.config["counter"]
        schema = {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
            "additionalProperties": False,
        }

        async def body(ctx):
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"{ctx.call_id} {ctx.arguments['n']}\\n")
            return ToolOutput(f"counted {ctx.arguments['n']}")

        register(ToolSpec("count_write", "appends a line to the counter file", schema,
                          {}, "write", False, body))

    @hookimpl
    def tools_pre_execute(self, call):
        if call.tool.spec.name == "count_write":
            return Decision.ask("counting needs a person")
        return None
    """,
    name="counter",
    schema='{"type": "object", "properties": {"counter": {"type": "string"}}, '
    '"required": ["counter"], "additionalProperties": False}',
)

SCENARIO = """
[scenario]
name = "deferred"
workspace = { "notes.txt" = "hello\\n" }

[[turn]]
user = "count once"
final = "turn one done"

[[turn.step]]
text = "read, count, write"
[[turn.step.call]]
tool = "read_file"
args = { path = "notes.txt" }
[[turn.step.call]]
tool = "count_write"
args = { n = 1 }
[[turn.step.call]]
tool = "write_file"
args = { path = "after.txt", content = "after\\n" }

[[turn.step]]
text = "the next step"
[[turn.step.call]]
tool = "write_file"
args = { path = "step2.txt", content = "two\\n" }

[[turn]]
user = "and then"
final = "turn two done"

[[turn.step]]
[[turn.step.call]]
tool = "write_file"
args = { path = "turn2.txt", content = "turn two\\n" }
"""


def deferring_profile(counter: Path, expires: float | None = None) -> str:
    """A profile extending ``default`` whose approvals all wait, counting in `counter`."""
    expiry = f"defer_expires_seconds = {expires}\n" if expires is not None else ""
    return (
        '[profile]\nname = "deferring"\nextends = ["default"]\n'
        f'[plugins.counter]\ncounter = "{counter}"\n'
        f'[plugins.user-approval]\nanswerers = ["defer"]\n{expiry}'
    )
