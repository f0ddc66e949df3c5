"""Run a command as if this host lacked a sandbox backend: ``python -m tests.hosts.hide_sandbox``.

The suite must pass where bubblewrap is not installed (most laptops and CI images) and where
neither bubblewrap nor Landlock works (an old kernel, a container that forbids both). Rather than
trusting the skips to be right, ``nox -s tests_no_bwrap`` makes such hosts out of this one:

* ``--no-bwrap``: every ``bwrap`` on ``PATH`` is covered by ``/dev/null`` with a bind mount, so it
  cannot be executed. Run this inside a private mount namespace (``unshare -m``, or
  ``unshare -rm`` when not root) so the rest of the machine keeps its bubblewrap.
* ``--no-landlock``: a seccomp filter makes the three Landlock system calls fail with ``ENOSYS``,
  exactly what a kernel built without Landlock answers; it is inherited by every child.

Usage: ``unshare -m python -m tests.hosts.hide_sandbox --no-bwrap [--no-landlock] -- CMD ARGS...``
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import os
import platform
import struct
import subprocess
import sys

# Landlock's system calls share one number on every architecture (the unified table, Linux 5.13).
LANDLOCK_SYSCALLS = (444, 445, 446)  # create_ruleset, add_rule, restrict_self
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
BPF_LD_W_ABS, BPF_JEQ_K, BPF_RET_K = 0x20, 0x15, 0x06
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
ARCH_OFFSET, NR_OFFSET = 4, 0  # in struct seccomp_data


def hide_bwrap() -> list[str]:
    """Cover every ``bwrap`` found on PATH with /dev/null; the paths covered."""
    covered = []
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory, "bwrap")
        real = os.path.realpath(candidate)
        if os.path.isfile(real) and real not in covered:
            subprocess.run(["mount", "--bind", "/dev/null", real], check=True)
            covered.append(real)
    return covered


def landlock_filter(arch: int) -> bytes:
    """A classic BPF program: the Landlock calls fail with ENOSYS, everything else passes."""
    deny = SECCOMP_RET_ERRNO | errno.ENOSYS
    count = len(LANDLOCK_SYSCALLS)
    program = [
        (BPF_LD_W_ABS, 0, 0, ARCH_OFFSET),
        (BPF_JEQ_K, 0, count + 2, arch),  # another ABI: allow (jump to the final ALLOW)
        (BPF_LD_W_ABS, 0, 0, NR_OFFSET),
    ]
    for index, number in enumerate(LANDLOCK_SYSCALLS):
        program.append((BPF_JEQ_K, count - index, 0, number))  # to the ERRNO return
    program += [(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW), (BPF_RET_K, 0, 0, deny)]
    return b"".join(struct.pack("HBBI", *instruction) for instruction in program)


def block_landlock() -> None:
    """Install the filter on this process (and so on everything it executes)."""
    arch = AUDIT_ARCH.get(platform.machine())
    if arch is None:
        raise SystemExit(f"hide_sandbox: no seccomp filter for {platform.machine()}")
    code = landlock_filter(arch)
    buffer = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(len(code) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def check_hidden(no_bwrap: bool, no_landlock: bool) -> None:
    """Refuse to run the command unless the host now lacks what it was asked to lack."""
    if no_bwrap:
        try:
            subprocess.run(["bwrap", "--version"], capture_output=True, check=False)
        except OSError:
            pass
        else:
            raise SystemExit("hide_sandbox: bwrap still runs; nothing was tested")
    if no_landlock:
        libc = ctypes.CDLL(None, use_errno=True)
        version_flag = 1  # LANDLOCK_CREATE_RULESET_VERSION
        if libc.syscall(LANDLOCK_SYSCALLS[0], None, 0, version_flag) != -1 or (
            ctypes.get_errno() != errno.ENOSYS
        ):
            raise SystemExit("hide_sandbox: Landlock still answers; nothing was tested")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.hosts.hide_sandbox")
    parser.add_argument("--no-bwrap", action="store_true", help="cover bwrap with /dev/null")
    parser.add_argument("--no-landlock", action="store_true", help="Landlock calls fail ENOSYS")
    parser.add_argument("command", nargs="+", help="the command to run (after --)")
    args = parser.parse_args(argv)
    if args.no_bwrap:
        covered = hide_bwrap()
        print(f"hide_sandbox: bubblewrap hidden ({', '.join(covered) or 'none installed'})")
    if args.no_landlock:
        block_landlock()
        print("hide_sandbox: Landlock answers ENOSYS")
    check_hidden(args.no_bwrap, args.no_landlock)
    sys.stdout.flush()
    os.execvp(args.command[0], args.command)


if __name__ == "__main__":
    main()
