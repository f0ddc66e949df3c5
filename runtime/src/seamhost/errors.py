"""One error tree for the whole runtime, and the stable error codes of tool results.

The error *value* a failed call ends with, ``{code, message}``, is
:class:`seamhost.session.events.ToolError`: it is what a ``tool/result`` record holds, and a
:class:`~seamhost.tool.result.ToolResult` holds the same value.

Every exception seamhost or a first-party plugin raises on purpose derives from
:class:`SeamhostError` and from the builtin it is closest to, carries structured fields, and
renders a message that says what went wrong and what to do. The CLI prints each as one line
and turns configuration errors (:class:`ConfigError`...) and :class:`SessionMissing` into exit
code 2, :class:`SessionDamaged` into 3: a ``session/store`` provider derives its not-found and
corruption errors from these two, so that every command exits alike whatever store it reads.

**One style.** An error declares its fields as class annotations, like a dataclass, and
:class:`SeamhostError` makes each subclass an attrs class: ``__init__`` takes the fields
positionally or by keyword in declaration order (a class attribute is a field's default),
``__match_args__`` lists them (so a ``match`` statement can take an error apart), and ``repr``
names them. ``auto_exc`` keeps it an exception: ``args`` holds every value (so errors pickle,
and attrs sets it through ``BaseException.__init__``, since ``OSError.__init__`` under
:class:`ProfileNotFound` would read the first fields as an errno and a strerror), equality is by
identity and ``str`` is the class's own. No slots, so that a class may derive from ``OSError``
too. Type checkers read the fields through :func:`typing.dataclass_transform`.

**Built when first needed.** attrs compiles each class's methods, about a third of a millisecond
a class; every command defines some thirty error classes at start-up and raises almost none, and
``seamhost --version`` would import attrs for them. So attrs builds a class the first time it is
needed: when one is made, or when what attrs adds (``__match_args__``, ``__attrs_attrs__``, so
``attrs.fields``) is read from the class. Its bases are built first and its subclasses with it,
so a class not built yet never inherits a built one's fields.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, dataclass_transform

if TYPE_CHECKING:
    import attrs


class ErrorCode(enum.StrEnum):
    """Stable error codes of a tool result; each member says when it is produced."""

    UNKNOWN_TOOL = "UNKNOWN_TOOL"  # no tool of that name is registered in the bundle
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"  # not JSON, or not valid against the input schema
    DENIED_BY_POLICY = "DENIED_BY_POLICY"  # tools/pre-execute decided deny
    DENIED_BY_GUARD = "DENIED_BY_GUARD"  # a tools/guard implementation denied
    APPROVAL_REJECTED = "APPROVAL_REJECTED"  # the answerer rejected the call
    APPROVAL_CANCELLED = "APPROVAL_CANCELLED"  # the user cancelled the prompt
    APPROVAL_UNAVAILABLE = "APPROVAL_UNAVAILABLE"  # no answerer could answer, or policy `never`
    ESCALATION_INVALID = "ESCALATION_INVALID"  # a malformed or non-widening sandbox escalation
    SANDBOX_UNAVAILABLE = "SANDBOX_UNAVAILABLE"  # a confined mode has no usable backend
    SANDBOX_DENIED = "SANDBOX_DENIED"  # confinement blocked what the body tried to do
    CHECKPOINT_FAILED = "CHECKPOINT_FAILED"  # the flush before the body failed
    ABORTED_BEFORE_DISPATCH = "ABORTED_BEFORE_DISPATCH"  # cancelled before the body started
    ABORTED = "ABORTED"  # cancelled while the body ran; the body settled
    TOOL_TIMEOUT = "TOOL_TIMEOUT"  # the body exceeded its timeout
    TOOL_ERROR = "TOOL_ERROR"  # the body raised or reported a failure
    POST_EXECUTE_BLOCKED = "POST_EXECUTE_BLOCKED"  # tools/post-execute blocked the result
    MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"  # no llm/adapter provider
    TOOL_NOT_STARTED = "TOOL_NOT_STARTED"  # repair: no dispatch record, the body never started
    TOOL_OUTCOME_UNKNOWN = "TOOL_OUTCOME_UNKNOWN"  # dispatched, then a crash or a stop: unknown
    BUDGET_EXCEEDED = "BUDGET_EXCEEDED"  # a [limits] budget (tokens, tool calls) was used up
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"  # the turn's [limits] turn_deadline_s passed
    APPROVAL_DEFERRED = "APPROVAL_DEFERRED"  # a deferred approval expired before anyone answered
    TOOL_CHANGED = "TOOL_CHANGED"  # the tool's pinned descriptor changed (re-pin to accept it)
    LEASE_LOST = "LEASE_LOST"  # another writer took the session's lease over: nothing ran


def describe(exc: BaseException) -> str:
    """An exception as one line: its class name, then its message when it has one."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class _MadeByAttrs:
    """A class attribute attrs sets when it builds an error class: reading it builds the class.

    It stands on :class:`SeamhostError` only, so a class attrs has not built yet reads it from
    there (see the module docstring); the root, which declares no fields, reads ``()``.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, instance: object, owner: type) -> Any:
        if owner is SeamhostError:
            return ()
        _build(owner)
        return vars(owner)[self._name]


@dataclass_transform(eq_default=False, kw_only_default=False)
class SeamhostError(Exception):
    """Base class of every error seamhost raises on purpose."""

    if TYPE_CHECKING:  # what attrs adds to each class
        __match_args__: ClassVar[tuple[str, ...]]
        __attrs_attrs__: ClassVar[tuple[attrs.Attribute[Any], ...]]
    else:
        __match_args__ = _MadeByAttrs()
        __attrs_attrs__ = _MadeByAttrs()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if any(_built(base) for base in cls.__mro__[1:]):
            _build(cls)  # a built base must not lend its fields and __init__ to this class

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Only a class attrs has not built yet gets here: a built one has attrs' own __init__.
        cls = type(self)
        if cls is SeamhostError:
            if args or kwargs:
                raise TypeError("SeamhostError() takes no arguments; raise one of its subclasses")
            super().__init__()
            return
        _build(cls)
        cls.__init__(self, *args, **kwargs)


_BUILDING = threading.RLock()  # two threads raising a class first would build it twice


def _built(cls: type) -> bool:
    """Whether attrs has built `cls` (the root's own attributes are the stand-ins)."""
    return cls is not SeamhostError and "__attrs_attrs__" in vars(cls)


def _build(cls: type) -> None:
    """Make `cls` an attrs class, its bases first and then its subclasses, each once."""
    import attrs

    with _BUILDING:
        built = []
        for klass in reversed(cls.__mro__):  # bases first: attrs reads their fields
            if (
                klass is not SeamhostError
                and issubclass(klass, SeamhostError)
                and not _built(klass)
            ):
                attrs.define(klass, slots=False, eq=False, auto_exc=True, auto_attribs=True)
                built.append(klass)
        for klass in built:
            for subclass in klass.__subclasses__():
                _build(subclass)


# --------------------------------------------------------------------------------------------
# configuration: profiles, plugin tables, requirements
# --------------------------------------------------------------------------------------------


class ConfigError(SeamhostError, ValueError):
    """A profile or its plugin configuration is invalid."""

    file: str
    key: str
    problem: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else self.file
        return f"{where}: {self.problem}"


def did_you_mean(suggestions: Sequence[str]) -> str:
    """``; did you mean 'x'?`` (or ``'x' or 'y'``) for close names, else nothing."""
    if not suggestions:
        return ""
    return "; did you mean " + " or ".join(repr(s) for s in suggestions) + "?"


class ProfileNotFound(SeamhostError, FileNotFoundError):
    """A profile named by the user or by `extends` does not exist."""

    name: str
    referenced_from: str
    searched: tuple[str, ...]
    suggestions: tuple[str, ...] = ()  # shipped names close to `name`

    def __str__(self) -> str:
        origin = f"{self.referenced_from}: profile.extends: " if self.referenced_from else ""
        places = ", ".join(self.searched) or "no shipped profile directory"
        return (
            f"{origin}profile {self.name!r} not found{did_you_mean(self.suggestions)} (looked "
            f"in {places}); pass a shipped profile name or a path to a .toml file"
        )


class ProfileCycle(SeamhostError, ValueError):
    """Profiles extend each other in a cycle."""

    cycle: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"{self.cycle[0]}: profile.extends: cycle: {' -> '.join(self.cycle)}; "
            "remove one of these `extends` entries"
        )


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


