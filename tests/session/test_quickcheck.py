"""The accept-only pre-check of event schemas: never looser than the schema's validator."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost.errors import EventRejected
from seamhost.jsonvalue import INT64_MAX, INT64_MIN, FrozenDict, is_lossless
from seamhost.schema import compile_schema
from seamhost.session.codec import core_catalog
from seamhost.session.quickcheck import compile_quick

CATALOG = core_catalog()
INT64 = (INT64_MIN, INT64_MAX)  # lossless JSON's integers
TYPES = CATALOG.names()


class Small(IntEnum):
    ONE = 1


def exact(schema: Any) -> st.SearchStrategy[Any]:
    """Values that satisfy `schema` with exact built-in types (what the runtime appends)."""
    if not schema:
        return st.one_of(st.none(), st.integers(*INT64), st.text(max_size=5), st.booleans())
    if "anyOf" in schema:
        return st.one_of([exact(option) for option in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema["type"]
    if kind == "integer":
        return st.integers(-(2**40), 2**40)
    if kind == "string":
        return st.text(max_size=8)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(exact(schema.get("items", {})), max_size=3)
    properties = schema.get("properties")
    if not properties:
        return st.dictionaries(st.text(max_size=4), st.integers(*INT64), max_size=3)
    required = set(schema.get("required", ()))
    return st.fixed_dictionaries(
        {k: exact(v) for k, v in properties.items() if k in required},
        optional={k: exact(v) for k, v in properties.items() if k not in required},
    )


# What a caller may hand over instead: near-misses of every kind the schema distinguishes.
ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.just(1.0),
    st.just(Small.ONE),
    st.text(max_size=3),
    st.just(()),
    st.just(("a",)),
    st.just(FrozenDict({"code": "x", "message": "y"})),
    st.just({"code": 1}),
    st.just(2**63),
    st.just(-(2**63) - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(-0.0),
    st.just({1: "a"}),
    st.just(["a", float("nan")]),
    st.just({"k": {"deep": [2**64]}}),
)


@st.composite
def mutated(draw: st.DrawFn, type_: str) -> Any:
    """Data of `type_` with some values replaced by odd ones, keys dropped or added."""
    schema = CATALOG.get(type_).schema
    data = dict(draw(exact(schema)))
    keys = sorted(data)
    for key in draw(
        st.lists(st.sampled_from(keys), max_size=3, unique=True) if keys else st.just([])
    ):
        action = draw(st.sampled_from(["replace", "drop"]))
        if action == "drop":
            del data[key]
        else:
            data[key] = draw(ODD)
    if draw(st.booleans()):
        data[draw(st.text(max_size=3))] = draw(ODD)
    return data


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(TYPES).flatmap(lambda t: st.tuples(st.just(t), mutated(t))))
def test_the_quick_check_never_accepts_what_the_validator_rejects(case: tuple[str, Any]) -> None:
    type_, data = case
    schema = CATALOG.get(type_).schema
    if compile_quick(schema)(data):
        assert compile_schema(schema)(data) is None
        assert is_lossless(data), "the pre-check answers for losslessness too"


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(TYPES).flatmap(lambda t: st.tuples(st.just(t), exact(CATALOG.get(t).schema)))
)
def test_the_quick_check_accepts_exactly_typed_valid_data(case: tuple[str, Any]) -> None:
    type_, data = case
    schema = CATALOG.get(type_).schema
    assert compile_schema(schema)(data) is None
    assert compile_quick(schema)(data), f"{type_}: the pre-check defers on valid plain data"


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        (1, True),
        (True, False),  # a bool is not an integer: both refuse
        (
            1.0,
            True,
        ),  # JSON Schema's integer takes 1.0: the pre-check defers, the validator takes it
        (Small.ONE, True),  # an int subclass: deferred, and the validator takes it
        ("1", False),
    ],
)
def test_what_the_quick_check_defers_is_judged_by_the_validator(value: Any, valid: bool) -> None:
    data = {"turn": value}
    quick = compile_quick(CATALOG.get("turn/start").schema)
    assert quick(data) is (type(value) is int)
    if valid:
        CATALOG.validate("turn/start", data)
    else:
        with pytest.raises(EventRejected, match=r"data\.turn"):
            CATALOG.validate("turn/start", data)


def test_a_schema_outside_the_vocabulary_always_defers() -> None:
    for schema in (
        {"type": "object", "additionalProperties": False},
        {"type": "integer", "minimum": 0},
        {"enum": [1, 2]},
        {"type": "number"},
    ):
        quick = compile_quick(schema)
        assert not quick({})
        assert not quick(1)
        assert not quick(0.5)


def test_nested_objects_and_arrays_are_checked_all_the_way_down() -> None:
    schema = {
        "type": "object",
        "properties": {
            "calls": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},
                    "required": ["id"],
                },
            },
            "mode": {"enum": ["a", "b"]},
            "either": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
        },
        "required": ["calls"],
    }
    quick = compile_quick(schema)
    assert quick({"calls": [{"id": "x", "n": 1}], "mode": "a", "either": True})
    assert not quick({"calls": [{"n": 1}]})
    assert not quick({"calls": [{"id": "x", "n": "1"}]})
    assert not quick({"calls": [], "mode": "c"})
    assert not quick({"calls": [], "either": 1})
    assert not quick({"mode": "a"})


@pytest.mark.parametrize(
    "data",
    [
        {"turn": 2**63},  # beyond 64 bits
        {"turn": 1, "extra": float("nan")},  # a key beyond the properties
        {"turn": 1, 7: "x"},  # a key that is not a string
    ],
)
def test_the_quick_check_defers_on_what_is_not_lossless(data: dict[Any, Any]) -> None:
    quick = compile_quick(CATALOG.get("turn/start").schema)
    assert not quick(data)


def test_open_parts_of_a_schema_are_judged_by_is_lossless() -> None:
    schema = {
        "type": "object",
        "properties": {"any": {}, "map": {"type": "object"}, "list": {"type": "array"}},
    }
    quick = compile_quick(schema)
    assert quick({"any": {"a": [1, "x", None]}, "map": {"k": True}, "list": [1, [2]]})
    for odd in (float("inf"), -0.0, 2**64, {1: 2}, object()):
        assert not quick({"any": odd})
        assert not quick({"map": {"k": odd}})
        assert not quick({"list": [odd]})
