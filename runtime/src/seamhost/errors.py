"""One error tree for the whole runtime.

Every error seamhost raises on purpose derives from :class:`SeamhostError` and from the builtin it
is closest to, carries structured fields, and renders a message that says what went wrong and what
to do. Configuration errors (:class:`ConfigError`) are the ones the CLI turns into exit code 2
without a traceback.

The kernel's errors are plain exception classes rather than attrs classes: the CLI imports all of
them to map them to exit codes before it does anything else, and generating attrs methods for
each would cost every command start-up a few milliseconds. Each keeps the shape an
``attrs.frozen(auto_exc=True)`` class would have: its fields (``__match_args__``, so a
``match`` statement can take them apart) as attributes set once by ``__init__``, positional or
keyword in that order; ``args`` holding every field in that order, so instances pickle; a
``repr`` naming the fields; and equality by identity, like any exception. ``args`` is set
through ``BaseException.__init__`` directly: ``OSError.__init__`` (under :class:`ProfileNotFound`)
would read the first fields as an errno and a strerror.
"""

from __future__ import annotations

from collections.abc import Sequence


class SeamhostError(Exception):
    """Base class of every error seamhost raises on purpose."""

    def __repr__(self) -> str:
        # A subclass with fields shows them the way an attrs class would.
        fields = getattr(self, "__match_args__", ())
        if not fields:
            return super().__repr__()
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in fields)
        return f"{type(self).__name__}({shown})"


# --------------------------------------------------------------------------------------------
# configuration: profiles, plugin tables, requirements
# --------------------------------------------------------------------------------------------


class ConfigError(SeamhostError, ValueError):
    """A profile or its plugin configuration is invalid."""

    __match_args__ = ("file", "key", "problem")

    def __init__(self, file: str, key: str, problem: str) -> None:
        BaseException.__init__(self, file, key, problem)
        self.file = file
        self.key = key
        self.problem = problem

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else self.file
        return f"{where}: {self.problem}"


class ProfileNotFound(SeamhostError, FileNotFoundError):
    """A profile named by the user or by `extends` does not exist."""

    __match_args__ = ("name", "referenced_from", "searched")

    def __init__(self, name: str, referenced_from: str, searched: tuple[str, ...]) -> None:
        BaseException.__init__(self, name, referenced_from, searched)
        self.name = name
        self.referenced_from = referenced_from
        self.searched = searched

    def __str__(self) -> str:
        origin = f"{self.referenced_from}: profile.extends: " if self.referenced_from else ""
        places = ", ".join(self.searched) or "no shipped profile directory"
        return (
            f"{origin}profile {self.name!r} not found (looked in {places}); "
            "pass a shipped profile name or a path to a .toml file"
        )


class ProfileCycle(SeamhostError, ValueError):
    """Profiles extend each other in a cycle."""

    __match_args__ = ("cycle",)

    def __init__(self, cycle: tuple[str, ...]) -> None:
        BaseException.__init__(self, cycle)
        self.cycle = cycle

    def __str__(self) -> str:
        return (
            f"{self.cycle[0]}: profile.extends: cycle: {' -> '.join(self.cycle)}; "
            "remove one of these `extends` entries"
        )


class PluginNotInstalled(SeamhostError, LookupError):
    """A profile names a plugin that no installed distribution provides."""

    __match_args__ = ("plugin", "distribution", "file", "disabled")

    def __init__(self, plugin: str, distribution: str, file: str, disabled: bool = False) -> None:
        BaseException.__init__(self, plugin, distribution, file, disabled)
        self.plugin = plugin
        self.distribution = distribution
        self.file = file
        self.disabled = disabled

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


