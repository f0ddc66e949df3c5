"""The ``[plugins.tools-mcp]`` profile table: its JSON Schema and the settings read from it.

One sub-table per upstream server, ``[plugins.tools-mcp.servers.NAME]``, with either
``command = [...]`` (a stdio server: ``env``, ``cwd``, ``sandbox``, ``network``,
``read_paths``) or
``url = "..."`` (streamable HTTP: ``headers``). Secrets go through ``{"$env" = "NAME"}``, which
the kernel resolves when the profile loads. Per-tool overrides sit under
``[plugins.tools-mcp.servers.NAME.overrides.TOOL]``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from seamhost import SandboxMode
from seamhost.errors import ConfigError

NAME = "tools-mcp"
SERVER_NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"
PIN = r"^sha256:[0-9a-f]{64}$"
MIB = 1024 * 1024

_OVERRIDE: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "effect": {"enum": ["read-only", "write"], "description": "What the tool does."},
        "idempotent": {"type": "boolean", "description": "Repeating a call is harmless."},
        "concurrency_safe": {"type": "boolean", "description": "Calls may run in parallel."},
        "pin": {"type": "string", "pattern": PIN, "description": "The accepted descriptor."},
    },
    "additionalProperties": False,
}

_SERVER: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": "A stdio server: the argv to start (confined by sandbox/confine).",
        },
        "env": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Extra environment of a stdio server (secrets via $env).",
        },
        "cwd": {"type": "string", "description": "Working directory of a stdio server."},
        "sandbox": {
            "enum": ["read-only", "workspace-write", "danger-full-access"],
            "description": "The mode a stdio server runs in (default: the session's "
            "confining mode; workspace-write when the session runs unconfined).",
        },
        "network": {"type": "boolean", "description": "A stdio server may use the network."},
        "read_paths": {
            "type": "array",
            "items": {"type": "string"},
            "description": "More paths a stdio server must read though its confinement would "
            "hide them (read-only; its program and Python environment are added anyway).",
        },
        "url": {"type": "string", "pattern": "^https?://", "description": "A streamable HTTP URL."},
        "headers": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "HTTP headers (secrets via $env).",
        },
        "tools": {
            "type": "array",
            "items": {"type": "string"},
            "uniqueItems": True,
            "description": "Expose only these upstream tools (default: all).",
        },
        "timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "How long a call may wait for its answer (default 60).",
        },
        "cancel_grace_s": {
            "type": "number",
            "minimum": 0,
            "description": "After notifications/cancelled, how long to wait for the answer.",
        },
        "optional": {
            "type": "boolean",
            "description": "An unreachable server leaves its tools out instead of failing.",
        },
        "trust_annotations": {
            "type": "boolean",
            "description": "Let readOnlyHint/idempotentHint/destructiveHint count for policy.",
        },
        "pin": {"type": "string", "pattern": PIN, "description": "The accepted server digest."},
        "overrides": {
            "type": "object",
            "additionalProperties": _OVERRIDE,
            "description": "Per upstream tool: effect, idempotent, concurrency_safe, pin.",
        },
    },
    "additionalProperties": False,
}

CONFIG_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "servers": {
            "type": "object",
            "propertyNames": {"pattern": SERVER_NAME},
            "additionalProperties": _SERVER,
            "description": "The upstream MCP servers, by name.",
        },
        "log_dir": {
            "type": "string",
            "description": "Where stdio servers' stderr goes, one NAME.log each "
            "(default: $XDG_STATE_HOME/seamhost/mcp).",
        },
        "startup_timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "How long connecting and listing a server may take (default 30).",
        },
        "max_message_bytes": {
            "type": "integer",
            "minimum": 1024,
            "description": "The largest JSON-RPC message a stdio server may send (default 16 MiB).",
        },
    },
    "additionalProperties": False,
}


class ToolOverride(NamedTuple):
    """What the profile says of one upstream tool, above what its annotations hint."""

    effect: str | None = None
    idempotent: bool | None = None
    concurrency_safe: bool | None = None
    pin: str | None = None


class ServerSettings(NamedTuple):
    """One ``[plugins.tools-mcp.servers.NAME]`` table, defaults filled in."""

    name: str
    command: tuple[str, ...] = ()
    env: Mapping[str, str] = {}
    cwd: Path | None = None
    sandbox: SandboxMode | None = None
    network: bool = False
    read_paths: tuple[Path, ...] = ()
    url: str | None = None
    headers: Mapping[str, str] = {}
    tools: tuple[str, ...] | None = None
    timeout_s: float = 60.0
    cancel_grace_s: float = 5.0
    optional: bool = False
    trust_annotations: bool = False
    pin: str | None = None
    overrides: Mapping[str, ToolOverride] = {}

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def mode(self, session_mode: SandboxMode) -> SandboxMode:
        """The mode the stdio server runs in: never unconfined unless the profile says so."""
        if self.sandbox is not None:
            return self.sandbox
        return session_mode if session_mode.confining else SandboxMode.WORKSPACE_WRITE


class Settings(NamedTuple):
    """The validated table."""

    servers: tuple[ServerSettings, ...]
    log_dir: Path
    startup_timeout_s: float = 30.0
    max_message_bytes: int = 16 * MIB

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], source: Path, environ: Mapping[str, str]
    ) -> Settings:
        """Settings from a table valid against `CONFIG_SCHEMA`; `ConfigError` for the rest."""
        base = source.parent
        servers = []
        for name, table in dict(config.get("servers", {})).items():
            servers.append(_server(name, table, base, str(source)))
        state = environ.get("XDG_STATE_HOME") or os.path.join(
            environ.get("HOME", "~"), ".local", "state"
        )
        log_dir = Path(config.get("log_dir", os.path.join(state, "seamhost", "mcp")))
        return cls(
            servers=tuple(servers),
            log_dir=(base / log_dir.expanduser()).resolve(),
            startup_timeout_s=float(config.get("startup_timeout_s", 30.0)),
            max_message_bytes=int(config.get("max_message_bytes", 16 * MIB)),
        )


def _server(name: str, table: Mapping[str, Any], base: Path, source: str) -> ServerSettings:
    key = f"plugins.{NAME}.servers.{name}"
    has_command, has_url = "command" in table, "url" in table
    if has_command == has_url:
        raise ConfigError(source, key, "give exactly one of command (stdio) or url (HTTP)")
    stdio = ("env", "cwd", "sandbox", "network", "read_paths")
    stdio_only = [k for k in stdio if k in table and has_url]
    http_only = [k for k in ("headers",) if k in table and has_command]
    for wrong in (*stdio_only, *http_only):
        raise ConfigError(source, f"{key}.{wrong}", "does not apply to this kind of server")
    values = dict(table)
    overrides = {
        tool: ToolOverride(**dict(override))
        for tool, override in dict(values.pop("overrides", {})).items()
    }
    if "command" in values:
        values["command"] = tuple(values["command"])
    if "tools" in values:
        values["tools"] = tuple(values["tools"])
    if "cwd" in values:
        values["cwd"] = (base / Path(values["cwd"]).expanduser()).resolve()
    if "read_paths" in values:
        values["read_paths"] = tuple(
            (base / Path(path).expanduser()).resolve() for path in values["read_paths"]
        )
    if "sandbox" in values:
        values["sandbox"] = SandboxMode(values["sandbox"])
    for field in ("env", "headers"):
        if field in values:
            values[field] = dict(values[field])
    return ServerSettings(name=name, overrides=overrides, **values)
