"""The profile a host runs under: resolved once per process where that is safe, and rooted.

Resolving a profile reads its files, discovers the installed plugins, imports their descriptors
and validates every table (about ten milliseconds for a shipped one), and a matrix opens a host
per cell. So a resolved profile is kept, keyed by what was asked for (the name or path, or the
text), the current directory (relative paths in a profile are taken from there or from its
file), the environment (``$env`` values, ``SEAMHOST_PROFILE_PATH``, the plugins disabled) and
``sys.path`` (where plugins are discovered), and used again only while each file of its
``extends`` chain still has the size and modification time it had. A profile that read a secret
is never kept: a rotated secret file is read again. The cache holds :data:`KEPT` profiles, the
least recently used dropped first. A resolved profile is an immutable value: keeping it shares
nothing that a run changes (the bundle, whose plugins hold a run's state, is built per host).

``store=Path`` gives the host's sessions a persistence-jsonl store rooted at that path, whatever
the profile stores them in: its ``session/store`` provider (persistence-jsonl itself, or another
store) is replaced by persistence-jsonl with ``root`` set, and a profile that keeps sessions in
memory gets one. The root is part of the store's configuration, so a session's header records
where it was written.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from seamhost.errors import PluginNotInstalled
from seamhost.jsonvalue import freeze, thaw
from seamhost.kernel.profile.files import TEXT_LABEL
from seamhost.kernel.profile.resolve import PluginEntry, resolve_profile
from seamhost.kernel.profile.resolve import Profile as ResolvedProfile

if TYPE_CHECKING:
    from seamhost.kernel.profile.resolve import Profile

KEPT = 64  # resolved profiles kept per process
JSONL = "persistence-jsonl"
STORE_ORIGIN = "<store argument>"  # what set the root, as a profile's provenance would say

_Key = tuple[str, str, str, tuple[tuple[str, str], ...], tuple[str, ...]]
_Stamp = tuple[tuple[str, int, int], ...]
_kept: collections.OrderedDict[_Key, tuple[_Stamp, Profile]] = collections.OrderedDict()
_lock = threading.Lock()  # hosts may be opened from several threads


def host_profile(ref: str | Path | Profile | None, text: str | None, store: Path | None) -> Profile:
    """The profile `ref` (a name or path; ``None``: ``default``; or a profile already resolved,
    as the matrix holds) or `text` names, rooted at `store` when given (see the module)."""
    if isinstance(ref, ResolvedProfile) and text is None:
        profile = ref
    else:
        profile = cached_profile(str(ref) if ref is not None else "default", text)
    return with_store(profile, store) if store is not None else profile


def cached_profile(ref: str, text: str | None) -> Profile:
    """`ref` (or `text`) resolved, or the profile kept from an earlier resolution of it."""
    key: _Key = (
        "text" if text is not None else "ref",
        text if text is not None else ref,
        os.getcwd(),
        tuple(sorted(os.environ.items())),
        tuple(sys.path),
    )
    with _lock:
        kept = _kept.get(key)
        if kept is not None and kept[0] == _stamp(kept[1]):
            _kept.move_to_end(key)
            return kept[1]
    profile = resolve_profile(ref, text=text)
    if not profile.secrets:
        with _lock:
            _kept[key] = (_stamp(profile), profile)
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return profile


def with_store(profile: Profile, store: Path) -> Profile:
    """`profile` with its sessions in a persistence-jsonl store rooted at `store`."""
    import attrs

    root = str(store.expanduser().resolve())
    current = profile.plugin(JSONL)
    if current is not None:
        installed, descriptor = current.installed, current.descriptor
        declared, config = thaw(current.declared), thaw(current.config)
    else:
        from seamhost.kernel.plugins import discover

        found = discover().get(JSONL)
        if found is None:
            raise PluginNotInstalled(JSONL, f"seamhost-{JSONL}", STORE_ORIGIN)
        installed, descriptor, declared, config = found, found.load(), {}, {}
    entry = PluginEntry(
        JSONL,
        installed,
        descriptor,
        freeze({**declared, "root": root}),
        freeze({**config, "root": root}),
        STORE_ORIGIN,
    )
    kept = [p for p in profile.plugins if "session/store" not in p.descriptor.provides]
    where = next(
        (i for i, p in enumerate(profile.plugins) if "session/store" in p.descriptor.provides), 0
    )
    kept.insert(min(where, len(kept)), entry)
    return attrs.evolve(profile, plugins=tuple(kept))


def _stamp(profile: Profile) -> _Stamp:
    """The size and modification time of each file of the profile's chain (-1: gone)."""
    stamps = []
    for name in profile.files:
        if name == TEXT_LABEL:
            continue
        try:
            stat = os.stat(name)
        except OSError:
            stamps.append((name, -1, -1))
        else:
            stamps.append((name, stat.st_size, stat.st_mtime_ns))
    return tuple(stamps)


def forget_profiles() -> None:
    """Drop every kept profile (the next host resolves its profile again)."""
    with _lock:
        _kept.clear()


__all__ = ["KEPT", "cached_profile", "forget_profiles", "host_profile", "with_store"]
