"""What ``seamhost profile check --json`` prints for an invalid profile: one entry per problem.

Each entry is ``{"file", "key", "message"}``: the file and the dotted key the problem is in
(``null`` when it is in neither, e.g. two plugins claiming one seam) and the message without
them. Resolution stops at its first error, so there is one entry, except for missing seams: one
per seam, each naming who required it.
"""

from __future__ import annotations

from typing import Any

from seamhost.errors import (
    ConfigError,
    MissingSeams,
    PluginLoadError,
    PluginNotInstalled,
    ProfileCycle,
    ProfileNotFound,
    SeamContractError,
)


def entries(exc: BaseException) -> list[dict[str, Any]]:
    """The problems `exc` reports, as ``check --json`` lists them."""
    match exc:
        case ConfigError(file, key, problem):
            return [_entry(file or None, key or None, problem)]
        case MissingSeams(file, missing):
            return [
                _entry(
                    file,
                    "require.seams",
                    f"no plugin in the bundle provides {seam} "
                    f"(required by {who}); add a plugin that provides it to the profile",
                )
                for seam, who in missing
            ]
        case ProfileNotFound(_, referenced_from, _):
            where = "profile.extends" if referenced_from else None
            return [_entry(referenced_from or None, where, str(exc))]
        case ProfileCycle(cycle):
            return [_entry(cycle[0], "profile.extends", str(exc))]
        case PluginNotInstalled(plugin, _, file):
            return [_entry(file, f"plugins.{plugin}", str(exc))]
        case PluginLoadError(plugin) | SeamContractError(_, plugin):
            return [_entry(None, f"plugins.{plugin}", str(exc))]
    return [_entry(None, None, str(exc))]


def _entry(file: str | None, key: str | None, message: str) -> dict[str, Any]:
    prefix = f"{file}: {key}: " if file and key else f"{file}: " if file else ""
    if prefix and message.startswith(prefix):
        message = message[len(prefix) :]
    return {"file": file, "key": key, "message": message}
