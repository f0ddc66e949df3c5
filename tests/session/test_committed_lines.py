"""The live session keeps the records it commits as their envelope lines (session/lines.py)."""

from __future__ import annotations

import gc

import pytest

from seamhost.session.lines import CommittedRecords
from seamhost.session.live import Session
from seamhost.session.memory import MemoryStore
from seamhost.session.record import Record
from seamhost.testing.persistence import make_header


def test_records_made_again_from_their_lines_equal_the_committed_ones() -> None:
    session = Session(MemoryStore().create(make_header("s")))
    made = [
        session.append_data("turn/start", {"turn": 1}),
        session.append_data("vendor/x", {"k": [1, "two", None]}, ignorable=True),
        session.append_data("step/start", {"turn": 1, "step": 1}),
    ]
    records = session.records
    assert list(records) == made
    assert [records[i] for i in range(3)] == made == list(records[0:3])
    assert records[-2].ignorable
    assert not records[-1].ignorable
    assert records[1].to_json()["data"] == {"k": [1, "two", None]}
    assert records[1].to_json() == made[1].to_json()
    assert records[::2] == [made[0], made[2]]
    with pytest.raises(IndexError):
        records[3]


class DroppingWriter:
    """A writer that keeps nothing (the memory store's keeps every record it is handed)."""

    header = make_header("s")
    torn_records = 0

    def submit(self, record: Record) -> None:
        pass

    def existing(self) -> list[Record]:
        return []

    def close(self) -> None:
        pass


def test_no_committed_record_is_kept_alive_by_the_session() -> None:
    # What the session keeps of a committed record is bytes, str and int, which the collector
    # does not track: holding 10k records' worth adds no tracked objects.
    session = Session(DroppingWriter())  # type: ignore[arg-type]
    session.append_data("turn/start", {"turn": 1})
    gc.collect()
    before = sum(isinstance(o, Record) for o in gc.get_objects())
    for step in range(10_000):
        session.append_data("step/start", {"turn": 1, "step": step})
    gc.collect()
    after = sum(isinstance(o, Record) for o in gc.get_objects())
    assert after - before <= 2  # the last of each type (Session.last)
    assert len(session.records) == 10_001


def test_the_opened_records_come_first_and_appends_follow() -> None:
    opened = [Record(0, "turn/start", 5, plain={"turn": 1})]
    records = CommittedRecords(opened)
    records.append(Record(1, "step/start", 6, plain={"turn": 1, "step": 1}))
    with pytest.raises(ValueError, match="does not follow"):
        records.append(Record(5, "step/start", 6, plain={"turn": 1, "step": 2}))
    assert [r.seq for r in records] == [0, 1]
    assert records[0] is opened[0]
    assert records[1].data == {"turn": 1, "step": 1}
    assert records[0:2] == [opened[0], records[1]]


def test_iterating_sees_records_committed_meanwhile() -> None:
    session = Session(MemoryStore().create(make_header("s")))
    session.append_data("turn/start", {"turn": 1})
    seen = []
    for record in session.records:
        seen.append(record.seq)
        if record.seq < 3:
            session.append_data("step/start", {"turn": 1, "step": record.seq + 1})
    assert seen == [0, 1, 2, 3]


def test_every_slice_is_the_slice_of_the_records_one_by_one() -> None:
    # Slices are made in bulk: across the opened records and the committed ones, with ignorable
    # records among them, empty and reversed ranges included, each equals indexing one by one.
    opened = [
        Record(0, "turn/start", 5, plain={"turn": 1}),
        Record(1, "vendor/y", 5, plain={}, ignorable=True),
    ]
    records = CommittedRecords(opened)
    for seq in range(2, 8):
        ignorable = seq % 3 == 0
        kind = "vendor/x" if ignorable else "step/start"
        records.append(Record(seq, kind, 6, plain={"turn": 1, "step": seq}, ignorable=ignorable))
    one_by_one = [records[i] for i in range(len(records))]
    for first in range(-2, len(records) + 2):
        for stop in range(-2, len(records) + 2):
            made = records[first:stop]
            assert made == one_by_one[first:stop], (first, stop)
            assert [r.ignorable for r in made] == [r.ignorable for r in one_by_one[first:stop]]
