"""``seamhost mcp pins --profile P [--json]``: the digests to pin the profile's MCP tools with.

The bundle is built (so every server of ``[plugins.tools-mcp]`` is connected to and listed, as
a session would), then for each server it prints who answered and the TOML to paste into the
profile: the server's ``pin`` (every exposed tool as it is now) and each tool's own ``pin``.
A server's digest is the digest of its exposed tools' ``{tool: descriptor digest}`` map, the
rule ``seamhost_tools_mcp.descriptors.server_digest`` applies (design.md §13); a pin already in
the profile that no longer matches is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from seamhost.cli.pins import changed, pins_command
from seamhost.jsonvalue import digest, thaw

HELP = "Connect to the MCP servers of PROFILE and print the pins of their tools, to paste."
NONE = "the profile mounts no MCP server tools"  # the text when nothing is pinned


def collect(origins: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each MCP server of the `origins` (all of kind ``mcp``): its identity, its digest and its
    tools' digests."""
    by_server: dict[str, dict[str, Any]] = {}
    for origin in origins:
        name = str(origin["server"])
        entry = by_server.setdefault(
            name,
            {"server": name, "server_info": thaw(origin["server_info"]), "tools": []},
        )
        entry["tools"].append(
            {
                "tool": origin["tool"],
                "digest": origin["descriptor_digest"],
                "pinned": origin.get("pin"),
            }
        )
    servers = []
    for name in sorted(by_server):
        entry = by_server[name]
        entry["tools"].sort(key=lambda t: t["tool"])
        entry["digest"] = digest({t["tool"]: t["digest"] for t in entry["tools"]})
        servers.append(entry)
    return servers


def render(servers: list[dict[str, Any]]) -> str:
    """The TOML to paste, with who answered as comments."""
    out = []
    for server in servers:
        info = server["server_info"]
        name = server["server"]
        out.append(
            f"# MCP server {name!r}: {info['name']} {info['version']} "
            f"(protocol {info['protocol_version']})\n"
            f"[plugins.tools-mcp.servers.{name}]\n"
            f'pin = "{server["digest"]}"  # every exposed tool as it is now\n'
        )
        for tool in server["tools"]:
            stale = tool["pinned"] not in (None, tool["digest"], server["digest"])
            note = f"  # {changed(tool['pinned'])}" if stale else ""
            out.append(
                f"[plugins.tools-mcp.servers.{name}.overrides.{tool['tool']}]\n"
                f'pin = "{tool["digest"]}"{note}\n'
            )
    return "\n".join(out)


pins = pins_command(help=HELP, kind="mcp", key="servers", collect=collect, render=render, none=NONE)