class MissingSeams(SeamhostError, LookupError):
    """Seams the profile or a plugin requires have no provider in the bundle."""

    __match_args__ = ("file", "missing")

    def __init__(self, file: str, missing: tuple[tuple[str, str], ...]) -> None:
        BaseException.__init__(self, file, missing)
        self.file = file
        self.missing = missing  # (seam, who requires it)

    def __str__(self) -> str:
        parts = "; ".join(f"{seam} (required by {who})" for seam, who in self.missing)
        return (
            f"{self.file}: require.seams: no plugin in the bundle provides: {parts}; "
            "add a plugin that provides each of them to the profile"
        )


# --------------------------------------------------------------------------------------------
# plugins and bundles
# --------------------------------------------------------------------------------------------


class PluginLoadError(SeamhostError, ImportError):
    """A plugin failed to import, to validate its descriptor, or raised in its factory."""

    __match_args__ = ("plugin", "stage", "cause")

    def __init__(self, plugin: str, stage: str, cause: str) -> None:
        BaseException.__init__(self, plugin, stage, cause)
        self.plugin = plugin
        self.stage = stage  # "import", "descriptor" or "factory"
        self.cause = cause

    def __str__(self) -> str:
        return f'plugin "{self.plugin}" failed to load ({self.stage}): {self.cause}'


class PluginConflict(SeamhostError, ValueError):
    """Two plugins claim the same single-provider seam, plugin name or tool name."""

    __match_args__ = ("what", "claimants")

    def __init__(self, what: str, claimants: tuple[str, ...]) -> None:
        BaseException.__init__(self, what, claimants)
        self.what = what  # e.g. "seam session/store", "tool shell", "plugin name sandbox-local"
        self.claimants = claimants

    def __str__(self) -> str:
        names = " and ".join(f'"{c}"' for c in self.claimants)
        return f"{self.what} is claimed by both {names}; remove one of them from the profile"


class SeamContractError(SeamhostError, TypeError):
    """A plugin implements a seam in a way its contract forbids."""

    __match_args__ = ("seam", "plugin", "problem")

    def __init__(self, seam: str, plugin: str, problem: str) -> None:
        BaseException.__init__(self, seam, plugin, problem)
        self.seam = seam
        self.plugin = plugin
        self.problem = problem

    def __str__(self) -> str:
        return f'plugin "{self.plugin}" breaks the contract of seam {self.seam}: {self.problem}'


class SeamUnavailable(SeamhostError, LookupError):
    """A provider seam has no implementation in the bundle, so the action fails closed."""

    __match_args__ = ("seam",)

    def __init__(self, seam: str) -> None:
        BaseException.__init__(self, seam)
        self.seam = seam

    def __str__(self) -> str:
        return f"no plugin in the bundle provides {self.seam}; the action is refused"


class SeamFailed(SeamhostError, RuntimeError):
    """One or more implementations of a seam raised."""

    __match_args__ = ("seam", "failures")

    def __init__(self, seam: str, failures: tuple[tuple[str, str], ...]) -> None:
        BaseException.__init__(self, seam, failures)
        self.seam = seam
        self.failures = failures  # (plugin, error)

    def __str__(self) -> str:
        parts = "; ".join(f'"{plugin}": {error}' for plugin, error in self.failures)
        return f"{self.seam} failed: {parts}"


# --------------------------------------------------------------------------------------------
# the session log
# --------------------------------------------------------------------------------------------


class EventRejected(SeamhostError, ValueError):
    """An event cannot be appended: its data is not lossless JSON or does not fit its type."""

    __match_args__ = ("type", "path", "problem")

    def __init__(self, type: str, path: str, problem: str) -> None:
        BaseException.__init__(self, type, path, problem)
        self.type = type
        self.path = path
        self.problem = problem

    def __str__(self) -> str:
        return f"event {self.type!r} rejected at {self.path}: {self.problem}"


class UnknownEventType(SeamhostError, ValueError):
    """A record has a type the reader does not know and is not marked ignorable."""

    __match_args__ = ("type", "seq")

    def __init__(self, type: str, seq: int | None = None) -> None:
        BaseException.__init__(self, type, seq)
        self.type = type
        self.seq = seq

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
