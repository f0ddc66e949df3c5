"""The Landlock backend: the command confines itself, through the launcher, before it starts.

Landlock is applied by the process it restricts, so the confined argv is the launcher
(:mod:`seamhost_sandbox_local.launch`) followed by the command; the launcher applies what this
module computes and then executes the command. It runs as ``python -I -S -c BOOTSTRAP``: isolated
from ``PYTHON*`` variables, without ``site``, and imported from its directory as a top-level
module (appended to ``sys.path``, after the standard library), so that its bytecode cache is
used and the package (which imports seamhost) is not. The
kernel is called directly (``landlock_create_ruleset`` 444, ``landlock_add_rule`` 445,
``landlock_restrict_self`` 446 on x86_64 and aarch64), no wrapper package.

The ruleset handles every filesystem right the running kernel's ABI knows and grants:

* read, list and execute beneath ``/``: so the paths a request names as readable
  (``ConfineRequest.readable_paths``) need no rule of their own, and get no write right;
* read, write, truncate and device ioctls on ``/dev/null``, ``/dev/zero`` and ``/dev/full``;
* every handled right beneath each writable root of the shared path policy
  (:meth:`seamhost.sandbox.paths.PathPolicy.writable_roots_for`: none in ``read-only``). A root
  the session pinned (design.md §5.7) is named by its pinned descriptor, handed to the launcher
  and opened there as ``/proc/self/fd/N``: the rule lands on the pinned directory whatever its
  path leads to by then (the launcher closes the descriptor before the command starts).

Scopes (ABI 6): signals never reach processes outside the sandbox; abstract Unix sockets are
scoped too when the network is off. A seccomp filter adds what Landlock does not govern: in
``read-only``, every change of file metadata (``chmod``, ``chown``, times, extended
attributes); with the network off, sockets of any family but Unix and netlink; and, with either,
io_uring (it would reach both without those syscalls). Every capability is dropped.

Enforcement is ``partial`` when the mode needs something this kernel cannot refuse, and the
report names it: ``truncate(2)`` before ABI 3, device ioctls before ABI 5, and, in
``workspace-write``, metadata changes outside the writable roots (Landlock does not govern
them, and a seccomp filter cannot tell inside from outside), and when a ``[sandbox]
read_only_paths`` entry lies under a writable root: Landlock only adds rights beneath a
directory, it cannot take them away under one (the file tools' path policy still refuses).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import attrs

from seamhost import REAPER, ConfinedCommand, ConfineRequest, PathPolicy, SandboxMode
from seamhost_sandbox_local import launch
from seamhost_sandbox_local.probing import Inspection
from seamhost_sandbox_local.report import CONFINING_MODES, ModeEnforcement
from seamhost_sandbox_local.verdicts import launcher_verdict

if TYPE_CHECKING:
    from seamhost import Enforcement

LAUNCHER = Path(launch.__file__)
INTERPRETER_FLAGS = ("-I", "-S")  # isolated from PYTHON* variables and user site; no site import
BOOTSTRAP = (
    f"import sys; sys.path += [{str(LAUNCHER.parent)!r}, {str(REAPER.parent)!r}]; "
    f"import {LAUNCHER.stem}; sys.exit({LAUNCHER.stem}.main(sys.argv[1:]))"
)
MINIMUM_ABI = 1
READ_RIGHTS = launch.ACCESS_FS_EXECUTE | launch.ACCESS_FS_READ_FILE | launch.ACCESS_FS_READ_DIR
DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
DEVICE_RIGHTS = (
    launch.ACCESS_FS_READ_FILE
    | launch.ACCESS_FS_WRITE_FILE
    | launch.ACCESS_FS_TRUNCATE
    | launch.ACCESS_FS_IOCTL_DEV
)
# The ABI that introduced each right after the first, and what is not refused without it.
LATER_RIGHTS = (
    (2, launch.ACCESS_FS_REFER, ""),  # without it every cross-directory link is refused: stricter
    (3, launch.ACCESS_FS_TRUNCATE, "truncate(2) of files outside the writable roots"),
    (5, launch.ACCESS_FS_IOCTL_DEV, "ioctl on device files"),
)
FIRST_ABI_RIGHTS = (1 << 13) - 1
METADATA_GAP = (
    "file metadata outside the writable roots (chmod, chown, times, extended attributes): "
    "Landlock does not govern it"
)
SCOPE_ABI = 6


def handled_rights(abi: int) -> int:
    """Every filesystem right ABI `abi` knows."""
    rights = FIRST_ABI_RIGHTS
    for since, right, _ in LATER_RIGHTS:
        if abi >= since:
            rights |= right
    return rights


def missing_rights(abi: int, mode: SandboxMode) -> tuple[str, ...]:
    """What `mode` forbids that ABI `abi` (with the launcher's seccomp filter) cannot refuse."""
    missing = [gap for since, _, gap in LATER_RIGHTS if gap and abi < since]
    if mode is SandboxMode.WORKSPACE_WRITE:
        missing.append(METADATA_GAP)
    return tuple(missing)


def notes(abi: int) -> tuple[str, ...]:
    """What a user of this ABI should know beyond enforcement."""
    out = [
        "no private /tmp: /tmp is read-only like the rest of the host outside the writable roots",
        "network off: sockets of every family but Unix and netlink are refused (seccomp)",
        "processes the command leaves running outlive it (and the death of the process that "
        "started it), still confined",
    ]
    if abi < 2:
        out.append("links and renames across directories are refused even in writable roots")
    if abi < SCOPE_ABI:
        out.append(
            "signals and abstract Unix sockets are not scoped (ABI 6): the command may signal "
            "processes of its user outside the sandbox"
        )
    return tuple(out)


@functools.cache
def kernel_abi() -> tuple[int, str]:
    """The running kernel's Landlock ABI, and why it cannot be used when it is 0."""
    try:
        abi = launch.landlock_abi()
    except launch.SetupError as exc:
        return 0, f"Landlock is not available: {exc}"
    if abi < MINIMUM_ABI:
        return 0, f"Landlock ABI {abi} is not supported"
    return abi, ""


@attrs.frozen
class Landlock:
    """Landlock of ABI `abi`, through the launcher run by `interpreter`."""

    name: ClassVar[str] = "landlock"
    abi: int
    problem: str = ""
    interpreter: str = sys.executable

    @classmethod
    def find(cls) -> Landlock:
        abi, problem = kernel_abi()
        if not problem and not LAUNCHER.is_file():
            problem = f"the launcher {LAUNCHER} is missing"
        if not problem and not REAPER.is_file():
            problem = f"the reaper {REAPER} the launcher imports is missing"
        if not problem and not (sys.executable and os.access(sys.executable, os.X_OK)):
            problem = "this process has no Python interpreter to run the launcher with"
        return cls(abi, problem)

    @property
    def key(self) -> tuple[str, ...]:
        return (self.name, str(self.abi), self.interpreter, self.problem)

    def inspect(self) -> Inspection:
        detail = f"Landlock ABI {self.abi} ({os.uname().machine})" if self.abi else "Landlock"
        if self.problem:
            return Inspection(detail=detail, problem=self.problem)
        return Inspection(
            detail=detail,
            modes=tuple(ModeEnforcement(m, missing_rights(self.abi, m)) for m in CONFINING_MODES),
            notes=notes(self.abi),
        )

    def enforcement(self, mode: SandboxMode) -> Enforcement:
        return "partial" if missing_rights(self.abi, mode) else "full"

    def command(self, request: ConfineRequest, *, network: bool) -> ConfinedCommand:
        policy = PathPolicy.for_request(request)
        roots = policy.writable_roots_for()
        holes = [p for p in policy.read_only_paths if any(p.is_relative_to(r) for r in roots)]
        fds = tuple(fd for root in roots if (fd := policy.descriptor(root)) is not None)
        return ConfinedCommand(
            argv=(*self.launcher(request, network=network, policy=policy), "--", *request.argv),
            env=dict(request.env),
            backend=self.name,
            enforcement="partial" if holes else self.enforcement(request.mode),
            classify=launcher_verdict,
            pass_fds=fds,
        )

    def launcher(
        self, request: ConfineRequest, *, network: bool, policy: PathPolicy | None = None
    ) -> list[str]:
        """The interpreter, the launcher and its options for `request`, up to the ``--``."""
        policy = PathPolicy.for_request(request) if policy is None else policy
        fs = handled_rights(self.abi)
        argv = [self.interpreter, *INTERPRETER_FLAGS, "-c", BOOTSTRAP, "--fs", str(fs)]
        if self.abi >= SCOPE_ABI:
            scope = launch.SCOPE_SIGNAL
            if not network:
                scope |= launch.SCOPE_ABSTRACT_UNIX_SOCKET
            argv += ["--scope", str(scope)]
        argv += ["--allow", str(READ_RIGHTS), "/"]
        for device in DEVICES:
            argv += ["--allow", str(DEVICE_RIGHTS & fs), device]
        for root in policy.writable_roots_for():
            fd = policy.descriptor(root)
            argv += ["--allow", str(fs), str(root) if fd is None else f"/proc/self/fd/{fd}"]
        deny = []
        if request.mode is SandboxMode.READ_ONLY:
            deny.append("metadata")
        if not network:
            deny.append("inet")
        if deny:
            deny.append("io_uring")
        for group in deny:
            argv += ["--deny", group]
        ctype = request.env.get("LC_CTYPE")
        if ctype is not None:
            argv += ["--lc-ctype", ctype]
        return argv
