"""The Landlock launcher: confine this process, then become the command.

The Landlock backend runs every confined command as::

    python -I -S -c BOOTSTRAP [OPTION ...] -- PROGRAM [ARG ...]

where the bootstrap puts this module's directory and the reaper's on the path, imports this
module and calls :func:`main` (see :mod:`seamhost_sandbox_local.landlock`). It sits on the path
of every command the backend confines, so it imports the standard library only (never seamhost).

First it makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``) and forks: the child is
confined and becomes the command; the launcher stays outside the sandbox (a confined process
cannot signal it, Landlock scoping signals from ABI 6 on) and waits for it. When the command has
ended, every process left below the launcher (orphans, even those that left with ``setsid``,
become its children) is killed and reaped, found by walking ``/proc``; then the launcher ends as
the command did. ``SIGTERM``, ``SIGINT`` and ``SIGHUP`` (the runner's timeout; its death, through
``PR_SET_PDEATHSIG``) kill the whole subtree the same way. The reaping is
:mod:`seamhost.sandbox.reaper`'s, imported by its top-level name ``reaper`` (the bootstrap puts
its directory on the path; it imports the standard library only too). In order, the child:

1. sets ``PR_SET_NO_NEW_PRIVS`` (nothing it executes can gain privileges) and
   ``PR_SET_PDEATHSIG`` (it is killed when the process that started it dies);
2. builds a Landlock ruleset handling the rights ``--fs RIGHTS`` and the scopes ``--scope
   SCOPES``, with one rule per ``--allow RIGHTS PATH`` (a path that does not exist is skipped:
   a missing root never widens anything; a path that is not a directory keeps only the rights
   that apply to files);
3. drops every capability (bounding, ambient, then effective, permitted and inheritable sets),
   so a command started by root keeps no privilege the ruleset does not see;
4. restricts itself with the ruleset (inherited by every descendant, for ever);
5. installs a seccomp filter that fails (``EPERM``) the syscalls of each ``--deny GROUP``
   (:data:`SYSCALL_GROUPS`; ``inet`` refuses sockets of every family but local ones), and kills
   a process that enters through a foreign syscall ABI (i386 on x86_64), which it does not cover;
6. closes every inherited descriptor above 2, restores ``LC_CTYPE`` as the caller had it
   (``--lc-ctype VALUE``, or unset without it: Python's locale coercion may have set it),
   and executes the command, searching ``PATH``.

When the command never ran, the launcher exits 126 (the confinement could not be applied) or
127 (the program could not be executed) after one line on stderr starting with
:data:`MARKER`, which the backend's classifier reads as a runner failure.

Syscall numbers are those of x86_64 and aarch64 (Landlock: 444, 445, 446 on both); on any other
machine the launcher refuses to run.

Apart from the reaper it stays one file, longer than the project's other modules (about a hundred of
its lines are tables of kernel constants: Landlock rights, syscall numbers by machine), because the
child imports it from its directory as a top-level module, outside its package. Split, it would
have to import its pieces by top-level name in the child and by package name in the parent, a
switch the type checker cannot follow; :meth:`Landlock.find
<seamhost_sandbox_local.landlock.Landlock.find>` would have to check that every piece is present;
and every confined command would load one more module before it starts.
"""

from __future__ import annotations

import ctypes
import errno
import importlib
import os
import signal
import stat
import sys

MARKER = "seamhost-sandbox:"
EXIT_SETUP_FAILED = 126
EXIT_NOT_EXECUTABLE = 127

# -- Landlock (include/uapi/linux/landlock.h) ------------------------------------------------

ACCESS_FS_EXECUTE = 1 << 0
ACCESS_FS_WRITE_FILE = 1 << 1
ACCESS_FS_READ_FILE = 1 << 2
ACCESS_FS_READ_DIR = 1 << 3
ACCESS_FS_REMOVE_DIR = 1 << 4
ACCESS_FS_REMOVE_FILE = 1 << 5
ACCESS_FS_MAKE_CHAR = 1 << 6
ACCESS_FS_MAKE_DIR = 1 << 7
ACCESS_FS_MAKE_REG = 1 << 8
ACCESS_FS_MAKE_SOCK = 1 << 9
ACCESS_FS_MAKE_FIFO = 1 << 10
ACCESS_FS_MAKE_BLOCK = 1 << 11
ACCESS_FS_MAKE_SYM = 1 << 12
ACCESS_FS_REFER = 1 << 13  # ABI 2
ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5
# The only rights a rule on a file (not a directory) may carry.
ACCESS_FS_FILE = (
    ACCESS_FS_EXECUTE
    | ACCESS_FS_WRITE_FILE
    | ACCESS_FS_READ_FILE
    | ACCESS_FS_TRUNCATE
    | ACCESS_FS_IOCTL_DEV
)
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1

