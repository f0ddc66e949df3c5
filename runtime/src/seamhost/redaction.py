"""Secrets kept out of what seamhost shows and stores: error messages, logs, the session record.

A profile's secrets are the values its ``{"$env" = ...}`` and ``{"$file" = ...}`` markers resolve
to (API keys, tokens, DSNs). They are needed to talk to a provider, and a provider may echo them
back: a 401 body quoting the key it refused, an exception whose text holds a request's headers.
Such text must not reach stderr, a log or the session record, so it goes through a
:class:`Redactor`, which writes :data:`REDACTED` for

* every known secret value of at least :data:`MIN_SECRET_CHARS` characters: a shorter value is
  left alone, as redacting it would blank out common words wherever they appear (and a secret
  that short is guessed faster than it leaks);
* the value of a credential header, whatever it is (``Authorization: Bearer ...``,
  ``x-api-key: ...``, ``Proxy-Authorization``, ``api-key``), written as a header, as JSON or as
  a Python mapping, even when the key was not configured through the profile.

Profile resolution collects the secrets it resolves (:attr:`Profile.secrets`); the bundle's
redactor applies them where the session records an error (model attempts, turn ends, tool
failures). Standard error and logging are the process's, whichever bundle produced the text,
so the secrets of every profile this process resolved are also remembered process-wide
(:func:`remember_secrets`): the CLI's failure line passes through :func:`redact`, and so does
every log record once a secret is known (a log record factory redacts the message and the
formatted traceback before any handler sees them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8

# A credential header's name, how it is joined to its value (`: `, `=`, `": "`, `': '`, or
# `\": \"` in JSON quoted inside JSON), an optional scheme, then the value up to a quote, a
# separator or a backslash (an escaped quote); a value already redacted is left alone, so that
# redacting twice changes nothing.
_CREDENTIAL_HEADER = re.compile(
    r"""(?i)\b((?:proxy-)?authorization|x-api-key|api-key)(\\?["']?\s*[:=]\s*\\?["']?)"""
    r"""(?!(?:(?:bearer|basic|token)\s+)?\[redacted\])"""
    r"""(?:(bearer|basic|token)\s+)?[^\s"',;}\]\\]+"""
)


def _header(match: re.Match[str]) -> str:
    name, joint, scheme = match.group(1), match.group(2), match.group(3)
    return f"{name}{joint}{scheme + ' ' if scheme else ''}{REDACTED}"


class Redactor:
    """Writes :data:`REDACTED` for known secrets and credential header values in a text."""

    __slots__ = ("_pattern", "secrets")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # Longest first, so that a secret containing another is replaced whole.
        kept = sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        self.secrets: tuple[str, ...] = tuple(kept)
        self._pattern = re.compile("|".join(map(re.escape, kept))) if kept else None

    def __repr__(self) -> str:  # never the values
        return f"Redactor(<{len(self.secrets)} secret(s)>)"

    def __call__(self, text: str) -> str:
        """`text` with every known secret and credential header value redacted."""
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        return _CREDENTIAL_HEADER.sub(_header, text)

    def joined(self, secrets: Iterable[str]) -> Redactor:
        """A redactor of these secrets and `secrets`."""
        return Redactor((*self.secrets, *secrets))


class _Remembered:
    """The secrets of every profile this process resolved.

    Process-wide, on purpose: standard error and logging belong to the process, not to a
    bundle, and a process may resolve several profiles (a worker, a test).
    """

    redactor = Redactor()


_remembered = _Remembered()


def remember_secrets(secrets: Iterable[str]) -> None:
    """Redact `secrets` from this process's failure lines and log records from now on."""
    first = not _remembered.redactor.secrets
    _remembered.redactor = _remembered.redactor.joined(secrets)
    if first and _remembered.redactor.secrets:
        _redact_log_records()


def redact(text: str) -> str:
    """`text` with the secrets this process resolved and credential header values redacted."""
    return _remembered.redactor(text)


def _redact_log_records() -> None:
    """Make every log record redacted when created, before a handler formats or writes it."""
    import logging

    make = logging.getLogRecordFactory()
    formatter = logging.Formatter()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        _redact_record(record, formatter)
        return record

    logging.setLogRecordFactory(factory)


def _redact_record(record: logging.LogRecord, formatter: logging.Formatter) -> None:
    try:
        message = record.getMessage()
    except Exception:  # arguments that do not fit: what a handler would print, redacted too
        message = f"{record.msg!s} {record.args!r}"
    record.msg, record.args = redact(message), ()
    if record.exc_info is not None and record.exc_info[0] is not None:
        # A formatter uses the cached text when there is one: the traceback as redacted here.
        record.exc_text = redact(formatter.formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


__all__ = ["MIN_SECRET_CHARS", "REDACTED", "Redactor", "redact", "remember_secrets"]
