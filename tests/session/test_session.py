"""The session core: envelope, seq and time, lossless data, freezing, types and the round trip."""

from __future__ import annotations

import math
import typing
from collections import OrderedDict
from enum import IntEnum
from typing import Any

import attrs
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost.errors import EventRejected, UnknownEventType
from seamhost.jsonvalue import thaw
from seamhost.session.codec import core_catalog, schema_of
from seamhost.session.events import (
    CORE_EVENTS,
    AssistantMessage,
    Event,
    ProposedCall,
    ToolResultEvent,
    TurnStart,
)
from seamhost.session.live import Session
from seamhost.session.memory import MemorySessionError, MemoryStore
from seamhost.session.record import MalformedRecord, Record, parse_envelope
from seamhost.session.store import SessionHeader


def header(session_id: str = "s1") -> SessionHeader:
    return SessionHeader(session_id, 1, "/", {"profile": "t"}, {"barriers": False})


def new_session(clock: Any = None, store: MemoryStore | None = None) -> Session:
    store = store or MemoryStore()
    kwargs = {"clock": clock} if clock else {}
    return Session(store.create(header()), **kwargs)


def test_seq_is_contiguous_from_zero_and_time_never_goes_back() -> None:
    times = iter([100, 90, 120, 119])
    session = new_session(clock=lambda: next(times))
    records = [session.append(TurnStart(turn=n)) for n in range(4)]
    assert [r.seq for r in records] == [0, 1, 2, 3]
    assert [r.time for r in records] == [100, 100, 120, 120]


def test_envelope_is_exactly_the_documented_shape() -> None:
    session = new_session(clock=lambda: 1700000000123)
    record = session.append(TurnStart(turn=1))
    assert (
        record.envelope() == b'{"seq":0,"type":"turn/start","time":1700000000123,"data":{"turn":1}}'
    )
    extra = session.append_data("x-telemetry/ping", {"n": 1}, ignorable=True)
    assert extra.envelope().endswith(b',"data":{"n":1},"ignorable":true}')


class Small(IntEnum):
    ONE = 1


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"v": math.nan}, "data.v"),
        ({"v": math.inf}, "data.v"),
        ({"v": [1, -0.0]}, "data.v[1]"),
        ({"v": {1: "x"}}, "data.v"),
        ({"v": 2**64}, "data.v"),
        ({"v": object()}, "data.v"),
        ({"v": Small.ONE}, "data.v"),
        ({"v": OrderedDict(a=1)}, "data.v"),
        ({"v": {"w": b"bytes"}}, "data.v.w"),
    ],
)
def test_lossy_data_is_rejected_and_nothing_is_committed(data: dict[str, Any], path: str) -> None:
    session = new_session()
    with pytest.raises(EventRejected) as info:
        session.append_data("x/y", data, ignorable=True)
    assert info.value.path == path
    assert session.next_seq == 0
    assert session.writer.existing() == []
    assert list(MemoryStore().list()) == []


@pytest.mark.parametrize("odd", [math.nan, 2**64, -0.0, {1: "x"}, (1, math.inf)])
def test_a_typed_event_with_lossy_data_is_rejected(odd: Any) -> None:
    # The schema pre-check answers for losslessness of typed events too (a Mapping field is a
    # FrozenDict): what it does not accept is still walked, and lossy data refused.
    session = new_session()
    event = ToolResultEvent(1, 1, "c1", False, "ok", meta={"k": odd}, value=odd)
    with pytest.raises(EventRejected, match=r"data\.(meta|value)"):
        session.append(event)
    assert session.next_seq == 0
    ok = session.append(ToolResultEvent(1, 1, "c1", False, "ok", meta={"k": (1, {"x": "y"})}))
    assert ok.data["meta"]["k"] == (1, {"x": "y"})


def test_known_types_are_validated_against_their_schema() -> None:
    session = new_session()
    with pytest.raises(EventRejected, match=r"data\.reason"):
        session.append_data("turn/end", {"turn": 1, "reason": "bored"})
    with pytest.raises(EventRejected, match=r"data\.turn"):
        session.append_data("turn/start", {"turn": "one"})
    assert session.next_seq == 0


def test_unknown_types_need_the_ignorable_flag() -> None:
    session = new_session()
    with pytest.raises(UnknownEventType, match="not marked ignorable"):
        session.append_data("plugin/thing", {})
    assert session.append_data("plugin/thing", {}, ignorable=True).ignorable


def test_a_committed_record_is_an_immutable_record() -> None:
    # Made as an assignable draft of its slots, then given its class: what comes out is a
    # plain immutable Record, equal to one made from the same envelope.
    record = new_session().append_data("turn/start", {"turn": 1})
    assert isinstance(record, Record)
    assert not hasattr(record, "__dict__")
    for name in ("seq", "type", "time", "ignorable", "_plain", "_frozen", "_line", "other"):
        with pytest.raises(AttributeError):
            setattr(record, name, 1)
    assert record == parse_envelope(record.envelope())
    assert (record.seq, record.type, record.ignorable, record.data_json) == (
        0,
        "turn/start",
        False,
        b'{"turn":1}',
    )


