"""One model request of a step, as attempts recorded in the log (design.md §12).

Each attempt appends ``model/attempt`` first; the ``llm/stream`` chain then carries the request
(a checkpoint policy flushes there, so the record is durable before the request leaves). The
attempt's events are collected until its terminal ``ModelDone``: then ``model/usage`` is
appended (when the provider reported usage) and the text and calls are returned for the
``assistant/message``. A stream that raises, yields after its terminal event, ends without one,
or outlives the turn's deadline is a failed attempt: ``model/failed`` is appended and nothing
of its response is kept. A retryable failure is tried again as a new attempt, up to the
adapter's `max_attempts`, after the provider's Retry-After (else a short backoff), within the
deadline and the budget.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from seamhost import jsonvalue
from seamhost.errors import SeamhostError, describe
from seamhost.llm.adapter import ModelDone, ModelFailed, TextDelta, ToolCallProposal
from seamhost.session.events import ModelAttempt, ModelAttemptFailed, ModelUsage
from seamhost.session.live import now_ms

if TYPE_CHECKING:
    from collections.abc import Callable

    from seamhost.kernel.seams import Seams
    from seamhost.llm.adapter import ModelAdapter, ModelRequest
    from seamhost.run.budget import Budget

BACKOFF_S = 0.5  # the first wait before a retry without Retry-After; doubled each attempt
BACKOFF_CAP_S = 8.0


async def request_model(
    seams: Seams,
    adapter: ModelAdapter,
    request: ModelRequest,
    budget: Budget,
    *,
    cancelled: asyncio.Event,
    on_text: Callable[[str], None] | None = None,
    digests: RequestDigests | None = None,
    first_attempt: int = 1,
) -> tuple[str, list[ToolCallProposal]]:
    """The text and calls of the first attempt that reaches its terminal event.

    `first_attempt` numbers the first attempt: a continuation issues the request of a step
    whose earlier attempts a crash cut short as the next one (design.md §6).

    `digests` is the conversation's :class:`RequestDigests` (the agent keeps one), so that the
    digest of each request costs its new messages only.

    Raises the last `ModelFailed` when no attempt does (kind ``cancelled`` when `cancelled` was
    set meanwhile: the open stream is closed), and `LimitReached` when the budget or the
    deadline stops the next attempt.
    """
    session = request.session
    assert session is not None
    max_attempts = max(1, int(getattr(adapter, "max_attempts", 1)))
    model = str(dict(getattr(adapter, "identity", {}) or {}).get("model", adapter.name))
    if digests is None:
        digests = RequestDigests()
    digest = digests.of(request.messages, request.tools)
    turn, step = request.turn, request.step
    attempt = first_attempt
    while True:
        budget.check_model(now_ms())
        session.append(
            ModelAttempt(turn=turn, step=step, attempt=attempt, model=model, request_digest=digest)
        )
        try:
            text, proposals, done = await _attempt(
                seams, adapter, request, budget, cancelled=cancelled, on_text=on_text
            )
        except ModelFailed as exc:
            failure = exc
        else:
            if done.usage is not None:
                usage = done.usage
                session.append(
                    ModelUsage(
                        turn=turn,
                        step=step,
                        attempt=attempt,
                        input_tokens=usage.input_tokens,
                        output_tokens=usage.output_tokens,
                        cached_input_tokens=usage.cached_input_tokens,
                    )
                )
            return text, proposals
        session.append(
            ModelAttemptFailed(
                turn=turn,
                step=step,
                attempt=attempt,
                code=failure.kind,
                message=failure.message,
                retryable=failure.retryable,
            )
        )
        wait = failure.retry_after
        if wait is None:
            wait = min(BACKOFF_CAP_S, BACKOFF_S * 2 ** (attempt - 1))
        remaining = budget.remaining_s(now_ms())
        if not failure.retryable or attempt - first_attempt + 1 >= max_attempts:
            raise failure
        if remaining is not None and wait >= remaining:
            raise ModelFailed(
                failure.kind, f"{failure.message}; no time is left for another attempt"
            )
        try:
            await asyncio.wait_for(cancelled.wait(), wait)
        except TimeoutError:
            attempt += 1
            continue
        raise ModelFailed("cancelled", "the turn was cancelled before another attempt")


class RequestDigests:
    """The ``request_digest`` of the requests of one growing conversation, incrementally.

    The digest is ``sha256:`` of the canonical JSON of ``{"messages": [...], "tools": [...]}``.
    Canonical JSON sorts keys, so those bytes are ``{"messages":[``, each message's canonical
    JSON joined by commas, ``],"tools":``, the tools' and ``}``: a hash fed with each message
    once and copied for each request gives the very digest hashing the whole request does,
    without the work growing with the conversation at every step (quadratic over a session).
    A conversation that is not the last one extended (a shorter one, another last message) is
    hashed afresh; a message is taken as it was when first hashed (the agent never rewrites
    one: its requests keep a stable prefix).
    """

    __slots__ = ("_fed", "_hash", "_last", "_tools", "_tools_json")

    def __init__(self) -> None:
        self._restart()
        self._tools: object = None
        self._tools_json = b""

    def _restart(self) -> None:
        self._hash = hashlib.sha256(b'{"messages":[')
        self._fed = 0
        self._last: object = None

    def of(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> str:
        """The digest of a request of `messages` and `tools`."""
        fed = self._fed
        if len(messages) < fed or (fed and messages[fed - 1] is not self._last):
            self._restart()
            fed = 0
        update = self._hash.update
        for message in messages[fed:]:
            if fed:
                update(b",")
            update(jsonvalue.canonical_json(jsonvalue.thaw(message)))
            fed += 1
        self._fed = fed
        self._last = messages[-1] if messages else None
        if tools is not self._tools:
            self._tools, self._tools_json = tools, jsonvalue.canonical_json(jsonvalue.thaw(tools))
        final = self._hash.copy()
        final.update(b'],"tools":%b}' % self._tools_json)
        return "sha256:" + final.hexdigest()


async def _attempt(
    seams: Seams,
    adapter: ModelAdapter,
    request: ModelRequest,
    budget: Budget,
    *,
    cancelled: asyncio.Event,
    on_text: Callable[[str], None] | None,
) -> tuple[str, list[ToolCallProposal], ModelDone]:
    text: list[str] = []
    proposals: list[ToolCallProposal] = []
    remaining = budget.remaining_s(now_ms())

    async def consume() -> ModelDone:
        done: ModelDone | None = None
        async for event in seams.llm_stream(request, adapter.stream):
            if done is not None:
                raise ModelFailed("malformed", "the stream went on after its terminal event")
            if isinstance(event, TextDelta):
                text.append(event.text)
                if on_text is not None:
                    on_text(event.text)
            elif isinstance(event, ToolCallProposal):
                proposals.append(event)
            elif isinstance(event, ModelDone):
                done = event
            else:
                raise ModelFailed("malformed", f"the adapter yielded {type(event).__name__}")
        if done is None:
            raise ModelFailed("incomplete", "the stream ended without its terminal event")
        return done

    task = asyncio.ensure_future(asyncio.wait_for(consume(), remaining))
    stop = asyncio.ensure_future(cancelled.wait())
    try:
        await asyncio.wait((task, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if not task.done():  # cancelled: close the open stream and wait for it to let go
        task.cancel()
        await asyncio.wait((task,))
        raise ModelFailed("cancelled", "the turn was cancelled during the request")
    try:
        done = task.result()
    except TimeoutError:
        raise ModelFailed("deadline", "the turn's deadline passed during the request") from None
    except (ModelFailed, SeamhostError):
        raise
    except Exception as exc:  # an adapter bug is a failed attempt, not a crash of the turn
        raise ModelFailed("malformed", describe(exc)) from exc
    return "".join(text), proposals, done


__all__ = ["RequestDigests", "request_model"]
