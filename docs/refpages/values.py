"""``values.md``: the fields of every public value type, from the classes themselves.

The public value types are the attrs classes, named tuples and enumerations the root package
``seamhost`` exports (``__all__``). For each field: its name, its annotation as written, its
default, and its documentation, which is the trailing comment of the line that declares it or a
string literal right after it (an attribute docstring). A field with neither is an error naming
the file and line, so a new field cannot reach the reference undocumented. Enumeration members
are documented the same way (trailing comments). Error codes have their own page.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
from typing import Any

import attrs

from refpages.text import cell, class_body, comments, header, markdown, member_comments, source_path

_SKIPPED = ("ErrorCode",)  # on errors.md, with the codes' meanings
# Classes whose modules other work in flight owns (issue 19: kernel/profile, session/store.py):
# their fields are listed undocumented until trailing comments are added there. A class listed
# here whose fields are all documented is an error too, so the list cannot outlive its reason.
PENDING: frozenset[str] = frozenset()  # classes whose fields are not documented yet
UNDOCUMENTED = "(not yet documented)"


def public_types() -> list[type]:
    """The value types ``seamhost`` exports, in the order of ``__all__``."""
    import seamhost

    found = []
    for name in seamhost.__all__:
        obj = getattr(seamhost, name)
        # errors.md lists the errors (attrs classes too) with their fields
        if not isinstance(obj, type) or name in _SKIPPED or issubclass(obj, BaseException):
            continue
        if attrs.has(obj) or _is_named_tuple(obj) or issubclass(obj, enum.Enum):
            found.append(obj)
    return found


def _is_named_tuple(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def field_docs(cls: type) -> list[tuple[str, str, str]]:
    """(name, annotation, documentation) of each public field of `cls`, in declaration order."""
    path = source_path(cls)
    trailing = comments(path)
    body = class_body(path, cls.__name__)
    names = (
        {f.name for f in attrs.fields(cls)} if attrs.has(cls) else set(cls._fields)  # type: ignore[attr-defined]
    )
    out = []
    for index, statement in enumerate(body):
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        name = statement.target.id
        if name not in names or name.startswith("_"):
            continue
        doc = _docstring_after(body, index) or _comment(trailing, statement.end_lineno)
        if not doc and cls.__name__ in PENDING:
            doc = UNDOCUMENTED
        elif not doc:
            raise LookupError(
                f"{path}:{statement.lineno}: {cls.__name__}.{name} is not documented; add a "
                "trailing comment on its line, or a string literal right after it"
            )
        out.append((name, ast.unparse(statement.annotation), doc))
    if cls.__name__ in PENDING and all(doc != UNDOCUMENTED for _, _, doc in out):
        raise LookupError(
            f"{cls.__name__} is documented now: remove it from refpages.values.PENDING"
        )
    return out


def _docstring_after(body: list[ast.stmt], index: int) -> str:
    after = body[index + 1] if index + 1 < len(body) else None
    if (
        isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and isinstance(after.value.value, str)
    ):
        return inspect.cleandoc(after.value.value)
    return ""


def _comment(trailing: dict[int, str], line: int | None) -> str:
    text = trailing.get(line or 0, "")
    return "" if text.startswith(("type:", "noqa", "fmt:")) else text


def default_of(cls: type, name: str) -> str:
    """The default of field `name`, as a reader writes it; ``required`` when there is none."""
    if attrs.has(cls):
        field = attrs.fields_dict(cls)[name]
        if field.default is attrs.NOTHING:
            return "required"
        if isinstance(field.default, attrs.Factory):  # type: ignore[arg-type]
            factory: Any = getattr(field.default, "factory", None)
            label = getattr(factory, "__name__", "a factory")
            return "computed" if label == "<lambda>" else f"`{label}()`"
        return f"`{field.default!r}`"
    defaults = cls._field_defaults  # type: ignore[attr-defined]
    return f"`{defaults[name]!r}`" if name in defaults else "required"


def render() -> str:
    lines = header("Value types", "the classes seamhost exports and their field comments")
    lines += [
        "The fields of every value type the root package `seamhost` exports: what a seam "
        "passes to a plugin, what a plugin returns, and what a program reads. Import them "
        "from `seamhost` (`from seamhost import ToolResult`). Attrs classes are frozen unless "
        "said otherwise: change one with `attrs.evolve`. Exceptions and their fields are on "
        "[errors.md](errors.md), the seams that pass these values on [seams.md](seams.md).",
        "",
    ]
    types = public_types()
    lines += [", ".join(f"[`{cls.__name__}`](#{cls.__name__.lower()})" for cls in types), ""]
    for cls in types:
        lines += [f"## {cls.__name__}", "", f"`seamhost.{cls.__name__}` (from `{cls.__module__}`)"]
        doc = inspect.getdoc(cls)
        if doc and doc != inspect.getdoc(cls.__base__):
            lines += ["", markdown(doc)]
        lines.append("")
        if issubclass(cls, enum.Enum):
            module = importlib.import_module(cls.__module__)
            lines += ["| member | value | meaning |", "|---|---|---|"]
            lines += [
                f"| `{name}` | `{cls[name].value!r}` | {cell(markdown(meaning))} |"
                for name, meaning in member_comments(module, cls).items()
            ]
        else:
            lines += ["| field | type | default | meaning |", "|---|---|---|---|"]
            lines += [
                f"| `{name}` | `{cell(annotation)}` | {default_of(cls, name)} "
                f"| {cell(markdown(doc))} |"
                for name, annotation, doc in field_docs(cls)
            ]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
