"""The ``tty`` answerer: a person at a terminal allows the call once, rejects it, or cancels.

Which terminal. Without `tty_path`, the process's controlling terminal (``/dev/tty``), and only
in an interactive run: standard input must be a terminal too, so a run whose input is redirected
(CI, a pipe, ``< /dev/null``) is headless even when a terminal is attached somewhere. With
`tty_path` (a dedicated console, tests), that device, whatever standard input is. When the
terminal cannot be opened, or is not a terminal, this answerer does not answer, and the next one
is asked.

The conversation. The terminal is put in non-canonical mode with echo and signals (``ISIG``)
off, so Ctrl-C arrives as a key instead of interrupting the program. The request is shown
(:mod:`.prompt`); once all of it has been written but its last character (a space), everything
typed until then is discarded (``tcflush(TCIFLUSH)``, which also drops keys the terminal has
received but not yet handed on, as ``tcsetattr(TCSAFLUSH)`` does not), so a key pressed before
the question, or while it was being written, cannot answer it. Then the last character is
written (whoever drives the terminal sees from it that keys count now), a key is read, and one
key decides:

==================  =================================
``y`` ``Y``         ``allowed-once``
``n`` ``N`` Enter   ``rejected``
Ctrl-C, Ctrl-D      ``cancelled``
any other key       ignored (the terminal bell rings)
==================  =================================

The terminal's settings are restored whatever happens. A terminal that hangs up (end of file or
an I/O error while reading) ends the approval ``unavailable``: nobody decided, so it is never
reported as a person's cancel; no key within `tty_timeout_seconds` ends it ``unavailable``
too.

The wait happens in a worker thread, so the event loop stays responsive. When the approval is
abandoned (the service's overall timeout, or the task is cancelled) the worker is woken through
a pipe, restores the terminal and is awaited before the cancellation goes on. One question at a
time per answerer: a second request waits for the first to be answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import os
import select
import sys
import threading
import time

import attrs

from seamhost import ApprovalOutcome, ApprovalRequest
from seamhost.errors import describe
from seamhost_user_approval.answers import Reply
from seamhost_user_approval.errors import AnswererFailed, AnswererTimedOut
from seamhost_user_approval.prompt import render

CONTROLLING_TERMINAL = "/dev/tty"
KEYS = {
    b"y": ApprovalOutcome.ALLOWED_ONCE,
    b"Y": ApprovalOutcome.ALLOWED_ONCE,
    b"n": ApprovalOutcome.REJECTED,
    b"N": ApprovalOutcome.REJECTED,
    b"\r": ApprovalOutcome.REJECTED,
    b"\n": ApprovalOutcome.REJECTED,
    b"\x03": ApprovalOutcome.CANCELLED,  # Ctrl-C, delivered as a key while ISIG is off
    b"\x04": ApprovalOutcome.CANCELLED,  # Ctrl-D: in non-canonical mode a key, not end of file
}
SAID = {
    ApprovalOutcome.ALLOWED_ONCE: "allowed once",
    ApprovalOutcome.REJECTED: "rejected",
    ApprovalOutcome.CANCELLED: "cancelled",
}
_LOCK_POLL = 0.05  # seconds between looks at the wake pipe while another question is open
_SHOW_ANSWER = 1.0  # seconds the answer line may take to reach the terminal


class Ending(enum.Enum):
    """How a conversation ended without an answer."""

    TIMED_OUT = "no answer in time"
    HUNG_UP = "the terminal hung up"
    ABANDONED = "the approval was abandoned"


def interactive() -> bool:
    """True when standard input is a terminal: a person may be there to answer."""
    return os.isatty(0)


@attrs.frozen
class _Conversation:
    """Non-blocking I/O on the terminal, bounded by `deadline` and interrupted by `wake`.

    Writes wait too: a terminal whose output is stopped (Ctrl-S) or never read must not hold
    the worker past its deadline, nor past an abandoned approval.
    """

    fd: int
    wake: int
    deadline: float

    def _wait(self, *, read: bool) -> Ending | None:
        """Wait until the terminal can be read (or written): ``None``, or why it never will."""
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                return Ending.TIMED_OUT
            readable, writable, _ = select.select(
                [self.wake, self.fd] if read else [self.wake],
                [] if read else [self.fd],
                [],
                remaining,
            )
            if self.wake in readable:
                return Ending.ABANDONED
            if self.fd in readable or self.fd in writable:
                return None

    def write(self, text: str) -> Ending | None:
        data = text.encode("utf-8", "replace")
        while data:
            ended = self._wait(read=False)
            if ended is not None:
                return ended
            with contextlib.suppress(BlockingIOError):
                data = data[os.write(self.fd, data) :]
        return None

    def read_key(self) -> ApprovalOutcome | Ending:
        while True:
            ended = self._wait(read=True)
            if ended is not None:
                return ended
            try:
                key = os.read(self.fd, 1)
            except BlockingIOError:
                continue
            except OSError:
                return Ending.HUNG_UP
            if not key:
                return Ending.HUNG_UP
            outcome = KEYS.get(key)
            if outcome is not None:
                return outcome
            ended = self.write("\a")
            if ended is not None:
                return ended


def _show(conversation: _Conversation, text: str, fd: int) -> ApprovalOutcome | Ending:
    """Write the question, discard what was typed until it was written, then read a key."""
    import termios

    ending = conversation.write(text[:-1])
    if ending is not None:
        return ending
    termios.tcflush(fd, termios.TCIFLUSH)
    # The last character (a space) marks, for whoever drives the terminal, that keys now count.
    return conversation.write(text[-1:]) or conversation.read_key()


def _ask(conversation: _Conversation, text: str) -> ApprovalOutcome | Ending:
    """Show `text` and read one deciding key, with the terminal's settings restored after."""
    import termios

    fd = conversation.fd
    saved = termios.tcgetattr(fd)
    keyed = list(saved)
    keyed[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
    keyed[6] = list(saved[6])
    keyed[6][termios.VMIN] = 1
    keyed[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, keyed)
    try:
        ending = _show(conversation, text, fd)
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
    said = SAID[ending] if isinstance(ending, ApprovalOutcome) else ending.value
    # The answer stands even if it cannot be shown; showing it gets a moment at most.
    closing = attrs.evolve(conversation, deadline=time.monotonic() + _SHOW_ANSWER)
    with contextlib.suppress(OSError):
        closing.write(f"→ {said}\n")
    return ending


@attrs.frozen
class TerminalAnswerer:
    """Asks a person at a terminal; see the module docstring."""

    path: str | None = None
    timeout: float = 300.0
    name: str = "tty"
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, eq=False, repr=False)

    def open(self) -> tuple[int, str] | str:
        """The terminal's file descriptor and name, or why there is no terminal to ask."""
        if sys.platform == "win32":
            return "this answerer needs a POSIX terminal"
        if self.path is None and not interactive():
            return "standard input is not a terminal (a headless run)"
        path = self.path or CONTROLLING_TERMINAL
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as exc:
            return f"cannot open {path} ({exc.strerror})"
        if not os.isatty(fd):
            os.close(fd)
            return f"{path} is not a terminal"
        try:
            return fd, os.ttyname(fd)
        except OSError:
            return fd, path

    async def answer(self, request: ApprovalRequest) -> Reply:
        if not request.terminal:
            return Reply.none("tty: the terminal is not asked here (it carries a protocol)")
        opened = self.open()
        if isinstance(opened, str):
            return Reply.none(f"tty: no terminal: {opened}")
        fd, where = opened
        wake_read, wake_write = os.pipe()
        deadline = time.monotonic() + self.timeout
        worker = asyncio.ensure_future(
            asyncio.to_thread(self._converse, fd, wake_read, render(request), deadline)
        )

        def close_pipe(_: object) -> None:
            os.close(wake_read)
            os.close(wake_write)

        worker.add_done_callback(close_pipe)
        try:
            ending = await asyncio.shield(worker)
        except asyncio.CancelledError:
            if not worker.done():  # once done, the pipe may already be closed
                os.write(wake_write, b"!")
            # Let the worker restore the terminal before the cancellation goes on.
            await asyncio.wait([worker])
            raise
        if isinstance(ending, ApprovalOutcome):
            return Reply(ending, f"tty: {SAID[ending]} at {where}")
        if ending is Ending.TIMED_OUT:
            raise AnswererTimedOut("tty", self.timeout, "tty_timeout_seconds")
        raise AnswererFailed("tty", f"{ending.value} at {where} before anyone answered")

    def _converse(self, fd: int, wake: int, text: str, deadline: float) -> ApprovalOutcome | Ending:
        """In the worker thread: wait for the terminal to be free, then ask; closes `fd`."""
        try:
            while not self._lock.acquire(timeout=_LOCK_POLL):
                if time.monotonic() >= deadline:
                    return Ending.TIMED_OUT
                if select.select([wake], [], [], 0)[0]:
                    return Ending.ABANDONED
            try:
                os.set_blocking(fd, False)  # our own open of the terminal: nobody else's I/O
                return _ask(_Conversation(fd, wake, deadline), text)
            except Exception as exc:  # termios.error, OSError: the terminal is unusable
                raise AnswererFailed("tty", f"cannot use the terminal: {describe(exc)}") from exc
            finally:
                self._lock.release()
        finally:
            os.close(fd)
