"""The tables persistence-postgres keeps in its schema, their version, and `migrate`.

Layout (schema version 4), all in the configured schema (default ``seamhost``):

* ``meta(key, value)``: ``schema_version``, checked before anything else is read; a newer one
  says "upgrade seamhost", an older one or none says "run `seamhost store migrate`".
* ``sessions``: one row per session, written by the session's first flush: its id, ``created``
  (for listing oldest first), the header (lossless JSON bytes), ``next_seq`` (the count of
  stored records), ``size`` and ``modified``, and the lease: ``lease_epoch`` (raised by one at
  every acquisition), ``lease_owner`` and ``lease_expires`` (from the database clock, so that
  writers on hosts whose clocks disagree still agree on who holds it).
* ``records``: one row per record, keyed ``(session_id, seq)`` so that "the records after seq
  N" is an index range; ``body`` is the envelope as written, ``crc`` its CRC-32 (damage to a
  row reads as corruption, never as another record), ``epoch`` the lease epoch that wrote it.
* ``leases``: every takeover (epoch 2 on): who took the session over, when, and ``first_seq``,
  the session's ``next_seq`` at that moment. Records of an older epoch all lie before it; an
  operator reads the takeovers there, and the chaos tests check the fence against it.
* ``snapshots`` (version 2 on): the resume snapshot of a session, at most one, replaced as the
  session grows: ``seq`` (it covers the records before it), ``last_digest`` (the SHA-256 of
  the stored bytes of record ``seq - 1``), the ``epoch`` that saved it, ``saved`` (Unix ms)
  and ``body``, the kernel's document (see :mod:`.snapshots`). Deleting the session deletes it.
* ``snapshot_pieces`` (version 3 on): the pieces of that snapshot (``SnapshotPiece``), one row
  per piece keyed ``(session_id, start)``: ``start`` is the seq the piece starts at, ``body`` the
  kernel's bytes. The snapshot's pieces are the rows with ``start`` below its ``seq``, in order;
  saving one deletes the rows from its ``start`` on and inserts it, so keeping them costs the
  piece's size. Deleting the session deletes them.
* ``runs``: the run queue of `seamhost submit` and `seamhost worker` (see :mod:`.runs`);
  ``workspace`` (version 4 on) is the directory `submit --workspace` gave the run, NULL for a
  directory of the worker's own.
* ``run_attempts`` (version 4 on): one row per claim of a run, keyed ``(run_id, claim)``: the
  worker, when it claimed the run, and when and how its claim ended (``ended`` NULL: the worker
  died or stalled, and its claim lapsed). Deleting nothing: a run's history is kept with it.

A flush is one statement in autocommit, so one transaction: a CTE updates the session row
only if the writer's epoch is still the current one and ``next_seq`` is where the batch
starts, and inserts the records only through that row. A writer fenced out inserts nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from psycopg import sql

from seamhost_persistence_postgres.errors import StoreUnusable

if TYPE_CHECKING:
    import psycopg

# 2 added `snapshots`, 3 `snapshot_pieces`, 4 `runs.workspace` and `run_attempts`; `migrate`
# brings 1, 2 and 3 to it.
SCHEMA_VERSION = 4

_TABLES = """
CREATE TABLE IF NOT EXISTS {s}.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS {s}.sessions (
    id text PRIMARY KEY,
    created bigint NOT NULL,
    header bytea NOT NULL,
    next_seq bigint NOT NULL DEFAULT 0,
    size bigint NOT NULL DEFAULT 0,
    modified bigint,
    lease_epoch bigint NOT NULL DEFAULT 0,
    lease_owner text,
    lease_expires timestamptz
);
CREATE INDEX IF NOT EXISTS sessions_created ON {s}.sessions (created, id);
CREATE TABLE IF NOT EXISTS {s}.records (
    session_id text NOT NULL REFERENCES {s}.sessions (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    epoch bigint NOT NULL,
    crc bigint NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS {s}.leases (
    session_id text NOT NULL REFERENCES {s}.sessions (id) ON DELETE CASCADE,
    epoch bigint NOT NULL,
    owner text NOT NULL,
    first_seq bigint NOT NULL,
    acquired timestamptz NOT NULL,
    PRIMARY KEY (session_id, epoch)
);
CREATE TABLE IF NOT EXISTS {s}.snapshots (
    session_id text PRIMARY KEY REFERENCES {s}.sessions (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    epoch bigint NOT NULL,
    last_digest text NOT NULL,
    body bytea NOT NULL,
    saved bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS {s}.snapshot_pieces (
    session_id text NOT NULL REFERENCES {s}.sessions (id) ON DELETE CASCADE,
    start bigint NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (session_id, start)
);
CREATE TABLE IF NOT EXISTS {s}.runs (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL UNIQUE,
    state text NOT NULL,
    scenario bytea,
    scenario_name text,
    prompt text,
    submitted timestamptz NOT NULL DEFAULT clock_timestamp(),
    started timestamptz,
    finished timestamptz,
    worker text,
    claims integer NOT NULL DEFAULT 0,
    claim_expires timestamptz,
    progress text NOT NULL DEFAULT '',
    outcome text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_claimable ON {s}.runs (state, id);
ALTER TABLE {s}.runs ADD COLUMN IF NOT EXISTS workspace text;
CREATE TABLE IF NOT EXISTS {s}.run_attempts (
    run_id bigint NOT NULL REFERENCES {s}.runs (id) ON DELETE CASCADE,
    claim integer NOT NULL,
    worker text NOT NULL,
    claimed timestamptz NOT NULL,
    ended timestamptz,
    how text,
    PRIMARY KEY (run_id, claim)
);
"""


def identifier(schema: str) -> sql.Identifier:
    return sql.Identifier(schema)


def schema_version(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> int | None:
    """The schema's recorded version, or None when the schema or its tables are not there."""
    row = conn.execute(
        "SELECT to_regclass(format('%%I.meta', %s::text)) IS NOT NULL", (schema,)
    ).fetchone()
    if not row or not row[0]:
        return None
    found = conn.execute(
        sql.SQL("SELECT value FROM {}.meta WHERE key = 'schema_version'").format(identifier(schema))
    ).fetchone()
    return int(str(found[0])) if found else None


def check_schema(conn: psycopg.Connection[tuple[object, ...]], schema: str, where: str) -> None:
    """Refuse a schema this seamhost cannot use: missing, older or newer than it writes."""
    found = schema_version(conn, schema)
    if found is None:
        raise StoreUnusable(
            where,
            "schema",
            f"schema {schema!r} holds no seamhost tables; create them with "
            "`seamhost store migrate --profile P`",
        )
    if found > SCHEMA_VERSION:
        raise StoreUnusable(
            where,
            "schema",
            f"schema {schema!r} is at version {found}, newer than version {SCHEMA_VERSION} "
            "which this seamhost uses; upgrade seamhost",
        )
    if found < SCHEMA_VERSION:
        raise StoreUnusable(
            where,
            "schema",
            f"schema {schema!r} is at version {found}; bring it to version {SCHEMA_VERSION} "
            "with `seamhost store migrate --profile P`",
        )


def migrate(conn: psycopg.Connection[tuple[object, ...]], schema: str, where: str) -> int | None:
    """Create or upgrade the schema's tables to `SCHEMA_VERSION`; the version found before.

    Idempotent, in one transaction, under an advisory lock so that two `migrate` at once do
    not race. A newer schema is refused, untouched. Every table is created if missing, so an
    older schema gains the tables of the versions after it (1 -> 2: ``snapshots``; 2 -> 3:
    ``snapshot_pieces``; 3 -> 4: ``runs.workspace``, NULL in the rows there, and
    ``run_attempts``, empty) and keeps its rows: a version 2 schema's snapshots stay
    valid (they were saved without pieces, and read back with none).
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"seamhost:{schema}",))
        before = schema_version(conn, schema)
        if before is not None and before > SCHEMA_VERSION:
            check_schema(conn, schema, where)
        ident = identifier(schema)
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident))
        conn.execute(sql.SQL(_TABLES).format(s=ident))
        conn.execute(
            sql.SQL(
                "INSERT INTO {}.meta (key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ).format(ident),
            (str(SCHEMA_VERSION),),
        )
    return before
