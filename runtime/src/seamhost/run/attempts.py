"""How one attempt of a dispatched call ended, and whether to dispatch it again (design.md §10).

* A body stopped after dispatch (by its timeout, by cancellation, or by its runner losing the
  child) may have taken effect: for a tool that is not read-only the result is
  ``TOOL_OUTCOME_UNKNOWN`` with advice, the code it was stopped with kept in ``meta.stopped``;
  a read-only tool keeps ``TOOL_TIMEOUT``/``ABORTED``.
* A value that breaks the tool's declared output schema is ``TOOL_ERROR`` naming the path; an
  error result's value is not checked (it is not the output the schema describes).
* A call is dispatched again only when the tool is read-only or idempotent, the profile allows
  retries (``[limits] tool_retries``), the step was not cancelled, and the attempt ended with an
  unknown outcome, a timeout or a failure its body declared retryable.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import attrs

from seamhost import jsonvalue
from seamhost.errors import ChildLost, ErrorCode, SandboxUnavailable, describe
from seamhost.jsonvalue import FrozenDict
from seamhost.session.events import ToolError
from seamhost.session.repair import unknown_advice
from seamhost.tool.result import ToolFailed, ToolResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from seamhost.schema import Validator
    from seamhost.tool.call import ToolContext, ToolOutput
    from seamhost.tool.declaration import ToolSpec

STOPPED_CODES = frozenset({ErrorCode.TOOL_TIMEOUT.value, ErrorCode.ABORTED.value})
RETRYABLE_CODES = frozenset({ErrorCode.TOOL_OUTCOME_UNKNOWN.value, ErrorCode.TOOL_TIMEOUT.value})


async def run_body(
    spec: ToolSpec,
    context: ToolContext,
    timeout: float | None,
    meta: dict[str, Any],
    redact: Callable[[str], str] = str,
) -> ToolResult:
    """Run the body of `spec` once and turn how it ended into a result carrying `meta`.

    The message of a body that failed (raised) goes through `redact` (the profile's redactor):
    an error of a remote server may quote the credentials it was sent. What a body returns is
    its output, taken as it is.
    """
    call_id = context.call_id
    output: ToolOutput  # a body is typed loosely in its declaration (tool/declaration.py)
    try:
        if timeout is None:
            output = await spec.body(context)
        else:
            output = await asyncio.wait_for(spec.body(context), timeout)
    except TimeoutError:
        message = f"{spec.name} did not finish within {timeout:g}s"
        return ToolResult.failure(call_id, ErrorCode.TOOL_TIMEOUT, message, **meta)
    except ToolFailed as exc:
        if exc.retryable:
            meta["retryable"] = True
        failure = ToolResult.failure(call_id, exc.code, redact(exc.message), **meta)
        return attrs.evolve(failure, value=exc.value)
    except SandboxUnavailable as exc:
        return ToolResult.failure(call_id, ErrorCode.SANDBOX_UNAVAILABLE, redact(str(exc)), **meta)
    except ChildLost as exc:  # what the child did is not known: classified by `stopped`
        return ToolResult.failure(call_id, ErrorCode.ABORTED, redact(str(exc)), **meta)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        message = redact(f"{spec.name} failed: {describe(exc)}")
        return ToolResult.failure(call_id, ErrorCode.TOOL_ERROR, message, **meta)
    for key, value in output.meta.items():
        meta[key] = jsonvalue.freeze(value)
    error = None
    if output.is_error:
        error = ToolError(output.error_code or ErrorCode.TOOL_ERROR, output.content)
        if output.retryable:
            meta["retryable"] = True
    return ToolResult(  # positionally: a class called with keywords packs them into a dict
        call_id,
        output.content,
        output.value,
        error,
        FrozenDict(meta),  # meta: every value is frozen, taken as it is, trail included
        output.additional_contexts,
    )


def stopped(result: ToolResult, spec: ToolSpec) -> ToolResult:
    """`result` of a body stopped after dispatch, as design.md §10 classifies it."""
    error = result.error
    if error is None or error.code not in STOPPED_CODES or spec.effect == "read-only":
        return result
    advice = unknown_advice(spec.effect, spec.idempotent)
    message = f"{error.message}; it was stopped after it was dispatched: {advice}"
    unknown = ToolResult.failure(result.call_id, ErrorCode.TOOL_OUTCOME_UNKNOWN, message)
    return ToolResult(
        result.call_id,
        unknown.content,
        value=result.value,
        error=unknown.error,
        meta=FrozenDict({**result.meta, "stopped": error.code}),
        additional_contexts=result.additional_contexts,
    )


def check_output(result: ToolResult, spec: ToolSpec, validator: Validator) -> ToolResult:
    """`result`, or ``TOOL_ERROR`` naming where its value breaks the tool's output schema."""
    if result.error is not None:
        return result
    violation = validator(result.value)
    if violation is None:
        return result
    message = f"{spec.name} returned a value that breaks its output schema: {violation.at('value')}"
    return ToolResult.failure(result.call_id, ErrorCode.TOOL_ERROR, message, **result.meta)


def retry(result: ToolResult, spec: ToolSpec, attempt: int, retries: int) -> bool:
    """Whether the call whose attempt `attempt` ended with `result` is dispatched again."""
    error = result.error
    if error is None or attempt > retries or not spec.retry_safe:
        return False
    return error.code in RETRYABLE_CODES or bool(result.meta.get("retryable"))


__all__ = ["check_output", "retry", "run_body", "stopped"]
