"""The record envelope: one JSON object per committed event.

``{"seq": n, "type": "...", "time": ms, "data": {...}}`` plus ``"ignorable": true`` on records a
reader may skip when it does not know their type. `seq` is contiguous from 0 and `time` (Unix
milliseconds) never goes backwards within a session. `data` is lossless JSON
(:mod:`seamhost.jsonvalue`), checked before a record exists and frozen afterwards: a record keeps
its data as JSON bytes or as a private parsed copy and hands out only read-only views.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any, NamedTuple

import orjson

from seamhost import jsonvalue
from seamhost.errors import SeamhostError
from seamhost.jsonvalue import FrozenDict


class Record:
    """One committed event. Immutable; equal when their envelopes are byte-identical."""

    __slots__ = ("_frozen", "_json", "_plain", "ignorable", "seq", "time", "type")

    seq: int
    type: str
    time: int
    ignorable: bool
    _json: bytes | None
    _plain: Any
    _frozen: FrozenDict | None

    def __init__(
        self,
        seq: int,
        type: str,
        time: int,
        *,
        data_json: bytes | None = None,
        plain: Any = None,
        ignorable: bool = False,
    ) -> None:
        if data_json is None and plain is None:
            raise TypeError("a Record needs its data as JSON bytes or as a parsed value")
        # The slots' own setters: __setattr__ refuses every assignment, and going through
        # object.__setattr__ costs a record half a microsecond more (records are the hot path).
        _set_seq(self, seq)
        _set_type(self, type)
        _set_time(self, time)
        _set_ignorable(self, ignorable)
        _set_json(self, data_json)
        _set_plain(self, plain)
        _set_frozen(self, None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Record is immutable; cannot set {name!r}")

    @property
    def data(self) -> FrozenDict:
        """The event data as a read-only mapping."""
        frozen = self._frozen
        if frozen is None:
            plain = self._plain if self._plain is not None else orjson.loads(self.data_json)
            frozen = jsonvalue.freeze(plain)
            _set_frozen(self, frozen)
        return frozen

    @property
    def data_json(self) -> bytes:
        """The event data as compact JSON bytes."""
        data_json = self._json
        if data_json is None:
            data_json = jsonvalue.dumps(self._plain)
            _set_json(self, data_json)
        return data_json

    def envelope(self) -> bytes:
        """The record as one line of JSON, without the newline."""
        type_json = _TYPE_JSON.get(self.type)
        if type_json is None:
            type_json = orjson.dumps(self.type)
            if len(_TYPE_JSON) < _TYPE_JSON_LIMIT:
                _TYPE_JSON[self.type] = type_json
        tail = b',"ignorable":true}' if self.ignorable else b"}"
        return b'{"seq":%d,"type":%b,"time":%d,"data":%b%b' % (
            self.seq,
            type_json,
            self.time,
            self.data_json,
            tail,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "type": self.type, "time": self.time}
        out["data"] = jsonvalue.thaw(self.data)
        if self.ignorable:
            out["ignorable"] = True
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return self.envelope() == other.envelope()

    def __hash__(self) -> int:
        return hash((self.seq, self.type, self.time))

    def __repr__(self) -> str:
        return f"Record(seq={self.seq}, type={self.type!r}, time={self.time})"


_set_seq = Record.__dict__["seq"].__set__
_set_type = Record.__dict__["type"].__set__
_set_time = Record.__dict__["time"].__set__
_set_ignorable = Record.__dict__["ignorable"].__set__
_set_json = Record.__dict__["_json"].__set__
_set_plain = Record.__dict__["_plain"].__set__
_set_frozen = Record.__dict__["_frozen"].__set__
_new = object.__new__


class _Committed(Record):
    """A record the live session committed: it keeps its envelope line, serialised once with
    its data, and reads its data JSON out of that line when asked (readers seldom ask)."""

    __slots__ = ("_line",)

    _line: bytes

    # Seven slots set, not eight: `_json` stays unset (`data_json` reads it out of the line).
    # Every slot the base class reads is set: reading an unset one raises, which cost a
    # replay's first read of each record's data a microsecond (measured).
    @property
    def data_json(self) -> bytes:
        return committed_data_json(self._line, self.ignorable)

    def envelope(self) -> bytes:
        return self._line


class _Parsed(Record):
    """A record a reader built in bulk from a parsed envelope (:func:`plain_records`): its
    parsed data set, `_json` left unset (one slot fewer on every record of every read); its
    data JSON is made again when asked for (readers seldom ask)."""

    __slots__ = ()  # none of its own: a `_ParsedDraft` becomes one by __class__ assignment

    @property
    def data_json(self) -> bytes:
        return jsonvalue.dumps(self._plain)


# Drafts: a record while it is filled in, with its class's slots and without the immutability,
# so that each slot is stored by plain attribute assignment (which the interpreter specialises)
# instead of a call to the slot's setter; the filled-in draft then takes its class by
# ``__class__`` assignment, which Python allows between classes of the same base and slots. A
# bulk-read record costs about 115 ns so made, 305 through the setters; an append's record 0.18
# against 0.41 µs (measured; design.md §9).


class _ParsedDraft(Record):
    """A `_Parsed` record while `plain_records` fills it in."""

    __slots__ = ()
    __setattr__ = object.__setattr__  # type: ignore[assignment]  # the generic one, specialised


class _CommittedDraft(Record):
    """A `_Committed` record while `committed_record` fills it in."""

    __slots__ = ("_line",)
    __setattr__ = object.__setattr__  # type: ignore[assignment]  # the generic one, specialised

    _line: bytes


def committed_data_json(line: bytes, ignorable: bool) -> bytes:
    """The data JSON of a committed envelope `line` (see :func:`committed_record`)."""
    # The type is a JSON string, where '"' is always escaped: the first ',"data":' is the key.
    return line[line.index(b',"data":') + 8 : -18 if ignorable else -1]


class Columns(NamedTuple):
    """Records the live session committed, [first, first + len(types)), as columns: type, time,
    envelope line (``CommittedRecords.columns``)."""

    first: int
    types: list[str]
    times: list[int]
    lines: list[bytes]
    ignorable: Container[int]  # the seqs of the ignorable ones

    def data_json(self, index: int) -> bytes:
        """The data JSON of the record at `index` (of these columns)."""
        return committed_data_json(self.lines[index], self.first + index in self.ignorable)


def committed_record(seq: int, type: str, time: int, line: bytes, *, ignorable: bool) -> Record:
    """The record of an envelope `line` the live session has just serialised from checked data
    (``{"seq":…,"type":…,"time":…,"data":…}``, then ``"ignorable":true`` when it is): the
    envelope is made once, with the data, instead of once for the data and again around it."""
    record = _new(_CommittedDraft)
    record.seq = seq
    record.type = type
    record.time = time
    record.ignorable = ignorable
    record._plain = None
    record._frozen = None
    record._line = line
    record.__class__ = _Committed  # type: ignore[assignment]
    return record


def plain_records(
    lines: bytes | memoryview, seq: int, known: Container[str]
) -> list[Record] | None:
    """The records of `lines` (envelope lines joined by "\\n", no last line break), built in
    bulk, when every line plainly holds an envelope, their seqs run from `seq` on and each
    type is in `known` or the record is ``ignorable``.

    The lines are parsed as one JSON array (one call, not one per line) of one array per line:
    a record's line never holds a raw line break, so each line becomes one element, and an
    element of exactly one value is a line of exactly one value. (With a bare comma between the
    lines, a line holding two envelopes and a record split over two lines would parse as
    records too, as many as the lines, where `parse_envelope` refuses the lines.) None when
    anything is irregular; the caller then judges line by line with `parse_envelope`, which says
    what is wrong. What this accepts, `parse_envelope` accepts too, with the same fields.
    `lines` may be a view of a larger buffer (a reader's frame): it is copied twice, once
    bracketed and once with ``],`` and ``[`` around each line break, which also counts the line
    breaks (the length grows by three a break; `bytes.count` would read the lines a third time,
    a byte at a time).
    """
    array = b"".join((b"[[", lines, b"]]"))
    spread = array.replace(b"\n", b"],\n[")
    count = (len(spread) - len(array)) // 3 + 1
    del array
    try:
        parsed = orjson.loads(spread)
    except orjson.JSONDecodeError:
        return None
    if len(parsed) != count:
        return None
    records: list[Any] = []
    append = records.append
    # Locals, not globals, in the loop below: it runs once per record of every read.
    new, draft, cls, unset = _new, _ParsedDraft, _Parsed, None
    for line in parsed:
        if len(line) != 1:  # the line held two values, or none
            return None
        obj = line[0]
        try:  # a JSON array, string or number raises TypeError; a missing key, KeyError
            at, type_, time, data = obj["seq"], obj["type"], obj["time"], obj["data"]
        except (KeyError, TypeError):
            return None
        ignorable = False
        if len(obj) != 4:
            if len(obj) != 5 or obj.get("ignorable") is not True:
                return None
            ignorable = True
        if not (
            type(at) is int
            and at == seq
            and type(type_) is str
            and type_
            and (ignorable or type_ in known)
            and type(time) is int
            and time >= 0
            and type(data) is dict
        ):
            return None
        record = new(draft)  # every slot the record's readers touch is set (only `_json` is not)
        record.seq = seq
        record.type = type_
        record.time = time
        record.ignorable = ignorable
        record._plain = data
        record._frozen = unset
        record.__class__ = cls  # type: ignore[assignment]
        append(record)
        seq += 1
    return records


# A type's JSON string, encoded once: the few event types repeat in every envelope.
_TYPE_JSON: dict[str, bytes] = {}
_TYPE_JSON_LIMIT = 1024  # a log of ever-new types must not grow this without bound


class MalformedRecord(SeamhostError, ValueError):
    """A line is not a valid record envelope; `problem` says what is wrong."""

    problem: str

    def __str__(self) -> str:
        return self.problem


_ENVELOPE_KEYS = frozenset({"seq", "type", "time", "data", "ignorable"})


def parse_envelope(line: bytes) -> Record:
    """Parse one envelope line. Raises `MalformedRecord` for anything that is not one."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise MalformedRecord(f"not JSON: {exc}") from exc
    if type(obj) is not dict:
        raise MalformedRecord("a record must be a JSON object")
    if not _ENVELOPE_KEYS.issuperset(obj):
        raise MalformedRecord(f"unexpected envelope keys {sorted(set(obj) - _ENVELOPE_KEYS)}")
    seq, type_, time, data = obj.get("seq"), obj.get("type"), obj.get("time"), obj.get("data")
    if type(seq) is not int or seq < 0:
        raise MalformedRecord("seq must be a non-negative integer")
    if type(type_) is not str or not type_:
        raise MalformedRecord("type must be a non-empty string")
    if type(time) is not int or time < 0:
        raise MalformedRecord("time must be a non-negative integer (Unix ms)")
    if type(data) is not dict:
        raise MalformedRecord("data must be a JSON object")
    ignorable = obj.get("ignorable", False)
    if ignorable is not True and "ignorable" in obj:
        raise MalformedRecord('"ignorable" may only be true (or absent)')
    return Record(seq, type_, time, plain=data, ignorable=bool(ignorable))
