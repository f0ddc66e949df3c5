"""What ``seamhost mcp serve`` and ``a2a serve`` log: one line per event on stderr, no traceback.

A client's misbehaviour (a dropped connection, a broken request, a flood) reaches the server's
loggers (uvicorn's, the SDK's, asyncio's) with an exception attached; printed whole, each
would be a traceback on the operator's terminal, and a flood a flood of them. The gateway
routes every logger to one handler whose formatter writes the message and the exception's
type and text on one line, and lets a message repeated in a flood through once a second.
"""

from __future__ import annotations

import logging
import sys
import time

from seamhost.gateway.limits import speaker

KEPT_TEMPLATES = 1024  # message templates remembered for throttling before starting over


class OneLine(logging.Formatter):
    """The message, then the exception's type and text, on one line; no traceback, no stack."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info is not None and record.exc_info[1] is not None:
            problem = record.exc_info[1]
            text = f"{text}: {type(problem).__name__}: {problem}"
        return f"{speaker()}: " + " ".join(text.split())


class OncePerInterval(logging.Filter):
    """Lets a message (by its logger and template) through at most once per `interval` s.

    A flood repeats one warning per refused request ("Refusing to open a new session"): the
    first is written, the repeats within the interval are counted, and the next one written
    says how many were held back.
    """

    def __init__(self, interval: float = 1.0) -> None:
        super().__init__()
        self.interval = interval
        self._last: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        if now - self._last.get(key, -self.interval) < self.interval:
            self._held[key] = self._held.get(key, 0) + 1
            return False
        if len(self._last) > KEPT_TEMPLATES:  # templates are few; a flood of distinct ones is not
            self._last.clear()
        self._last[key] = now
        held = self._held.pop(key, 0)
        if held:
            record.msg = f"{record.msg} (and {held} more like it since the last such line)"
        return True


def one_line_logging(level: int = logging.WARNING) -> None:
    """Send every logger's records at `level` and above to standard error, one line each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    handler.addFilter(OncePerInterval())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
        logger.setLevel(level)


__all__ = ["OncePerInterval", "OneLine", "one_line_logging"]
