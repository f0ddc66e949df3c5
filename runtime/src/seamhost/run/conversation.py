"""The conversation a model is shown, derived from a session's log (design.md §4, §12).

It is derived once, on first use (a session opened from a resume snapshot reads only the records
its pieces keep, :data:`seamhost.session.derived.SHOWN`), then followed record by record as the
session commits them, so the cost of a step does not grow with the session's length. The model
is told its sandbox mode when the session starts and whenever it changes, the approval policy
where it changes, and what an unknown outcome turned out to be once it is reconciled.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

from seamhost.session.derived import SHOWN

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session
    from seamhost.session.record import Record


class Conversation:
    """The messages of one session as the model sees them."""

    def __init__(self, bundle: Bundle, session: Session) -> None:
        self.bundle = bundle
        self.session = session
        self.notified_mode: str | None = None  # the sandbox mode the model was last told
        last_turn = session.last("turn/start")
        self.turn = int(last_turn.data["turn"]) if last_turn is not None else 0
        # Derived on first use: a session opened from a resume snapshot reads the records before
        # it only when the model is first asked (docs/design.md, "Resume snapshots").
        self.messages: list[dict[str, Any]] | None = None
        session.listen(self.follow)

    def sandbox_notice(self, mode: str) -> None:
        """design.md §12: the model is told its sandbox when the session starts and on changes."""
        messages = self.messages
        assert messages is not None  # called while the conversation is derived
        roots = ", ".join(str(r) for r in self.bundle.profile.sandbox.writable_roots)
        writes = {
            "read-only": "nothing may be written",
            "workspace-write": "writes are allowed in the workspace"
            + (f" and in {roots}" if roots else ""),
            "danger-full-access": "nothing is confined",
        }.get(mode, "")
        messages.append(
            {
                "role": "context",
                "content": f"The sandbox mode is `{mode}`: {writes}. A call that needs a wider "
                "mode may ask for it with `sandbox_permissions` and a `justification`; a person "
                "approves it for that call only.",
            }
        )
        self.notified_mode = mode

    def derive(self) -> list[dict[str, Any]]:
        if self.messages is None:
            self.messages = []
            with _collector_paused():
                for record in self.session.shown_records():  # from the snapshot's pieces, if any
                    self.observe(record)
        return self.messages

    def follow(self, record: Record) -> None:
        if self.messages is not None:
            self.observe(record)
        elif record.type == "turn/start":
            self.turn = max(self.turn, int(record.data["turn"]))

    def observe(self, record: Record) -> None:
        kind = record.type
        if kind not in SHOWN:  # the snapshot's pieces keep only these: they must be all it reads
            return
        data = orjson.loads(record.data_json)  # a fresh plain copy: nothing to freeze or thaw
        messages = self.messages
        assert messages is not None  # called while the conversation is derived
        if kind == "turn/start":
            self.turn = max(self.turn, int(data["turn"]))
            if self.notified_mode is None:  # no sandbox/mode event yet: the profile's mode
                self.sandbox_notice(str(self.session.header.bundle.get("sandbox_mode")))
        elif kind == "sandbox/mode":
            if data["mode"] != self.notified_mode:
                self.sandbox_notice(str(data["mode"]))
        elif kind == "user/message":
            messages.append({"role": "user", "content": data["content"]})
        elif kind == "assistant/message":
            messages.append(
                {
                    "role": "assistant",
                    "content": data["content"],
                    "tool_calls": data.get("tool_calls", []),
                }
            )
        elif kind == "tool/result":
            messages.append(
                {
                    "role": "tool",
                    "call_id": data["call_id"],
                    "content": data["content"],
                    "is_error": data["is_error"],
                }
            )
        elif kind == "tool/reconciled":
            # design.md §10: the model learns at its next step what an unknown outcome was.
            messages.append(
                {
                    "role": "context",
                    "content": f"The outcome of call {data['call_id']} (attempt "
                    f"{data['attempt']}), reported TOOL_OUTCOME_UNKNOWN, is now known from "
                    f"{data['source']}: {data['content']}",
                }
            )
        elif kind == "agent/inbox/spliced":
            messages.extend({"role": "context", "content": c} for c in data["contexts"])
        elif kind == "approval/policy":
            # The model sees the policy it now works under, appended where it changed: the
            # earlier conversation (a stable request prefix) is never rewritten.
            messages.append(
                {
                    "role": "context",
                    "content": f"The approval policy is now `{data['policy']}` "
                    f"(set by {data['source']}): calls that need approval are "
                    + ("refused without asking." if data["policy"] == "never" else "asked about."),
                }
            )


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a conversation is derived: that makes a
    container or two per message, none in a cycle, and every full collection meanwhile walks
    them all again (measured at 100k steps: 0.2 to 0.5 s of a 0.9 s derivation, in 2 to 5 full
    collections). Resumed afterwards, unless it was paused already."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
