"""The one path policy shared by the in-process file tools and the sandbox provider (DESIGN §5.7).

What a call may write depends on its effective sandbox mode:

* ``read-only``: nothing, anywhere.
* ``workspace-write``: only inside the workspace and the extra writable roots, judged on where
  the target really is, resolved component by component as the kernel resolves it: every symlink
  followed and every ``..`` applied to the directory actually reached (``/proc/self/root`` and
  the other magic links of ``/proc`` included). A final name that is a symlink is followed to the
  end and judged by where it leads, so a link leading out of the workspace is refused. An
  existing regular file with more than one hard link is refused too: another of its names may
  lie outside, and the link count is all that shows it.
* ``danger-full-access``: anywhere.

Reads are not restricted here; they go wherever the operating system lets the process read
(operators restrict reads with tool-policy rules). Relative paths are relative to the workspace;
``~`` is an ordinary file name, never expanded. Relative writable roots are relative to the
workspace. The paths :meth:`PathPolicy.check_write` and :meth:`PathPolicy.workspace_dir` return
are real (absolute, no symlink, no ``..``).

A check alone leaves a race: between the check and the write, a directory on the way could be
swapped for a symlink. :meth:`PathPolicy.open_for_write` closes that gap: it descends from the
writable root to the target one directory at a time (``O_DIRECTORY | O_NOFOLLOW`` relative to the
previous descriptor), opens the file the same way without truncating it, checks the link count
on the open descriptor and only then truncates. Whatever the path became meanwhile, the file
written is the one that was judged, or nothing is written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import SeamhostError
from seamhost.sandbox import SandboxMode

if TYPE_CHECKING:
    import io
    from types import TracebackType

    from seamhost.sandbox import ConfineRequest
    from seamhost.tools import ToolContext

StrPath = str | os.PathLike[str]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
# O_NONBLOCK keeps the open of a FIFO from hanging; the descriptor is refused as not a regular
# file right after, and made blocking again when it is one.
_FILE_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_FILESYSTEM_ROOT = Path("/")
_MAX_LINKS = 40  # symlinks followed in one resolution, as Linux allows


@attrs.frozen(auto_exc=True)
class PathDenied(SeamhostError, PermissionError):
    """The effective sandbox mode does not let the call write, or work, at a path."""

    path: str
    mode: str
    reason: str
    remedy: str

    def __str__(self) -> str:
        return f"{self.path}: refused in sandbox mode {self.mode}: {self.reason}; {self.remedy}"


def _real(path: StrPath) -> Path:
    return Path(os.path.realpath(path))


def _paths(paths: tuple[StrPath, ...] | list[StrPath]) -> tuple[Path, ...]:
    return tuple(Path(p) for p in paths)


@attrs.frozen
class PathPolicy:
    """What one call may write, given its sandbox mode, workspace and extra writable roots.

    The workspace and the roots are stored as real paths (converted on construction), so a
    workspace reached through a symlink is judged where it really is.
    """

    mode: SandboxMode = attrs.field(converter=SandboxMode)
    workspace: Path = attrs.field(converter=_real)
    writable_roots: tuple[Path, ...] = attrs.field(default=(), converter=_paths)

    def __attrs_post_init__(self) -> None:
        # Relative roots are relative to the workspace, so they can be real only once it is.
        real = tuple(dict.fromkeys(_real(self.workspace / root) for root in self.writable_roots))
        object.__setattr__(self, "writable_roots", real)

    @classmethod
    def of(cls, ctx: ToolContext) -> PathPolicy:
        """The policy of a tool call."""
        return cls(ctx.sandbox_mode, ctx.workspace, ctx.writable_roots)

    @classmethod
    def for_request(cls, request: ConfineRequest) -> PathPolicy:
        """The policy a `sandbox/confine` provider enforces for `request`."""
        return cls(request.mode, request.workspace, request.writable_roots)

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
        return tuple(dict.fromkeys((self.workspace, *self.writable_roots)))

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
            raise self._denied(lexical, "the sandbox is read-only", _READ_ONLY_REMEDY)
        try:
            target, via_link = _real_target(lexical)
        except OSError as exc:
            # EINVAL: a link read back as no link, so the path changed while it was resolved.
            if exc.errno != errno.EINVAL or not self.mode.confining:
                raise
            reason = f"it changed while it was resolved ({exc.strerror})"
            raise self._denied(lexical, reason, _RETRY_REMEDY) from exc
        if self.mode is SandboxMode.DANGER_FULL_ACCESS:
            return target
        if self._root_of(target) is None:
            if via_link:
                reason = f"it is a symlink to {target}, outside the writable roots"
            elif target != lexical:
                reason = f"it resolves to {target}, outside the writable roots"
            else:
                reason = "it is outside the writable roots"
            raise self._denied(lexical, reason, self._outside_remedy())
        links = _hard_links(target)
        if links > 1:
            raise self._denied(lexical, _hard_link_reason(links), _HARD_LINK_REMEDY)
        return target

    def workspace_dir(self, path: StrPath) -> Path:
        """The real directory `path` names, which must lie inside the workspace (any mode).

        This is where a subprocess may start. The directory need not exist for the check; a path
        that cannot be resolved at all raises the operating system's error.
        """
        lexical = self.locate(path)
        real = _resolve(lexical)
        if not real.is_relative_to(self.workspace):
            raise self._denied(
                lexical,
                f"the working directory resolves to {real}, outside the workspace {self.workspace}",
                "pass a directory inside the workspace (relative paths are relative to it)",
            )
        return real

    # -- writing without a race -----------------------------------------------------------

    def open_for_write(
        self,
        path: StrPath,
        *,
        create: bool = True,
        create_dirs: bool = False,
        truncate: bool = True,
    ) -> OpenedFile:
        """Open the file at `path` for reading and writing, exactly where the check placed it.

        `create` makes the file when missing (``created`` says whether it did); `create_dirs`
        makes missing parent directories; `truncate` empties the file, only after the open
        descriptor passed the checks. Raises `PathDenied` when refused or when the path changed
        under the walk, ``FileNotFoundError`` for a missing file or directory that may not be
        made, ``IsADirectoryError`` or ``OSError`` when the target is not a regular file.
        """
        target = self.check_write(path)
        root = self._root_of(target) or _FILESYSTEM_ROOT
        parts = target.relative_to(root).parts
        if not parts:
            raise IsADirectoryError(errno.EISDIR, "a directory, not a file", str(target))
        dir_fd = os.open(root, _DIR_FLAGS)
        try:
            for index, part in enumerate(parts[:-1]):
                here = root.joinpath(*parts[: index + 1])
                child = self._descend(dir_fd, part, here, create_dirs)
                os.close(dir_fd)
                dir_fd = child
            fd, created = self._open_file(dir_fd, parts[-1], target, create)
        finally:
            os.close(dir_fd)
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "a directory, not a file", str(target))
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", str(target))
            if self.mode.confining and info.st_nlink > 1:
                raise self._denied(target, _hard_link_reason(info.st_nlink), _HARD_LINK_REMEDY)
            os.set_blocking(fd, True)
            if truncate:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return OpenedFile(target, created, open(fd, "r+b", closefd=True))

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
        return self._open_dir(dir_fd, name, here)

    def _open_dir(self, dir_fd: int, name: str, here: Path) -> int:
        """Open directory `name` under `dir_fd` without following a symlink."""
        try:
            return os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(name, dir_fd):
                raise self._raced(here) from exc
            raise

    def _open_file(self, dir_fd: int, name: str, target: Path, create: bool) -> tuple[int, bool]:
        try:
            if create:
                try:
                    flags = _FILE_FLAGS | os.O_CREAT | os.O_EXCL
                    return os.open(name, flags, 0o666, dir_fd=dir_fd), True
                except FileExistsError:
                    pass
            return os.open(name, _FILE_FLAGS, dir_fd=dir_fd), False
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise self._raced(target) from exc
            raise

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
        return self._denied(path, reason, _RETRY_REMEDY)

    def _outside_remedy(self) -> str:
        return (
            f"write inside the workspace {self.workspace}, add the directory to "
            "[sandbox] writable_roots, or ask for danger-full-access for this call"
        )


@attrs.frozen(eq=False)
class OpenedFile:
    """A file opened by :meth:`PathPolicy.open_for_write`; a context manager that closes it."""

    path: Path  # the real path that was judged and opened
    created: bool
    file: io.BufferedRandom

    def __enter__(self) -> OpenedFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.file.close()


_READ_ONLY_REMEDY = (
    "writes need sandbox mode workspace-write (set [sandbox] mode, or ask for it for this call)"
)
_RETRY_REMEDY = "nothing was written; check the path and retry"
_HARD_LINK_REMEDY = (
    "another name of the file may lie outside the workspace; write a new file instead, "
    "or ask for danger-full-access for this call"
)


def _hard_link_reason(links: int) -> str:
    return f"the file has {links} hard links"


def _real_target(lexical: Path) -> tuple[Path, bool]:
    """Where a write to `lexical` lands, and whether a final symlink was followed to get there."""
    if lexical.name in ("", ".."):
        return _resolve(lexical), False
    via_link = (_resolve(lexical.parent) / lexical.name).is_symlink()
    return _resolve(lexical), via_link


def _resolve(path: Path) -> Path:
    """The real path the operating system reaches through `path`, whose tail may not exist yet.

    Resolution goes as the kernel's does, one component at a time: a symlink is replaced by its
    target (at most `_MAX_LINKS` of them), ``..`` goes up from the directory reached so far, and
    a missing component starts a tail that is kept by name. ``os.path.realpath`` differs where
    the kernel refuses, and so this raises what the kernel would: ``..`` after a missing
    component (``ENOENT``), anything after a non-directory (``ENOTDIR``), a loop (``ELOOP``).
    """
    pending = list(reversed(path.parts[1:]))
    real = _FILESYSTEM_ROOT
    missing = False  # `real` does not exist; what follows is kept by name
    links = 0
    while pending:
        part = pending.pop()
        if part == "..":
            if missing:
                raise FileNotFoundError(errno.ENOENT, "no such directory before '..'", str(path))
            real = real.parent
            continue
        real = real / part
        if missing:
            continue
        try:
            info = os.lstat(real)
        except FileNotFoundError:
            missing = True
            continue
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > _MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
            target = Path(os.readlink(real))
            real = _FILESYSTEM_ROOT if target.is_absolute() else real.parent
            pending.extend(reversed(target.parts[1:] if target.is_absolute() else target.parts))
        elif pending and not stat.S_ISDIR(info.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(real))
    return real


def _hard_links(path: Path) -> int:
    """The link count of `path` when it is an existing regular file, else 1."""
    try:
        info = path.lstat()
    except OSError:
        return 1
    return info.st_nlink if stat.S_ISREG(info.st_mode) else 1


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


__all__ = ["OpenedFile", "PathDenied", "PathPolicy"]
