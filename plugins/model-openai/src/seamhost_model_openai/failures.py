"""How a failed attempt is classified: the SDK's exceptions as :class:`~seamhost.ModelFailed`.

========================================  ================  =========
what happened                             kind              retryable
========================================  ================  =========
HTTP 429                                  ``rate-limited``  yes
HTTP 5xx, an error event in the stream    ``server``        yes
another 4xx (a bad key, a bad request)    ``refused``       no
no connection, the connection dropped     ``connection``    yes
the attempt's ``timeout_s`` passed        ``deadline``      yes
a chunk that is not JSON                  ``malformed``     no
========================================  ================  =========

``retry_after`` is the response's ``retry-after-ms`` or ``Retry-After`` (seconds, or an HTTP
date) in seconds, for the kernel to wait before the next attempt.

The message goes through the adapter's redactor (:mod:`seamhost.redaction`): a 401 body may
quote the key it refused, an exception may quote the request's headers.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable, Mapping

import httpx2
import openai

from seamhost import ModelFailed


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The server's requested wait in seconds, or None when it asked for none we can read."""
    for header, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            parsed = email.utils.parsedate_tz(value) if scale == 1.0 else None
            if parsed is None:
                continue
            seconds = email.utils.mktime_tz(parsed) - time.time()
        if math.isfinite(seconds):
            return max(seconds, 0.0)
    return None


# What an attempt turns into ModelFailed; anything else is a bug of ours and propagates.
FAILURES = (openai.OpenAIError, httpx2.TransportError, TimeoutError, ValueError)


def classify(
    exc: BaseException, timeout_s: float, redact: Callable[[str], str] = str
) -> ModelFailed:
    """The ModelFailed for `exc`, raised by the SDK or the transport during one attempt."""
    failure = _classify(exc, timeout_s)
    return ModelFailed(
        failure.kind, redact(failure.message), failure.retryable, failure.retry_after
    )


def _classify(exc: BaseException, timeout_s: float) -> ModelFailed:
    if isinstance(exc, TimeoutError | openai.APITimeoutError | httpx2.TimeoutException):
        return ModelFailed("deadline", f"no complete answer within {timeout_s:g} s", True)
    if isinstance(exc, openai.APIStatusError):
        status, wait = exc.status_code, retry_after(exc.response.headers)
        body = exc.body.get("message") if isinstance(exc.body, dict) else None
        what = f"HTTP {status}: {body if isinstance(body, str) else exc.message}"
        if status == 429:
            return ModelFailed("rate-limited", what, True, wait)
        if status >= 500:
            return ModelFailed("server", what, True, wait)
        return ModelFailed("refused", what, False)
    if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
        cause = exc.__cause__ or exc
        return ModelFailed("connection", f"{type(cause).__name__}: {cause}", True)
    if isinstance(exc, openai.APIError):  # an error event inside a 200 stream
        return ModelFailed("server", f"the stream reported an error: {exc.message}", True)
    if isinstance(exc, ValueError):  # a chunk whose data is not JSON
        return ModelFailed("malformed", f"a chunk is not JSON: {exc}", False)
    return ModelFailed("refused", f"{type(exc).__name__}: {exc}", False)  # e.g. no credentials
