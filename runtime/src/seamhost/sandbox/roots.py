"""The roots of one session, resolved once and pinned (design.md §5.7).

When a session's pipeline is built, the workspace, the ``[sandbox] writable_roots`` and the
``[sandbox] read_only_paths`` are resolved once and each held by a :class:`~seamhost.sandbox.
pinning.Pin`. Nothing a call does later moves them: the path policy of the file tools, the
bubblewrap binds and the Landlock rules all use the pins, and a pin whose path no longer leads
to what it held (a root swapped for a symlink, or removed and made again) is dropped for that
call, never followed.

A root is refused (a configuration error, before anything runs) when it is reached through a
symlink that lies where a call could have planted it: inside the workspace or inside another
writable root. Elsewhere a symlink was made by the operator or the system, and it is resolved
once, here. A root that does not exist yet is never writable during the session. A read-only
path reached through a symlink protects what the link leads to (that only narrows).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import ConfigError
from seamhost.sandbox.pinning import Pin
from seamhost.sandbox.resolution import resolve

if TYPE_CHECKING:
    from collections.abc import Iterable


def _absolute(workspace: Path, path: Path) -> Path:
    return Path(os.path.normpath(workspace / path))


@attrs.frozen(eq=False)
class Pins:
    """The workspace, writable roots and read-only paths of one session, pinned."""

    workspace: Pin
    writable: tuple[Pin, ...] = ()
    read_only: tuple[Pin, ...] = ()

    @classmethod
    def open(
        cls,
        workspace: Path,
        writable_roots: Iterable[Path] = (),
        read_only_paths: Iterable[Path] = (),
        *,
        label: str = "[sandbox]",
    ) -> Pins:
        """Resolve and pin; raises `ConfigError` (file `label`) for a root it must refuse."""
        try:
            ws = Pin.take(resolve(Path(os.path.abspath(workspace))))
        except OSError as exc:
            raise ConfigError(label, "workspace", f"{workspace}: {exc.strerror}") from None
        if ws.fd is None:
            raise ConfigError(label, "workspace", f"{workspace} does not exist")
        named = tuple(writable_roots)
        lexical = [_absolute(ws.path, root) for root in named]
        key = "sandbox.writable_roots"
        reals = [
            _resolved(label, key, root, path) for root, path in zip(named, lexical, strict=True)
        ]
        writable = []
        for root, path, real in zip(named, lexical, reals, strict=True):
            changeable = [ws.path, *(r for r in reals if r != real)]
            place = next((c for c in changeable if path.is_relative_to(c)), None)
            if path != real and place is not None:
                raise ConfigError(
                    label,
                    key,
                    f"{root} leads through a symlink to {real}, and the link lies in {place}, "
                    "where a call could have planted it; name the real directory instead",
                )
            try:
                writable.append(Pin.take(real))
            except OSError as exc:
                raise ConfigError(label, key, f"{root}: {exc.strerror}") from None
        read_only = []
        for path in read_only_paths:
            real = _resolved(label, "sandbox.read_only_paths", path, _absolute(ws.path, path))
            try:
                read_only.append(Pin.take(real, directory=False))
            except OSError as exc:
                raise ConfigError(
                    label, "sandbox.read_only_paths", f"{path}: {exc.strerror}"
                ) from None
        return cls(ws, tuple(writable), tuple(read_only))

    def release(self) -> None:
        """Close every pin's descriptor now, once the session's pipeline is done with them."""
        for pin in (self.workspace, *self.writable, *self.read_only):
            pin.release()

    def held(self) -> dict[Path, int]:
        """The descriptor of every pin whose path still leads to it, by its path."""
        found: dict[Path, int] = {}
        for pin in (self.workspace, *self.writable, *self.read_only):
            if pin.fd is not None and pin.path not in found and pin.holds():
                found[pin.path] = pin.fd
        return found


def _resolved(label: str, key: str, named: Path, path: Path) -> Path:
    try:
        return resolve(path)
    except OSError as exc:
        raise ConfigError(label, key, f"{named}: {exc.strerror}") from None
