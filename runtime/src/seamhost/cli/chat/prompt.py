"""The prompt of ``seamhost chat``: line editing and a history kept across chats.

When standard input is a terminal, the prompt uses the standard library's ``readline`` (where
the platform has it): the arrow keys edit the line and walk the history, which is read from and
written back to ``chat_history`` in seamhost's home: ``$SEAMHOST_HOME`` when set, else the user
data directory (``$XDG_DATA_HOME/seamhost``, else ``~/.local/share/seamhost``), the directory
whose ``sessions`` hold the default store. Without a terminal, lines are read plainly.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

HISTORY_FILE = "chat_history"
HISTORY_LENGTH = 1000  # lines kept in the history file


def history_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the chat history lives (see the module docstring)."""
    env = os.environ if environ is None else environ
    if env.get("SEAMHOST_HOME"):
        return Path(env["SEAMHOST_HOME"]).expanduser() / HISTORY_FILE
    data = env.get("XDG_DATA_HOME", "")
    base = Path(data) if data and os.path.isabs(data) else Path.home() / ".local" / "share"
    return base / "seamhost" / HISTORY_FILE


class Prompt:
    """Reads the person's lines, with ``readline`` and its history when on a terminal."""

    def __init__(self, text: str = "you> ") -> None:
        self.text = text
        self.path = history_path()
        self.readline: ModuleType | None = None
        if sys.stdin.isatty():
            with contextlib.suppress(ImportError):  # not every platform builds readline
                # Imported here: optional (not every platform builds it), terminals only.
                import readline

                self.readline = readline
                readline.set_history_length(HISTORY_LENGTH)
                with contextlib.suppress(OSError):  # no history yet
                    readline.read_history_file(self.path)

    def read(self) -> str:
        """One line; raises ``EOFError`` at the end of input (Ctrl-D), ``KeyboardInterrupt``."""
        return input(self.text)

    def save(self) -> None:
        """Write the history back; one that cannot be written is noted, not a failure."""
        if self.readline is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.readline.write_history_file(self.path)
        except OSError as exc:
            print(f"note: the chat history was not saved to {self.path} ({exc})", file=sys.stderr)
