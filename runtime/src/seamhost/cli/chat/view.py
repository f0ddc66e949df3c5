"""What ``seamhost chat`` shows: assistant text as it streams, then the timeline of the step.

The text arrives piece by piece (``Agent.on_text``) before its ``assistant/message`` is
committed; when the record arrives the line is closed instead of printing the text again (unless
the record says something else than what streamed: an attempt that failed midway and was made
again). The person's own message is not echoed back (they just typed it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost.cli.timeline import Timeline

if TYPE_CHECKING:
    from rich.console import Console


class ChatView(Timeline):
    """The timeline of a chat, with the assistant's text streamed in place."""

    def __init__(self, out: Console) -> None:
        super().__init__(out)
        self.streaming = False  # a streamed line is open: the next output starts a new line
        self.streamed: list[str] = []  # the text streamed since the last assistant message

    def text(self, piece: str) -> None:
        """Show one piece of assistant text as it arrives (the agent's ``on_text``)."""
        if not self.streaming:
            self.out.print("    [magenta]assistant[/magenta]: ", end="")
            self.streaming = True
        self.streamed.append(piece)
        self.out.print(piece, end="", markup=False, highlight=False)
        self.out.file.flush()

    def end_line(self) -> None:
        """Close the streamed line, if one is open."""
        if self.streaming:
            self.out.print()
            self.streaming = False

    def feed(self, type_: str, data: Any) -> None:
        self.end_line()
        super().feed(type_, data)

    def assistant_message(self, data: Any) -> None:
        streamed, self.streamed = "".join(self.streamed), []
        if streamed != (data.get("content") or ""):
            super().assistant_message(data)

    def user_message(self, data: Any) -> None:
        if data.get("source") != "user":  # another source's message is news to the person
            super().user_message(data)