class PluginLoadError(SeamhostError, ImportError):
    """A plugin failed to import, to validate its descriptor, or raised in its factory."""

    plugin: str
    stage: str  # "import", "descriptor" or "factory"
    cause: str

    def __str__(self) -> str:
        return f'plugin "{self.plugin}" failed to load ({self.stage}): {self.cause}'


class PluginConflict(SeamhostError, ValueError):
    """Two plugins claim the same single-provider seam, plugin name or tool name."""

    what: str  # e.g. "seam session/store", "tool shell", "plugin name sandbox-local"
    claimants: tuple[str, ...]

    def __str__(self) -> str:
        names = " and ".join(f'"{c}"' for c in self.claimants)
        return f"{self.what} is claimed by both {names}; remove one of them from the profile"


class SeamContractError(SeamhostError, TypeError):
    """A plugin implements a seam in a way its contract forbids."""

    seam: str
    plugin: str
    problem: str

    def __str__(self) -> str:
        return f'plugin "{self.plugin}" breaks the contract of seam {self.seam}: {self.problem}'


class SeamUnavailable(SeamhostError, LookupError):
    """A provider seam has no implementation in the bundle, so the action fails closed."""

    seam: str

    def __str__(self) -> str:
        return f"no plugin in the bundle provides {self.seam}; the action is refused"


class SeamFailed(SeamhostError, RuntimeError):
    """One or more implementations of a seam raised."""

    seam: str
    failures: tuple[tuple[str, str], ...]  # (plugin, error)

    def __str__(self) -> str:
        parts = "; ".join(f'"{plugin}": {error}' for plugin, error in self.failures)
        return f"{self.seam} failed: {parts}"


