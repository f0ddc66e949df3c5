"""Lossless JSON values: the only data the session log, digests and tool arguments accept.

A value is *lossless* when writing it as JSON and reading it back gives the same value in every
mainstream JSON reader:

* objects are plain ``dict`` with ``str`` keys; arrays are ``list`` or ``tuple`` (they read back
  as lists);
* strings are ``str``; booleans ``bool``; ``None`` is null;
* integers fit in a signed 64-bit word (wider ones are silently rounded by many readers);
* floats are finite and never ``-0.0`` (NaN, infinities and the sign of zero do not survive JSON).

Subclasses (``IntEnum``, ``OrderedDict``, ``str`` subclasses...) are refused: they do not read back
as themselves. Canonical JSON (sorted keys, no whitespace, UTF-8) is what every digest is taken of.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, NoReturn

import orjson

from seamhost.errors import SeamhostError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

JSONScalar = str | int | float | bool | None
JSONValue = Any  # a lossless JSON value, checked at runtime by `check_lossless`


class LossyValue(SeamhostError, ValueError):
    """A value is not lossless JSON; `path` is where (``$.a[0].b``), `problem` what."""

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


def _refuse(path: str, problem: str) -> NoReturn:
    raise LossyValue(path, problem)


def check_lossless(value: object, path: str = "$") -> None:
    """Raise `LossyValue` naming the first place where `value` is not lossless JSON."""
    if not is_lossless(value):
        _explain(value, path)


def is_lossless(value: object) -> bool:
    """True when `value` is lossless JSON: the hot path, no paths and no messages (call
    `check_lossless` on False to learn where and why)."""
    # Containers are tested first: the loops below judge strings, booleans, None and integers
    # in place, so a value this is called on (but the outermost) is seldom anything else.
    kind = type(value)
    if kind is dict or kind is FrozenDict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str:
                return False
            inner = type(item)
            if inner is str or inner is bool or item is None:
                continue
            if inner is int:
                if not INT64_MIN <= item <= INT64_MAX:
                    return False
            elif not is_lossless(item):
                return False
        return True
    if kind is list or kind is tuple:
        for item in value:  # type: ignore[attr-defined]
            inner = type(item)
            if inner is str or inner is bool or item is None:
                continue
            if inner is int:
                if not INT64_MIN <= item <= INT64_MAX:
                    return False
            elif not is_lossless(item):
                return False
        return True
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return INT64_MIN <= value <= INT64_MAX  # type: ignore[operator]
    if kind is float:
        return math.isfinite(value) and (value != 0.0 or math.copysign(1.0, value) > 0)  # type: ignore[arg-type]
    return False


def _explain(value: object, path: str) -> None:
    """Raise `LossyValue` for the first offending place (the slow path, on failure only)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return
    if kind is int:
        if not INT64_MIN <= value <= INT64_MAX:  # type: ignore[operator]
            _refuse(path, "integer does not fit in 64 bits; store it as a string")
        return
    if kind is float:
        if not math.isfinite(value):  # type: ignore[arg-type]
            _refuse(path, f"{value!r} is not representable in JSON")
        if value == 0.0 and math.copysign(1.0, value) < 0:
            _refuse(path, "-0.0 does not survive a JSON round trip; use 0.0")
        return
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str:
                _refuse(path, f"object key {key!r} is not a string")
            _explain(item, f"{path}.{key}")
        return
    if kind is list or kind is tuple:
        for index, item in enumerate(value):  # type: ignore[arg-type]
            _explain(item, f"{path}[{index}]")
        return
    if kind is FrozenDict:
        for key, item in value.items():  # type: ignore[attr-defined]
            _explain(item, f"{path}.{key}")
        return
    _refuse(path, f"{kind.__qualname__} is not a plain JSON value")


class FrozenDict(dict[str, Any]):
    """A read-only ``dict``: what a frozen record hands out as its data."""

    __slots__ = ()

    def _readonly(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("frozen JSON object cannot be modified; copy it with thaw() first")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=lambda kv: kv[0])))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


def freeze(value: Any) -> Any:
    """Deep-copy a JSON value into read-only containers.

    A `FrozenDict` is returned as is: the only way this module makes one is by freezing all
    of it, so freezing a frozen value again (attrs converters do, on every ``evolve``) is free.
    """
    kind = type(value)
    if kind is FrozenDict:
        return value
    # Items that need no copy are taken in place, without a call each.
    if kind is dict:
        return FrozenDict({k: v if type(v) in _FROZEN else freeze(v) for k, v in value.items()})
    if kind is list or kind is tuple:
        return tuple([v if type(v) in _FROZEN else freeze(v) for v in value])
    return value


# The types `freeze` returns as they are (their values are immutable, and hold nothing).
_FROZEN = frozenset({str, int, float, bool, type(None), FrozenDict})


def thaw(value: Any) -> Any:
    """Deep-copy a (possibly frozen) JSON value into plain, mutable containers."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


# What `dumps` passes to orjson; a hot path calling orjson.dumps itself passes the same.
DUMPS_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, keys in insertion order (what the session log stores)."""
    return orjson.dumps(value, option=DUMPS_OPTIONS)


def canonical_json(value: Any, *, checked: bool = False) -> bytes:
    """Canonical JSON bytes: sorted keys, no whitespace, UTF-8. Digests are taken of this.

    `value` is checked to be lossless first, unless the caller says it already did (`checked`).
    """
    if not checked:
        check_lossless(value)
    return orjson.dumps(value, option=DUMPS_OPTIONS | orjson.OPT_SORT_KEYS)


def digest(value: Any, *, checked: bool = False) -> str:
    """``sha256:<hex>`` of the canonical JSON of `value` (`checked` as for `canonical_json`)."""
    return "sha256:" + hashlib.sha256(canonical_json(value, checked=checked)).hexdigest()


def as_text(value: Any) -> str:
    """A value as text to match patterns against: a string itself, else its canonical JSON."""
    if isinstance(value, str):
        return value
    return canonical_json(thaw(value)).decode()


def loads(data: bytes | str) -> Any:
    """Parse JSON text into plain Python values."""
    return orjson.loads(data)
