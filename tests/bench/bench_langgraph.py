"""seamhost's stores side by side with LangGraph's own checkpointers, on the same machine.

The workload is the one both are for: a conversation that grows by one message of ~300 B per
step, each step made durable before the next. For LangGraph that is one ``invoke`` of a graph
whose state holds the messages (``operator.add`` reducer, the idiomatic pattern) with
``durability="sync"``; for seamhost, one record appended to a session and flushed.

* seamhost-jsonl vs ``SqliteSaver`` (both local files), seamhost-postgres vs ``PostgresSaver``
  (both on the tests' PostgreSQL server, each in a schema of its own);
* ms per durable step (mean over the run), storage after 1,000 and 10,000 steps (the session
  log or tables; LangGraph's database or tables), and resume latency (seamhost: open the
  session for writing, which reads it whole; LangGraph: ``get_state`` of the thread).

LangGraph stores the whole state at every checkpoint, so its storage grows with the square of
the steps: 10,000 steps would write tens of GB here. Its runs stop at ``--langgraph-steps``
(default 1,000, plus half of that to show the growth), and the table says so. Targets: seamhost's
storage grows linearly (10k / 1k ≤ 11×), and each seamhost store is faster per step than its
LangGraph counterpart.

Run (needs the bench dependency group, which `nox -s bench` installs):
``python tests/bench/bench_langgraph.py [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import operator
import os
import secrets
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[2]))  # the repository: tests.persistence_postgres
import psycopg
from _measure import Row, report
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from psycopg import sql
from seamhost_persistence_jsonl.store import JsonlStore
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.session.live import Session
from seamhost.session.store import SessionStore
from seamhost.testing.persistence import make_header
from tests.persistence_postgres.server import find_server

MESSAGE = "m" * 300


class Conversation(TypedDict):
    messages: Annotated[list[str], operator.add]


def make_graph(checkpointer: Any) -> Any:
    graph = StateGraph(Conversation)
    graph.add_node("step", lambda state: {})  # the step itself adds nothing: the input does
    graph.add_edge(START, "step")
    graph.add_edge("step", END)
    return graph.compile(checkpointer=checkpointer)


def langgraph_run(checkpointer: Any, steps: int, size: Callable[[], int]) -> dict[str, float]:
    graph = make_graph(checkpointer)
    config = {"configurable": {"thread_id": "bench"}}
    start = time.perf_counter()
    for _ in range(steps):
        graph.invoke({"messages": [MESSAGE]}, config, durability="sync")
    per_step = (time.perf_counter() - start) / steps * 1000
    resume = timed_resume(lambda: graph.get_state(config))
    return {"ms": per_step, "bytes": size(), "resume_ms": resume}


def seamhost_run(store: SessionStore, steps: int, size: Callable[[], int]) -> dict[str, float]:
    session = Session(store.create(make_header("bench")))
    start = time.perf_counter()
    for n in range(steps):
        session.append_data("vendor/message", {"n": n, "content": MESSAGE}, ignorable=True)
        asyncio.run(session.writer.flush())
    per_step = (time.perf_counter() - start) / steps * 1000
    session.close()
    resume = timed_resume(lambda: store.open("bench").close())
    return {"ms": per_step, "bytes": size(), "resume_ms": resume}


def timed_resume(resume: Callable[[], object]) -> float:
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        resume()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def files_size(*paths: Path) -> Callable[[], int]:
    return lambda: sum(
        p.stat().st_size for base in paths for p in [base, *base.rglob("*")] if p.is_file()
    )


def schema_size(dsn: str, schema: str) -> Callable[[], int]:
    def measure() -> int:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CHECKPOINT")  # size what is written, not what waits in the WAL
            row = conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
                "AND c.relkind = 'r'",
                (schema,),
            ).fetchone()
        return int(row[0]) if row else 0

    return measure


def fresh_schema(dsn: str, *, tables: bool) -> str:
    name = "seamhost_bench_" + secrets.token_hex(4)
    if tables:
        PostgresStore(dsn, schema=name).migrate()
    else:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    return name


def drop_schema(dsn: str, name: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))


def jsonl(base: Path, steps: int) -> dict[str, float]:
    root = base / f"jsonl-{steps}"
    return seamhost_run(JsonlStore(root), steps, files_size(root))


def sqlite(base: Path, steps: int) -> dict[str, float]:
    path = base / f"lg-{steps}.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        return langgraph_run(
            saver, steps, lambda: sum(p.stat().st_size for p in base.glob(f"lg-{steps}.sqlite*"))
        )
    finally:
        conn.close()


def postgres(dsn: str, steps: int) -> dict[str, float]:
    name = fresh_schema(dsn, tables=True)
    try:
        store = PostgresStore(dsn, schema=name)
        try:
            return seamhost_run(store, steps, schema_size(dsn, name))
        finally:
            store.close()
    finally:
        drop_schema(dsn, name)


def postgres_saver(dsn: str, steps: int) -> dict[str, float]:
    name = fresh_schema(dsn, tables=False)
    try:
        with PostgresSaver.from_conn_string(f"{dsn} options='-c search_path={name}'") as saver:
            saver.setup()
            return langgraph_run(saver, steps, schema_size(dsn, name))
    finally:
        drop_schema(dsn, name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100/1,000 steps, LangGraph 200")
    parser.add_argument("--langgraph-steps", type=int, default=None)
    args = parser.parse_args()
    small, large = (100, 1000) if args.quick else (1000, 10_000)
    lg_steps = args.langgraph_steps or (200 if args.quick else 1000)
    server, tried = find_server()
    if server is None:
        print("no PostgreSQL server: " + "; ".join(tried))
        return 1
    results: dict[str, dict[int, dict[str, float]]] = {}
    try:
        with tempfile.TemporaryDirectory(
            prefix="bench-lg-", dir=os.environ.get("BENCH_DIR")
        ) as tmp:
            base = Path(tmp)
            for steps in (small, large):
                results.setdefault("seamhost-jsonl", {})[steps] = jsonl(base, steps)
                results.setdefault("seamhost-postgres", {})[steps] = postgres(server.dsn, steps)
            for steps in (lg_steps // 2, lg_steps):
                results.setdefault("SqliteSaver", {})[steps] = sqlite(base, steps)
                results.setdefault("PostgresSaver", {})[steps] = postgres_saver(server.dsn, steps)
    finally:
        server.stop()
    print(f"\n{'store':18} {'steps':>6} {'ms/step':>8} {'storage':>12} {'resume ms':>10}")
    for name, by_steps in results.items():
        for steps, r in by_steps.items():
            print(
                f"{name:18} {steps:>6} {r['ms']:>8.3f} {r['bytes'] / 1e6:>10.3f}MB "
                f"{r['resume_ms']:>10.2f}"
            )
    rows = []
    for ours, theirs in (("seamhost-jsonl", "SqliteSaver"), ("seamhost-postgres", "PostgresSaver")):
        mine, other = results[ours], results[theirs]
        rows.append(
            Row(
                f"{ours[9:]} vs {theirs}: ms/step",
                mine[small]["ms"],
                other[lg_steps]["ms"],
                "",
                "< 1",
                mine[small]["ms"] < other[lg_steps]["ms"],
            )
        )
        rows.append(
            Row(
                f"{ours[9:]} vs {theirs}: MB at {lg_steps}",
                mine[small]["bytes"] / 1e6 * lg_steps / small,
                other[lg_steps]["bytes"] / 1e6,
                "",
                "< 1",
                mine[small]["bytes"] * lg_steps / small < other[lg_steps]["bytes"],
            )
        )
        growth = mine[large]["bytes"] / mine[small]["bytes"]
        rows.append(
            Row(
                f"{ours[9:]}: storage {large}/{small} steps",
                growth,
                large / small,
                "",
                "≤ 1.1 (linear)",
                growth <= 1.1 * large / small,
            )
        )
        theirs_growth = other[lg_steps]["bytes"] / other[lg_steps // 2]["bytes"]
        print(
            f"{theirs}: storage {lg_steps} / {lg_steps // 2} steps = {theirs_growth:.2f}x "
            f"(linear would be 2x); resume {other[lg_steps]['resume_ms']:.2f} ms at {lg_steps}"
        )
        print(
            f"{ours}: resume {mine[small]['resume_ms']:.2f} ms at {small} steps, "
            f"{mine[large]['resume_ms']:.2f} ms at {large}"
        )
    return report("seamhost vs LangGraph checkpointers (same machine, same run)", rows)


if __name__ == "__main__":
    sys.exit(main())
