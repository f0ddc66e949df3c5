"""The ``callback`` answerer: an embedding application answers through a function it supplies.

The application registers the function with
:func:`seamhost_user_approval.set_callback` (``set_callback(bundle, fn)``). ``fn(request)``
receives the :class:`~seamhost.approval.request.ApprovalRequest` and returns (or, as an async
function, resolves to) an :class:`~seamhost.approval.request.ApprovalOutcome`, or ``None`` to leave
the request to the next answerer. Until a function is registered, this answerer does not answer.

Failing closed: a function that raises, returns anything but an ``ApprovalOutcome`` member or
``None`` (a string such as ``"allowed-once"`` is refused too: the vocabulary is the enum), or
does not finish within `callback_timeout_seconds` ends the approval ``unavailable``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

import attrs

from seamhost import ApprovalOutcome, ApprovalRequest
from seamhost.errors import describe
from seamhost_user_approval.answers import Reply
from seamhost_user_approval.errors import AnswererFailed, AnswererTimedOut

Callback = Callable[[ApprovalRequest], Awaitable[ApprovalOutcome | None] | ApprovalOutcome | None]


async def _call(function: Callback, request: ApprovalRequest) -> object:
    result = function(request)
    if inspect.isawaitable(result):
        return await result
    return result


@attrs.define
class CallbackAnswerer:
    """Asks the registered function; see the module docstring."""

    timeout: float = 30.0
    function: Callback | None = None
    name: str = "callback"

    async def answer(self, request: ApprovalRequest) -> Reply:
        function = self.function
        if function is None:
            return Reply.none("callback: none is registered (seamhost_user_approval.set_callback)")
        try:
            answer = await asyncio.wait_for(_call(function, request), self.timeout)
        except TimeoutError as exc:
            raise AnswererTimedOut("callback", self.timeout, "callback_timeout_seconds") from exc
        except Exception as exc:
            raise AnswererFailed("callback", f"the function raised {describe(exc)}") from exc
        if answer is None:
            return Reply.none("callback: the function did not answer")
        if not isinstance(answer, ApprovalOutcome):
            raise AnswererFailed(
                "callback",
                f"the function answered {answer!r}, outside the vocabulary "
                "(an ApprovalOutcome member, or None to pass)",
            )
        return Reply(answer, f"callback: {answer}")
