"""The ``defer`` answerer: every question it is asked waits for a person, durably.

It answers ``deferred`` (design.md §11): the kernel's service records ``approval/deferred``, the
step parks and ``seamhost run`` exits saying the session awaits approval; ``seamhost approve``
or ``reject`` answers later and ``--resume`` continues. Listed after ``rules``, it defers only
what the rules leave over; it never allows anything itself.
"""

from __future__ import annotations

from seamhost import ApprovalOutcome, ApprovalRequest
from seamhost_user_approval.answers import Reply


class DeferringAnswerer:
    """Answers every request with ``deferred``."""

    name = "defer"

    async def answer(self, request: ApprovalRequest) -> Reply:
        return Reply(
            ApprovalOutcome.DEFERRED,
            f"deferred: waits for `seamhost approve` or `reject` of {request.id}",
        )
