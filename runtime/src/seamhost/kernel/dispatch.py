"""Drivers for the dispatch modes that vote, observe or provide (design.md §3.4).

Provider, provider chain, decision, guard, notify and barrier are driven here; the modes that
wrap a call (around, and transform) are in :mod:`seamhost.kernel.chains`, and registration, which
builds the tool table, in :mod:`seamhost.kernel.registration`.

Each driver takes the implementations of one seam in call order, as :class:`Impl` values (the
plugin's name and its function), and applies the mode's rules, including what a raising
implementation means. Implementations may be plain or coroutine functions; drivers await what
they get. ``BaseException`` that is not an ``Exception`` (cancellation, ``KeyboardInterrupt``) is
never swallowed.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Awaitable, Callable, Sequence
from types import CoroutineType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard, TypeVar, cast

from seamhost.errors import PluginConflict, SeamFailed, SeamhostError, SeamUnavailable, describe

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Coroutine

    from seamhost.tool.decision import Decision

T = TypeVar("T")


class Impl:
    """One implementation of a seam: the plugin that supplied it and the function to call.

    Drivers call it with the seam's arguments positionally, in the order of the seam's hook spec
    (what pluggy does too: a keyword call costs twice as much). pluggy lets an implementation
    declare any subset of the spec's arguments; `positions` then says which of the spec's
    arguments it takes, in its own order. ``None`` means all of them, in the spec's order.
    Read-only.
    """

    __slots__ = ("call", "function", "plugin", "positions")

    def __init__(
        self, plugin: str, function: Callable[..., Any], positions: tuple[int, ...] | None = None
    ) -> None:
        self.plugin = plugin
        self.function = function
        self.positions = positions
        self.call: Callable[..., Any] = function if positions is None else self._subset

    @classmethod
    def of(
        cls, plugin: str, function: Callable[..., Any], argnames: Sequence[str], spec: Sequence[str]
    ) -> Impl:
        """The implementation `function` declaring `argnames`, of a seam whose spec has `spec`."""
        if tuple(argnames) == tuple(spec):
            return cls(plugin, function)
        return cls(plugin, function, tuple(spec.index(name) for name in argnames))

    def _subset(self, *args: Any) -> Any:
        return self.function(*[args[index] for index in self.positions or ()])

    def __call__(self, *args: Any) -> Any:
        return self.call(*args)

    def __repr__(self) -> str:
        return f"Impl({self.plugin!r}, {self.function!r}, {self.positions!r})"


class Tracer:
    """Writes one line per implementation call to stderr (``SEAMHOST_TRACE_HOOKS=1``)."""

    __slots__ = ("enabled",)

    def __init__(self, enabled: bool = False) -> None:
        self.enabled = enabled

    def __call__(self, seam: str, plugin: str, outcome: str) -> None:
        if self.enabled:
            print(f"seamhost: trace: {seam} -> {plugin}: {outcome}", file=sys.stderr, flush=True)


def awaitable(value: object) -> TypeGuard[Awaitable[Any]]:
    """Whether `value` must be awaited; coroutines and ``None`` are decided without an ABC check."""
    if type(value) is CoroutineType:
        return True
    return value is not None and isinstance(value, Awaitable)


async def settle(value: T | Awaitable[T]) -> T:
    """Await `value` if it is awaitable."""
    if awaitable(value):
        awaited: T = await value
        return awaited
    return cast("T", value)


# --------------------------------------------------------------------------------------------
# provider and provider chain
# --------------------------------------------------------------------------------------------


def only(seam: str, impls: Sequence[Impl]) -> Impl:
    """The single implementation of a provider seam; none → `SeamUnavailable`."""
    if not impls:
        raise SeamUnavailable(seam)
    # The bundle refuses two providers at startup; this guards against a plugin registered
    # after the bundle was checked.
    if len(impls) > 1:
        raise PluginConflict(f"seam {seam}", tuple(i.plugin for i in impls))
    return impls[0]


def provide(seam: str, impl: Impl, *args: Any) -> Any:
    """Call a provider with `args`; a raise becomes `SeamFailed` naming the plugin."""
    try:
        return impl.call(*args)
    except SeamhostError:
        raise
    except Exception as exc:
        raise SeamFailed(seam, ((impl.plugin, describe(exc)),)) from exc


def provider(seam: str, impls: Sequence[Impl], *, trace: Tracer) -> Callable[..., Any]:
    """A function of the seam's arguments returning what its one provider supplies.

    No provider raises `SeamUnavailable`; a raising one, `SeamFailed` naming it.
    """

    def supply(*args: Any) -> Any:
        impl = only(seam, impls)
        if trace.enabled:
            trace(seam, impl.plugin, "provide")
        return provide(seam, impl, *args)

    return supply


class ChainAnswer(NamedTuple):
    """The outcome of a provider chain: the answer, who gave it, and why others did not."""

    answer: Any
    plugin: str | None
    notes: tuple[str, ...]


async def first_answer(
    seam: str,
    impls: Sequence[Impl],
    args: tuple[Any, ...],
    *,
    accept: Callable[[Any], bool],
    trace: Tracer,
) -> ChainAnswer:
    """Ask each implementation in order; the first non-``None`` answer wins.

    A raise or an answer `accept` refuses stops the chain with no answer (fail closed): a broken
    answerer must not let a later, more permissive one decide.
    """
    notes: list[str] = []
    for impl in impls:
        try:
            answer = await settle(impl.call(*args))
        except Exception as exc:
            if trace.enabled:
                trace(seam, impl.plugin, f"raised {describe(exc)}")
            notes.append(f'"{impl.plugin}" raised {describe(exc)}')
            return ChainAnswer(None, impl.plugin, tuple(notes))
        if answer is None:
            if trace.enabled:
                trace(seam, impl.plugin, "no answer")
            notes.append(f'"{impl.plugin}" did not answer')
            continue
        if not accept(answer):
            if trace.enabled:
                trace(seam, impl.plugin, f"invalid answer {answer!r}")
            notes.append(f'"{impl.plugin}" answered {answer!r}, outside the vocabulary')
            return ChainAnswer(None, impl.plugin, tuple(notes))
        if trace.enabled:
            trace(seam, impl.plugin, f"answered {answer}")
        return ChainAnswer(answer, impl.plugin, tuple(notes))
    return ChainAnswer(None, None, tuple(notes))


# --------------------------------------------------------------------------------------------
# decision and guard
# --------------------------------------------------------------------------------------------


@functools.cache
def _allow() -> Decision:
    """The verdict when nobody votes; built once, on first use (decisions load lazily)."""
    from seamhost.tool.decision import Decision

    return Decision.allow()


def _strictest(votes: list[Decision]) -> Decision:
    worst = max(vote.verdict for vote in votes)
    # Among equally strict votes pick by plugin name, so registration order never matters.
    return min((v for v in votes if v.verdict == worst), key=lambda v: (v.plugin, v.reason))


def decide(
    seam: str, impls: Sequence[Impl], args: tuple[Any, ...], *, trace: Tracer, guard: bool
) -> Coroutine[Any, Any, Decision]:
    """Collect every vote; the most restrictive wins. A raise or a malformed vote is a deny.

    With ``guard=True`` only deny or abstain are valid votes; an allow or ask is a contract error
    and also counts as a deny.
    """
    return _decide(seam, impls, trace, guard, *args)


def decider(
    seam: str, impls: Sequence[Impl], *, trace: Tracer, guard: bool
) -> Callable[..., Coroutine[Any, Any, Decision]]:
    """A function of the seam's arguments that does what `decide` does with them.

    A partial, not a closure: no frame of its own on every call that is governed.
    """
    return functools.partial(_decide, seam, impls, trace, guard)


async def _decide(
    seam: str, impls: Sequence[Impl], trace: Tracer, guard: bool, *args: Any
) -> Decision:
    votes: list[Decision] = []
    for impl in impls:
        try:
            vote = impl.call(*args)
            if vote is not None and awaitable(vote):
                vote = await vote
        except Exception as exc:
            if trace.enabled:
                trace(seam, impl.plugin, f"raised {describe(exc)}")
            votes.append(_deny(f"{seam} raised {describe(exc)}", impl.plugin))
            continue
        if vote is None:
            if trace.enabled:
                trace(seam, impl.plugin, "abstain")
            continue
        votes.append(_counted(seam, impl, vote, trace=trace, guard=guard))
    return _strictest(votes) if votes else _allow()


def _deny(reason: str, plugin: str) -> Decision:
    from seamhost.tool.decision import Decision, Verdict  # only when someone voted

    return Decision(Verdict.DENY, reason, plugin)


def _counted(seam: str, impl: Impl, vote: object, *, trace: Tracer, guard: bool) -> Decision:
    """A vote as counted: tagged with its plugin, or a deny when it breaks the contract."""
    from seamhost.tool.decision import Decision, Verdict  # only when someone voted

    if not isinstance(vote, Decision) or (guard and vote.verdict is not Verdict.DENY):
        if trace.enabled:
            trace(seam, impl.plugin, f"invalid vote {vote!r}")
        problem = "a guard may only deny or abstain" if guard else "not a Decision"
        return _deny(f"invalid vote {vote!r}: {problem}", impl.plugin)
    if trace.enabled:
        trace(seam, impl.plugin, f"{vote.verdict} {vote.reason}".rstrip())
    return Decision(vote.verdict, vote.reason, impl.plugin)


# --------------------------------------------------------------------------------------------
# notify and barrier
# --------------------------------------------------------------------------------------------

_background: set[asyncio.Task[Any]] = set()


def _log_failure(seam: str, plugin: str, exc: BaseException) -> None:
    import logging  # only on failure: logging costs start-up time on every command

    logging.getLogger("seamhost.seams").warning(
        "%s observer %r failed: %s", seam, plugin, describe(exc), exc_info=exc
    )


def notify(seam: str, impls: Sequence[Impl], args: tuple[Any, ...], *, trace: Tracer) -> None:
    """Call every observer; failures are logged and contained.

    Coroutine observers are scheduled on the running loop (fire-and-forget) or, without one,
    run to completion in a private loop so that nothing is silently dropped.
    """
    for impl in impls:
        try:
            result = impl.call(*args)
        except Exception as exc:
            if trace.enabled:
                trace(seam, impl.plugin, f"raised {describe(exc)}")
            _log_failure(seam, impl.plugin, exc)
            continue
        if trace.enabled:
            trace(seam, impl.plugin, "notified")
        if result is not None and awaitable(result):
            _run_observer(seam, impl.plugin, result)


def notifier(seam: str, impls: Sequence[Impl], *, trace: Tracer) -> Callable[..., None]:
    """A function of the seam's arguments that does what `notify` does with them.

    For one observer and no tracing (a session's one ``session/event`` plugin, say) it calls
    the observer itself: one frame fewer on every record and every result.
    """
    if not impls:
        return _nobody
    if len(impls) != 1 or trace.enabled:
        return functools.partial(_notify_all, seam, impls, trace)
    impl = impls[0]
    call, plugin = impl.call, impl.plugin

    def notify_one(*args: Any) -> None:
        try:
            result = call(*args)
        except Exception as exc:
            _log_failure(seam, plugin, exc)
            return
        if result is not None and awaitable(result):
            _run_observer(seam, plugin, result)

    return notify_one


def _nobody(*args: Any) -> None:
    """The notifier of a seam nobody observes."""


def _notify_all(seam: str, impls: Sequence[Impl], trace: Tracer, *args: Any) -> None:
    notify(seam, impls, args, trace=trace)


def _run_observer(seam: str, plugin: str, awaitable: Awaitable[Any]) -> None:
    import asyncio

    async def observe() -> None:
        try:
            await awaitable
        except Exception as exc:
            _log_failure(seam, plugin, exc)

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(observe())
        return
    task = loop.create_task(observe())
    _background.add(task)
    task.add_done_callback(_background.discard)


async def barrier(
    seam: str, impls: Sequence[Impl], args: tuple[Any, ...], *, trace: Tracer
) -> None:
    """Run every implementation and await them all; then raise the first failure, if any."""
    if not impls:
        raise SeamUnavailable(seam)
    if len(impls) == 1:  # the common case (one backend): no tasks to gather
        await _barrier_of_one(seam, impls[0], args, trace=trace)
        return
    import asyncio

    async def run(impl: Impl) -> None:
        await settle(impl.call(*args))

    outcomes = await asyncio.gather(*(run(impl) for impl in impls), return_exceptions=True)
    failures: list[tuple[Impl, BaseException]] = []
    for impl, outcome in zip(impls, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            if trace.enabled:
                trace(seam, impl.plugin, f"raised {describe(outcome)}")
            if not isinstance(outcome, Exception):
                raise outcome
            failures.append((impl, outcome))
        elif trace.enabled:
            trace(seam, impl.plugin, "settled")
    if failures:
        summary = tuple((impl.plugin, describe(exc)) for impl, exc in failures)
        raise SeamFailed(seam, summary) from failures[0][1]


async def _barrier_of_one(seam: str, impl: Impl, args: tuple[Any, ...], *, trace: Tracer) -> None:
    try:
        await settle(impl.call(*args))
    except Exception as exc:
        if trace.enabled:
            trace(seam, impl.plugin, f"raised {describe(exc)}")
        raise SeamFailed(seam, ((impl.plugin, describe(exc)),)) from exc
    if trace.enabled:
        trace(seam, impl.plugin, "settled")
