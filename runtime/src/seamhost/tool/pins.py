"""The pinned descriptor of a mounted tool, checked again when a stored session resumes.

A plugin that mounts tools from elsewhere (an MCP server, an A2A agent) puts a digest of what it
was told about each tool into the tool's ``origin`` (``descriptor_digest``), and the session
header's bundle snapshot keeps it (docs/design.md §13). When a session written with one
descriptor resumes against a plugin that now mounts another, the call must be refused
``TOOL_CHANGED`` before anything is sent, unless the operator re-pinned the tool.
:func:`changed_descriptor` says whether that is the case; the plugin writes the refusal, since
only it knows what to tell the operator to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seamhost.tool.call import ToolExecution


def recorded_digest(snapshot: Mapping[str, Any], name: str) -> str | None:
    """The descriptor digest a session header's bundle snapshot recorded for tool `name`."""
    for tool in snapshot.get("tools", ()):
        origin = tool.get("origin")
        if tool.get("name") == name and origin is not None:
            digest = origin.get("descriptor_digest")
            return str(digest) if digest is not None else None
    return None


def changed_descriptor(execution: ToolExecution, digest: str, *, repinned: bool) -> str | None:
    """The digest the call's session recorded for its tool, when it differs from `digest` (what
    the tool is mounted with now) and the tool was not re-pinned to accept it; else ``None``.

    A call outside a session, or of a tool the header did not record, is never refused here.
    """
    if execution.session is None or repinned:
        return None
    recorded = recorded_digest(execution.session.header.bundle, execution.invocation.name)
    if recorded is None or recorded == digest:
        return None
    return recorded