_SYSCALLS = {
    "x86_64": {"create_ruleset": 444, "add_rule": 445, "restrict_self": 446},
    "aarch64": {"create_ruleset": 444, "add_rule": 445, "restrict_self": 446},
}

# -- seccomp (include/uapi/linux/seccomp.h, filter.h, audit.h) -------------------------------

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000
SOCKET_SYSCALL = {"x86_64": 41, "aarch64": 198}
LOCAL_SOCKET_FAMILIES = (1, 16)  # AF_UNIX, AF_NETLINK
_IO_URING = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427}
# Syscall numbers by group and machine. `metadata`: chmod, chown, times and extended attributes,
# which Landlock does not govern. `io_uring`: it performs socket and xattr operations without
# the syscalls filtered here. `inet`: no syscall refused outright; socket() is refused for every
# family but AF_UNIX and AF_NETLINK (checked on its first argument).
SYSCALL_GROUPS: dict[str, dict[str, dict[str, int]]] = {
    "metadata": {
        "x86_64": {
            "chmod": 90,
            "fchmod": 91,
            "chown": 92,
            "fchown": 93,
            "lchown": 94,
            "utime": 132,
            "setxattr": 188,
            "lsetxattr": 189,
            "fsetxattr": 190,
            "removexattr": 197,
            "lremovexattr": 198,
            "fremovexattr": 199,
            "utimes": 235,
            "fchownat": 260,
            "futimesat": 261,
            "fchmodat": 268,
            "utimensat": 280,
            "fchmodat2": 452,
            "setxattrat": 463,
            "removexattrat": 466,
            "file_setattr": 469,
        },
        "aarch64": {
            "setxattr": 5,
            "lsetxattr": 6,
            "fsetxattr": 7,
            "removexattr": 14,
            "lremovexattr": 15,
            "fremovexattr": 16,
            "fchmod": 52,
            "fchmodat": 53,
            "fchownat": 54,
            "fchown": 55,
            "utimensat": 88,
            "fchmodat2": 452,
            "setxattrat": 463,
            "removexattrat": 466,
            "file_setattr": 469,
        },
    },
    "io_uring": {"x86_64": _IO_URING, "aarch64": _IO_URING},
    "inet": {"x86_64": {}, "aarch64": {}},
}
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JGE_K = 0x35
_BPF_RET_K = 0x06
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_SECCOMP_RET_KILL_PROCESS = 0x80000000
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARG0 = 0, 4, 16

# -- prctl and capabilities ------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SECCOMP_MODE_FILTER = 2
_STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)  # kill the subtree, then end
_RESTORED = (signal.SIGPIPE, signal.SIGXFSZ, *_STOPPING)  # what the command gets as default
_CAPABILITY_VERSION_3 = 0x20080522
_MAX_CAPABILITY = 63


class SetupError(Exception):
    """The confinement could not be applied; the command must not run."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 12 bytes
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _SockFilter(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    )


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter)))


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


def machine() -> str:
    """The machine name, or raise `SetupError` when its syscall numbers are not known here."""
    name = os.uname().machine
    if name not in _SYSCALLS:
        raise SetupError(f"syscall numbers are known for x86_64 and aarch64 only, not {name}")
    return name


class _Kernel:
    """The few kernel calls the launcher makes, through libc's ``syscall`` and ``prctl``."""

    def __init__(self) -> None:
        self.arch = machine()
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.numbers = _SYSCALLS[self.arch]

    def check(self, result: int, what: str) -> int:
        if result < 0:
            code = ctypes.get_errno()
            raise SetupError(f"{what}: {os.strerror(code)} (errno {errno.errorcode.get(code)})")
        return result

    def syscall(self, name: str, *args: object) -> int:
        # Integers travel as full machine words: through the variadic syscall() a plain C int
        # would leave the upper half of the register undefined. Pointers are byref() objects.
        words = [ctypes.c_ulong(a) if isinstance(a, int) else a for a in args]
        number = ctypes.c_long(self.numbers[name])
        return self.check(self.libc.syscall(number, *words), f"landlock_{name}")

    def prctl(self, option: int, arg: int | ctypes.c_void_p, what: str) -> int:
        word = arg if isinstance(arg, ctypes.c_void_p) else ctypes.c_ulong(arg)
        zero = ctypes.c_ulong(0)
        return self.check(self.libc.prctl(ctypes.c_int(option), word, zero, zero, zero), what)


