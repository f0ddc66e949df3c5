"""How a confined command's exit is read: an ordinary exit, a denial, or a runner failure.

The kernel's runner calls a :class:`~seamhost.sandbox.confinement.ConfinedCommand`'s
``classify(returncode, stderr)`` once the command has ended (never on a timeout). The rules, in
order:

1. **runner failure** (the command never ran): the backend's own set-up failed. Bubblewrap then
   exits 1 and its stderr starts with ``bwrap:`` (a namespace it may not create, a mount that
   failed, a program ``execvp`` did not find); the Landlock launcher exits 126 (confinement not
   applied) or 127 (program not executable) and its stderr starts with
   :data:`~seamhost_sandbox_local.launch.MARKER`. Nothing else has written to stderr by then, so
   only the start of stderr is looked at.
2. **denied**: a non-zero exit whose stderr holds one of :data:`DENIAL_MARKERS`, the messages of
   the errors a confined write ends with: ``EACCES`` (Landlock), ``EROFS`` (bubblewrap's
   read-only mounts), ``EPERM`` (the seccomp filter, a dropped capability) and ``EXDEV`` (a hard
   link or rename across the sandbox's boundary).
3. **ok** otherwise, including every exit 0 and every death by a signal.

Limits, stated plainly. The exit status alone cannot say why a command failed, and these rules
read the command's own words:

* a denial the command swallows (it exits 0 anyway) reads as ``ok``: the write still did not
  happen, but nothing reports it;
* a command that fails for another reason with one of these messages (a file whose permission
  bits refuse it, ``ssh``'s "Permission denied (publickey)") reads as ``denied``: an error
  either way, named after the sandbox when the sandbox may not be the cause;
* only the C locale's English messages are recognised: a translated message reads as an
  ordinary failure (still an error, never ``ok``);
* a command whose own stderr starts like a set-up failure, with the same exit status, reads as
  a runner failure.

None of these turns a failed command into a success: every misreading moves between the error
verdicts, or keeps an exit 0 that the command itself chose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost_sandbox_local.launch import EXIT_NOT_EXECUTABLE, EXIT_SETUP_FAILED, MARKER

if TYPE_CHECKING:
    from seamhost import ExitVerdict

DENIAL_MARKERS = (
    b"Permission denied",  # EACCES
    b"Read-only file system",  # EROFS
    b"Operation not permitted",  # EPERM
    b"Invalid cross-device link",  # EXDEV
)
BWRAP_PREFIX = b"bwrap: "
BWRAP_SETUP_EXIT = 1
LAUNCHER_PREFIX = MARKER.encode()
LAUNCHER_EXITS = frozenset({EXIT_SETUP_FAILED, EXIT_NOT_EXECUTABLE})


def _denied_or_ok(returncode: int, stderr: bytes) -> ExitVerdict:
    if returncode > 0 and any(marker in stderr for marker in DENIAL_MARKERS):
        return "denied"
    return "ok"


def bwrap_verdict(returncode: int, stderr: bytes) -> ExitVerdict:
    """The verdict on a command run by the bubblewrap backend (rules in the module docstring)."""
    if returncode == BWRAP_SETUP_EXIT and stderr.startswith(BWRAP_PREFIX):
        return "runner-failure"
    return _denied_or_ok(returncode, stderr)


def launcher_verdict(returncode: int, stderr: bytes) -> ExitVerdict:
    """The verdict on a command run by the Landlock launcher (rules in the module docstring)."""
    if returncode in LAUNCHER_EXITS and stderr.startswith(LAUNCHER_PREFIX):
        return "runner-failure"
    return _denied_or_ok(returncode, stderr)
