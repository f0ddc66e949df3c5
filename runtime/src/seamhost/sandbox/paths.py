"""The one path policy shared by the in-process file tools and the sandbox provider (design.md
§5.7).

What a call may write depends on its effective sandbox mode:

* ``read-only``: nothing, anywhere.
* ``workspace-write``: only inside the workspace and the extra writable roots, judged on where
  the target really is, resolved component by component as the kernel resolves it: every symlink
  followed and every ``..`` applied to the directory actually reached (``/proc/self/root`` and
  the other magic links of ``/proc`` included). A final name that is a symlink is followed to the
  end and judged by where it leads, so a link leading out of the workspace is refused. An
  existing regular file with more than one hard link is refused too: another of its names may
  lie outside, and the link count is all that shows it. Nothing under a read-only path
  (``[sandbox] read_only_paths``) is writable, though it lies inside a writable root.
* ``danger-full-access``: anywhere.

Reads are not restricted here; they go wherever the operating system lets the process read
(operators restrict reads with tool-policy rules). Relative paths are relative to the workspace;
``~`` is an ordinary file name, never expanded. Relative writable roots are relative to the
workspace. The paths :meth:`PathPolicy.check_write` and :meth:`PathPolicy.workspace_dir` return
are real (absolute, no symlink, no ``..``).

A check alone leaves a race: between the check and the write, a directory on the way could be
swapped for a symlink. :meth:`PathPolicy.open_for_replace` closes that gap: it descends from the
writable root to the target's directory one directory at a time (``O_DIRECTORY | O_NOFOLLOW``
relative to the previous descriptor), opens the existing file there the same way and checks, on
the open descriptor, that it is a regular file with a single link. Everything after is done
relative to that directory descriptor; no path is resolved again. Whatever the path became
meanwhile, the file replaced is the one that was judged, or nothing is written.

**Pinned roots.** A policy made from a session's :class:`~seamhost.sandbox.roots.Pins`
(:meth:`PathPolicy.pinned`, what a tool's context and a confine request carry) takes the
workspace and the roots from the pins, never resolving their paths again: a root whose path no
longer leads to what was pinned is left out, and the walk of :meth:`PathPolicy.open_for_replace`
starts from the pinned descriptor, not from the root's path. A policy made from paths (no pins)
resolves them when it is made.

Replacing a file, atomically and durably, is :mod:`seamhost.sandbox.replacement`'s.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import attrs

from seamhost.sandbox.policy import SandboxMode
from seamhost.sandbox.refusals import (
    HARD_LINK_REMEDY,
    READ_ONLY_PATH_REMEDY,
    READ_ONLY_REMEDY,
    RETRY_REMEDY,
    HardLinkedFile,
    PathDenied,
    hard_link_reason,
)
from seamhost.sandbox.replacement import Replacement
from seamhost.sandbox.resolution import hard_links, is_link, real_target, resolve

if TYPE_CHECKING:
    from seamhost.sandbox.confinement import ConfineRequest
    from seamhost.sandbox.roots import Pins

StrPath = str | os.PathLike[str]


class Confined(Protocol):
    """What the policy of a call is read from: a tool's context has these three."""

    @property
    def sandbox_mode(self) -> SandboxMode: ...
    @property
    def workspace(self) -> Path: ...
    @property
    def writable_roots(self) -> tuple[Path, ...]: ...


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
# The file to replace is opened for writing, as writing it in place would, so a file the process
# may not write is refused. O_NONBLOCK keeps the open of a FIFO from hanging; the descriptor is
# refused as not a regular file right after, and made blocking again when it is one.
_FILE_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_FILESYSTEM_ROOT = Path("/")


def _real(path: StrPath) -> Path:
    return Path(os.path.realpath(path))


def _paths(paths: tuple[StrPath, ...] | list[StrPath]) -> tuple[Path, ...]:
    return tuple(Path(p) for p in paths)


