"""The draft-based __init__ of the hot frozen classes (seamhost/frozen.py) against attrs' own."""

from __future__ import annotations

import inspect
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost.frozen import fast_init
from seamhost.session.events import CORE_EVENTS, ToolError
from seamhost.tool.call import ToolContext, ToolExecution, ToolInvocation, ToolOutput
from seamhost.tool.result import ToolResult

FAST = [*CORE_EVENTS, ToolError, ToolContext, ToolExecution, ToolInvocation, ToolOutput, ToolResult]
MARK = object()
VALUES = st.sampled_from([None, 0, 7, "s", "", {"k": [1, {"n": None}]}, (), ("a",), [1], MARK])


def outcome(make: Any) -> tuple[str, Any]:
    """What making an instance gives: its type and field values, or the error's type."""
    try:
        made = make()
    except Exception as exc:  # both inits must refuse alike
        return ("raised", type(exc))
    return (type(made).__name__, [getattr(made, f.name) for f in attrs.fields(type(made))])


def test_every_hot_class_has_it() -> None:
    for cls in FAST:
        assert "__attrs_own_init__" in cls.__dict__, cls


@pytest.mark.parametrize("cls", FAST, ids=lambda cls: cls.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_it_makes_what_attrs_makes(cls: type, data: st.DataObject) -> None:
    fields = attrs.fields(cls)
    # Some fields left out (their defaults and factories), the rest given any value.
    given_ = {
        f.alias: data.draw(VALUES)
        for f in fields
        if f.default is attrs.NOTHING or data.draw(st.booleans())
    }

    def by_attrs() -> Any:
        made: Any = object.__new__(cls)
        cls.__attrs_own_init__(made, **given_)  # type: ignore[attr-defined]
        return made

    assert outcome(lambda: cls(**given_)) == outcome(by_attrs)
    if all(f.default is not attrs.NOTHING for f in fields):
        return
    try:
        made = cls(**given_)
    except Exception:
        return
    assert type(made) is cls
    first = fields[0].name
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(made, first, 1)  # frozen from the moment it is made
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        delattr(made, first)


def test_a_factory_makes_a_new_value_each_time() -> None:
    assert ToolOutput("a").meta is not ToolOutput("b").meta
    assert ToolOutput("a").meta == {}


def test_a_subclass_keeps_attrs_own_init() -> None:
    class Loud(ToolError):
        __slots__ = ()

    made = Loud(code="E", message="m")
    assert type(made) is Loud
    assert made.code == "E"


def test_it_refuses_what_it_cannot_make() -> None:
    @attrs.frozen
    class Checked:
        n: int = attrs.field(validator=attrs.validators.instance_of(int))

    @attrs.frozen
    class Hooked:
        n: int

        def __attrs_post_init__(self) -> None:
            pass

    @attrs.frozen(slots=False)
    class Plain:
        n: int

    for cls in (Checked, Hooked, Plain):
        with pytest.raises(TypeError, match="fast_init"):
            fast_init(cls)


def test_the_init_is_compiled_by_the_first_instance() -> None:
    @fast_init
    @attrs.frozen
    class Late:
        a: int
        b: str = "x"

    waiting = Late.__dict__["__init__"]
    assert "__init__" in waiting.__qualname__
    assert list(inspect.signature(Late).parameters) == ["a", "b"]  # attrs' own, not *args

    class Sub(Late):
        __slots__ = ()

    assert (Sub(1).a, Sub(1).b) == (1, "x")  # a subclass first: built, then attrs' own
    compiled = Late.__dict__["__init__"]
    assert compiled is not waiting
    assert attrs.astuple(Late(2, b="y")) == (2, "y")
    assert Late.__dict__["__init__"] is compiled  # built once
    with pytest.raises(TypeError):
        Late()  # type: ignore[call-arg]  # refused as attrs refuses it
