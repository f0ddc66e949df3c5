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
  lie outside, and the link count is all that shows it.
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

A file is replaced, never written in place (:meth:`Replacement.commit`). The new bytes go to a
temporary file in the same directory, ``.<name>.<16 random hex digits>.seamhost-tmp``, created
exclusively and never through a symlink, mode 0600 while it is written. It then takes the old
file's mode, and its owner and group as far as the process may set them (a new file takes the
mode ``open(path, "w")`` would give it under the process's umask), is fsynced, renamed over the
target, and the directory is fsynced so the rename itself survives a crash. So after a crash, a
kill or a full disk at any point the target holds its old bytes or its new ones, never a mix or
nothing; a failure before the rename removes the temporary file and leaves the target
untouched. A process killed mid-write can leave its temporary file behind, which is safe to
delete.

What a replacement does not keep: the inode (the file is a new one; a descriptor open on the old
file keeps reading the old content), extended attributes and ACLs (not copied; the new file gets
whatever the directory gives new files), and other names: a file with more than one hard link is
refused in every mode, since replacing one name would leave the others with the old content
(`PathDenied` when confining, `HardLinkedFile` in ``danger-full-access``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import attrs

from seamhost.errors import SeamhostError
from seamhost.sandbox.policy import SandboxMode

if TYPE_CHECKING:
    from types import TracebackType

    from seamhost.sandbox.confinement import ConfineRequest

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
_MAX_LINKS = 40  # symlinks followed in one resolution, as Linux allows


class PathDenied(SeamhostError, PermissionError):
    """The effective sandbox mode does not let the call write, or work, at a path."""

    path: str
    mode: str
    reason: str
    remedy: str

    def __str__(self) -> str:
        return f"{self.path}: refused in sandbox mode {self.mode}: {self.reason}; {self.remedy}"


class HardLinkedFile(SeamhostError, OSError):
    """A file with more than one name, which replacing it through one name would split."""

    path: str
    links: int

    def __str__(self) -> str:
        return (
            f"{self.path}: the file has {self.links} hard links, and replacing it would leave "
            "the other names with the old content; nothing was written. Remove the other "
            "links first, or change the file in place with a shell command"
        )


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
    def of(cls, ctx: Confined) -> PathPolicy:
        """The policy of a tool call (`ctx` is its :class:`~seamhost.tool.call.ToolContext`)."""
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
        dir_fd = os.open(root, _DIR_FLAGS)
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
            if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(name, dir_fd):
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
                    reason = _hard_link_reason(info.st_nlink)
                    raise self._denied(target, reason, _HARD_LINK_REMEDY)
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
        return self._denied(path, reason, _RETRY_REMEDY)

    def _outside_remedy(self) -> str:
        return (
            f"write inside the workspace {self.workspace}, add the directory to "
            "[sandbox] writable_roots, or ask for danger-full-access for this call"
        )


@attrs.define(eq=False)
class Replacement:
    """A file about to be replaced, from :meth:`PathPolicy.open_for_replace`.

    It holds the directory the policy walked to and, when the file exists, the descriptor the
    policy checked; a context manager that closes both. :meth:`read` gives the content the file
    had when it was opened; :meth:`commit` replaces it atomically and durably. Not a value but
    a holder of descriptors, so not frozen: closing it is a change of state.
    """

    path: Path  # the real path that was judged
    _dir_fd: int = attrs.field(alias="dir_fd")
    _name: str = attrs.field(alias="name")
    _fd: int | None = attrs.field(alias="fd")  # None: there is no file yet
    _info: os.stat_result | None = attrs.field(alias="info")  # of `_fd`, taken when checked
    _closed: bool = attrs.field(default=False, init=False)

    @property
    def created(self) -> bool:
        """Whether the commit makes a new file: there was none when it was opened."""
        return self._fd is None

    @property
    def size(self) -> int:
        """The size of the file when it was opened (0 when there was none)."""
        return 0 if self._info is None else self._info.st_size

    def read(self) -> bytes:
        """The whole content of the file that was opened (empty when there was none)."""
        self._check_open()
        if self._fd is None:
            return b""
        chunks = []
        offset = 0
        while chunk := os.pread(self._fd, _READ_CHUNK, offset):
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def commit(self, data: bytes) -> None:
        """Replace the file with `data`: after a crash at any point it holds the old or the new.

        Writes a temporary file beside it, gives it the old file's mode (and owner and group,
        when the process may set them; a new file gets the umask's mode), fsyncs it, renames it
        over the target and fsyncs the directory. Any failure before the rename removes the
        temporary file and leaves the target untouched. A failure of the final directory fsync
        is raised with the new content already in place but not known to be durable.
        """
        self._check_open()
        temp = _temp_name(self._name)
        fd = os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=self._dir_fd)
        try:
            try:
                _write_all(fd, data)
                self._give_attributes(fd)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(temp, self._name, src_dir_fd=self._dir_fd, dst_dir_fd=self._dir_fd)
        except BaseException:
            # After a rename that did happen there is nothing left under `temp` to remove.
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=self._dir_fd)
            raise
        os.fsync(self._dir_fd)

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"the replacement of {self.path} is closed; open it again")

    def _give_attributes(self, fd: int) -> None:
        """Give the temporary file `fd` what the replaced file had, or a new file's mode."""
        if self._info is None:
            os.fchmod(fd, _NEW_FILE_MODE & ~_umask())
            return
        own = os.fstat(fd)
        wanted = (self._info.st_uid, self._info.st_gid)
        if (own.st_uid, own.st_gid) != wanted:
            _change_owner(fd, *wanted)
        # After the owner: changing it clears the set-user-ID and set-group-ID bits.
        os.fchmod(fd, stat.S_IMODE(self._info.st_mode))

    def close(self) -> None:
        """Close the descriptors (once; again does nothing); nothing can be committed after."""
        if self._closed:
            return
        self._closed = True
        if self._fd is not None:
            os.close(self._fd)
        os.close(self._dir_fd)

    def __enter__(self) -> Replacement:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


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


# -- replacing ---------------------------------------------------------------------------------

_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_SUFFIX = ".seamhost-tmp"
_TEMP_NAME_BYTES = 80  # of the target's name kept in the temporary one, well under NAME_MAX
_NEW_FILE_MODE = 0o666  # what open() asks for, before the umask
_READ_CHUNK = 1 << 20
_UMASK_LOCK = threading.Lock()


def _temp_name(name: str) -> str:
    """A fresh name beside `name`: hidden, naming the file it replaces, random, ours by suffix."""
    kept = os.fsencode(name)[:_TEMP_NAME_BYTES].decode("utf-8", "ignore")
    return f".{kept}.{os.urandom(8).hex()}{_TEMP_SUFFIX}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _umask() -> int:
    """The process's umask, read without changing it when ``/proc`` shows it."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # No /proc here: the only other way is to set it and put it back. The lock keeps two
    # replacements from reading each other's value; meanwhile the stricter mask can only narrow
    # what another thread creates, never widen it.
    with _UMASK_LOCK:
        mask = os.umask(0o077)
        os.umask(mask)
    return mask


def _change_owner(fd: int, uid: int, gid: int) -> None:
    """Give `fd` this owner and group, or as much of them as the process may set."""
    # Without the right to give the owner, the group may still be given: the process's own.
    for owner in (uid, -1):
        try:
            os.fchown(fd, owner, gid)
        except OSError as exc:
            if exc.errno != errno.EPERM:
                raise
        else:
            return


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


__all__ = ["HardLinkedFile", "PathDenied", "PathPolicy", "Replacement"]
