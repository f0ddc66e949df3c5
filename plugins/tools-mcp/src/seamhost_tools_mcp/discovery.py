"""At bundle build: connect to every server, record who it is and what its tools are.

Every server is connected to concurrently (one event loop, on a thread of its own when the
caller already runs one: :func:`seamhost.run_sync`), initialized, listed, and closed again; a
server starts in the workspace the bundle is built for (:attr:`seamhost.PluginContext.workspace`:
the session's, when the command knows it), and a confined one is listed in ``read-only`` there
(:func:`confinement_at_build`). What a server lists is checked
before anything is registered, each problem an error naming the server: a tool listed twice, a
``tools = [...]`` entry it does not list, a schema that is not a JSON Schema (or whose root is
not an object), a mounted name that is too long or that two tools share. A server that cannot
be reached fails the bundle, unless its table says ``optional = true``: then its tools are
absent and the reason is kept (the model is told, see :mod:`seamhost_tools_mcp.plugin`).

A tool whose ``inputSchema`` or ``outputSchema`` refers outside its own document (a remote or
``file:`` ``$ref``, an ``$id`` that moves the base: :func:`seamhost.schema.check_references`)
is refused alone: nothing is fetched or read for it, it is not mounted, and the refusal, naming
the server, the tool and the reference, is logged and kept (the model is told too); the
server's other tools mount.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from seamhost import SandboxMode, SandboxPolicy, SandboxUnavailable, run_sync
from seamhost.schema import SchemaReferenceError, compile_schema
from seamhost_tools_mcp.connection import connect
from seamhost_tools_mcp.descriptors import MAX_NAME, Descriptor, ServerIdentity, mounted_name
from seamhost_tools_mcp.errors import McpServerError
from seamhost_tools_mcp.settings import ServerSettings, Settings
from seamhost_tools_mcp.stdio import Confine

_log = logging.getLogger("seamhost.tools_mcp")


class Mount(NamedTuple):
    """One server as the bundle found it: its identity and exposed tools, or why it is absent,
    and the tools refused for their schemas' references (upstream name, message)."""

    server: ServerSettings
    identity: ServerIdentity | None
    descriptors: tuple[Descriptor, ...]
    absent: str | None = None
    refused: tuple[tuple[str, str], ...] = ()


def confinement_at_build(
    server: ServerSettings, sandbox: SandboxPolicy, workspace: Path
) -> dict[str, Any]:
    """The ConfineRequest fields of a stdio server started to be listed at bundle build.

    The server is confined to `workspace`, the one its calls will run in, and started there
    (unless its table sets ``cwd``): a server told to serve ``.`` then lists what it will
    serve. Listing changes nothing, so a confined server is listed in ``read-only``; only a
    server whose table asks for ``danger-full-access`` runs as it asked.
    """
    mode = server.mode(sandbox.mode)
    return {
        "mode": mode if not mode.confining else SandboxMode.READ_ONLY,
        "workspace": workspace,
        "writable_roots": sandbox.writable_roots,
        "network": server.network,
        "read_only_paths": sandbox.read_only_paths,
    }


def discover(
    settings: Settings,
    *,
    confine: Confine,
    sandbox: SandboxPolicy,
    environ: Mapping[str, str],
    workspace: Path,
) -> tuple[Mount, ...]:
    """Every server's mount (see the module docstring); raises for a required server."""

    async def all_servers() -> tuple[Mount, ...]:
        found = await asyncio.gather(
            *(_one(server) for server in settings.servers), return_exceptions=True
        )
        for result in found:
            if isinstance(result, BaseException):
                raise result
        mounts = tuple(m for m in found if isinstance(m, Mount))
        check_names(mounts)
        return mounts

    async def _one(server: ServerSettings) -> Mount:
        try:
            async with connect(
                server,
                settings,
                confine=confine,
                confinement=confinement_at_build(server, sandbox, workspace),
                environ=environ,
            ) as connected:
                listed = await connected.descriptors()
                identity = connected.identity
        except (McpServerError, SandboxUnavailable, OSError) as exc:
            if server.optional:
                return Mount(server, None, (), absent=str(exc))
            if isinstance(exc, McpServerError):
                raise
            raise McpServerError(server.name, str(exc)) from exc
        chosen = exposed(server, listed)
        refused = tuple((d.name, r) for d in chosen if (r := refusal(server.name, d)) is not None)
        for _, message in refused:
            _log.warning("%s", message)
        skipped = {name for name, _ in refused}
        mounted = tuple(d for d in chosen if d.name not in skipped)
        return Mount(server, identity, mounted, refused=refused)

    return run_sync(all_servers, thread_name="seamhost-mcp-discovery")


def exposed(server: ServerSettings, listed: list[Descriptor]) -> tuple[Descriptor, ...]:
    """The tools of `server` the profile exposes, each checked (see the module docstring)."""
    by_name: dict[str, Descriptor] = {}
    for descriptor in listed:
        if descriptor.name in by_name:
            raise McpServerError(server.name, f"lists the tool {descriptor.name!r} twice")
        by_name[descriptor.name] = descriptor
    wanted = server.tools if server.tools is not None else tuple(by_name)
    missing = [name for name in wanted if name not in by_name]
    if missing:
        raise McpServerError(
            server.name, f"does not list the tool(s) {', '.join(map(repr, missing))}"
        )
    unknown = sorted(set(server.overrides) - set(wanted))
    if unknown:
        raise McpServerError(server.name, f"has overrides for unexposed tool(s) {unknown}")
    return tuple(by_name[name] for name in wanted)


def refusal(server: str, descriptor: Descriptor) -> str | None:
    """Why the tool is refused alone (its schemas refer outside themselves), else ``None``.

    Raises `McpServerError` for a schema that is not an object JSON Schema (the whole server
    is then broken, not one tool).
    """
    for key in ("inputSchema", "outputSchema"):
        schema = descriptor.body.get(key)
        if schema is None and key == "outputSchema":
            continue
        if not isinstance(schema, dict) or schema.get("type", "object") != "object":
            raise McpServerError(
                server, f"tool {descriptor.name!r}: {key} is not a JSON Schema of an object"
            )
        try:
            compile_schema(schema)
        except SchemaReferenceError as exc:
            why = SchemaReferenceError(exc.reference, exc.pointer, f"its {key}")
            return str(McpServerError(server, f"tool {descriptor.name!r} refused: {why}"))
        except Exception as exc:
            raise McpServerError(
                server, f"tool {descriptor.name!r}: {key} is not a usable JSON Schema ({exc})"
            ) from exc
    return None


def check_names(mounts: tuple[Mount, ...]) -> None:
    """Refuse mounted names that are too long or that two tools share."""
    taken: dict[str, str] = {}
    for mount in mounts:
        for descriptor in mount.descriptors:
            name = mounted_name(mount.server.name, descriptor.name)
            if len(name) > MAX_NAME:
                raise McpServerError(
                    mount.server.name,
                    f"tool {descriptor.name!r} mounts as {name!r}, longer than {MAX_NAME}",
                )
            if name in taken:
                raise McpServerError(
                    mount.server.name,
                    f"tools {taken[name]!r} and {descriptor.name!r} both mount as {name!r}",
                )
            taken[name] = descriptor.name
