"""Resuming a session of 1k, 10k and 100k steps: from its resume snapshot, and by full replay.

Each session is a real persistence-jsonl session of the `default` profile's bundle: turns of 5
steps, each step ``step/start``, ``assistant/message`` with one call, ``tool/call``,
``tool/dispatch``, ``tool/result``, ``model/usage``, ``step/end`` (7 records; ~0.7 M records at
100k steps), flushed every 10 steps (one frame each), snapshots at the store's default interval
(every 1000 durable records) while it is written; the last 50 steps (350 records) follow the
last snapshot at every size, so that the sizes differ only in what the snapshot covers (in real
use the tail is anything up to ``snapshot_every`` records; a record of tail costs about 3 us
more here).

"Resume" is what reopening a session for the next turn costs the kernel: ``open_session`` (the
store's open, the live session, repair's check of the last turn) and an ``Agent`` over it (its
budget totals and turn number), plus ``find_suspension`` (is a turn parked?). Measured in the
same run, medians, interleaved:

(a) resume from the snapshot, at each size;
(b) the baseline, the same resume with the snapshot file moved away: a full replay.

With ``--store postgres`` the same sessions live in persistence-postgres (the shipped
``postgres`` profile, on the tests' server, in a schema of its own), and (b) moves the session's
``snapshots`` row away instead of the file.

Target: (a) at 100k steps within 2x of (a) at 1k. The agent's first model request after a
resume derives the conversation the model is shown from the snapshot's pieces (docs/design.md,
"Resume snapshots"); printed for scale: (c) resume and that conversation, against the same with
the snapshot moved away (from the whole log), and against serialising the conversation with
orjson (what the request itself must carry: it grows with the session whatever the store does).
Seen on a quiet machine: (a) 1.6 / 1.9 / 2.6 ms; (c) 7.4 / 65 / 649 ms against 17 / 296 /
4454 ms from the log.

Run: ``python tests/bench/bench_resume.py [--sizes 1000,10000,100000] [--runs N]
[--store jsonl|postgres]``; exits 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import sys
import tempfile
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import orjson

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[2]))  # the repository: tests.persistence_postgres
from _measure import Row, report, timed
from seamhost_persistence_jsonl.format import SNAPSHOT_NAME

from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session, open_session
from seamhost.session.live import Session
from seamhost.session.suspension import find_suspension

TAILS: dict[str, int | None] = {}  # records read after the snapshot, by the last resume
STEPS_PER_TURN = 5
TAIL_STEPS = 50  # written after the last snapshot, at every size (350 records)
FLUSH_EVERY = 10  # steps


def write_steps(session: Session, first: int, count: int) -> None:
    """Steps [first, first + count) of the session's 5-step turns, flushed every 10 steps."""
    append = session.append_data
    for index in range(first, first + count):
        turn, step = index // STEPS_PER_TURN + 1, index % STEPS_PER_TURN + 1
        if step == 1:
            append("turn/start", {"turn": turn})
            append("user/message", {"turn": turn, "step": 0, "content": "go on", "source": "user"})
        call = {"call_id": f"c{index}", "name": "read_file", "arguments": '{"path": "a.txt"}'}
        append("step/start", {"turn": turn, "step": step})
        append(
            "assistant/message", {"turn": turn, "step": step, "content": "", "tool_calls": [call]}
        )
        append("tool/call", {"turn": turn, "step": step, **call, "descriptor_digest": "sha256:0"})
        append(
            "tool/dispatch",
            {
                "call_id": call["call_id"],
                "attempt": 1,
                "sandbox_mode": "read-only",
                "args_digest": "sha256:0",
            },
        )
        append(
            "tool/result",
            {
                "turn": turn,
                "step": step,
                "call_id": call["call_id"],
                "is_error": False,
                "content": "text " * 8,
            },
        )
        append(
            "model/usage",
            {"turn": turn, "step": step, "attempt": 1, "input_tokens": 900, "output_tokens": 40},
        )
        append("step/end", {"turn": turn, "step": step})
        if step == STEPS_PER_TURN:
            append("turn/end", {"turn": turn, "reason": "completed"})
        if (index + 1) % FLUSH_EVERY == 0:
            asyncio.run(session.flush())
    asyncio.run(session.flush())