def test_committed_data_is_frozen() -> None:
    session = new_session()
    data: dict[str, Any] = {
        "turn": 1,
        "step": 1,
        "content": "hi",
        "source": "user",
        "extra": [1, {"a": 2}],
    }
    record = session.append_data("user/message", data)
    data["content"] = "changed"
    data["extra"][1]["a"] = 3
    assert record.data["content"] == "hi"
    assert record.data["extra"][1]["a"] == 2
    with pytest.raises(TypeError):
        record.data["content"] = "x"
    with pytest.raises(AttributeError):
        record.seq = 5


def test_the_writer_refuses_a_seq_gap() -> None:
    store = MemoryStore()
    writer = store.create(header())
    writer.submit(Record(0, "turn/start", 1, plain={"turn": 1}))
    with pytest.raises(MemorySessionError, match="not the next seq 1"):
        writer.submit(Record(2, "turn/start", 1, plain={"turn": 2}))


def test_one_writer_per_memory_session_and_reopening_sees_the_records() -> None:
    store = MemoryStore()
    session = new_session(store=store)
    session.append(TurnStart(turn=1))
    with pytest.raises(MemorySessionError, match="already has a writer"):
        store.open("s1")
    session.close()
    reopened = Session(store.open("s1"))
    assert [r.type for r in reopened.records] == ["turn/start"]
    assert reopened.append(TurnStart(turn=2)).seq == 1


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        b"[1, 2]",
        b'{"seq": -1, "type": "x", "time": 1, "data": {}}',
        b'{"seq": 0, "type": "", "time": 1, "data": {}}',
        b'{"seq": 0, "type": "x", "time": 1.5, "data": {}}',
        b'{"seq": 0, "type": "x", "time": 1, "data": []}',
        b'{"seq": 0, "type": "x", "time": 1, "data": {}, "ignorable": false}',
        b'{"seq": 0, "type": "x", "time": 1, "data": {}, "extra": 1}',
    ],
)
def test_malformed_envelopes_are_refused(line: bytes) -> None:
    with pytest.raises(MalformedRecord):
        parse_envelope(line)


# -- the round trip, for every core type --------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False).filter(
        lambda f: not (f == 0.0 and math.copysign(1.0, f) < 0)
    )
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def strategy_for(tp: Any) -> st.SearchStrategy[Any]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return json_values.filter(lambda v: v is not None)
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers(0, 2**40)
    if tp is str:
        return st.text(max_size=20)
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, __import__("types").UnionType):
        present = [a for a in args if a is not type(None)]
        return st.none() | strategy_for(present[0])
    if origin is tuple:
        return st.lists(strategy_for(args[0]), max_size=3).map(tuple)
    if attrs.has(tp):
        return instances_of(tp)
    return st.dictionaries(st.text(max_size=6), json_values, max_size=3)


def instances_of(cls: type) -> st.SearchStrategy[Any]:
    attrs.resolve_types(cls)
    return st.builds(cls, **{f.name: strategy_for(f.type) for f in attrs.fields(cls)})


events = st.one_of(*(instances_of(cls) for cls in CORE_EVENTS))


@settings(max_examples=300, deadline=None)
@given(events)
def test_every_core_event_round_trips(event: Event) -> None:
    catalog = core_catalog()
    session = new_session()
    record = session.append(event)
    catalog.validate(record.type, thaw(record.data))
    line = record.envelope()
    again = parse_envelope(line)
    assert again.envelope() == line, "re-encoding a parsed record is byte-identical"
    assert (again.seq, again.type, again.time) == (record.seq, record.type, record.time)
    assert catalog.structure(again.type, again.data) == event
    assert orjson.loads(line)["data"] == orjson.loads(record.data_json)


def test_optional_fields_are_omitted_when_unset() -> None:
    message = AssistantMessage(
        turn=1, step=1, content="", tool_calls=(ProposedCall("c", "t", "{}"),)
    )
    data = core_catalog().unstructure(message)
    assert data == {
        "turn": 1,
        "step": 1,
        "content": "",
        "tool_calls": [{"call_id": "c", "name": "t", "arguments": "{}"}],
    }


def test_every_core_type_has_a_schema_with_its_required_fields() -> None:
    for cls in CORE_EVENTS:
        schema = schema_of(cls)
        required = {f.name for f in attrs.fields(cls) if f.default is attrs.NOTHING}
        assert set(schema["required"]) == required, cls.TYPE


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(st.text(max_size=5), st.integers(-5, 5), st.booleans(), st.none()),
        max_size=4,
    ),
    st.sampled_from([None, "vendor/a", 'vendor/"data":', 'v,"data":{']),
)
def test_a_committed_record_keeps_one_envelope_and_reads_its_data_out_of_it(
    extra: dict[str, Any], vendor: str | None
) -> None:
    session = new_session()
    if vendor is None:  # a known type, not ignorable
        data = {**extra, "turn": 1}
        record = session.append_data("turn/start", data)
    else:  # an unknown type is taken only as ignorable; its name may look like a key
        data = extra
        record = session.append_data(vendor, data, ignorable=True)
    parsed = parse_envelope(record.envelope())
    assert record.data_json == orjson.dumps(data)
    assert thaw(record.data) == data
    assert parsed == record
    assert (parsed.seq, parsed.type, parsed.time, parsed.ignorable) == (
        record.seq,
        record.type,
        record.time,
        record.ignorable,
    )
    assert record.ignorable is (vendor is not None)
