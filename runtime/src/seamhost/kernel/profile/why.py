"""Why a resolved profile has the value it has at a key (``seamhost profile show --why KEY``).

A key is a dotted path as profiles spell it, list positions in brackets:
``sandbox.mode``, ``plugins.tool-policy.rules``, ``plugins.tool-policy.rules[0].tool``. The
answer names the file that set the final value and the files it overrode (each with the value it
wrote there), like ``tox config``; for a key that accumulates, every file that added entries; for
a table, the file each of its keys came from; for a key no file sets, that its default applies.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from seamhost.errors import SeamhostError, join_key
from seamhost.kernel.profile.document import config_document
from seamhost.kernel.profile.gateway import SCHEMA as GATEWAY_KEYS
from seamhost.kernel.profile.merge import value_at

if TYPE_CHECKING:
    from seamhost.kernel.profile.provenance import Provenance
    from seamhost.kernel.profile.resolve import Profile

Path = tuple[str | int, ...]
_SEGMENT = re.compile(r"([^.\[\]]+)((?:\[\d+\])*)")
_SANDBOX_KEYS = ("mode", "writable_roots", "read_only_paths", "network")


class UnknownKey(SeamhostError, LookupError):
    """A key named on the command line is not a key of the resolved profile."""

    key: str
    profile: str
    close: tuple[str, ...] = ()

    def __str__(self) -> str:
        hint = (
            f"did you mean {' or '.join(self.close)}?"
            if self.close
            else "keys look like sandbox.mode or plugins.NAME.KEY (see `seamhost profile show`)"
        )
        return f"--why: {self.key!r} is not a key of profile {self.profile!r}; {hint}"


class Setter(NamedTuple):
    """One file that set (or added to) the key, and the value it wrote there."""

    file: str
    profile: str
    value: Any


class Explanation(NamedTuple):
    """Where the value of a key came from."""

    key: str
    value: Any  # the final value (None for a disabled plugin's key)
    kind: Literal["set", "accumulate", "merge", "table", "default"]
    setters: tuple[Setter, ...]  # merge order; for "set" the last one won
    keys: dict[str, str]  # for "table": each key of the table -> the file that set it last
    replaced_by: str = ""  # for "merge": the last file that replaced what it inherited

    def to_json(self) -> dict[str, Any]:
        setters = [s._asdict() for s in self.setters]
        won = self.kind == "set" and bool(setters)
        return {
            "key": self.key,
            "value": self.value,
            "kind": self.kind,
            "set_by": setters[-1] if won else None,
            "overrode": setters[:-1] if won else [],
            "files": setters,
            "keys": self.keys,
            **({"replaced_by": self.replaced_by} if self.kind == "merge" else {}),
        }


def parse_key(text: str) -> Path:
    """``plugins.x.rules[0].tool`` as ``("plugins", "x", "rules", 0, "tool")``; () if malformed."""
    parts: list[str | int] = []
    for segment in text.split("."):
        match = _SEGMENT.fullmatch(segment)
        if match is None or not match[1]:
            return ()
        parts.append(match[1])
        parts += [int(i) for i in re.findall(r"\d+", match[2])]
    return tuple(parts)


def explain(profile: Profile, key: str) -> Explanation:
    """Why `profile` has its value at `key`; raises :class:`UnknownKey` for a key it lacks."""
    path = parse_key(key.strip())
    doc = config_document(profile)
    prov = profile.provenance
    canonical = join_key(path) or key
    here = value_at(doc, path) if path else None
    for cut in range(len(path), 0, -1):
        entries = prov.setters.get(join_key(path[:cut]))
        if entries is None:
            continue
        rest, kind = path[cut:], prov.kind(join_key(path[:cut]))
        if kind == "table":
            if rest:
                break  # a key of a plugin table that no file sets: its default, or unknown
            keys = _table_keys(prov, path, here)
            return _answer(profile, canonical, here, "table", entries, keys=keys)
        if kind == "merge":
            return _merged(
                profile, canonical, where=path[:cut], rest=rest, here=here, entries=entries
            )
        if kind == "accumulate":
            if not rest:
                return _answer(profile, canonical, here, "accumulate", entries)
            if here is None:
                break
            element = value_at(doc, path[: cut + 1])
            owner = next((f for f, added in entries if element in added), entries[0][0])
            return _answer(profile, canonical, here, "set", [(owner, here)])
        final = here if here is not None else value_at(entries[-1][1], rest)
        if rest and final is None:
            break
        setters = [(f, value_at(v, rest)) for f, v in entries]
        return _answer(profile, canonical, final, "set", setters)
    if path and isinstance(here, dict):
        return _answer(profile, canonical, here, "table", [], keys=_table_keys(prov, path, here))
    if len(path) == 2 and path[0] == "sandbox" and path[1] in _SANDBOX_KEYS:
        return _answer(profile, canonical, here, "default", [])
    if len(path) == 2 and path[0] == "gateway" and path[1] in GATEWAY_KEYS:
        return _answer(profile, canonical, here, "default", [])
    if len(path) == 3 and path[0] == "plugins" and here is None:
        entry = profile.plugin(str(path[1]))
        if entry is not None and path[2] in entry.descriptor.config_keys:
            schema = entry.descriptor.config_schema.get("properties", {}).get(path[2], {})
            return _answer(profile, canonical, schema.get("default"), "default", [])
    raise _unknown(profile, canonical, doc)


def _answer(
    profile: Profile,
    key: str,
    value: Any,
    kind: Literal["set", "accumulate", "merge", "table", "default"],
    entries: list[tuple[str, Any]],
    *,
    keys: dict[str, str] | None = None,
    replaced_by: str = "",
) -> Explanation:
    names = profile.provenance.profiles
    setters = tuple(Setter(f, names.get(f, f), v) for f, v in entries)
    return Explanation(key, value, kind, setters, keys or {}, replaced_by)


def _merged(
    profile: Profile,
    key: str,
    *,
    where: Path,
    rest: Path,
    here: Any,
    entries: list[tuple[str, Any]],
) -> Explanation:
    """A key that merges (rules), or one of its entries: the files that put entries there."""
    replaced = profile.provenance.replaced.get(join_key(where))
    by = entries[replaced][0] if replaced is not None else ""
    if not rest:
        return _answer(profile, key, here, "merge", entries, replaced_by=by)
    entry = profile.plugin(str(where[1]))
    files = entry.entry_files.get(str(where[2]), ()) if entry is not None else ()
    index = rest[0]
    if here is None or not isinstance(index, int) or not 0 <= index < len(files):
        raise _unknown(profile, key, config_document(profile))
    return _answer(profile, key, here, "set", [(files[index], here)])


def _table_keys(prov: Provenance, path: Path, table: Any) -> dict[str, str]:
    """Each key of `table` (as resolved) that a file set, with the file that set it last."""
    prefix = join_key(path) + "."
    keys = table if isinstance(table, dict) else {}
    return {
        key[len(prefix) :]: entries[-1][0]
        for key, entries in prov.setters.items()
        if key.startswith(prefix) and key[len(prefix) :] in keys
    }


def _unknown(profile: Profile, key: str, doc: dict[str, Any]) -> UnknownKey:
    known = set(profile.provenance.setters)
    known.update(f"sandbox.{k}" for k in _SANDBOX_KEYS)
    known.update(f"gateway.{k}" for k in GATEWAY_KEYS)
    for entry in profile.plugins:
        known.update(f"plugins.{entry.name}.{k}" for k in entry.descriptor.config_keys)
    known.update(_tables(doc, ()))
    close = difflib.get_close_matches(key, sorted(known), n=3, cutoff=0.6)
    return UnknownKey(key, profile.name, tuple(close))


def _tables(value: Any, path: Path) -> list[str]:
    if not isinstance(value, dict):
        return []
    out = [join_key(path)] if path else []
    for key, child in value.items():
        out += _tables(child, (*path, key))
    return out
