"""Records built in bulk by readers: never accepted where parse_envelope would refuse or differ."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost.session.record import MalformedRecord, Record, parse_envelope, plain_records

KNOWN = frozenset({"turn/start", "tool/call"})
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=3), st.just({}), st.just([])
)


@st.composite
def envelope(draw: st.DrawFn, seq: int) -> dict[str, Any]:
    """An envelope object for `seq`, now and then bent out of shape."""
    obj: dict[str, Any] = {
        "seq": seq,
        "type": draw(st.sampled_from([*sorted(KNOWN), "vendor/x", ""])),
        "time": draw(st.integers(0, 10)),
        "data": draw(st.dictionaries(st.text(max_size=2), VALUES, max_size=2)),
    }
    if draw(st.booleans()):
        obj["ignorable"] = draw(st.sampled_from([True, True, False, 1, None]))
    for _ in range(draw(st.integers(0, 2))):
        action = draw(st.sampled_from(["retype", "drop", "extra", "reorder", "reseq"]))
        key = draw(st.sampled_from(sorted(obj))) if obj else "seq"
        if action == "retype":
            obj[key] = draw(VALUES)
        elif action == "drop":
            obj.pop(key, None)
        elif action == "extra":
            obj[draw(st.text(max_size=3))] = 1
        elif action == "reorder":
            obj = dict(reversed(list(obj.items())))
        else:
            obj["seq"] = seq + draw(st.sampled_from([-1, 1, 2]))
    return obj


@st.composite
def chunks(draw: st.DrawFn) -> tuple[int, list[bytes]]:
    first = draw(st.integers(0, 5))
    count = draw(st.integers(1, 4))
    lines = [orjson.dumps(draw(envelope(first + i))) for i in range(count)]
    if draw(st.integers(0, 9)) == 0:  # not an object, or two on one line
        lines[draw(st.integers(0, count - 1))] = draw(
            st.sampled_from([b"[1]", b'"x"', b"3", b"null", b"{}", lines[0] + b"," + lines[0]])
        )
    return first, lines


@settings(max_examples=500, deadline=None)
@given(chunks())
def test_what_is_built_in_bulk_is_what_parse_envelope_reads(case: tuple[int, list[bytes]]) -> None:
    first, lines = case
    records = plain_records(b"\n".join(lines), first, KNOWN)
    if records is None:
        return
    assert len(records) == len(lines)
    for index, (record, line) in enumerate(zip(records, lines, strict=True)):
        try:
            expected = parse_envelope(line)
        except MalformedRecord as exc:
            raise AssertionError(f"built in bulk, refused alone: {line!r} ({exc})") from None
        assert record.seq == first + index == expected.seq
        assert (record.type, record.time, record.ignorable) == (
            expected.type,
            expected.time,
            expected.ignorable,
        )
        assert record.data == expected.data
        assert record.data_json == expected.data_json
        assert record.to_json() == expected.to_json()
        assert record.envelope() == expected.envelope()
        assert record.type in KNOWN or record.ignorable


def test_plain_lines_in_the_writers_key_order_are_built_in_bulk() -> None:
    lines = [
        b'{"seq":3,"type":"turn/start","time":5,"data":{"turn":1}}',
        b'{"seq":4,"type":"vendor/x","time":5,"data":{},"ignorable":true}',
    ]
    records = plain_records(b"\n".join(lines), 3, KNOWN)
    assert records is not None
    assert [r.envelope() for r in records] == lines


def test_anything_irregular_is_left_to_the_line_by_line_reader() -> None:
    good = b'{"seq":0,"type":"turn/start","time":5,"data":{}}'
    for chunk, seq in [
        (good, 1),  # not the seq expected
        (good.replace(b"turn/start", b"vendor/x"), 0),  # unknown and not ignorable
        (good.replace(b'"time":5', b'"time":-1'), 0),
        (good.replace(b"{}", b"[]"), 0),
        (good + b"\n" + good, 0),  # the second line repeats seq 0
        (good[:-1] + b',"ignorable":false}', 0),
        (good + b"\n", 0),  # an empty line
        (b"not json", 0),
    ]:
        assert plain_records(chunk, seq, KNOWN) is None, chunk


def test_lines_are_judged_one_by_one_even_when_they_parse_together() -> None:
    # A line of two envelopes and a record split over two lines: as many values as lines, and
    # a bare comma between the lines would parse them as three records; parse_envelope refuses
    # the first and the last two lines.
    envelope = b'{"seq":%d,"type":"turn/start","time":0,"data":{"turn":1}}'
    lines = [
        envelope % 0 + b"," + envelope % 1,
        b'{"seq":2,"type":"turn/start","time":0,"data":{"turn":1,"a":[1',
        b"2]}}",
    ]
    for line in lines:
        with pytest.raises(MalformedRecord):
            parse_envelope(line)
    assert plain_records(b"\n".join(lines), 0, KNOWN) is None
    nested = [b'{"seq":0,"type":"turn/start","time":0,"data":{"a":[[1', b"2]]}}"]
    assert plain_records(b"\n".join(nested), 0, KNOWN) is None  # one value over two lines


def test_records_built_in_bulk_are_immutable_records() -> None:
    lines = [
        b'{"seq":0,"type":"turn/start","time":5,"data":{"turn":1,"a":[1]}}',
        b'{"seq":1,"type":"vendor/x","time":6,"data":{},"ignorable":true}',
    ]
    records = plain_records(b"\n".join(lines), 0, KNOWN)
    assert records is not None
    for record in records:
        assert isinstance(record, Record)
        assert not hasattr(record, "__dict__")
        for name in ("seq", "type", "time", "ignorable", "data", "_plain", "_frozen", "other"):
            with pytest.raises(AttributeError):
                setattr(record, name, 1)
    first, second = records
    assert (first.seq, first.type, first.time, first.ignorable) == (0, "turn/start", 5, False)
    assert (second.seq, second.type, second.time, second.ignorable) == (1, "vendor/x", 6, True)
    assert first.data is first.data  # frozen once, then kept
    with pytest.raises(TypeError):
        first.data["turn"] = 2
    assert first.data_json == b'{"turn":1,"a":[1]}'