@attrs.frozen
class PathPolicy:
    """What one call may write, given its sandbox mode, workspace and extra writable roots.

    The workspace and the roots are stored as real paths (converted on construction), so a
    workspace reached through a symlink is judged where it really is; with `pins` they are the
    pinned ones (see the module docstring).
    """

    mode: SandboxMode = attrs.field(converter=SandboxMode)  # the call's sandbox mode
    workspace: Path = attrs.field(converter=_real)  # the call's workspace (a real path)
    writable_roots: tuple[Path, ...] = attrs.field(default=(), converter=_paths)
    """writable directories besides the workspace (real paths)"""
    read_only_paths: tuple[Path, ...] = attrs.field(default=(), converter=_paths)
    """paths no call may write in a confining mode, though under a writable root (real paths)"""
    pins: Pins | None = attrs.field(default=None, eq=False, repr=False)
    """the session's pinned roots, which replace the three paths above"""
    _held: dict[Path, int] = attrs.field(factory=dict, init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if self.pins is not None:
            held = self.pins.held()
            object.__setattr__(self, "_held", held)
            object.__setattr__(self, "workspace", self.pins.workspace.path)
            roots = tuple(pin.path for pin in self.pins.writable if pin.path in held)
            object.__setattr__(self, "writable_roots", tuple(dict.fromkeys(roots)))
            paths = tuple(pin.path for pin in self.pins.read_only)
            object.__setattr__(self, "read_only_paths", paths)
            return
        # Relative roots are relative to the workspace, so they can be real only once it is.
        real = tuple(dict.fromkeys(_real(self.workspace / root) for root in self.writable_roots))
        object.__setattr__(self, "writable_roots", real)
        fixed = tuple(_real(self.workspace / path) for path in self.read_only_paths)
        object.__setattr__(self, "read_only_paths", fixed)

    @classmethod
    def pinned(cls, mode: SandboxMode, pins: Pins) -> PathPolicy:
        """The policy of `mode` over a session's pinned roots."""
        return cls(mode, pins.workspace.path, pins=pins)

    @classmethod
    def of(cls, ctx: Confined) -> PathPolicy:
        """The policy of a tool call (`ctx` is its :class:`~seamhost.tool.call.ToolContext`)."""
        pins: Pins | None = getattr(ctx, "pins", None)
        if pins is not None:
            return cls.pinned(ctx.sandbox_mode, pins)
        read_only: tuple[Path, ...] = getattr(ctx, "read_only_paths", ())
        return cls(ctx.sandbox_mode, ctx.workspace, ctx.writable_roots, read_only)

    @classmethod
    def for_request(cls, request: ConfineRequest) -> PathPolicy:
        """The policy a `sandbox/confine` provider enforces for `request`."""
        if request.pins is not None:
            return cls.pinned(request.mode, request.pins)
        return cls(request.mode, request.workspace, request.writable_roots, request.read_only_paths)

    def descriptor(self, path: Path) -> int | None:
        """The pinned descriptor of `path` (a root or read-only path) while it still holds."""
        return self._held.get(path)

    @property
    def workspace_moved(self) -> bool:
        """True when the pinned workspace's path no longer leads to it."""
        return self.pins is not None and self.workspace not in self._held

    # -- what is writable -----------------------------------------------------------------

    def writable_roots_for(self, mode: SandboxMode | None = None) -> tuple[Path, ...]:
        """The directories under which a process may write in `mode` (default: this policy's).

        None in ``read-only``; the workspace and the writable roots in ``workspace-write``;
        ``/`` in ``danger-full-access``. Roots that do not exist are listed all the same: a
        provider mounting them skips what it cannot mount, it never widens.
        """
        mode = self.mode if mode is None else SandboxMode(mode)
        if mode is SandboxMode.READ_ONLY:
            return ()
        if mode is SandboxMode.DANGER_FULL_ACCESS:
            return (_FILESYSTEM_ROOT,)
        workspace = () if self.workspace_moved else (self.workspace,)
        return tuple(dict.fromkeys((*workspace, *self.writable_roots)))

    def writable(self, path: StrPath) -> bool:
        """Whether :meth:`check_write` accepts `path` (never raises)."""
        try:
            self.check_write(path)
        except OSError:  # PathDenied, or a path that cannot be resolved at all
            return False
        return True

    def locate(self, path: StrPath) -> Path:
        """The absolute path `path` names: relative ones join the workspace; nothing resolved."""
        return self.workspace / Path(path)

    def check_write(self, path: StrPath) -> Path:
        """The real path a write to `path` would change.

        Raises `PathDenied` when the mode refuses it, and the error the operating system would
        give when the path cannot be resolved at all (``FileNotFoundError`` for a ``..`` after a
        directory that does not exist, ``NotADirectoryError``, a link loop's ``ELOOP``).
        """
        lexical = self.locate(path)
        if self.mode is SandboxMode.READ_ONLY:
            raise self._denied(lexical, "the sandbox is read-only", READ_ONLY_REMEDY)
        try:
            target, via_link = real_target(lexical)
        except OSError as exc:
            # EINVAL: a link read back as no link, so the path changed while it was resolved.
            if exc.errno != errno.EINVAL or not self.mode.confining:
                raise
            reason = f"it changed while it was resolved ({exc.strerror})"
            raise self._denied(lexical, reason, RETRY_REMEDY) from exc
        if self.mode is SandboxMode.DANGER_FULL_ACCESS:
            return target
        if self._root_of(target) is None:
            if self.workspace_moved and target.is_relative_to(self.workspace):
                reason = "the workspace was moved or replaced since the session opened"
                raise self._denied(lexical, reason, RETRY_REMEDY)
            if via_link:
                reason = f"it is a symlink to {target}, outside the writable roots"
            elif target != lexical:
                reason = f"it resolves to {target}, outside the writable roots"
            else:
                reason = "it is outside the writable roots"
            raise self._denied(lexical, reason, self._outside_remedy())
        protected = next((p for p in self.read_only_paths if target.is_relative_to(p)), None)
        if protected is not None:
            reason = f"it lies under the read-only path {protected} ([sandbox] read_only_paths)"
            raise self._denied(lexical, reason, READ_ONLY_PATH_REMEDY)
        links = hard_links(target)
        if links > 1:
            raise self._denied(lexical, hard_link_reason(links), HARD_LINK_REMEDY)
        return target

    def workspace_dir(self, path: StrPath) -> Path:
        """The real directory `path` names, which must lie inside the workspace (any mode).

        This is where a subprocess may start. The directory need not exist for the check; a path
        that cannot be resolved at all raises the operating system's error.
        """
        lexical = self.locate(path)
        real = resolve(lexical)
        if not real.is_relative_to(self.workspace):
            raise self._denied(
                lexical,
                f"the working directory resolves to {real}, outside the workspace {self.workspace}",
                "pass a directory inside the workspace (relative paths are relative to it)",
            )
        return real

    # -- replacing without a race ---------------------------------------------------------

    def open_for_replace(
        self, path: StrPath, *, create: bool = True, create_dirs: bool = False
    ) -> Replacement:
        """Get ready to replace the file at `path`, exactly where the check placed it.

        Walks to the target's directory and opens the file there (see the module docstring);
        nothing on disk changes until :meth:`Replacement.commit`. `create` allows a file that
        does not exist yet (:attr:`Replacement.created` says it does not); `create_dirs` makes
        missing parent directories, each fsynced into its parent. Raises `PathDenied` when
        refused or when the path changed under the walk, `HardLinkedFile` for a file with more
        than one name in ``danger-full-access``, ``FileNotFoundError`` for a missing file or
        directory that may not be made, ``IsADirectoryError`` or ``OSError`` when the target is
        not a regular file, and the operating system's error (``PermissionError``, say) when the
        process may not write the existing file.
        """
        target = self.check_write(path)
        root = self._root_of(target) or _FILESYSTEM_ROOT
        parts = target.relative_to(root).parts
        if not parts:
            raise IsADirectoryError(errno.EISDIR, "a directory, not a file", str(target))
        pinned = self.descriptor(root)
        # From the pinned root itself when there is one: its path is not resolved again.
        dir_fd = (
            os.open(root, _DIR_FLAGS) if pinned is None else os.open(".", _DIR_FLAGS, dir_fd=pinned)
        )
        try:
            for index, part in enumerate(parts[:-1]):
                here = root.joinpath(*parts[: index + 1])
                child = self._descend(dir_fd, part, here, create_dirs)
                os.close(dir_fd)
                dir_fd = child
            fd = self._open_file(dir_fd, parts[-1], target, create)
            info = None if fd is None else self._check_file(fd, target)
        except BaseException:
            os.close(dir_fd)
            raise
        return Replacement(target, dir_fd, parts[-1], fd, info)

    def _descend(self, dir_fd: int, name: str, here: Path, create_dirs: bool) -> int:
        """Open (or make, then open) directory `name` under `dir_fd`."""
        try:
            return self._open_dir(dir_fd, name, here)
        except FileNotFoundError:
            if not create_dirs:
                raise FileNotFoundError(
                    errno.ENOENT, "no such directory (pass create_dirs to make it)", str(here)
                ) from None
        # Made by someone else meanwhile: the open below judges whatever is there now.
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, dir_fd=dir_fd)
            # A file renamed into a new directory survives a crash only if the directory does.
            os.fsync(dir_fd)
        return self._open_dir(dir_fd, name, here)

    def _open_dir(self, dir_fd: int, name: str, here: Path) -> int:
        """Open directory `name` under `dir_fd` without following a symlink."""
        try:
            return os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ENOTDIR, errno.ELOOP) and is_link(name, dir_fd):
                raise self._raced(here) from exc
            raise

    def _open_file(self, dir_fd: int, name: str, target: Path, create: bool) -> int | None:
        """The existing file `name` under `dir_fd`, opened to write as an in-place writer would.

        Opening it for writing keeps the refusals of writing in place: a file the process may
        not write is not replaced either, though the directory would allow the rename. ``None``
        when it does not exist and `create` allows that.
        """
        try:
            return os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            if create:
                return None
            raise
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise self._raced(target) from exc
            raise

    def _check_file(self, fd: int, target: Path) -> os.stat_result:
        """Refuse what the open descriptor `fd` shows is no file to replace; close it then."""
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "a directory, not a file", str(target))
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", str(target))
            if info.st_nlink > 1:
                if self.mode.confining:
                    reason = hard_link_reason(info.st_nlink)
                    raise self._denied(target, reason, HARD_LINK_REMEDY)
                raise HardLinkedFile(str(target), info.st_nlink)
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return info

    # -- refusals -------------------------------------------------------------------------

    def _root_of(self, target: Path) -> Path | None:
        """The deepest writable root holding `target`, if any."""
        inside = [r for r in self.writable_roots_for() if target.is_relative_to(r)]
        return max(inside, key=lambda r: len(r.parts)) if inside else None

    def _denied(self, path: Path, reason: str, remedy: str) -> PathDenied:
        return PathDenied(str(path), str(self.mode), reason, remedy)

    def _raced(self, path: Path) -> OSError:
        """A symlink where the check saw none: refused when confining, an error otherwise."""
        reason = "a component of the path is a symlink the check did not see"
        if not self.mode.confining:
            return OSError(errno.ELOOP, reason, str(path))
        return self._denied(path, reason, RETRY_REMEDY)

    def _outside_remedy(self) -> str:
        return (
            f"write inside the workspace {self.workspace}, add the directory to "
            "[sandbox] writable_roots, or ask for danger-full-access for this call"
        )


__all__ = ["HardLinkedFile", "PathDenied", "PathPolicy"]
