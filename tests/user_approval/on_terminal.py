"""Run a command with the terminal on standard input as its controlling terminal.

``python on_terminal.py ARGV...``: started as the leader of a new session (the caller passes
``start_new_session=True``) with a pseudo-terminal's slave as fd 0, it makes that terminal its
controlling terminal (``TIOCSCTTY``), so ``/dev/tty`` opens it, then execs ARGV. This is what
a terminal emulator or ``ssh`` does for a shell; the tests use it to run the real CLI at a
terminal they type into.
"""

from __future__ import annotations

import fcntl
import os
import sys
import termios

if __name__ == "__main__":
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    os.execv(sys.argv[1], sys.argv[1:])
