"""Pinned identity (design.md §13): what a server said it is, and what each of its tools is.

A tool's **descriptor** is what the server lists for it, reduced to what changes its meaning:
``name``, ``description``, ``inputSchema``, ``outputSchema`` and ``annotations`` (as the server
sent them, camelCase). Its digest (``sha256:`` of the canonical JSON) is the tool's pin. A
server's digest is the digest of its tools' ``{name: digest}`` map (the exposed tools only), so
pinning a server pins every tool it exposes; its identity (``serverInfo`` name and version, the
negotiated protocol version) is recorded beside it but is not part of any pin: a server that
bumps its version without changing a tool keeps its pins.

The mounted name of a tool is ``<server>__<tool>``, every character outside ``[A-Za-z0-9_-]``
turned into ``_``; names longer than 64 characters, or two tools landing on one name, are refused
naming the server.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from seamhost.jsonvalue import digest

MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class ServerIdentity(NamedTuple):
    """Who answered: ``serverInfo`` and the negotiated protocol version."""

    name: str
    version: str
    protocol_version: str

    def to_json(self) -> dict[str, str]:
        return {
            "name": self.name,
            "version": self.version,
            "protocol_version": self.protocol_version,
        }


class Descriptor(NamedTuple):
    """One upstream tool as listed, and its digest."""

    name: str
    body: Mapping[str, Any]  # name, description, inputSchema, outputSchema, annotations
    digest: str

    @classmethod
    def of(cls, listed: Mapping[str, Any]) -> Descriptor:
        """The descriptor of a tool as the server listed it (its JSON, camelCase)."""
        body = {
            key: listed[key]
            for key in ("name", "description", "inputSchema", "outputSchema", "annotations")
            if listed.get(key) is not None
        }
        return cls(str(listed["name"]), body, digest(body))

    def hint(self, name: str) -> bool | None:
        """The annotation `name` (``readOnlyHint``...) when the server gave one."""
        annotations = self.body.get("annotations") or {}
        value = annotations.get(name)
        return value if isinstance(value, bool) else None


def server_digest(descriptors: Sequence[Descriptor]) -> str:
    """The digest that pins a server: its exposed tools, by name, with their digests."""
    return digest({d.name: d.digest for d in descriptors})


def mounted_name(server: str, tool: str) -> str:
    """The seamhost name of upstream tool `tool` of `server` (see the module docstring)."""
    return f"{server}__{_UNSAFE.sub('_', tool)}"
