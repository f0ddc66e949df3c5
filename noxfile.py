"""Sessions for tests, lint, typing, docs, stress, benchmarks and the profile matrix.

Each session gets its own virtual environment, filled by ``uv sync`` from the lock file with the
dependency groups it needs. ``nox`` alone runs the default sessions: the whole test suite CI runs.
"""

from __future__ import annotations

import os
import subprocess

import nox
import nox.command

nox.needs_version = ">=2024.10"
nox.options.default_venv_backend = "uv"
nox.options.sessions = ["tests", "tests_no_bwrap", "lint", "typing", "docs"]
nox.options.reuse_existing_virtualenvs = True


def install(session: nox.Session, *groups: str) -> None:
    """Sync the workspace (all first-party distributions) and `groups` into the session's venv."""
    session.run_install(
        "uv",
        "sync",
        "--locked",
        "--no-default-groups",
        *(f"--group={group}" for group in groups),
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
    )


PARALLEL = ["-n", "auto", "--dist", "worksteal"]


@nox.session
def tests(session: nox.Session) -> None:
    """The fast test suite (everything but `slow` and `bench`), profile matrix included."""
    install(session, "test")
    # The slowest tests are named in the log, so a suite creeping past its budget shows where.
    # The suite runs on every core (pytest-xdist): most of its time is child processes starting
    # and waiting; `worksteal` evens out the modules whose tests take seconds each.
    session.run("pytest", *PARALLEL, "--durations=30", *session.posargs)


# What a confined command prints depends on the backend, so these suites are run again on hosts
# made from this one: without bubblewrap (Landlock alone), then without either backend.
BACKEND_SUITES = [
    "tests/test_golden_transcripts.py",
    "tests/sandbox",
    "tests/sandbox_local",
    "tests/run",
    "tests/tools",
]


@nox.session
def tests_no_bwrap(session: nox.Session) -> None:
    """The backend-dependent suites with bubblewrap hidden, then with Landlock blocked too.

    Each runs in a private mount namespace where `bwrap` is covered by /dev/null
    (`tests/hosts/hide_sandbox.py`), so this machine's bubblewrap is untouched.
    """
    install(session, "test")
    unshare = (
        ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--map-root-user", "--mount"]
    )
    probe = subprocess.run([*unshare, "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        session.skip(f"cannot make a private mount namespace here: {probe.stderr.strip()}")
    for hidden in (["--no-bwrap"], ["--no-bwrap", "--no-landlock"]):
        session.run(
            *unshare,
            "python",
            "-m",
            "tests.hosts.hide_sandbox",
            *hidden,
            "--",
            "pytest",
            *PARALLEL,
            *(session.posargs or BACKEND_SUITES),
            external=True,
        )


@nox.session
def stress(session: nox.Session) -> None:
    """The long suites: crash matrices, SIGKILL trials, byte sweeps."""
    install(session, "test")
    session.run("pytest", "-m", "slow", *session.posargs)


@nox.session
def matrix(session: nox.Session) -> None:
    """Every shipped scenario under every shipped profile, checked against its expectations."""
    install(session, "test")
    session.run("pytest", "tests/test_matrix.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typing(session: nox.Session) -> None:
    install(session, "test", "typing")
    session.run("mypy")


@nox.session
def docs(session: nox.Session) -> None:
    """Regenerate the references from code (``-- --write``) or check they are up to date."""
    install(session)
    mode = "--write" if "--write" in session.posargs else "--check"
    session.run("python", "docs/generate_reference.py", *([] if mode == "--write" else ["--check"]))


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks: each prints ratios against a baseline measured in the same run (the bench
    group brings LangGraph's checkpointers, for bench_langgraph.py only)."""
    install(session, "test", "bench")
    session.env["UV_COMPILE_BYTECODE"] = "1"
    session.run("python", "-m", "compileall", "-q", session.virtualenv.location, silent=True)
    scripts = session.posargs or sorted(
        str(p) for p in __import__("pathlib").Path("tests/bench").glob("bench_*.py")
    )
    missed = []
    for script in scripts:  # every script runs, whatever the one before it reported
        try:
            session.run("python", script)
        except nox.command.CommandFailed:
            missed.append(script)
    if missed:
        session.error(f"a target was missed (or a benchmark failed) in: {', '.join(missed)}")
