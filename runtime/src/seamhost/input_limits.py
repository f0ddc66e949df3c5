"""What seamhost accepts from the files it reads: sizes, nesting, text, and the paths in them.

Profiles, scenarios, ``$file`` secrets and ``session reconcile --result`` files are read through
:func:`read_capped` and parsed with :func:`parse_toml` or :func:`parse_json`; paths written in
them go through :func:`user_path`. Whatever is wrong (too large, not UTF-8, not valid TOML or
JSON, nested deeper than :data:`MAX_DEPTH`, a NUL byte in a path, ``~user`` for an unknown user)
is a :class:`~seamhost.errors.ConfigError` naming the file and, where there is one, the key:
never a ``RecursionError``, ``UnicodeDecodeError`` or ``RuntimeError`` from below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seamhost.errors import ConfigError, join_key

MAX_DEPTH = 64  # tables and arrays inside one another, the document itself being level 1
PROFILE_BYTES = 1 << 20  # 1 MiB
SCENARIO_BYTES = 16 << 20  # 16 MiB
SECRET_BYTES = 64 << 10  # 64 KiB
RESULT_BYTES = 16 << 20  # 16 MiB: a `session reconcile --result` file
_SHOWN_PARTS = 6  # key parts named in a nesting error before "..."


def read_capped(path: Path, limit: int, what: str, *, label: str = "", key: str = "") -> bytes:
    """The bytes of `path` (a `what`: "profile", "scenario"...), refused past `limit` bytes."""
    label = label or str(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)  # also bounds what a FIFO or a device can hand over
    except OSError as exc:
        raise ConfigError(label, key, f"cannot read the {what}: {exc.strerror}") from None
    except ValueError:  # a NUL byte in the path
        raise ConfigError(label, key, f"the {what}'s path holds a NUL byte") from None
    if len(data) > limit:
        raise ConfigError(label, key, f"the {what} is larger than {_size(limit)}, the limit")
    return data


def parse_toml(data: bytes, label: str) -> dict[str, Any]:
    """`data` as a TOML document, checked for UTF-8 and nesting."""
    import tomllib

    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(label, "", f"not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(label, "", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(label, "", f"nested deeper than {MAX_DEPTH} levels") from None
    check_depth(doc, label)
    return doc


def parse_json(data: bytes, label: str) -> Any:
    """`data` as a JSON document, checked for UTF-8 and nesting."""
    import orjson

    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ConfigError(label, "", f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ConfigError(label, "", f"nested deeper than {MAX_DEPTH} levels") from None
    check_depth(doc, label)
    return doc


def check_depth(doc: object, label: str, limit: int = MAX_DEPTH) -> None:
    """Raise `ConfigError` at the first key nested deeper than `limit` (an iterative walk)."""
    todo: list[tuple[object, tuple[str | int, ...]]] = [(doc, ())]
    while todo:
        value, key = todo.pop()
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        if len(key) >= limit:
            shown = join_key(key[:_SHOWN_PARTS]) + ("..." if len(key) > _SHOWN_PARTS else "")
            raise ConfigError(label, shown, f"nested deeper than {limit} levels")
        todo.extend((child, (*key, name)) for name, child in items)


def user_path(text: str, label: str, key: str) -> Path:
    """`text` as a path, ``~`` and ``~user`` expanded; `label` and `key` name it in errors."""
    if "\0" in text:
        raise ConfigError(label, key, "a path may not hold a NUL byte")
    try:
        return Path(text).expanduser()
    except RuntimeError:  # ~user for a user this machine does not know, or no home for ~
        user = text[1:].split("/", 1)[0]
        problem = (
            f"unknown user {user!r} in {text!r}" if user else f"no home directory for {text!r}"
        )
        raise ConfigError(label, key, problem) from None


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit >> 10} KiB"
