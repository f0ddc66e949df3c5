"""The fused encoders of typed events: the data cattrs makes, and only ever lossless data.

`Session.append` trusts a fused encoder's answer in place of the lossless walk, so each must
(1) build exactly the dict the cattrs converter builds, and (2) answer only for data the walk
passes; anything else is ``None``, and the generic path judges (and words the refusal).
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, ClassVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost.errors import EventRejected
from seamhost.jsonvalue import INT64_MAX, INT64_MIN, FrozenDict, is_lossless
from seamhost.session.codec import core_catalog
from seamhost.session.events import (
    CORE_EVENTS,
    AssistantMessage,
    Event,
    ToolCall,
    ToolDispatch,
    ToolError,
    ToolResultEvent,
)
from seamhost.session.live import Session
from seamhost.session.memory import MemoryStore
from seamhost.session.store import SessionHeader

CATALOG = core_catalog()
FUSED = [cls for cls in CORE_EVENTS if CATALOG.encoder(cls) is not None]


class Mode(enum.StrEnum):
    READ = "read-only"


class Text(str):
    pass


# Values of every kind a field may be handed, lossless or not, of its type or not.
ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(INT64_MIN, INT64_MAX),
    st.sampled_from([2**63, -(2**63) - 1, 2**64]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(-0.0),
    st.text(max_size=4),
    st.just(Text("x")),
    st.just(Mode.READ),
    st.sampled_from(["read-only", "write", "completed", "allowed-once", "ask", "result"]),
    st.just(("a", 1)),
    st.just({"k": [1, {"n": None}]}),
    st.just(FrozenDict({"decisions": (FrozenDict({"stage": "policy"}),)})),
    st.just({1: "a"}),
    st.just({"k": float("nan")}),
    st.just({"k": 2**64}),
    st.just(ToolError("E", "m")),
    st.just(ToolError("E", Text("m"))),
)


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(INT64_MIN, INT64_MAX), st.text(max_size=3)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def typed(tp: Any) -> st.SearchStrategy[Any]:
    """Lossless values of field type `tp`, as the runtime hands them over."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return st.one_of([typed(arg) for arg in typing.get_args(tp)])
    if typing.get_origin(tp) is typing.Literal:
        return st.sampled_from(typing.get_args(tp))
    if attrs.has(tp):
        return st.builds(tp, **{f.name: typed(f.type) for f in attrs.fields(tp)})
    simple = {
        int: st.integers(INT64_MIN, INT64_MAX),
        str: st.text(max_size=4),
        bool: st.booleans(),
        type(None): st.none(),
    }
    return simple.get(tp, JSON)


@st.composite
def events(draw: st.DrawFn, cls: type) -> Any:
    """Events of `cls`, most fields of their declared type, some handed anything at all."""
    attrs.resolve_types(cls)
    values = {
        f.name: draw(typed(f.type) if draw(st.integers(0, 9)) < 8 else ANY)
        for f in attrs.fields(cls)
    }
    return cls(**values)


def test_the_governed_calls_records_have_fused_encoders() -> None:
    # The three records of every governed call: the reason the encoders exist.
    assert {ToolCall, ToolDispatch, ToolResultEvent} <= set(FUSED)
    assert CATALOG.encoder(AssistantMessage) is None  # a tuple of classes: the generic path


@pytest.mark.parametrize("cls", FUSED, ids=lambda cls: cls.__name__)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_an_encoder_answers_only_for_lossless_data_and_as_cattrs_would(
    cls: type, data: st.DataObject
) -> None:
    event = data.draw(events(cls))
    fused = CATALOG.encoder(cls)
    assert fused is not None
    answer = fused(event)
    if answer is not None:
        assert is_lossless(answer)
        assert answer == CATALOG.unstructure(event)
        assert list(answer) == list(CATALOG.unstructure(event))  # the same key order


def test_plain_events_take_the_fused_path() -> None:
    # It is not an encoder that always defers: the runtime's own values pass it.
    call = ToolCall(turn=1, step=2, call_id="c", name="t", arguments="{}")
    result = ToolResultEvent(
        turn=1,
        step=2,
        call_id="c",
        is_error=True,
        content="no",
        error=ToolError("TOOL_ERROR", "no"),
        meta=FrozenDict({"decisions": (FrozenDict({"stage": "policy"}),)}),
    )
    for event in (call, result):
        fused = CATALOG.encoder(type(event))
        assert fused is not None
        assert fused(event) == CATALOG.unstructure(event)


@pytest.mark.parametrize(
    ("event", "where"),
    [
        (ToolCall(turn=2**63, step=0, call_id="c", name="t", arguments="{}"), "data.turn"),
        (ToolCall(turn=1, step=0, call_id=Text("c"), name="t", arguments="{}"), "data.call_id"),
        (
            ToolDispatch(call_id="c", attempt=1, sandbox_mode=Mode.READ, args_digest="d"),  # type: ignore[arg-type]
            "data.sandbox_mode",
        ),
        (
            ToolResultEvent(
                turn=1, step=0, call_id="c", is_error=False, content="", meta={"x": float("inf")}
            ),
            "data.meta.x",
        ),
        (
            ToolResultEvent(
                turn=1,
                step=0,
                call_id="c",
                is_error=True,
                content="",
                error=ToolError("E", 2**64),  # type: ignore[arg-type]
            ),
            "data.error.message",
        ),
    ],
)
def test_a_lossy_typed_event_is_refused_where_it_is_lossy(event: Any, where: str) -> None:
    fused = CATALOG.encoder(type(event))
    assert fused is not None
    assert fused(event) is None  # the fused path defers ...
    header = SessionHeader("s", 1, "/", {"profile": "t"}, {"barriers": False})
    session = Session(MemoryStore().create(header))
    with pytest.raises(EventRejected) as caught:
        session.append(event)  # ... and the walk refuses, naming the place
    assert caught.value.path == where
    assert len(session.records) == 0


@attrs.frozen
class Extra(Event):
    """A plugin's event the catalogue does not know, appended as ignorable."""

    TYPE: ClassVar[str] = "test/extra"
    note: str | None = None


def test_a_class_the_catalogue_does_not_know_keeps_the_generic_path() -> None:
    # Its data is cattrs' default unstructuring, unset optional fields included, as before.
    assert CATALOG.encoder(Extra) is None
    header = SessionHeader("s", 1, "/", {"profile": "t"}, {"barriers": False})
    session = Session(MemoryStore().create(header))
    record = session.append(Extra(), ignorable=True)
    assert record.data == {"note": None}
