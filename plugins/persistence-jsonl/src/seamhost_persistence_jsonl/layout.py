"""Where things live under a store root: the default root, session directories, log files.

See :mod:`seamhost_persistence_jsonl.format` for the layout these names implement.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import attrs

from seamhost.store import SessionNotFound, UnsupportedFormat
from seamhost_persistence_jsonl.errors import InvalidSessionId, MixedEncoding
from seamhost_persistence_jsonl.format import (
    LAYOUT_VERSION,
    LOCK_NAME,
    LOG_NAME,
    LOG_NAMES,
    READABLE_LAYOUTS,
    SNAPSHOT_NAME,
    TEMP_SUFFIX,
    Encoding,
    log_name,
)

HOME_ENV = "SEAMHOST_HOME"
NAME_MAX = 255
_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_HEX = "0123456789ABCDEF"


def default_root(environ: Mapping[str, str] | None = None) -> Path:
    """``$SEAMHOST_HOME/sessions``, else the user data directory's ``seamhost/sessions``.

    The user data directory is ``$XDG_DATA_HOME`` when it is an absolute path (the XDG base
    directory rule), else ``~/.local/share``.
    """
    env = os.environ if environ is None else environ
    home = env.get(HOME_ENV)
    if home:
        return Path(home).expanduser() / "sessions"
    data = env.get("XDG_DATA_HOME", "")
    if data and os.path.isabs(data):
        return Path(data) / "seamhost" / "sessions"
    user_home = env.get("HOME") or os.path.expanduser("~")
    return Path(user_home) / ".local" / "share" / "seamhost" / "sessions"


def escape_id(session_id: str) -> str:
    """The directory name of `session_id` (see the format); raises `InvalidSessionId`."""
    if not session_id:
        raise InvalidSessionId(session_id, "it is empty")
    try:
        raw = session_id.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidSessionId(session_id, "it is not valid Unicode text") from None
    out = []
    for index, byte in enumerate(raw):
        if byte in _SAFE and not (index == 0 and byte == 0x2E):
            out.append(chr(byte))
        else:
            out.append("%" + _HEX[byte >> 4] + _HEX[byte & 15])
    name = "".join(out)
    if len(name) > NAME_MAX:
        raise InvalidSessionId(
            session_id, f"escaped, it is {len(name)} bytes long; a directory name holds {NAME_MAX}"
        )
    return name


def unescape_id(name: str) -> str | None:
    """The session id a directory name stands for, or None when no id escapes to `name`."""
    try:
        raw = bytearray()
        index = 0
        while index < len(name):
            char = name[index]
            if char == "%":
                raw.append(int(name[index + 1 : index + 3], 16))
                index += 3
            else:
                raw.append(ord(char))
                index += 1
        session_id = raw.decode("utf-8")
        return session_id if escape_id(session_id) == name else None
    except (ValueError, InvalidSessionId):
        return None


@attrs.frozen
class SessionPaths:
    """The files of one session under `root`."""

    root: Path
    session_id: str
    directory: Path

    @classmethod
    def of(cls, root: Path, session_id: str) -> SessionPaths:
        return cls(root, session_id, root / escape_id(session_id))

    @property
    def lock(self) -> Path:
        return self.directory / LOCK_NAME

    def log(self, encoding: Encoding, layout: int = LAYOUT_VERSION) -> Path:
        return self.directory / log_name(encoding, layout)

    def temp(self, encoding: Encoding, token: str) -> Path:
        return self.directory / f".{LOG_NAMES[encoding]}.{token}{TEMP_SUFFIX}"

    def is_temp(self, name: str) -> bool:
        return name.endswith(TEMP_SUFFIX) and any(
            name.startswith(f".{log}.") for log in (*LOG_NAMES.values(), SNAPSHOT_NAME)
        )

    def find_log(self) -> tuple[Path, Encoding] | None:
        """The published log and its encoding, or None when the session was never published.

        This is the layout-version gate: the log of the newest layout this version reads (its
        name says which: :func:`~seamhost_persistence_jsonl.format.log_name`); a directory
        holding only logs of a newer layout raises `UnsupportedFormat`.
        """
        try:
            names = os.listdir(self.directory)
        except (FileNotFoundError, NotADirectoryError):
            return None
        newest = 0
        readable: dict[int, dict[Encoding, Path]] = {}
        for name in names:
            match = LOG_NAME.match(name)
            if match is None:
                continue
            version = int(match.group(1))
            if version in READABLE_LAYOUTS:
                found = readable.setdefault(version, {})
                found["zstd" if match.group(2) else "none"] = self.directory / name
            newest = max(newest, version)
        current = readable[max(readable)] if readable else {}
        if len(current) > 1:
            raise MixedEncoding(str(self.directory), "none", "zstd")
        for encoding, path in current.items():
            return path, encoding
        if newest > LAYOUT_VERSION:
            raise UnsupportedFormat(self.session_id, newest, LAYOUT_VERSION, str(self.directory))
        return None

    def require_log(self) -> tuple[Path, Encoding]:
        found = self.find_log()
        if found is None:
            raise SessionNotFound(self.session_id, str(self.root), root=True)
        return found


def configured_root(
    root: str | None, profile_path: Path, environ: Mapping[str, str] | None = None
) -> Path:
    """The store root a profile's ``root`` names: ``~`` expanded, a relative path taken from
    the directory of the profile file that set it; without ``root``, :func:`default_root`."""
    if not root:
        return default_root(environ)
    return configured_path(root, profile_path)


def configured_path(value: str, profile_path: Path) -> Path:
    """A path a profile key names: ``~`` expanded, a relative one taken from the directory of
    the profile file that set it."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else profile_path.parent / path