def build(bundle: Bundle, session_id: str, steps: int) -> None:
    """A closed session of `steps` steps whose last TAIL_STEPS follow its resume snapshot.

    The store keeps snapshots as it always does while the session is written; then one is
    taken at steps - TAIL_STEPS and the last TAIL_STEPS are written without any, so that every
    size is resumed over the same tail (in real use the tail is anything up to the store's
    ``snapshot_every`` records).
    """
    session = create_session(bundle, session_id=session_id, cwd="/work")
    write_steps(session, 0, steps - TAIL_STEPS)
    session.close()
    for interval in (1, 0):  # a snapshot at this point; then the tail, with none
        session = Session(
            bundle.store.open(session_id),
            flush=bundle.seams.session_flush,
            catalog=bundle.catalog,
            snapshot_interval=interval,
        )
        write_steps(session, steps - TAIL_STEPS, TAIL_STEPS if interval == 0 else 0)
        session.close()


class Kept(Protocol):
    """Where a store keeps a session's snapshot, so that a baseline can move it away."""

    def size_mb(self, session_id: str) -> float: ...
    def aside(self, session_id: str) -> AbstractContextManager[None]: ...


class JsonlKept:
    def __init__(self, root: Path) -> None:
        self.root = root

    def size_mb(self, session_id: str) -> float:
        return (self.root / session_id / "session.v2.jsonl.zst").stat().st_size / 1e6

    @contextmanager
    def aside(self, session_id: str) -> Any:
        kept = self.root / session_id / SNAPSHOT_NAME
        moved = self.root / session_id / "snapshot.aside"
        assert kept.exists(), "the store kept a snapshot"
        kept.rename(moved)
        try:
            yield
        finally:
            moved.rename(kept)


class PostgresKept:
    def __init__(self, dsn: str, schema: str) -> None:
        import psycopg
        from psycopg import sql

        self.conn = psycopg.connect(dsn, autocommit=True)
        self.table = sql.Identifier(schema, "snapshots")
        self.records = sql.Identifier(schema, "records")
        self.sql = sql

    def size_mb(self, session_id: str) -> float:
        query = self.sql.SQL("SELECT sum(octet_length(body)) FROM {} WHERE session_id = %s")
        row = self.conn.execute(query.format(self.records), (session_id,)).fetchone()
        return int(row[0] if row else 0) / 1e6

    @contextmanager
    def aside(self, session_id: str) -> Any:
        query = self.sql.SQL("DELETE FROM {} WHERE session_id = %s RETURNING *")
        rows = self.conn.execute(query.format(self.table), (session_id,)).fetchall()
        assert len(rows) == 1, "the store kept a snapshot"
        try:
            yield
        finally:
            put = self.sql.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s)")
            self.conn.execute(put.format(self.table), rows[0])


def postgres_profile(scratch: Path) -> tuple[Path, Kept, Any]:
    """A profile extending the shipped `postgres` one, on a fresh schema of the tests' server."""
    from seamhost_persistence_postgres.store import PostgresStore

    from tests.persistence_postgres.server import find_server

    server, tried = find_server()
    if server is None:
        raise SystemExit("no PostgreSQL server: " + "; ".join(tried))
    schema = "seamhost_bench_" + secrets.token_hex(4)
    store = PostgresStore(server.dsn, schema=schema)
    store.migrate()
    store.close()
    os.environ["SEAMHOST_POSTGRES_DSN"] = server.dsn
    path = scratch / "pg.toml"
    path.write_text(
        '[profile]\nname = "bench-pg"\nextends = ["postgres"]\n'
        f"[plugins.persistence-postgres]\nschema = {json.dumps(schema)}\n"
    )
    kept = PostgresKept(server.dsn, schema)

    def cleanup(bundle: Bundle) -> None:
        bundle.store.close()  # type: ignore[attr-defined]
        kept.conn.execute(
            kept.sql.SQL("DROP SCHEMA {} CASCADE").format(kept.sql.Identifier(schema))
        )
        kept.conn.close()
        server.stop()

    return path, kept, cleanup


