"""Every profile reachable by name (``seamhost profile ls``): the user's, then the shipped ones.

Names are looked up in the directories of ``$SEAMHOST_PROFILE_PATH`` in order (the user's
profiles), then among the profiles seamhost ships; the first file of a name wins, so a user
profile named like a shipped one shadows it. Each entry carries the file the name resolves to,
where it comes from, what it shadows, and its ``extends``: the parents as written and the whole
chain, parents first. A file that cannot be read or whose chain is broken is listed with its
error, so one bad file does not hide the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal, NamedTuple

from seamhost.errors import SeamhostError
from seamhost.kernel.profile.files import SHIPPED_DIR, load_chain, read_file, shipped_dirs

Origin = Literal["user", "shipped"]


class ListedProfile(NamedTuple):
    """One profile name, the file it resolves to, and what that file says about itself."""

    name: str
    path: Path
    origin: Origin
    description: str = ""
    extends: tuple[str, ...] = ()  # the parents, as written
    chain: tuple[str, ...] = ()  # the profile names of the whole chain, parents first
    shadows: tuple[tuple[Path, Origin], ...] = ()  # files of the same name it hides
    error: str = ""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "name": self.name,
            "path": str(self.path),
            "origin": self.origin,
            "description": self.description,
            "extends": list(self.extends),
            "chain": list(self.chain),
            "shadows": [{"path": str(p), "origin": o} for p, o in self.shadows],
        }
        if self.error:
            out["error"] = self.error
        return out


def list_profiles(environ: Mapping[str, str] | None = None) -> list[ListedProfile]:
    """Each profile name, sorted, with the file it resolves to and the files it shadows."""
    found: dict[str, list[tuple[Path, Origin]]] = {}
    shipped = SHIPPED_DIR.resolve()
    for directory in shipped_dirs(environ):
        if not directory.is_dir():
            continue
        origin: Origin = "shipped" if directory.resolve() == shipped else "user"
        for path in sorted(directory.glob("*.toml")):
            found.setdefault(path.stem, []).append((path, origin))
    return [_describe(name, files, environ) for name, files in sorted(found.items())]


def _describe(
    name: str, files: list[tuple[Path, Origin]], environ: Mapping[str, str] | None
) -> ListedProfile:
    (path, origin), shadows = files[0], tuple(files[1:])
    try:
        head = read_file(path)
    except SeamhostError as exc:
        return ListedProfile(name, path, origin, shadows=shadows, error=str(exc))
    listed = ListedProfile(
        name, path, origin, head.description, head.extends, (head.name,), shadows
    )
    try:
        chain = load_chain(str(path), environ)
    except SeamhostError as exc:
        return listed._replace(chain=(), error=str(exc))
    return listed._replace(chain=tuple(pf.name for pf in chain))