def landlock_abi() -> int:
    """The running kernel's Landlock ABI version; raise `SetupError` when it has none."""
    kernel = _Kernel()
    return kernel.syscall("create_ruleset", ctypes.c_void_p(None), 0, CREATE_RULESET_VERSION)


def _build_ruleset(
    kernel: _Kernel, fs: int, scope: int, allow: list[tuple[int, str]]
) -> int | None:
    if not fs and not scope:
        return None
    attr = _RulesetAttr(fs, 0, scope)
    fd = kernel.syscall("create_ruleset", ctypes.byref(attr), ctypes.sizeof(attr), 0)
    for rights, path in allow:
        try:
            parent = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise SetupError(f"cannot open {path}: {exc.strerror}") from exc
        try:
            allowed = rights & fs
            if not stat.S_ISDIR(os.fstat(parent).st_mode):
                allowed &= ACCESS_FS_FILE
            if allowed:
                rule = _PathBeneathAttr(allowed, parent)
                kernel.syscall("add_rule", fd, RULE_PATH_BENEATH, ctypes.byref(rule), 0)
        finally:
            os.close(parent)
    return fd


def _drop_capabilities(kernel: _Kernel) -> None:
    for cap in range(_MAX_CAPABILITY + 1):
        # EINVAL past the kernel's last capability. EPERM without CAP_SETPCAP: then there is
        # nothing to drop that matters, since the sets cleared below and no_new_privs keep an
        # exec from gaining any capability.
        try:
            kernel.prctl(_PR_CAPBSET_DROP, cap, "dropping a capability")
        except SetupError:
            if ctypes.get_errno() == errno.EINVAL:
                break
    kernel.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, "clearing ambient capabilities")
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if kernel.libc.capset(ctypes.byref(header), data) < 0:
        raise SetupError(f"capset: {os.strerror(ctypes.get_errno())}")


def seccomp_program(arch: str, groups: list[str]) -> list[tuple[int, int, int, int]]:
    """The BPF program refusing the syscalls of `groups` on `arch` (``(code, jt, jf, k)``)."""
    deny_numbers = sorted({n for group in groups for n in SYSCALL_GROUPS[group][arch].values()})
    # Instructions whose jump targets are resolved once the program's length is known.
    body: list[tuple[int, object, object, int]] = [
        (_BPF_LD_W_ABS, 0, 0, _OFFSET_ARCH),
        (_BPF_JEQ_K, 1, 0, AUDIT_ARCH[arch]),
        (_BPF_RET_K, 0, 0, _SECCOMP_RET_KILL_PROCESS),
        (_BPF_LD_W_ABS, 0, 0, _OFFSET_NR),
    ]
    if arch == "x86_64":
        body.append((_BPF_JGE_K, "deny", 0, X32_SYSCALL_BIT))
    body += [(_BPF_JEQ_K, "deny", 0, number) for number in deny_numbers]
    if "inet" in groups:
        body.append((_BPF_JEQ_K, 0, "allow", SOCKET_SYSCALL[arch]))
        body.append((_BPF_LD_W_ABS, 0, 0, _OFFSET_ARG0))
        body += [(_BPF_JEQ_K, "allow", 0, family) for family in LOCAL_SOCKET_FAMILIES]
        body.append((_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.EPERM))
    labels = {"allow": len(body), "deny": len(body) + 1}
    body += [
        (_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
        (_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.EPERM),
    ]

    def offset(index: int, target: object) -> int:
        if isinstance(target, int):
            return target
        return labels[str(target)] - index - 1

    return [(code, offset(i, jt), offset(i, jf), k) for i, (code, jt, jf, k) in enumerate(body)]


def _install_seccomp(kernel: _Kernel, groups: list[str]) -> None:
    program = seccomp_program(kernel.arch, groups)
    filters = (_SockFilter * len(program))(*(_SockFilter(*insn) for insn in program))
    fprog = _SockFprog(len(program), filters)
    pointer = ctypes.c_void_p(ctypes.addressof(fprog))
    zero = ctypes.c_ulong(0)
    mode = ctypes.c_ulong(_SECCOMP_MODE_FILTER)
    result = kernel.libc.prctl(ctypes.c_int(_PR_SET_SECCOMP), mode, pointer, zero, zero)
    kernel.check(result, "installing the seccomp filter")


def confine(fs: int, scope: int, allow: list[tuple[int, str]], deny: list[str]) -> None:
    """Apply the whole confinement to this process (steps 1 to 5 of the module docstring)."""
    kernel = _Kernel()
    kernel.prctl(_PR_SET_NO_NEW_PRIVS, 1, "no_new_privs")
    kernel.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, "parent death signal")
    ruleset = _build_ruleset(kernel, fs, scope, allow)
    _drop_capabilities(kernel)
    if ruleset is not None:
        try:
            kernel.syscall("restrict_self", ruleset, 0)
        finally:
            os.close(ruleset)
    if deny:
        _install_seccomp(kernel, deny)


