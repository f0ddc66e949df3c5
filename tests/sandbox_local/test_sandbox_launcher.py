"""The Landlock launcher on its own: its wire format, failures, and what it leaves the command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from seamhost_sandbox_local import launch
from seamhost_sandbox_local.landlock import BOOTSTRAP, INTERPRETER_FLAGS, LAUNCHER, Landlock
from seamhost_sandbox_local.verdicts import launcher_verdict

from seamhost.sandbox.confinement import ConfineRequest
from seamhost.sandbox.policy import SandboxMode
from tests.sandbox_local.conftest import working

RO, WW = SandboxMode.READ_ONLY, SandboxMode.WORKSPACE_WRITE


def launch_raw(*args: str) -> subprocess.CompletedProcess[bytes]:
    """The launcher run as the backend runs it: the bootstrap, which puts the reaper on the path."""
    return subprocess.run(
        [sys.executable, *INTERPRETER_FLAGS, "-c", BOOTSTRAP, *args],
        capture_output=True,
        check=False,
        timeout=30,
    )


def confined(request: ConfineRequest, *, network: bool = False) -> list[str]:
    working("landlock")
    return list(Landlock.find().command(request, network=network).argv)


@pytest.mark.parametrize(
    "args",
    [
        ["--fs", "1", "true"],  # no --
        ["--fs", "1", "--"],  # no command
        ["--bogus", "1", "--", "true"],
        ["--deny", "everything", "--", "true"],
        ["--fs", "not-a-number", "--", "true"],
        ["--allow", "1", "--", "true"],
    ],
)
def test_a_malformed_call_never_runs_the_command(args: list[str]) -> None:
    done = launch_raw(*args)
    assert done.returncode == launch.EXIT_SETUP_FAILED
    assert done.stderr.startswith(launch.MARKER.encode())
    assert launcher_verdict(done.returncode, done.stderr) == "runner-failure"


def test_a_launcher_run_without_the_reaper_on_its_path_never_runs_the_command(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "ran"
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), "--fs", "1", "--", "touch", str(marker)],
        capture_output=True,
        check=False,
        timeout=30,
    )
    assert done.returncode == launch.EXIT_SETUP_FAILED, done.stderr
    assert b"reaper" in done.stderr
    assert launcher_verdict(done.returncode, done.stderr) == "runner-failure"
    assert not marker.exists()


def test_a_ruleset_the_kernel_refuses_never_runs_the_command(tmp_path: Path) -> None:
    working("landlock")
    marker = tmp_path / "ran"
    # A right beyond every ABI: the kernel refuses the ruleset, so nothing runs.
    done = launch_raw("--fs", str(1 << 62), "--", "touch", str(marker))
    assert done.returncode == launch.EXIT_SETUP_FAILED, done.stderr
    assert b"landlock_create_ruleset" in done.stderr
    assert not marker.exists()


def test_inherited_descriptors_are_closed(tmp_path: Path) -> None:
    request = ConfineRequest(("sh", "-c", '[ ! -e "/proc/$$/fd/$1" ]', "sh"), RO, tmp_path)
    reader, writer = os.pipe()
    try:
        argv = confined(request)
        argv.append(str(writer))
        done = subprocess.run(argv, pass_fds=(writer,), capture_output=True, check=False)
    finally:
        os.close(reader)
        os.close(writer)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("given", "seen"), [(None, b""), ("C", b"C\n"), ("C.UTF-8", b"C.UTF-8\n")])
def test_lc_ctype_is_what_the_caller_gave(tmp_path: Path, given: str | None, seen: bytes) -> None:
    env = {"PATH": os.environ["PATH"], "LANG": "C"}
    if given is not None:
        env["LC_CTYPE"] = given
    request = ConfineRequest(
        ("sh", "-c", 'printf "%s" "${LC_CTYPE+$LC_CTYPE\n}"'), RO, tmp_path, env=env
    )
    done = subprocess.run(confined(request), env=env, capture_output=True, check=False)
    assert done.stdout == seen, done.stderr


def test_read_only_refuses_metadata_and_io_uring(tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text("x")
    mine.chmod(0o644)
    script = (
        "import ctypes, os, sys\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "params = ctypes.create_string_buffer(120)\n"
        "ring = libc.syscall(ctypes.c_long(425), ctypes.c_ulong(1), params)\n"
        "print('io_uring', ring, os.strerror(ctypes.get_errno()))\n"
        "try:\n"
        "    os.chmod(sys.argv[1], 0o600)\n"
        "except OSError as exc:\n"
        "    print('chmod', exc.strerror)\n"
    )
    request = ConfineRequest((sys.executable, "-I", "-c", script, str(mine)), RO, tmp_path)
    done = subprocess.run(confined(request), capture_output=True, check=False)
    assert done.stdout.decode().splitlines() == [
        "io_uring -1 Operation not permitted",
        "chmod Operation not permitted",
    ], done.stderr
    assert oct(mine.stat().st_mode & 0o777) == oct(0o644)


def test_workspace_write_with_network_installs_no_filter(tmp_path: Path) -> None:
    request = ConfineRequest(("grep", "^Seccomp:", "/proc/self/status"), WW, tmp_path)
    with_network = subprocess.run(confined(request, network=True), capture_output=True, check=False)
    without = subprocess.run(confined(request), capture_output=True, check=False)
    assert with_network.stdout.split() == [b"Seccomp:", b"0"]
    assert without.stdout.split() == [b"Seccomp:", b"2"]


def test_the_seccomp_program_kills_a_foreign_abi_and_ends_with_allow_then_deny() -> None:
    program = launch.seccomp_program("x86_64", ["metadata", "inet"])
    load_arch, check_arch, kill = program[:3]
    assert load_arch == (0x20, 0, 0, 4)
    assert check_arch == (0x15, 1, 0, launch.AUDIT_ARCH["x86_64"])
    assert kill == (0x06, 0, 0, 0x80000000)
    assert program[-2:] == [(0x06, 0, 0, 0x7FFF0000), (0x06, 0, 0, 0x00050001)]
    deny = len(program) - 1
    for index, (code, jt, _, k) in enumerate(program):
        if code == 0x15 and k in launch.SYSCALL_GROUPS["metadata"]["x86_64"].values():
            assert index + 1 + jt == deny, k
