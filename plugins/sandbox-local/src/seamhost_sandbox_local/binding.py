"""bubblewrap's bind options for one request, from the pinned descriptors where there are some.

A root or read-only path the session pinned is bound from its descriptor (``--bind-fd FD PATH``
or ``--ro-bind-fd``), handed to bubblewrap through `fds`; each descriptor is named once, since
bubblewrap closes it after its mount. Anything else is bound by its path.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from seamhost import PathPolicy


@attrs.define
class Binds:
    """The options being built, the descriptors they name, and read-only paths left unbound."""

    policy: PathPolicy
    options: list[str] = attrs.field(factory=list)
    fds: list[int] = attrs.field(factory=list)
    unbound: list[Path] = attrs.field(factory=list)  # read-only paths with nothing to bind

    def bind(self, path: Path, *, writable: bool) -> None:
        """Mount `path` (writable or not) at its own place in the sandbox."""
        fd = self.policy.descriptor(path)
        if fd is not None and fd not in self.fds:
            self.fds.append(fd)
            self.options += ["--bind-fd" if writable else "--ro-bind-fd", str(fd), str(path)]
        else:
            self.options += ["--bind" if writable else "--ro-bind", str(path), str(path)]

    def protect(self, paths: Iterable[Path], writable_roots: Iterable[Path]) -> None:
        """Bind read-only each of `paths` that lies under a writable root (others already are)."""
        roots = tuple(writable_roots)
        for path in paths:
            if not any(path.is_relative_to(root) for root in roots):
                continue
            if self.policy.descriptor(path) is not None or os.path.lexists(path):
                # A path bound by name only narrows: whatever it leads to becomes read-only.
                self.bind(path, writable=False)
            else:
                self.unbound.append(path)
