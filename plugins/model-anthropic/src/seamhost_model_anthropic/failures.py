"""How a failed attempt is classified: the SDK's and the transport's errors as `ModelFailed`.

The SDK's own retries are off, so every error reaches here on the attempt that met it:
a connection error or a timeout of the transport is ``connection`` (retryable); 429 is
``rate-limited`` with the Retry-After header in seconds; 5xx and 529 (overloaded) are ``server``
(retryable); any other status (authentication, a bad request, a missing model) is ``refused``. An
``error`` event in the middle of a stream arrives as a status error on the 200 response: its
``error.type`` decides instead (``overloaded_error`` and ``api_error`` are ``server``).

The message goes through the adapter's redactor (:mod:`seamhost.redaction`): a 401 body may
quote the key it refused, an exception may quote the request's headers.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping

import anthropic
import httpx2

from seamhost import ModelFailed

_SERVER_TYPES = frozenset({"overloaded_error", "api_error"})


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if (millis := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_to_datetime(value) if value.strip() else None
    return None if when is None else max(0.0, when.timestamp() - time.time())


def classify(exc: BaseException, redact: Callable[[str], str] = str) -> ModelFailed:
    """The `ModelFailed` for an exception raised while one attempt was streaming."""
    failure = _classify(exc)
    return ModelFailed(
        failure.kind, redact(failure.message), failure.retryable, failure.retry_after
    )


def _classify(exc: BaseException) -> ModelFailed:
    if isinstance(exc, anthropic.APIStatusError):
        return _status(exc)
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return ModelFailed("connection", f"the transport timed out: {exc}", retryable=True)
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        return ModelFailed("connection", _text(exc), retryable=True)
    if isinstance(exc, ValueError | anthropic.APIResponseValidationError):
        return ModelFailed("malformed", f"a stream event could not be read: {exc}")
    return ModelFailed("malformed", f"{type(exc).__name__}: {exc}")


def _status(exc: anthropic.APIStatusError) -> ModelFailed:
    status, kind = exc.status_code, exc.type
    message = f"HTTP {status}: {exc.api_message or exc.message}"
    if status == 200:  # an `error` event inside the stream
        message = f"error event {kind}: {exc.api_message or exc.message}"
        if kind == "rate_limit_error":
            return ModelFailed("rate-limited", message, retryable=True)
        if kind in _SERVER_TYPES or kind is None:
            return ModelFailed("server", message, retryable=True)
        return ModelFailed("refused", message)
    if status == 429:
        wait = retry_after(exc.response.headers)
        return ModelFailed("rate-limited", message, retryable=True, retry_after=wait)
    if status >= 500:
        return ModelFailed("server", message, retryable=True, retry_after=_wait(exc))
    return ModelFailed("refused", message)


def _wait(exc: anthropic.APIStatusError) -> float | None:
    return retry_after(exc.response.headers)


def _text(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    detail = f" ({type(cause).__name__}: {cause})" if cause and str(cause) != str(exc) else ""
    return f"{type(exc).__name__}: {exc}{detail}"
