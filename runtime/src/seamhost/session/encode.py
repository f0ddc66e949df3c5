"""Typed events to record data with the lossless check fused in (docs/design.md §9).

A typed event's shape is its class's, so `Session.append` only has to unstructure it (cattrs)
and check the data lossless (:func:`seamhost.jsonvalue.is_lossless`, a generic walk that asks
every value its type). Together they cost more than serialising the record: three appends of a
governed call spend a fifth of its interpreter work in the walk (measured). The class already
says what each field holds, so :func:`compile_encoder` generates for it one function that reads
each field once, tests it against its declared type by exact built-in type (``type(v) is int``
and in the 64-bit range, ``type(v) is str``...), and builds the same dict cattrs builds.

It answers only **"here is the data, surely lossless"** or ``None`` (**"take the generic
path"**): any value that is not of its field's exact type (a bool in an int field, a str
subclass, an enum member) makes it return ``None``, and the caller unstructures and checks as
before, where the walk alone words the refusal. Fields holding free-form JSON (``Any``, a
mapping) are handed to the walk itself, and nested classes to their cattrs hook and then the
walk. Optional fields are omitted exactly when cattrs omits them (``!=`` their default of
``None``; every value its test accepts is unequal to ``None``, so ``is not None`` says
the same). A class with a field type this does not mirror gets no encoder at all. The property
test in ``tests/session/test_encode.py`` holds it to cattrs and the walk on generated events.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import cattrs

from seamhost.jsonvalue import INT64_MAX, INT64_MIN, is_lossless

Encoder = Callable[[Any], "dict[str, Any] | None"]

_EXACT = {str: "str", bool: "bool"}


def _options(tp: Any) -> tuple[list[Any], bool]:
    """The types a field admits, and whether ``None`` is one of them."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = list(typing.get_args(tp))
    else:
        args = [tp]
    optional = type(None) in args
    return [a for a in args if a is not type(None)], optional


def _scalar_test(tp: Any, var: str) -> str | None:
    """An expression true only when `var` is surely a lossless value of `tp`; None when `tp`
    is not a scalar this mirrors."""
    if tp is int:
        return f"(type({var}) is int and _MIN <= {var} <= _MAX)"
    if tp in _EXACT:
        return f"type({var}) is {_EXACT[tp]}"
    if typing.get_origin(tp) is typing.Literal and all(type(a) is str for a in typing.get_args(tp)):
        return f"type({var}) is str"  # lossless is all that is asked; the class names the values
    return None


def _opaque(tp: Any) -> bool:
    return tp is Any or typing.get_origin(tp) in (Mapping, dict) or tp is dict


def compile_encoder(cls: type, converter: cattrs.Converter) -> Encoder | None:
    """The fused encoder of attrs class `cls` (see the module docstring), or None when one of
    its fields has a type it does not mirror (floats, say: the generic path judges those)."""
    attrs.resolve_types(cls)
    namespace: dict[str, Any] = {"_MIN": INT64_MIN, "_MAX": INT64_MAX, "_lossless": is_lossless}
    reads: list[str] = []
    tests: list[str] = []  # of the fields always present
    always: list[str] = []
    later: list[str] = []  # the optional ones, each added only when cattrs adds it
    for index, field in enumerate(attrs.fields(cls)):
        var = f"v{index}"
        reads.append(f"{var} = instance.{field.name}")
        present, optional = _options(field.type)
        omit = field.default is None  # what codec.py tells cattrs: omit_if_default
        if len(present) == 1 and _scalar_test(present[0], var) is not None:
            test = _scalar_test(present[0], var)
            value = var
        elif len(present) == 1 and _opaque(present[0]):
            test, value = f"_lossless({var})", var
        elif len(present) == 1 and attrs.has(present[0]):
            hook, kind = f"_h{index}", f"_c{index}"
            namespace[hook] = converter.get_unstructure_hook(present[0])
            namespace[kind] = present[0]
            test, value = None, f"{hook}({var})"
        else:
            return None
        if optional and not omit:
            return None  # None admitted but kept: not a case the core events have
        if not omit:
            if test is None:
                return None  # a nested class always present: take the generic path
            tests.append(test)
            always.append(f"{field.name!r}: {value}")
            continue
        # cattrs adds it when it is ``!= None``; for a value that passes its test below (an
        # exact built-in type, plain JSON, an exact attrs class) that is ``is not None``.
        later.append(f"if {var} is not None:")
        if test is None:  # a nested class, of exactly its type (else cattrs judges it)
            later += [
                f"    if type({var}) is not _c{index}:",
                "        return None",
                f"    u{index} = {value}",
                f"    if not _lossless(u{index}):",
                "        return None",
                f"    res[{field.name!r}] = u{index}",
            ]
        else:
            later += [
                f"    if not ({test}):",
                "        return None",
                f"    res[{field.name!r}] = {var}",
            ]
    body = [*reads]
    if tests:
        body += [f"if not ({' and '.join(tests)}):", "    return None"]
    body.append("res = {" + ", ".join(always) + "}")
    body += later
    body.append("return res")
    name = f"encode_{cls.__name__}"
    source = f"def {name}(instance):\n" + "\n".join("    " + line for line in body) + "\n"
    exec(compile(source, f"<encoder {cls.__qualname__}>", "exec"), namespace)  # our own source
    encoder: Encoder = namespace[name]
    return encoder


__all__ = ["Encoder", "compile_encoder"]