def parse(
    args: list[str],
) -> tuple[int, int, list[tuple[int, str]], list[str], str | None, list[str]]:
    """Options and command from the launcher's arguments (see the module docstring)."""
    fs = scope = 0
    allow: list[tuple[int, str]] = []
    deny: list[str] = []
    ctype: str | None = None
    index = 0
    while index < len(args):
        option = args[index]
        if option == "--":
            command = args[index + 1 :]
            if not command:
                raise SetupError("no command after --")
            return fs, scope, allow, deny, ctype, command
        if index + 1 >= len(args):
            raise SetupError(f"option {option} needs a value")
        value = args[index + 1]
        if option == "--fs":
            fs = int(value)
        elif option == "--scope":
            scope = int(value)
        elif option == "--deny":
            if value not in SYSCALL_GROUPS:
                raise SetupError(f"unknown syscall group {value!r}")
            deny.append(value)
        elif option == "--lc-ctype":
            ctype = value
        elif option == "--allow" and index + 2 < len(args) and value != "--":
            allow.append((int(value), args[index + 2]))
            index += 1
        else:
            raise SetupError(f"unknown or incomplete option {option}")
        index += 2
    raise SetupError("no -- before the command")


def _fail(code: int, message: str) -> int:
    os.write(2, f"{MARKER} {message}\n".encode(errors="replace"))
    return code


def _become(args: list[str]) -> int:
    """In the child: confine, then exec the command; an exit status only when it never ran."""
    try:
        fs, scope, allow, deny, ctype, command = parse(args)
        confine(fs, scope, allow, deny)
    except (SetupError, ValueError) as exc:
        return _fail(EXIT_SETUP_FAILED, f"cannot confine the command: {exc}")
    os.closerange(3, 2**31 - 1)
    env = dict(os.environ)
    env.pop("LC_CTYPE", None)
    if ctype is not None:
        env["LC_CTYPE"] = ctype
    try:
        os.execvpe(command[0], command, env)
    except OSError as exc:
        status = EXIT_NOT_EXECUTABLE if exc.errno == errno.ENOENT else EXIT_SETUP_FAILED
        return _fail(status, f"cannot run {command[0]}: {exc.strerror}")


def main(args: list[str]) -> int:
    """Fork the confined command, wait for it, reap what it left; end as it ended."""
    # seamhost.sandbox.reaper, by its top-level name: the bootstrap puts its directory on the
    # path (this file cannot import seamhost, and one copy of the reaping is enough).
    try:
        reaper = importlib.import_module("reaper")
    except ImportError:
        return _fail(EXIT_SETUP_FAILED, "cannot confine the command: no reaper on the path")
    try:
        kernel = _Kernel()
        kernel.prctl(_PR_SET_CHILD_SUBREAPER, 1, "becoming a child subreaper")
        kernel.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, "parent death signal")
    except SetupError as exc:
        return _fail(EXIT_SETUP_FAILED, f"cannot confine the command: {exc}")
    for number in _STOPPING:
        signal.signal(number, reaper.stop)
    status = int(signal.SIGTERM)  # the wait status reported when stopped before the command ended
    try:
        child = os.fork()
        if child == 0:
            code = EXIT_SETUP_FAILED
            try:
                for number in _RESTORED:
                    signal.signal(number, signal.SIG_DFL)
                os.setpgid(0, 0)  # `kill 0` in the command does not reach the launcher
                code = _become(args)
            finally:
                os._exit(code)
        status = os.waitpid(child, 0)[1]
    except SystemExit:
        pass
    finally:
        for number in _STOPPING:
            signal.signal(number, signal.SIG_IGN)
        reaper.kill_descendants()
    return int(reaper.end_like(status))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
