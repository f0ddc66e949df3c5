"""What an answerer gives back, and the shape every answerer has.

An answerer looks at one :class:`~seamhost.approval.request.ApprovalRequest` and returns a
:class:`Reply`: an outcome, or no outcome (it does not answer this request, and the next
answerer is asked), with a note saying why either way. The note goes into the audit record's
message, so the log says which rule or which person decided, or why nobody could.

An answerer that cannot do its job raises :class:`~seamhost_user_approval.errors.AnswererFailed`
or :class:`~seamhost_user_approval.errors.AnswererTimedOut` instead; that ends the approval as
``unavailable``.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from seamhost import ApprovalOutcome, ApprovalRequest


@attrs.frozen
class Reply:
    """An answerer's reply: `outcome` (``None``: no answer, ask the next one) and why."""

    outcome: ApprovalOutcome | None
    note: str

    @classmethod
    def none(cls, note: str) -> Reply:
        """No answer from this answerer, because `note`."""
        return cls(None, note)


class Answerer(Protocol):
    """One way of answering approval requests (``rules``, ``tty``, ``callback``)."""

    @property
    def name(self) -> str:
        """The answerer's name, as the profile's `answerers` list spells it."""
        ...

    async def answer(self, request: ApprovalRequest) -> Reply:
        """Answer `request`, or reply without an outcome; raise when the answerer failed."""
        ...
