"""What goes wrong in user-approval: answerers that fail, and a callback that cannot be set.

An answerer that fails raises :class:`AnswererFailed` (or :class:`AnswererTimedOut`) out of the
``approval/request`` hook, which stops the answerer chain: the kernel records the approval as
``unavailable`` with this message, so a broken answerer can never let a later, more permissive
one decide.
"""

from __future__ import annotations

from seamhost.errors import SeamhostError


class AnswererFailed(SeamhostError, RuntimeError):
    """An answerer could not answer (it raised, answered outside the vocabulary, lost its tty)."""

    answerer: str  # rules | tty | callback
    problem: str

    def __str__(self) -> str:
        return f"the {self.answerer} answerer failed: {self.problem}"


class AnswererTimedOut(SeamhostError, TimeoutError):
    """An answerer gave no answer within its timeout."""

    answerer: str
    seconds: float
    setting: str  # the profile key that sets the timeout

    def __str__(self) -> str:
        return (
            f"the {self.answerer} answerer gave no answer within {self.seconds:g}s; "
            f"answer sooner or raise [plugins.user-approval] {self.setting}"
        )


class CallbackRefused(SeamhostError, LookupError):
    """A callback was offered to a bundle that would never ask it."""

    problem: str

    def __str__(self) -> str:
        return f"cannot set the approval callback: {self.problem}"
