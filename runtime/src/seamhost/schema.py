"""JSON Schema validation, compiled once per schema with fastjsonschema.

fastjsonschema turns a schema into Python source. Generating it is the slow part (several
milliseconds for a plugin's config schema, and ``seamhost profile check`` validates every plugin
table of a profile), so validators are cached twice, the way Python caches bytecode:

* in memory, by the canonical digest of the schema, for the life of the process;
* on disk, as the marshalled code object of the generated module, under ``$SEAMHOST_CACHE`` (else
  ``$SEAMHOST_HOME/cache``, else ``$XDG_CACHE_HOME/seamhost``, else ``~/.cache/seamhost``) in
  ``schemas/``, keyed by the schema's digest, fastjsonschema's version and the interpreter's
  bytecode magic. A cached validator runs without importing fastjsonschema: the generated code's
  only reference to it, its exception classes, is bound to the compatible ones below. Nor does it
  import :mod:`decimal` (~0.6 ms) unless it computes with decimals (``multipleOf``): the ``Decimal``
  its type checks name is a stand-in that answers ``isinstance`` exactly. A missing, unreadable or
  stale cache entry is simply regenerated; the cache is never a source of truth.

**References stay inside the document.** A schema may come from anyone (an upstream MCP server
lists its tools' schemas), and fastjsonschema resolves any other ``$ref`` by fetching it over
urllib: a URL would be connected to, a ``file:`` URL read, and what came back compiled into the
validator and its error messages. So before a schema is compiled or looked up in the disk
cache, :func:`check_references` refuses every string ``$ref`` that is not a fragment of the
document itself (``#...``), and every ``$id`` below the root that is not one either (it would
move the base a ``#`` reference resolves against: ``{"$id": "http://x/"}`` then
``{"$ref": "#/a"}`` means ``http://x/#/a``). It walks everything, data keywords (``const``,
``default``, ``enum``) included, since fastjsonschema expands references there too when it
writes error messages. A root ``$id`` only names the document and may be anything. As a second
wall, the compiler is given a resolver for every URI scheme that refuses.

Violations come back as a key path (keys and list indexes) and a sentence.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import CodeType
from typing import Any, NamedTuple

from seamhost import jsonvalue
from seamhost.errors import SeamhostError

CACHE_ENV = "SEAMHOST_CACHE"
HOME_ENV = "SEAMHOST_HOME"
# The version of the code `_generate` caches: part of every cache key, so changing what is done
# to the generated source retires the entries written before. "3": entries written before
# references were confined may hold what a remote `$ref` fetched.
_CODE_VERSION = "3"
# How much of a refused reference an error shows: it is someone else's text.
_SHOWN_REFERENCE = 200
# Patterns used only on a cache miss or a violation: `re` compiles them then, not at import.
_FASTJSONSCHEMA_IMPORT = r"^from fastjsonschema import [^\n]*\n"
_DECIMAL_IMPORT = "from decimal import Decimal\n"
_NAME_SPLIT = r"[\.\[\]]+"
_ROOT_FUNCTION = r"^def (validate\w*)\(data"


class Violation(NamedTuple):
    """Where a value breaks its schema (`path`, as keys and indexes) and how (`problem`)."""

    path: tuple[str | int, ...]
    problem: str

    def at(self, root: str) -> str:
        """``root.key[0]: problem``: where the violation is, below `root`, and what it is."""
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path)
        return f"{root}{where}: {self.problem}"


Validator = Callable[[Any], "Violation | None"]

_cache: dict[str, Validator] = {}


class _DecimalType(type):
    def __instancecheck__(cls, value: object) -> bool:
        # No value is a Decimal before something imports decimal, so do not import it here.
        module = sys.modules.get("decimal")
        return module is not None and isinstance(value, module.Decimal)


class _Decimal(metaclass=_DecimalType):
    """``decimal.Decimal`` as the generated type checks use it (``isinstance`` only)."""


class SchemaValueError(SeamhostError, ValueError):
    """Raised by generated validators (compatible with fastjsonschema's exception)."""

    message: str
    value: Any = None
    name: str | None = None
    definition: Any = None
    rule: str | None = None

    def __str__(self) -> str:
        return self.message

    @property
    def path(self) -> list[str]:
        return [item for item in re.split(_NAME_SPLIT, self.name or "") if item != ""]


class SchemaValuesError(SeamhostError, ValueError):
    """Raised by generated validators that collect several errors (unused by seamhost)."""

    errors: list[SchemaValueError]

    def __str__(self) -> str:
        return "; ".join(str(error) for error in self.errors)


class SchemaReferenceError(SeamhostError, ValueError):
    """A JSON Schema refers outside its own document; nothing was fetched or read for it."""

    reference: str  # the `$ref`, or the `$id` that moves the base (as the schema spells it)
    pointer: str  # where it is in the schema, as a JSON pointer
    schema: str = "the schema"  # which schema, for the message ("tool 'x' input_schema")

    def __str__(self) -> str:
        shown = self.reference[:_SHOWN_REFERENCE]
        cut = "..." if len(self.reference) > _SHOWN_REFERENCE else ""
        pointer = self.pointer[:_SHOWN_REFERENCE]
        return (
            f"{self.schema} refers outside its own document with {shown!r}{cut} at "
            f"{pointer!r}; seamhost never fetches a URL or reads a file for a schema: inline "
            "what it refers to (under definitions, referred to as '#/definitions/...')"
        )


def compile_schema(schema: Mapping[str, Any]) -> Validator:
    """A function returning ``None`` for a valid value, else the first `Violation`.

    Raises `SchemaReferenceError` for a schema that refers outside itself (module docstring).
    """
    plain = jsonvalue.thaw(schema)
    key = jsonvalue.digest(plain)
    validator = _cache.get(key)
    if validator is None:
        check_references(plain)  # before the disk cache: its entries are not trusted for this
        validator = _cache[key] = _wrap(_load(key, plain))
    return validator


def check_references(schema: Any, name: str = "the schema") -> None:
    """Raise `SchemaReferenceError` for the first reference outside the document (see above);
    `name` says which schema in its message."""
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                raise SchemaReferenceError(ref, f"{pointer}/$ref", name)
            for key in ("$id", "id") if pointer else ():
                base = node.get(key)
                moves = isinstance(base, str) and base != "" and not base.startswith("#")
                if moves and _refers(node):
                    raise SchemaReferenceError(str(base), f"{pointer}/{key}", name)
            items = list(node.items())
        elif isinstance(node, (list, tuple)):  # a frozen schema holds tuples
            items = list(enumerate(node))
        else:
            continue
        for part, child in reversed(items):
            step = str(part).replace("~", "~0").replace("/", "~1")
            stack.append((child, f"{pointer}/{step}"))


def _refers(node: Any) -> bool:
    """Whether any string ``$ref`` lies in `node` or below it (then a moved base matters)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if isinstance(item.get("$ref"), str):
                return True
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where compiled validators are cached (see the module docstring for the order)."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV]) / "schemas"
    if env.get(HOME_ENV):  # everything seamhost writes lives under SEAMHOST_HOME when it is set
        return Path(env[HOME_ENV]).expanduser() / "cache" / "schemas"
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "seamhost" / "schemas"


def _load(key: str, schema: dict[str, Any]) -> Callable[[Any], Any]:
    """The generated `validate` function, from the disk cache or freshly generated."""
    path = cache_dir() / f"{_cache_name(key)}.marshal"
    code: CodeType | None = None
    try:
        code = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        code = None
    if not isinstance(code, CodeType):
        code = _generate(schema, key)
        _store(path, code)
    namespace: dict[str, Any] = {
        "JsonSchemaValueException": SchemaValueError,
        "JsonSchemaValuesException": SchemaValuesError,
        "Decimal": _Decimal,  # rebound by the code's own import when it computes with decimals
    }
    exec(code, namespace)  # generated by fastjsonschema from our own schema
    validate: Callable[[Any], Any] = namespace["validate"]
    return validate


def _cache_name(key: str) -> str:
    version = _fastjsonschema_version()
    magic = importlib.util.MAGIC_NUMBER.hex()
    tag = f"{key}|{version}|{_CODE_VERSION}|{magic}|{sys.implementation.cache_tag}"
    return hashlib.sha256(tag.encode()).hexdigest()[:32]


@functools.cache
def _fastjsonschema_version() -> str:
    """The installed fastjsonschema's version, read from its source (no import, no metadata).

    Read once per process, like the module itself would be imported once.
    """
    spec = importlib.util.find_spec("fastjsonschema")
    if spec is None or spec.origin is None:
        return "missing"
    try:
        text = Path(spec.origin).with_name("version.py").read_text(encoding="utf-8")
    except OSError:
        return f"unknown:{spec.origin}"
    match = re.search(r"VERSION\s*=\s*['\"]([^'\"]+)", text)
    return match.group(1) if match else f"unknown:{spec.origin}"


def _generate(schema: dict[str, Any], key: str) -> CodeType:
    import fastjsonschema

    source = fastjsonschema.compile_to_code(
        schema, handlers=_REFUSE_EVERY_SCHEME, use_default=False
    )
    source = re.sub(_FASTJSONSCHEMA_IMPORT, "", source, count=1, flags=re.MULTILINE)
    if "Decimal(" not in source:  # type checks only: `_load` binds the stand-in
        source = source.replace(_DECIMAL_IMPORT, "", 1)
    # The root function is generated first and named after the root's `$id` when it has one.
    root = re.search(_ROOT_FUNCTION, source, flags=re.MULTILINE)
    if root is not None and root.group(1) != "validate":
        source += f"\nvalidate = {root.group(1)}\n"
    return compile(source, f"<schema {key[7:19]}>", "exec")


class _RefuseEveryScheme(Mapping[str, Callable[[str], Any]]):
    """fastjsonschema's ``handlers``: it fetches with urllib any scheme missing from them, so
    this one claims every scheme, and refuses."""

    def __contains__(self, scheme: object) -> bool:
        return True

    def __getitem__(self, scheme: str) -> Callable[[str], Any]:
        return self._refuse

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    @staticmethod
    def _refuse(uri: str) -> Any:
        raise SchemaReferenceError(uri, "")


_REFUSE_EVERY_SCHEME = _RefuseEveryScheme()


def _store(path: Path, code: CodeType) -> None:
    """Write the cache entry atomically; a cache that cannot be written is not an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(f".{os.getpid()}.tmp")
        temp.write_bytes(marshal.dumps(code))
        os.replace(temp, path)
    except OSError:
        pass


def _wrap(check: Callable[[Any], Any]) -> Validator:
    def validate(value: Any) -> Violation | None:
        try:
            check(value)
        except SchemaValueError as exc:
            return _violation(exc, value)
        return None

    return validate


def _violation(exc: SchemaValueError, value: Any) -> Violation:
    raw = exc.path[1:] if exc.path and exc.path[0] == "data" else list(exc.path)
    # Generated code spells list indexes as strings; walk the value to tell them from keys.
    path: list[str | int] = []
    for raw_part in raw:
        is_index = isinstance(value, (list, tuple)) and raw_part.isdigit()
        part: str | int = int(raw_part) if is_index else raw_part
        path.append(part)
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            value = None
    message = exc.message
    name = exc.name or ""
    if name and message.startswith(name + " "):
        message = message[len(name) + 1 :]
    return Violation(tuple(path), message)
