"""From typed events to record data and back, with a JSON Schema per event type.

:func:`make_converter` builds the one cattrs converter the session uses (never a global): it
unstructures an event into plain data, omitting optional fields that are unset, and structures
data back into its class. :class:`EventCatalog` knows every type a session accepts, derives each
type's JSON Schema from its attrs class, and validates data against it (compiled once).
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

import attrs
import cattrs
from cattrs.fns import identity
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from seamhost.errors import EventRejected, UnknownEventType, join_key
from seamhost.jsonvalue import thaw
from seamhost.schema import Validator, compile_schema
from seamhost.session.encode import Encoder, compile_encoder
from seamhost.session.events import CORE_EVENTS, Event
from seamhost.session.quickcheck import Quick, compile_quick


def make_converter(classes: Iterable[type[Event]] = CORE_EVENTS) -> cattrs.Converter:
    """A converter that maps `classes` to and from their record data.

    Each class's pair of functions is generated the first time the converter is asked for it
    (a hook factory), not here: generating them all costs tens of milliseconds at every
    command's start-up, while a session appends a handful of types, most through its fused
    encoder (:mod:`seamhost.session.encode`), and structures none unless it reads a log.
    """
    converter = cattrs.Converter()
    claims = _Claims(tuple(classes))
    converter.register_unstructure_hook_factory(
        claims, functools.partial(_unstructure_fn, converter=converter)
    )
    converter.register_structure_hook_factory(
        claims, functools.partial(_structure_fn, converter=converter)
    )
    return converter


class _Claims:
    """Whether a type is one of the converter's classes, or an attrs class one of them nests.

    The nested classes are found (their types resolved) only when a type that is not one of the
    classes is asked about, so that asking for the classes themselves resolves nothing more.
    """

    def __init__(self, classes: tuple[type, ...]) -> None:
        self.classes = frozenset(classes)
        self._roots = classes
        self._nested: frozenset[type] | None = None

    def __call__(self, tp: Any) -> bool:
        if not isinstance(tp, type):
            return False
        if tp in self.classes:
            return True
        if not attrs.has(tp):
            return False
        if self._nested is None:
            found: set[type] = set()
            for cls in self._roots:
                _collect_nested(cls, found)
            self._nested = frozenset(found)
        return tp in self._nested


def _collect_nested(cls: type, found: set[type]) -> None:
    attrs.resolve_types(cls)
    for field in attrs.fields(cls):
        for inner in _nested_classes(field.type):
            if inner not in found:
                found.add(inner)
                _collect_nested(inner, found)


def _unstructure_fn(cls: type, converter: cattrs.Converter) -> Callable[[Any], dict[str, Any]]:
    attrs.resolve_types(cls)
    # Free-form JSON and optional scalars are taken as they are: with cattrs' identity hook the
    # generated function reads the attribute inline instead of calling a hook per field. A
    # nested class's hook is asked of the converter, so made (once) before the outer function.
    overrides = {
        field.name: override(
            omit_if_default=field.default is None,
            unstruct_hook=identity if _opaque(field.type) or _scalar(field.type) else None,
        )
        for field in attrs.fields(cls)
    }
    # cattrs types **overrides loosely against its private keyword flags, hence the cast.
    make_unstructure = cast("Any", make_dict_unstructure_fn)
    return cast("Callable[[Any], dict[str, Any]]", make_unstructure(cls, converter, **overrides))


def _structure_fn(cls: type, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
    attrs.resolve_types(cls)
    return make_dict_structure_fn(cls, converter)


def _opaque(tp: Any) -> bool:
    """Fields holding free-form JSON: passed through as they are, checked when appended."""
    present = [a for a in typing.get_args(tp) if a is not type(None)] or [tp]
    return any(t is Any or typing.get_origin(t) in (Mapping, dict) for t in present)


_SCALARS = (str, int, bool, float, type(None))


def _scalar(tp: Any) -> bool:
    """A scalar or an optional scalar (``str | None``, ``Literal[...] | None``...)."""
    present = (
        typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    )
    return all(t in _SCALARS or typing.get_origin(t) is typing.Literal for t in present)


def _nested_classes(tp: Any) -> list[type]:
    if attrs.has(tp):
        return [tp]
    return [c for arg in typing.get_args(tp) for c in _nested_classes(arg)]


def schema_of(cls: type) -> dict[str, Any]:
    """The JSON Schema of an attrs class's data (unknown extra keys are allowed)."""
    attrs.resolve_types(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in attrs.fields(cls):
        properties[field.name] = _type_schema(field.type)
        if field.default is attrs.NOTHING:
            required.append(field.name)
    return {"type": "object", "properties": properties, "required": required}


def _type_schema(tp: Any) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return {}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        return (
            _type_schema(present[0])
            if len(present) == 1
            else {"anyOf": [_type_schema(a) for a in present]}
        )
    if origin is tuple:
        return {"type": "array", "items": _type_schema(args[0])}
    if origin in (Mapping, dict) or tp is dict:
        return {"type": "object"}
    if attrs.has(tp):
        return schema_of(tp)
    raise TypeError(f"no JSON Schema for field type {tp!r}")


@attrs.frozen
class EventType:
    """One type the catalogue accepts."""

    name: str
    cls: type[Event]
    schema: Mapping[str, Any]


_CORE = frozenset(CORE_EVENTS)


class EventCatalog:
    """The event types a session accepts; validates data and converts typed events."""

    def __init__(self, classes: Iterable[type[Event]] = CORE_EVENTS) -> None:
        classes = tuple(classes)
        self.converter = make_converter(classes)
        self._classes: dict[str, type[Event]] = {}
        # Each type's schema is derived when first asked for (resolving a class's annotations
        # costs every command's start-up); a plugin's own types are derived here, so that one
        # the schema cannot express fails the bundle that adds it, not a later append.
        self._types: dict[str, EventType] = {}
        self._validators: dict[str, Validator] = {}
        # The accept-only pre-check of each type's schema (compiled on first use): what passes
        # it surely passes the validator, which alone judges (and words) everything else.
        self._quick: dict[str, Quick] = {}
        self._unstructurers: dict[type, Callable[[Event], dict[str, Any]]] = {}
        self._encoders: dict[type, Encoder | None] = {}
        for cls in classes:
            if not cls.TYPE or cls.TYPE in self._classes:
                raise ValueError(f"event class {cls.__qualname__} has a missing or duplicate TYPE")
            self._classes[cls.TYPE] = cls
            if cls not in _CORE:
                self.get(cls.TYPE)

    def __contains__(self, type_: object) -> bool:
        return type_ in self._classes

    def names(self) -> list[str]:
        return sorted(self._classes)

    def get(self, type_: str) -> EventType:
        known = self._types.get(type_)
        if known is None:
            try:
                cls = self._classes[type_]
            except KeyError:
                raise UnknownEventType(type_) from None
            known = self._types[type_] = EventType(type_, cls, schema_of(cls))
        return known

    def validate(self, type_: str, data: Mapping[str, Any]) -> None:
        """Raise `EventRejected` unless `data` fits the schema of `type_`."""
        if self.quick(type_)(data):
            return
        validator = self._validators.get(type_)
        if validator is None:
            validator = self._validators[type_] = compile_schema(self.get(type_).schema)
        violation = validator(data)
        if violation is not None:
            where = join_key(("data", *violation.path))
            raise EventRejected(type_, where, violation.problem)

    def quick(self, type_: str) -> Quick:
        """The accept-only pre-check of `type_`'s schema (:mod:`seamhost.session.quickcheck`):
        True means `validate` would pass; False means only `validate` can tell."""
        quick = self._quick.get(type_)
        if quick is None:
            quick = self._quick[type_] = compile_quick(self.get(type_).schema)
        return quick

    def unstructure(self, event: Event) -> dict[str, Any]:
        """The record data of a typed event."""
        return self.unstructurer(type(event))(event)

    def unstructurer(self, cls: type[Event]) -> Callable[[Event], dict[str, Any]]:
        """The function giving the record data of events of `cls` (cattrs', looked up once)."""
        unstructure = self._unstructurers.get(cls)
        if unstructure is None:
            unstructure = self._unstructurers[cls] = self.converter.get_unstructure_hook(cls)
        return unstructure

    def encoder(self, cls: type[Event]) -> Encoder | None:
        """The fused encoder of `cls` (:mod:`seamhost.session.encode`): its data when surely
        lossless, else None (then `unstructure` and the lossless check judge); None when the
        class has no such encoder, or is not one of the catalogue's (its converter would not
        unstructure it as the encoder does: cattrs' default keeps unset optional fields). Made
        on first use."""
        if cls not in self._encoders:
            known = self._classes.get(cls.TYPE) is cls
            self._encoders[cls] = compile_encoder(cls, self.converter) if known else None
        return self._encoders[cls]

    def structure(self, type_: str, data: Mapping[str, Any]) -> Event:
        """The typed event of a record's data (extra keys are ignored; values are plain copies)."""
        event: Event = self.converter.structure(thaw(data), self.get(type_).cls)
        return event


@functools.cache
def core_catalog() -> EventCatalog:
    """The catalogue of the core types, built on first use and shared (it is immutable)."""
    return EventCatalog()
