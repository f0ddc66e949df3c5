"""What the caller knows of a remote task, folded from what the agent streamed or answered.

A2A states, by what they mean for a delegation: ``completed`` is a result; ``failed``,
``rejected`` and ``canceled`` end it without one (``TOOL_ERROR``, the agent's message kept);
``input-required`` and ``auth-required`` are the agent waiting for its caller (a result saying
so: the task id is in it); ``submitted`` and ``working`` are not over yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from a2a.types.a2a_pb2 import Artifact, Message, StreamResponse, Task

FINISHED = frozenset({"completed", "failed", "rejected", "canceled"})
WAITING = frozenset({"input-required", "auth-required"})
FAILED = frozenset({"failed", "rejected", "canceled"})


def state_name(value: int) -> str:
    """``TASK_STATE_INPUT_REQUIRED`` as ``input-required``."""
    from a2a.types.a2a_pb2 import TaskState

    name = str(TaskState.Name(value))
    return name.removeprefix("TASK_STATE_").lower().replace("_", "-")


class TaskView:
    """The task as far as the caller has heard: its ids, state, last message and artifacts."""

    def __init__(self) -> None:
        self.task_id: str | None = None
        self.context_id: str | None = None
        self.state = "unspecified"
        self.message = ""
        self.artifacts: dict[str, dict[str, Any]] = {}
        self.direct = False  # the agent answered with a message, no task

    @property
    def over(self) -> bool:
        """The caller has nothing more to wait for: finished, waiting for input, or a reply."""
        return self.direct or self.state in FINISHED or self.state in WAITING

    def take(self, event: StreamResponse) -> None:
        """Fold one streamed (or answered) event in."""
        kind = event.WhichOneof("payload")
        if kind == "task":
            self.take_task(event.task)
        elif kind == "message":
            self.direct, self.state = True, "completed"
            self.message = _text(event.message)
            self.context_id = event.message.context_id or self.context_id
        elif kind == "status_update":
            update = event.status_update
            self.task_id, self.context_id = update.task_id, update.context_id
            self.state = state_name(update.status.state)
            if update.status.HasField("message"):
                self.message = _text(update.status.message)
        elif kind == "artifact_update":
            self._artifact(event.artifact_update.artifact, event.artifact_update.append)

    def take_task(self, task: Task) -> None:
        self.task_id, self.context_id = task.id, task.context_id
        self.state = state_name(task.status.state)
        if task.status.HasField("message"):
            self.message = _text(task.status.message)
        for artifact in task.artifacts:
            self._artifact(artifact, append=False)

    def _artifact(self, artifact: Artifact, append: bool) -> None:
        from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]  # no hints

        parts = [MessageToDict(part) for part in artifact.parts]
        known = self.artifacts.get(artifact.artifact_id)
        if append and known is not None:
            known["parts"].extend(parts)
            return
        self.artifacts[artifact.artifact_id] = {"name": artifact.name, "parts": parts}

    def text(self) -> str:
        """The artifacts' text parts, then the agent's last message."""
        texts = [
            str(part["text"])
            for artifact in self.artifacts.values()
            for part in artifact["parts"]
            if "text" in part
        ]
        if self.message:
            texts.append(self.message)
        return "\n".join(texts)

    def value(self) -> dict[str, Any]:
        """The tool's value (its output schema: :data:`OUTPUT_SCHEMA`)."""
        return {
            "task_id": self.task_id,
            "context_id": self.context_id,
            "state": self.state,
            "text": self.text(),
            "artifacts": list(self.artifacts.values()),
        }


OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task_id": {"type": ["string", "null"], "description": "The remote task (null: a reply)."},
        "context_id": {"type": ["string", "null"]},
        "state": {"type": "string", "description": "completed, input-required or auth-required."},
        "text": {"type": "string", "description": "The artifacts' text and the last message."},
        "artifacts": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["task_id", "state", "text", "artifacts"],
}


def _text(message: Message) -> str:
    return "\n".join(part.text for part in message.parts if part.text)
