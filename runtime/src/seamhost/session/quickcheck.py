"""A fast accept-only pre-check for the JSON Schemas of event types (docs/design.md §4).

`EventCatalog.validate` runs the fastjsonschema validator of a type's schema on every appended
record's data; that validator is general and costs about a microsecond per event, more than
serialising the event. :func:`compile_quick` turns a schema of the small vocabulary that
:func:`~seamhost.session.codec.schema_of` emits (``type`` object/integer/string/boolean/array,
``properties``, ``required``, ``items``, ``enum`` of strings, ``anyOf``, and ``{}``) into one
generated predicate that answers only **"surely valid and lossless"** (True) or **"ask the
validator"** (False). It is stricter than the schema, never looser: it accepts exact built-in
types only (``type(x) is int``, never a bool or a float that is integral), so whatever it accepts
the full validator accepts too, and everything else, every rejection included, goes through the
full validator, which alone words the violation. A schema with any keyword outside that
vocabulary compiles to a predicate that always defers.

It also answers for :func:`seamhost.jsonvalue.is_lossless`, which otherwise walks the data a
second time (0.6 µs an append, measured): whatever it accepts is lossless JSON. Integers are
held to the 64-bit range, an object may hold no key beyond its schema's properties (any other
defers), and the parts a schema leaves open (``{}``, an object without properties, an array of
anything) are judged by ``is_lossless`` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from seamhost.jsonvalue import INT64_MAX, INT64_MIN, is_lossless

Quick = Callable[[Any], bool]

_EXACT = {"string": "str", "boolean": "bool"}
_KNOWN = frozenset({"type", "properties", "required", "items", "enum", "anyOf"})


def _never(value: Any) -> bool:
    return False


class _Writer:
    """Generates the predicate's source: one function per nested object or array schema."""

    def __init__(self) -> None:
        self.functions: list[str] = []
        self.constants: dict[str, Any] = {}

    def test(self, schema: Mapping[str, Any], var: str) -> str | None:
        """A Python expression that is True only when `var` surely satisfies `schema`; None
        when the schema uses something the pre-check does not mirror (then it always defers)."""
        if not isinstance(schema, Mapping) or not _KNOWN.issuperset(schema):
            return None
        if not schema:
            return f"_lossless({var})"
        if "anyOf" in schema:
            if set(schema) != {"anyOf"}:
                return None
            parts = [self.test(option, var) for option in schema["anyOf"]]
            if None in parts:
                return None
            return "(" + " or ".join([p for p in parts if p] or ["False"]) + ")"
        if "enum" in schema:
            values = schema["enum"]
            if set(schema) != {"enum"} or not all(type(v) is str for v in values):
                return None
            name = f"_E{len(self.constants)}"
            self.constants[name] = frozenset(values)
            return f"(type({var}) is str and {var} in {name})"
        kind = schema.get("type")
        if kind == "integer":
            if set(schema) != {"type"}:
                return None
            return f"(type({var}) is int and _MIN <= {var} <= _MAX)"
        if kind in _EXACT:
            if set(schema) != {"type"}:
                return None
            return f"type({var}) is {_EXACT[kind]}"
        if kind == "array" and set(schema) <= {"type", "items"}:
            inner = self.test(schema.get("items", {}), "item")
            if inner is None:
                return None
            if inner == "_lossless(item)":
                return f"((type({var}) is list or type({var}) is tuple) and _lossless({var}))"
            name = self._function(
                [
                    "if type(value) is not list and type(value) is not tuple:",
                    "    return False",
                    "for item in value:",
                    f"    if not ({inner}):",
                    "        return False",
                    "return True",
                ]
            )
            return f"{name}({var})"
        if kind == "object" and set(schema) <= {"type", "properties", "required"}:
            return self._object(schema, var)
        return None

    def _object(self, schema: Mapping[str, Any], var: str) -> str | None:
        properties = schema.get("properties", {})
        required = list(schema.get("required", ()))
        if not properties and not required:
            return f"(type({var}) is dict and _lossless({var}))"
        if not set(required) <= set(properties):
            return None  # a required key without a property schema: keep it simple
        body = ["if type(value) is not dict:", "    return False"]
        # Keys present, counted: a key beyond the properties (perhaps not a string) defers.
        body.append(f"present = {sum(1 for key in properties if key in required)}")
        for index, (key, sub) in enumerate(properties.items()):
            if type(key) is not str:
                return None
            local = f"v{index}"
            test = self.test(sub, local)
            if test is None:
                return None
            body.append(f"{local} = value.get({key!r}, _MISSING)")
            if key in required:
                body += [f"if {local} is _MISSING or not ({test}):", "    return False"]
            else:
                body += [
                    f"if {local} is not _MISSING:",
                    f"    if not ({test}):",
                    "        return False",
                    "    present += 1",
                ]
        body += ["if len(value) != present:", "    return False", "return True"]
        return f"{self._function(body)}({var})"

    def _function(self, body: list[str]) -> str:
        name = f"_f{len(self.functions)}"
        self.functions.append("\n".join([f"def {name}(value):", *("    " + b for b in body)]))
        return name


def compile_quick(schema: Mapping[str, Any]) -> Quick:
    """The accept-only predicate of `schema` (see the module docstring)."""
    writer = _Writer()
    top = writer.test(schema, "value")
    if top is None:
        return _never
    source = "\n\n".join([*writer.functions, f"def quick(value):\n    return {top}"])
    namespace: dict[str, Any] = {
        "_MISSING": object(),
        "_MIN": INT64_MIN,
        "_MAX": INT64_MAX,
        "_lossless": is_lossless,
        **writer.constants,
    }
    exec(compile(source, "<quickcheck>", "exec"), namespace)  # generated from our own schema
    quick: Quick = namespace["quick"]
    return quick
