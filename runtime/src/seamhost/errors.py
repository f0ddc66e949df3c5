"""One error tree for the whole runtime.

Every error seamhost raises on purpose derives from :class:`SeamhostError` and from the builtin it
is closest to, carries structured fields, and renders a message that says what went wrong and what
to do. Configuration errors (:class:`ConfigError`) are the ones the CLI turns into exit code 2
without a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs


class SeamhostError(Exception):
    """Base class of every error seamhost raises on purpose."""


# --------------------------------------------------------------------------------------------
# configuration: profiles, plugin tables, requirements
# --------------------------------------------------------------------------------------------


@attrs.frozen(auto_exc=True)
class ConfigError(SeamhostError, ValueError):
    """A profile or its plugin configuration is invalid."""

    file: str
    key: str
    problem: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else self.file
        return f"{where}: {self.problem}"


@attrs.frozen(auto_exc=True)
class ProfileNotFound(SeamhostError, FileNotFoundError):
    """A profile named by the user or by `extends` does not exist."""

    name: str
    referenced_from: str
    searched: tuple[str, ...]

    def __str__(self) -> str:
        origin = f"{self.referenced_from}: profile.extends: " if self.referenced_from else ""
        places = ", ".join(self.searched) or "no shipped profile directory"
        return (
            f"{origin}profile {self.name!r} not found (looked in {places}); "
            "pass a shipped profile name or a path to a .toml file"
        )


@attrs.frozen(auto_exc=True)
class ProfileCycle(SeamhostError, ValueError):
    """Profiles extend each other in a cycle."""

    cycle: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"{self.cycle[0]}: profile.extends: cycle: {' -> '.join(self.cycle)}; "
            "remove one of these `extends` entries"
        )


@attrs.frozen(auto_exc=True)
class PluginNotInstalled(SeamhostError, LookupError):
    """A profile names a plugin that no installed distribution provides."""

    plugin: str
    distribution: str
    file: str
    disabled: bool = False

    def __str__(self) -> str:
        if self.disabled:
            return (
                f"{self.file}: plugins.{self.plugin}: plugin {self.plugin!r} is blocked by "
                "SEAMHOST_DISABLE_PLUGINS; unset it or remove the table from the profile"
            )
        return (
            f"{self.file}: plugins.{self.plugin}: plugin {self.plugin!r} is not installed; "
            f"install the distribution {self.distribution!r} "
            f"(pip install {self.distribution}) or remove the table from the profile"
        )


@attrs.frozen(auto_exc=True)
class MissingSeams(SeamhostError, LookupError):
    """Seams the profile or a plugin requires have no provider in the bundle."""

    file: str
    missing: tuple[tuple[str, str], ...]  # (seam, who requires it)

    def __str__(self) -> str:
        parts = "; ".join(f"{seam} (required by {who})" for seam, who in self.missing)
        return (
            f"{self.file}: require.seams: no plugin in the bundle provides: {parts}; "
            "add a plugin that provides each of them to the profile"
        )


# --------------------------------------------------------------------------------------------
# plugins and bundles
# --------------------------------------------------------------------------------------------


@attrs.frozen(auto_exc=True)
class PluginLoadError(SeamhostError, ImportError):
    """A plugin failed to import, to validate its descriptor, or raised in its factory."""

    plugin: str
    stage: str  # "import", "descriptor" or "factory"
    cause: str

    def __str__(self) -> str:
        return f'plugin "{self.plugin}" failed to load ({self.stage}): {self.cause}'


@attrs.frozen(auto_exc=True)
class PluginConflict(SeamhostError, ValueError):
    """Two plugins claim the same single-provider seam, plugin name or tool name."""

    what: str  # e.g. "seam session/store", "tool shell", "plugin name sandbox-local"
    claimants: tuple[str, ...]

    def __str__(self) -> str:
        names = " and ".join(f'"{c}"' for c in self.claimants)
        return f"{self.what} is claimed by both {names}; remove one of them from the profile"


@attrs.frozen(auto_exc=True)
class SeamContractError(SeamhostError, TypeError):
    """A plugin implements a seam in a way its contract forbids."""

    seam: str
    plugin: str
    problem: str

    def __str__(self) -> str:
        return f'plugin "{self.plugin}" breaks the contract of seam {self.seam}: {self.problem}'


@attrs.frozen(auto_exc=True)
class SeamUnavailable(SeamhostError, LookupError):
    """A provider seam has no implementation in the bundle, so the action fails closed."""

    seam: str

    def __str__(self) -> str:
        return f"no plugin in the bundle provides {self.seam}; the action is refused"


@attrs.frozen(auto_exc=True)
class SeamFailed(SeamhostError, RuntimeError):
    """One or more implementations of a seam raised."""

    seam: str
    failures: tuple[tuple[str, str], ...]  # (plugin, error)

    def __str__(self) -> str:
        parts = "; ".join(f'"{plugin}": {error}' for plugin, error in self.failures)
        return f"{self.seam} failed: {parts}"


# --------------------------------------------------------------------------------------------
# the session log
# --------------------------------------------------------------------------------------------


@attrs.frozen(auto_exc=True)
class EventRejected(SeamhostError, ValueError):
    """An event cannot be appended: its data is not lossless JSON or does not fit its type."""

    type: str
    path: str
    problem: str

    def __str__(self) -> str:
        return f"event {self.type!r} rejected at {self.path}: {self.problem}"


@attrs.frozen(auto_exc=True)
class UnknownEventType(SeamhostError, ValueError):
    """A record has a type the reader does not know and is not marked ignorable."""

    type: str
    seq: int | None = None

    def __str__(self) -> str:
        where = f" (seq {self.seq})" if self.seq is not None else ""
        return (
            f"unknown event type {self.type!r}{where} is not marked ignorable; "
            "install the plugin that defines it or upgrade seamhost"
        )


def join_key(parts: Sequence[str | int]) -> str:
    """Render a key path the way profiles spell it: ``plugins.tool-policy.rules[2].tool``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out
