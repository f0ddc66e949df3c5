"""Examples of tool-policy's matchers, each decided by the real plugin when the page is built.

Each example is one rule (with ``default = "allow"``) and one call; the page shows the decision
tool-policy's ``tools/pre-execute`` gives, so the examples cannot drift from the matcher.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from seamhost import PluginContext, SandboxMode, SandboxPolicy, ToolInvocation, ToolOutput, ToolSpec
from seamhost.jsonvalue import digest, freeze
from seamhost.tool.declaration import RegisteredTool

WORKSPACE = Path("/srv/project")  # judged as written; it need not exist

EXAMPLES: list[tuple[dict[str, Any], str, dict[str, Any]]] = [
    ({"command": "git push*", "decision": "ask"}, "shell", {"command": "git push origin main"}),
    ({"command": "git push*", "decision": "ask"}, "shell", {"command": "git add . && git push"}),
    ({"command": "git push*", "decision": "ask"}, "shell", {"command": "sudo -u ci git push"}),
    ({"command": "git push*", "decision": "ask"}, "shell", {"command": "echo 'git push'"}),
    ({"command": "rm -rf *", "decision": "deny"}, "shell", {"command": 'rm -rf "$target"'}),
    ({"command": "rm -rf *", "decision": "deny"}, "shell", {"command": "bash -c 'rm -rf build'"}),
    ({"path": "**/.env", "decision": "deny"}, "write_file", {"path": "config/.env"}),
    ({"path": "**/.env", "decision": "deny"}, "shell", {"command": "echo K=v >> app/.env"}),
    ({"path": "**/.env", "decision": "deny"}, "shell", {"command": "cat app/.env"}),
    (
        {"location": "outside-workspace", "decision": "ask"},
        "shell",
        {"command": "echo hi > /etc/motd"},
    ),
    ({"location": "outside-workspace", "decision": "ask"}, "shell", {"command": "ls > out.txt"}),
    ({"location": "outside-workspace", "decision": "ask"}, "write_file", {"path": "../x"}),
    ({"tool": "write_*", "effect": "write", "decision": "ask"}, "write_file", {"path": "a.txt"}),
    ({"command": "ls*", "decision": "allow"}, "shell", {"command": 'eval "$cmd"'}),
]


async def _body(ctx: Any) -> ToolOutput:
    raise AssertionError("the examples are only judged, never run")


def _tool(name: str) -> RegisteredTool:
    spec = ToolSpec(name, name, {"type": "object"}, {"type": "object"}, "write", False, _body)
    return RegisteredTool.of(spec, "tools")


def decide(rule: dict[str, Any], tool: str, arguments: dict[str, Any]) -> str:
    """What tool-policy decides on `tool` called with `arguments` under the one rule `rule`."""
    from seamhost_tool_policy import ToolPolicy

    config = freeze({"default": "allow", "rules": [rule]})
    policy = ToolPolicy(
        PluginContext("tool-policy", config, WORKSPACE / "p.toml", SandboxPolicy(), environ={})
    )
    call = ToolInvocation(
        "s", 1, 1, "c", _tool(tool), freeze(arguments), digest(arguments), WORKSPACE,
        SandboxMode.WORKSPACE_WRITE,
    )  # fmt: skip
    decision = policy.tools_pre_execute(call)
    return str(decision.verdict) if not asyncio.iscoroutine(decision) else "?"


def _toml(table: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{key} = {json.dumps(value)}" for key, value in table.items()) + " }"


def render_examples() -> list[str]:
    lines = [
        "",
        "### Matcher examples",
        "",
        'Each row is one rule under `default = "allow"` and one call, in a workspace '
        f"`{WORKSPACE}`; the decision is the one tool-policy gives, computed when this page "
        "was generated.",
        "",
        "| rule | call | decision |",
        "|---|---|---|",
    ]
    for rule, tool, arguments in EXAMPLES:
        call = f"{tool} {_toml(arguments)}".replace("|", "\\|")
        lines.append(f"| `{_toml(rule)}` | `{call}` | {decide(rule, tool, arguments)} |")
    return lines