class LimitReached(SeamhostError, RuntimeError):
    """A `[limits]` budget or deadline ends the turn; `code` says which kind."""

    code: ErrorCode
    problem: str

    def __str__(self) -> str:
        return f"{self.code}: {self.problem}"


class ChildLost(SeamhostError, RuntimeError):
    """A runner lost track of a child it had started, so what the child did is unknown."""

    program: str
    problem: str

    def __str__(self) -> str:
        return f"the runner lost {self.program} after starting it: {self.problem}"


class SandboxUnavailable(SeamhostError, RuntimeError):
    """A confining mode has no usable `sandbox/confine` provider; nothing was run."""

    mode: str
    reason: str

    def __str__(self) -> str:
        return (
            f"no usable sandbox for mode {self.mode}: {self.reason}; install and enable "
            "a sandbox provider (sandbox-local) or run `seamhost doctor`"
        )


# --------------------------------------------------------------------------------------------
# the session log
# --------------------------------------------------------------------------------------------


class EventRejected(SeamhostError, ValueError):
    """An event cannot be appended: its data is not lossless JSON or does not fit its type."""

    type: str
    path: str
    problem: str

    def __str__(self) -> str:
        return f"event {self.type!r} rejected at {self.path}: {self.problem}"


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


class SessionDamaged(SeamhostError, ValueError):
    """A stored session's log is damaged; a store's corruption errors derive from this."""

    session_id: str


class SessionMissing(SeamhostError, LookupError):
    """No session is stored under the id asked for; a store's not-found errors derive from this."""

    session_id: str


class LeaseLost(SeamhostError, RuntimeError):
    """Another writer took a session's lease over; this one may not write to it any more."""

    # A store that fences its writers (persistence-postgres) derives its error from this one,
    # so that a checkpoint ends the call LEASE_LOST and a worker stops driving the session.

    session_id: str

    @staticmethod
    def found_in(exc: BaseException | None) -> LeaseLost | None:
        """The LeaseLost `exc` is or was caused by (a seam wraps what its plugin raised)."""
        seen = 0
        while exc is not None and seen < 16:
            if isinstance(exc, LeaseLost):
                return exc
            exc, seen = exc.__cause__, seen + 1
        return None


class SessionHeld(SeamhostError, RuntimeError):
    """A live writer holds the session for `seconds_left` more; store lease errors derive here."""

    # A worker that meets it hands the run back for just that long (design.md §14).

    session_id: str
    owner: str
    seconds_left: float


class RunWorkspaceMissing(SeamhostError, FileNotFoundError):
    """A run's recorded workspace is not a directory on the host of the worker that claimed it."""

    run_id: int
    workspace: str

    def __str__(self) -> str:
        return (
            f"run {self.run_id}: its workspace {self.workspace} (`submit --workspace`) is not a "
            "directory on this host; the run is handed back for a worker that sees it (runs "
            "on many hosts need that directory on storage they all mount)"
        )


class BundleChanged(SeamhostError, ValueError):
    """What is installed now differs from what a session recorded; it is not continued."""

    session_id: str
    changes: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"session {self.session_id} was written by another bundle than the one installed "
            f"now ({len(self.changes)} difference(s)): {'; '.join(self.changes)}; install what "
            "it recorded, or pass --accept-changes to continue with what is installed (the log "
            "records it)"
        )


class StoreRootMissing(SeamhostError, FileNotFoundError):
    """A session store root given on the command line does not exist."""

    root: str

    def __str__(self) -> str:
        return (
            f"--root {self.root}: no such directory; pass the root of a session store "
            "(for persistence-jsonl, $SEAMHOST_HOME/sessions), or --profile P to use its store"
        )


class UnknownSession(SeamhostError, LookupError):
    """No stored session has this id, nor an id that starts with it."""

    prefix: str
    store: str
    suggestions: tuple[str, ...] = ()  # stored ids close to `prefix`

    def __str__(self) -> str:
        return (
            f"no session {self.prefix!r} (nor one whose id starts with it) in {self.store}; "
            f"`seamhost session ls` lists them{did_you_mean(self.suggestions)}"
        )


class AmbiguousSessionId(SeamhostError, LookupError):
    """A session id prefix matches more than one stored session."""

    prefix: str
    candidates: tuple[str, ...]

    def __str__(self) -> str:
        shown = ", ".join(self.candidates[:10])
        more = f" and {len(self.candidates) - 10} more" if len(self.candidates) > 10 else ""
        return (
            f"session id prefix {self.prefix!r} matches {len(self.candidates)} sessions: "
            f"{shown}{more}; give more of the id"
        )


class SessionKept(SeamhostError, RuntimeError):
    """A session was not removed, because removing it would lose work that is not over."""

    session_id: str
    reason: str

    def __str__(self) -> str:
        return f"session {self.session_id!r} kept: {self.reason}"


def join_key(parts: Sequence[str | int]) -> str:
    """Render a key path the way profiles spell it: ``plugins.tool-policy.rules[2].tool``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out
