"""JSON Schema validation, compiled once per schema with fastjsonschema.

Compiled validators are cached by the canonical digest of their schema, so a plugin's config
schema, a tool's input schema or an event type's schema is compiled once per process however
many bundles or sessions use it. Violations come back as a key path and a sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from seamhost import jsonvalue


@attrs.frozen
class Violation:
    """Where a value breaks its schema (`path`, as keys and indexes) and how (`problem`)."""

    path: tuple[str | int, ...]
    problem: str


Validator = Callable[[Any], "Violation | None"]

_cache: dict[str, Validator] = {}


def compile_schema(schema: Mapping[str, Any]) -> Validator:
    """A function returning ``None`` for a valid value, else the first `Violation`."""
    key = jsonvalue.digest(jsonvalue.thaw(schema))
    validator = _cache.get(key)
    if validator is None:
        validator = _compile(jsonvalue.thaw(schema))
        _cache[key] = validator
    return validator


def _compile(schema: dict[str, Any]) -> Validator:
    import fastjsonschema

    check = fastjsonschema.compile(schema, use_default=False)

    def validate(value: Any) -> Violation | None:
        try:
            check(value)
        except fastjsonschema.JsonSchemaValueException as exc:
            return _violation(exc, value)
        return None

    return validate


def _violation(exc: Any, value: Any) -> Violation:
    raw = exc.path[1:] if exc.path and exc.path[0] == "data" else list(exc.path or ())
    # fastjsonschema spells list indexes as strings; walk the value to tell them from keys.
    path: list[str | int] = []
    for raw_part in raw:
        part = (
            int(raw_part)
            if isinstance(value, (list, tuple)) and str(raw_part).isdigit()
            else raw_part
        )
        path.append(part)
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            value = None
    message: str = exc.message
    name: str = exc.name or ""
    if name and message.startswith(name + " "):
        message = message[len(name) + 1 :]
    return Violation(tuple(path), message)