def serialised(bundle: Bundle, session_id: str, workspace: Path) -> float:
    """Seconds to serialise the conversation once (the request's floor), median of 5."""
    messages = resume(bundle, session_id, workspace, converse=True).messages
    return sorted(timed(partial(orjson.dumps, messages), 1) for _ in range(5))[2]


def resume(bundle: Bundle, session_id: str, workspace: Path, *, converse: bool = False) -> Agent:
    session, plan = open_session(bundle, session_id)
    try:
        assert plan is None
        opened = session.resumed
        TAILS[session_id] = session.next_seq - opened.seq if opened is not None else None
        agent = Agent(bundle, session, workspace=workspace)
        assert find_suspension(session.records) is None
        if converse:
            assert agent.messages
        return agent
    finally:
        session.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--store", choices=("jsonl", "postgres"), default="jsonl")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    scratch = Path(tempfile.mkdtemp(prefix="seamhost-bench-resume-"))
    os.environ["SEAMHOST_HOME"] = str(scratch / "home")
    cleanup: Any = None
    if args.store == "postgres":
        profile, kept, cleanup = postgres_profile(scratch)
        bundle = build_bundle(resolve_profile(str(profile)))
    else:
        kept = JsonlKept(scratch / "home" / "sessions")
        bundle = build_bundle(resolve_profile("default"))
    workspace = scratch / "ws"
    workspace.mkdir()
    fast: dict[int, float] = {}
    full: dict[int, float] = {}
    converse: dict[int, float] = {}
    converse_full: dict[int, float] = {}
    floor: dict[int, float] = {}
    sizes_mb: dict[int, float] = {}
    tails: dict[int, int] = {}
    try:
        for steps in sizes:
            build(bundle, f"s-{steps}", steps)
        for steps in sizes:
            sid = f"s-{steps}"
            sizes_mb[steps] = kept.size_mb(sid)
            with_snapshot, without = [], []
            for _ in range(args.runs):  # interleaved, so that noise hits both alike
                with_snapshot.append(timed(partial(resume, bundle, sid, workspace), 1))
                with kept.aside(sid):
                    without.append(timed(partial(resume, bundle, sid, workspace), 1))
            timed(partial(resume, bundle, sid, workspace), 1)
            tails[steps] = TAILS[sid] or 0
            fast[steps] = sorted(with_snapshot)[len(with_snapshot) // 2] * 1000
            full[steps] = sorted(without)[len(without) // 2] * 1000
            talk = partial(resume, bundle, sid, workspace, converse=True)
            with_pieces, from_log = [], []
            for _ in range(3):
                with_pieces.append(timed(talk, 1))
                with kept.aside(sid):
                    from_log.append(timed(talk, 1))
            converse[steps] = sorted(with_pieces)[1] * 1000
            converse_full[steps] = sorted(from_log)[1] * 1000
            floor[steps] = serialised(bundle, sid, workspace) * 1000
    finally:
        if cleanup is not None:
            cleanup(bundle)
        shutil.rmtree(scratch)
    small, large = min(sizes), max(sizes)
    rows = [
        Row(
            f"resume at {steps} steps ({sizes_mb[steps]:.1f} MB, tail {tails[steps]}), vs replay",
            fast[steps],
            full[steps],
            "ms",
            "(scale)",
            True,
        )
        for steps in sizes
    ]
    rows.append(
        Row(
            f"resume at {large} steps, vs resume at {small}",
            fast[large],
            fast[small],
            "ms",
            "<= 2x",
            fast[large] <= 2 * fast[small],
        )
    )
    rows.append(
        Row(
            f"full replay at {large} steps, vs at {small}",
            full[large],
            full[small],
            "ms",
            "(scale: linear)",
            True,
        )
    )
    for steps in sizes:
        rows.append(
            Row(
                f"resume + first request's conversation, {steps} steps, vs from the log",
                converse[steps],
                converse_full[steps],
                "ms",
                "(scale)",
                True,
            )
        )
        rows.append(
            Row(
                f"resume + first request's conversation, {steps} steps, vs orjson.dumps of it",
                converse[steps],
                floor[steps],
                "ms",
                "(scale)",
                True,
            )
        )
    title = f"resume, {args.store} (baseline: the same resume replaying the whole log)"
    return report(title, rows)


if __name__ == "__main__":
    sys.exit(main())
