"""The SQL of the store, bound once to its schema. The tables are specified in :mod:`.schema`.

Leases use the database clock (``clock_timestamp()``) only, never the writer's: a writer on a
host whose clock runs ahead or behind still expires and renews on the server's time.
"""

from __future__ import annotations

import attrs
from psycopg import sql

_SQL: dict[str, str] = {
    # -- writers: the first flush creates the row and takes the lease (epoch 1) ----------
    "insert_session": (
        "WITH created AS (INSERT INTO {s}.sessions (id, created, header, next_seq, size, "
        "modified, lease_epoch, lease_owner, lease_expires) VALUES (%(id)s, %(created)s, "
        "%(header)s, %(end)s, %(bytes)s, %(modified)s, 1, %(owner)s, clock_timestamp() + "
        "%(lease)s * interval '1 second') ON CONFLICT (id) DO NOTHING RETURNING id) "
        "INSERT INTO {s}.records (session_id, seq, epoch, crc, body) SELECT created.id, r.seq, "
        "1, r.crc, r.body FROM created, unnest(%(seqs)s::bigint[], %(crcs)s::bigint[], "
        "%(bodies)s::bytea[]) AS r(seq, crc, body)"
    ),
    # Later flushes: fenced by the epoch and the next seq, in the same statement as the insert.
    "append": (
        "WITH fence AS (UPDATE {s}.sessions SET next_seq = %(end)s, size = size + %(bytes)s, "
        "modified = %(modified)s, lease_expires = clock_timestamp() + %(lease)s * "
        "interval '1 second' WHERE id = %(id)s AND lease_epoch = %(epoch)s AND next_seq = "
        "%(first)s RETURNING id) INSERT INTO {s}.records (session_id, seq, epoch, crc, body) "
        "SELECT fence.id, r.seq, %(epoch)s, r.crc, r.body FROM fence, unnest(%(seqs)s::bigint[], "
        "%(crcs)s::bigint[], %(bodies)s::bytea[]) AS r(seq, crc, body)"
    ),
    "lease_state": (
        "SELECT lease_epoch, lease_owner, next_seq, "
        "extract(epoch FROM lease_expires - clock_timestamp()) FROM {s}.sessions WHERE id = %s"
    ),
    "acquire": (
        "WITH taken AS (UPDATE {s}.sessions SET lease_epoch = lease_epoch + 1, lease_owner = "
        "%(owner)s, lease_expires = clock_timestamp() + %(lease)s * interval '1 second' WHERE "
        "id = %(id)s AND (lease_owner IS NULL OR lease_expires < clock_timestamp()) RETURNING "
        "id, lease_epoch, next_seq) INSERT INTO {s}.leases (session_id, epoch, owner, "
        "first_seq, acquired) SELECT id, lease_epoch, %(owner)s, next_seq, clock_timestamp() "
        "FROM taken RETURNING epoch"
    ),
    "renew": (
        "UPDATE {s}.sessions SET lease_expires = clock_timestamp() + %(lease)s * "
        "interval '1 second' WHERE id = %(id)s AND lease_epoch = %(epoch)s RETURNING id"
    ),
    "release": (
        "UPDATE {s}.sessions SET lease_owner = NULL, lease_expires = NULL "
        "WHERE id = %(id)s AND lease_epoch = %(epoch)s"
    ),
    # Resume snapshots (:mod:`.snapshots`): fenced like "append", through the locked row.
    "snapshot_save": (
        "WITH fence AS (SELECT id FROM {s}.sessions WHERE id = %(id)s AND lease_epoch = "
        "%(epoch)s AND next_seq >= %(seq)s FOR SHARE) INSERT INTO {s}.snapshots (session_id, "
        "seq, epoch, last_digest, body, saved) SELECT fence.id, %(seq)s, %(epoch)s, "
        "%(digest)s, %(body)s, %(saved)s FROM fence ON CONFLICT (session_id) DO UPDATE SET "
        "seq = excluded.seq, epoch = excluded.epoch, last_digest = excluded.last_digest, "
        "body = excluded.body, saved = excluded.saved"
    ),
    # Its pieces, in the same transaction: the seq of the row it replaces, then the piece.
    "snapshot_seq": "SELECT seq FROM {s}.snapshots WHERE session_id = %s",
    "pieces_drop": "DELETE FROM {s}.snapshot_pieces WHERE session_id = %s AND start >= %s",
    "piece_add": "INSERT INTO {s}.snapshot_pieces (session_id, start, body) VALUES (%s, %s, %s)",
    # A session goes with its finished run (run_attempts, leases and records cascade), in one
    # statement, so one transaction; never while a queued or running run would drive it.
    "delete": (
        "WITH busy AS (SELECT id, state FROM {s}.runs WHERE session_id = %(id)s AND state IN "
        "('queued', 'running')), gone AS (DELETE FROM {s}.sessions WHERE id = %(id)s AND "
        "lease_epoch = %(epoch)s AND NOT EXISTS (SELECT 1 FROM busy) RETURNING id), "
        "finished AS (DELETE FROM {s}.runs WHERE session_id IN (SELECT id FROM gone)) "
        "SELECT id, state FROM busy"
    ),
    # -- readers -------------------------------------------------------------------------
    "exists": "SELECT 1 FROM {s}.sessions WHERE id = %s",
    "header": "SELECT header, next_seq, size, modified, id FROM {s}.sessions WHERE id = %s",
    "records_after": (
        "SELECT seq, crc, body FROM {s}.records WHERE session_id = %s AND seq >= %s "
        "AND seq < %s ORDER BY seq LIMIT %s"
    ),
    "record_body": "SELECT body FROM {s}.records WHERE session_id = %s AND seq = %s",
    "snapshot_find": (
        "SELECT s.seq, s.last_digest, s.body, r.body FROM {s}.snapshots s LEFT JOIN "
        "{s}.records r ON r.session_id = s.session_id AND r.seq = s.seq - 1 "
        "WHERE s.session_id = %s"
    ),
    "pieces": (
        "SELECT body FROM {s}.snapshot_pieces WHERE session_id = %s AND start < %s ORDER BY start"
    ),
    "ids": "SELECT id FROM {s}.sessions ORDER BY id",
    "list": "SELECT header, next_seq, size, modified, id FROM {s}.sessions ORDER BY created, id",
}


@attrs.frozen
class Queries:
    """Every statement of :data:`_SQL`, composed once with the schema's identifier (as bytes,
    so that no statement is composed again on the write path)."""

    composed: dict[str, bytes]

    @classmethod
    def for_schema(cls, schema: str) -> Queries:
        ident = sql.Identifier(schema)
        return cls(
            {name: sql.SQL(text).format(s=ident).as_bytes(None) for name, text in _SQL.items()}
        )

    def __getitem__(self, name: str) -> bytes:
        return self.composed[name]
