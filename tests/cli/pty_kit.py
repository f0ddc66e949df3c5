"""The real ``seamhost`` CLI on a real pseudo-terminal, typed into as a person would.

The child gets the pty's slave as its standard streams and as its controlling terminal (so
``/dev/tty`` is the pty, as in a terminal emulator, and Ctrl-C typed into the master is a
SIGINT to the child's process group); the test holds the master, reads everything the child
shows and types keys.
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]|\r")
WAIT = 30.0


# Run in the child, a new session's leader: its standard input, the slave, becomes its
# controlling terminal, then it is seamhost (no preexec_fn: unsafe with the reader thread).
TAKE_TERMINAL = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, '-m', 'seamhost', *sys.argv[1:]])"
)


class Terminal:
    """One ``seamhost`` process on a pty; `shown` is its output so far, escapes removed."""

    def __init__(self, *args: str, env: dict[str, str], cwd: Path | None = None) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
        environ.update({"TERM": "xterm", "NO_COLOR": "1", "COLUMNS": "200"}, **env)
        self.process = subprocess.Popen(
            [sys.executable, "-c", TAKE_TERMINAL, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environ,
            cwd=cwd,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self._raw = b""
        self._lock = threading.Lock()
        self.mark = 0  # where the next `expect` starts looking
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._raw += data

    @property
    def raw(self) -> bytes:
        """Every byte the child wrote to the terminal so far, escapes and all."""
        with self._lock:
            return self._raw

    @property
    def shown(self) -> str:
        with self._lock:
            return ANSI.sub("", self._raw.decode("utf-8", "replace"))

    def expect(self, text: str, timeout: float = WAIT) -> str:
        """Wait until `text` is shown after the last match; what was shown up to its end."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.shown
            found = shown.find(text, self.mark)
            if found >= 0:
                seen, self.mark = shown[self.mark : found + len(text)], found + len(text)
                return seen
            time.sleep(0.02)
        raise AssertionError(f"{text!r} not shown within {timeout}s; shown:\n{self.shown}")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait(self, timeout: float = WAIT) -> int:
        """The exit status, once the child ends (the pty is closed after)."""
        try:
            return self.process.wait(timeout)
        finally:
            self._reader.join(5)  # it drains what the child wrote last, then sees the hang-up
            os.close(self.master)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
