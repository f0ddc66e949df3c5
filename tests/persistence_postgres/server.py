"""Where the PostgreSQL tests find a server, in order (README: "Running the PostgreSQL tests"):

1. ``SEAMHOST_TEST_POSTGRES_DSN``, when set;
2. a server answering on 127.0.0.1:5432 (trust or ``PG*`` environment authentication);
3. a private cluster made with the installed binaries (``initdb``, ``pg_ctl``) in a temporary
   directory, run as the ``postgres`` user (or ``nobody``) when the tests run as root;
4. otherwise the tests skip, saying why; ``SEAMHOST_REQUIRE_POSTGRES=1`` makes that a failure.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import attrs
import psycopg

CANDIDATES = (
    "host=127.0.0.1 port=5432 dbname=test user=postgres",
    "host=127.0.0.1 port=5432 dbname=postgres user=postgres",
    "host=127.0.0.1 port=5432",
)


@attrs.define
class Server:
    """A reachable server: its DSN, and the private cluster to stop, if one was started."""

    dsn: str
    cluster: Path | None = None
    user: str | None = None

    def stop(self) -> None:
        if self.cluster is None:
            return
        _as(
            self.user,
            [_binary("pg_ctl"), "-D", str(self.cluster / "data"), "-m", "immediate", "stop"],
        )
        shutil.rmtree(self.cluster, ignore_errors=True)


def answers(dsn: str) -> str | None:
    """None when `dsn` connects, else why not."""
    try:
        with psycopg.connect(dsn, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def find_server() -> tuple[Server | None, list[str]]:
    """A server to test against, and why each way that failed did."""
    tried: list[str] = []
    given = os.environ.get("SEAMHOST_TEST_POSTGRES_DSN")
    if given:
        problem = answers(given)
        if problem is None:
            return Server(given), tried
        tried.append(f"SEAMHOST_TEST_POSTGRES_DSN: {problem}")
        return None, tried  # an explicit choice is not second-guessed
    for dsn in CANDIDATES:
        problem = answers(dsn)
        if problem is None:
            return Server(dsn), tried
        tried.append(f"{dsn}: {problem}")
    try:
        return start_cluster(), tried
    except (OSError, subprocess.CalledProcessError, LookupError) as exc:
        tried.append(f"private cluster: {exc}")
    return None, tried


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    if found is None:
        raise LookupError(f"no {name} installed")
    return found


def _as(user: str | None, argv: list[str]) -> None:
    if user is not None:
        argv = ["runuser", "-u", user, "--", *argv]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)


def start_cluster(password: str | None = None) -> Server:
    """initdb and start a cluster on a free port, in a directory of its own.

    With `password`, the ``postgres`` user has it and every connection must give it
    (scram-sha-256); without, connections are trusted.
    """
    initdb = _binary("initdb")
    user: str | None = None
    if os.geteuid() == 0:
        for name in ("postgres", "nobody"):
            try:
                pwd.getpwnam(name)
            except KeyError:
                continue
            user = name
            break
        else:
            raise LookupError("running as root and no postgres or nobody user to run a cluster as")
    # Not under the suite's TMPDIR: the cluster outlives each test, and is removed at the end.
    base = Path(tempfile.mkdtemp(prefix="seamhost-pg-", dir="/tmp"))
    base.chmod(0o755)
    data = base / "data"
    if user is not None:
        shutil.chown(base, user)
    auth = ["-A", "trust"]
    if password is not None:
        pwfile = base / "pwfile"
        pwfile.write_text(password + "\n")
        if user is not None:
            shutil.chown(pwfile, user)
        auth = ["-A", "scram-sha-256", f"--pwfile={pwfile}"]
    _as(user, [initdb, "-D", str(data), *auth, "-U", "postgres", "--no-sync"])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=on"
    _as(
        user,
        [_binary("pg_ctl"), "-D", str(data), "-o", options, "-w", "-l", str(base / "log"), "start"],
    )
    return Server(f"host=127.0.0.1 port={port} dbname=postgres user=postgres", base, user)
