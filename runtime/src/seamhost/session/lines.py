"""A live session's records, those committed since it opened kept as their envelope lines.

A :class:`~seamhost.session.record.Record` is an object the garbage collector tracks; a session
that keeps one per committed event makes every collection walk them all, which cost an append
about 0.75 µs at 140k records (measured: docs/design.md §9, the append benchmark). The line, a
``bytes``, is not tracked. :class:`CommittedRecords` therefore keeps, for each record committed
since the session opened, its type, time and envelope line, and makes the record again from them
whenever one is asked for: equal to the one `Session.append` returned (records are equal when
their envelopes are), though not the same object. The records the session was opened with (a
list, or :class:`~seamhost.session.resumed.ResumedRecords`) are kept as they came.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, overload

from seamhost.session.record import Columns, committed_record

if TYPE_CHECKING:
    from seamhost.session.record import Record
    from seamhost.session.resumed import RecordList


class CommittedRecords:
    """The records of a live session: `opened`, then those committed since (by `commit`)."""

    __slots__ = ("_ignorable", "_lines", "_opened", "_start", "_times", "_types")

    def __init__(self, opened: RecordList) -> None:
        self._opened = opened
        self._start = len(opened)
        self._types: list[str] = []
        self._times: list[int] = []
        self._lines: list[bytes] = []
        self._ignorable: set[int] = set()  # the seqs of the ignorable ones (rare)

    @property
    def loaded(self) -> bool:
        """Whether every record is in memory (none is read from the store on demand)."""
        return bool(getattr(self._opened, "loaded", True))

    def commit(self, type_: str, time: int, line: bytes, ignorable: bool) -> None:
        """Keep the record just committed at seq ``len(self)``."""
        if ignorable:
            self._ignorable.add(self._start + len(self._lines))
        self._types.append(type_)
        self._times.append(time)
        self._lines.append(line)

    def append(self, record: Record) -> None:
        """Keep `record`, which must come at seq ``len(self)``."""
        if record.seq != len(self):
            raise ValueError(f"record seq {record.seq} does not follow {len(self) - 1}")
        self.commit(record.type, record.time, record.envelope(), record.ignorable)

    def __len__(self) -> int:
        return self._start + len(self._lines)

    def size(self) -> int:
        """The bytes of every record's envelope line, a line break after each."""
        opened = sum(len(record.envelope()) + 1 for record in self._opened)
        return opened + sum(map(len, self._lines)) + len(self._lines)

    def columns(self, first: int, stop: int) -> Columns | None:
        """The records [first, stop) as the session committed them, without making a record of
        each (a snapshot's fold reads them so); None when some of them are not committed here
        (the records the session was opened with)."""
        start = self._start
        if first < start or stop > len(self):
            return None
        low, high = first - start, stop - start
        return Columns(
            first,
            self._types[low:high],
            self._times[low:high],
            self._lines[low:high],
            self._ignorable,
        )

    def _made(self, index: int) -> Record:
        seq = self._start + index
        return committed_record(
            seq,
            self._types[index],
            self._times[index],
            self._lines[index],
            ignorable=seq in self._ignorable,
        )

    @overload
    def __getitem__(self, index: int) -> Record: ...
    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...
    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        start = self._start
        if isinstance(index, slice):
            first, stop, step = index.indices(len(self))
            if step != 1:
                return list(self)[index]
            head = self._opened[first:stop] if first < start else []
            low, high = max(first, start) - start, stop - start
            if high <= low:
                return head
            # One comprehension, not a method call and a generator step per record: a third
            # less (a snapshot's fold slices every record the session commits).
            ignorable = self._ignorable
            made = [
                committed_record(seq, type_, time, line, ignorable=seq in ignorable)
                for seq, type_, time, line in zip(
                    range(start + low, start + high),
                    self._types[low:high],
                    self._times[low:high],
                    self._lines[low:high],
                    strict=True,
                )
            ]
            return head + made if head else made
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("record index out of range")
        if index < start:
            return self._opened[index]
        return self._made(index - start)

    def __iter__(self) -> Iterator[Record]:
        yield from self._opened
        index = 0
        while index < len(self._lines):  # as a list's iterator, it sees records appended meanwhile
            yield self._made(index)
            index += 1


__all__ = ["CommittedRecords"]
