"""Which ``tools/call`` requests left for the server, and under which JSON-RPC id.

A call's request carries, in its ``_meta``, the keys below: the ``idempotency_key``
(``<session id>:<call id>``, the same for every attempt), the call id and the attempt
(design.md §13). The transport marks a request when it has left: on stdio once its line was
written and drained into the server's stdin; over HTTP once the SDK's transport took it (the
POST may or may not have reached the server, so it counts as sent). A call that fails with no
mark provably never left ("not sent"); one with a mark has an unknown outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEY = "seamhost/idempotency_key"
CALL_ID = "seamhost/call_id"
ATTEMPT = "seamhost/attempt"


def call_meta(idempotency_key: str, call_id: str, attempt: int) -> dict[str, Any]:
    """The ``_meta`` of a call's ``tools/call`` request."""
    return {KEY: idempotency_key, CALL_ID: call_id, ATTEMPT: attempt}


class Ledger:
    """The JSON-RPC ids of the calls that left, by (idempotency key, attempt)."""

    def __init__(self) -> None:
        self._sent: dict[tuple[str, int], str | int] = {}

    def written(self, method: str, params: Mapping[str, Any] | None, request_id: str | int) -> None:
        """Mark a request as gone to the server (only ``tools/call`` ones are kept)."""
        if method != "tools/call" or not params:
            return
        meta = params.get("_meta") or {}
        key, attempt = meta.get(KEY), meta.get(ATTEMPT)
        if isinstance(key, str) and isinstance(attempt, int):
            self._sent[(key, attempt)] = request_id

    def sent(self, idempotency_key: str, attempt: int) -> str | int | None:
        """The id the call's request left under, or ``None`` when it never left."""
        return self._sent.get((idempotency_key, attempt))

    def forget(self, idempotency_key: str, attempt: int) -> None:
        self._sent.pop((idempotency_key, attempt), None)
