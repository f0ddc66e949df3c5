"""Which file set each key of a resolved profile: recorded while the chain merges.

Every time a file sets a key, the merge notes the key path (``sandbox.mode``,
``plugins.tool-policy.rules``), the file and the value as written there; the last note of a key
is the file its final value came from, the earlier ones the files it overrode. Keys that
accumulate (a plugin's ``accumulate`` keys, ``require.seams``) note every file that added
entries; keys that merge (a plugin's ``merge`` keys) note every file too, and where one
replaced what it inherited; a plugin table notes every file that names it. Recording is a list
append per key and file, so resolving a profile costs the same with it as without; only
``seamhost profile show --why`` reads it (:mod:`seamhost.kernel.profile.why`).
"""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["set", "accumulate", "merge", "table"]


class Provenance:
    """Per key path, the files that set it, in merge order, with the value each wrote."""

    __slots__ = ("kinds", "profiles", "replaced", "setters")

    def __init__(self) -> None:
        self.setters: dict[str, list[tuple[str, Any]]] = {}
        self.kinds: dict[str, Kind] = {}  # only keys that are not plainly "set"
        self.profiles: dict[str, str] = {}  # file -> the profile name it declares
        self.replaced: dict[str, int] = {}  # merge key -> index of the last setter that replaced

    def set(self, key: str, file: str, value: Any) -> None:
        """`file` sets `key` to `value`, replacing what earlier files set."""
        self.setters.setdefault(key, []).append((file, value))

    def add(self, key: str, file: str, entries: Any) -> None:
        """`file` adds `entries` to the accumulating `key`."""
        self.setters.setdefault(key, []).append((file, entries))
        self.kinds[key] = "accumulate"

    def merge(self, key: str, file: str, entries: Any, *, replace: bool) -> None:
        """`file` puts `entries` before what `key` inherited, or in its place (`replace`)."""
        setters = self.setters.setdefault(key, [])
        if replace:
            self.replaced[key] = len(setters)
        setters.append((file, entries))
        self.kinds[key] = "merge"

    def table(self, key: str, file: str, table: Any) -> None:
        """`file` names the table `key`, whose keys merge one by one."""
        self.setters.setdefault(key, []).append((file, table))
        self.kinds[key] = "table"

    def kind(self, key: str) -> Kind:
        return self.kinds.get(key, "set")
