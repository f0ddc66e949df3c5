"""A task's session, as the A2A client sees it while the turn runs.

The session's records are the truth (docs/design.md §4); what a streaming client receives is a
projection of them, made as each record is committed (:meth:`Session.listen`), in log order:

=====================  ===============================================================
record                 A2A event
=====================  ===============================================================
``tool/call``          status ``working``: the call was taken, its tool named
``approval/asked``     status ``working``: the policy asks someone about the call
``tool/dispatch``      status ``working``: governance passed, the body starts
``tool/result``        artifact ``<call id>``: the result's text, and its value as data
=====================  ===============================================================

Every event's metadata names the record it comes from (``seamhost/seq``, ``seamhost/record``)
and the call (``seamhost/call``); an artifact's metadata holds the error (``seamhost/error``,
``{code, message}``) of a refused or failed call. The task's last status (completed, failed,
canceled, input-required) is :mod:`.tasks`' to say, once the turn ended or parked.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from a2a.helpers import new_data_part, new_text_message, new_text_part
from a2a.types import a2a_pb2 as a2a

from seamhost.jsonvalue import thaw

if TYPE_CHECKING:
    from a2a.server.tasks import TaskUpdater

    from seamhost.session.record import Record

WORKING = a2a.TaskState.TASK_STATE_WORKING


class Updates:
    """Turns committed records into A2A events, sent in order by one pump task."""

    def __init__(self, updater: TaskUpdater) -> None:
        self.updater = updater
        self._tools: dict[str, str] = {}  # call id -> tool, from tool/call
        self._queue: asyncio.Queue[Record | None] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._pump = asyncio.ensure_future(self._send_all())

    def record(self, record: Record) -> None:
        """The session's listener: called with each committed record, in order."""
        if record.type in ("tool/call", "approval/asked", "tool/dispatch", "tool/result"):
            self._queue.put_nowait(record)

    async def drain(self) -> None:
        """Send what is queued, then stop: the turn ended or parked."""
        self._queue.put_nowait(None)
        if self._pump is not None:
            await self._pump

    async def _send_all(self) -> None:
        while (record := await self._queue.get()) is not None:
            await self._send(record)

    async def _send(self, record: Record) -> None:
        data: dict[str, Any] = thaw(record.data)
        call = str(data.get("call_id", ""))
        meta: dict[str, Any] = {
            "seamhost/seq": record.seq,
            "seamhost/record": record.type,
            "seamhost/call": call,
        }
        updater = self.updater
        if record.type == "tool/call":
            self._tools[call] = tool = str(data["name"])
            line = f"call {call}: {tool} proposed; the profile's policy governs it"
        elif record.type == "approval/asked":
            line = f"call {call}: approval asked ({data['reason']})"
        elif record.type == "tool/dispatch":
            line = (
                f"call {call}: {self._tools.get(call, '?')} dispatched "
                f"(attempt {data['attempt']}, sandbox {data['sandbox_mode']})"
            )
        else:
            parts = [new_text_part(str(data.get("content", "")))]
            if data.get("value") is not None:
                parts.append(new_data_part(data["value"]))
            if data.get("error") is not None:
                meta["seamhost/error"] = data["error"]
            meta["seamhost/tool"] = self._tools.get(call, "?")
            await updater.add_artifact(
                parts, artifact_id=call, name=self._tools.get(call, call), metadata=meta
            )
            return
        message = new_text_message(line, context_id=updater.context_id, task_id=updater.task_id)
        await updater.update_status(WORKING, message=message, metadata=meta)


__all__ = ["Updates"]
