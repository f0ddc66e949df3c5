"""The calls of one model response carry distinct ids (design.md §12).

A call's id keys everything that follows it: its records, its one result in the step, and the
idempotency key its tool is given (``<session id>:<call id>``). A response proposing two calls
under one id would run both under one key, so it is a protocol error of the model, whichever
adapter produced it: :func:`refuse_duplicate_ids` fails the attempt (``model/failed``, code
``duplicate-call-id``, retryable) before anything of it is recorded or run, and the next attempt's
request carries one context message saying so (:func:`told_about`), so that the model can answer
again. The message is part of that attempt's request only (its ``request_digest`` covers it),
not of the log: the conversation derived afterwards does not repeat it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import attrs

from seamhost.llm.adapter import ModelFailed, ModelRequest, ToolCallProposal

KIND = "duplicate-call-id"
# How many repeated ids a message lists: they are the model's text, and one is enough to act on.
_SHOWN_IDS = 5
_SHOWN_ID_CHARS = 80


class DuplicateCallIds(ModelFailed):
    """A model response proposed two or more calls under one id; nothing of it ran."""

    ids: tuple[str, ...] = ()  # the repeated ids, in the order first proposed


def refuse_duplicate_ids(proposals: Sequence[ToolCallProposal]) -> None:
    """Raise `DuplicateCallIds` when two of `proposals` share an id."""
    if len(proposals) < 2:
        return
    counts = Counter(p.call_id for p in proposals)
    repeated = tuple(call_id for call_id, n in counts.items() if n > 1)
    if not repeated:
        return
    shown = ", ".join(repr(i[:_SHOWN_ID_CHARS]) for i in repeated[:_SHOWN_IDS])
    more = f" and {len(repeated) - _SHOWN_IDS} more" if len(repeated) > _SHOWN_IDS else ""
    raise DuplicateCallIds(
        KIND,
        f"the response proposed {len(proposals)} calls, several under one id ({shown}{more}); "
        "each call needs an id of its own, so none of them was run",
        True,
        None,
        repeated,
    )


def told_about(request: ModelRequest, failure: DuplicateCallIds) -> ModelRequest:
    """`request` with one context message telling the model why its last answer was refused."""
    note = {
        "role": "context",
        "content": f"Your previous answer was refused and nothing of it was run: {failure.message}."
        " Answer again, giving every tool call a distinct id.",
    }
    return attrs.evolve(request, messages=(*request.messages, note))
