"""A scenario handed to the bundle's replaying model, the workspace it runs in, and its files.

``seamhost run SCENARIO``, a worker's run and the embedding API (:mod:`seamhost.embed`) share
these: the scenario is loaded by the plugin that provides ``llm/replay`` (the scripted model),
which replays it from then on; a new session's workspace is seeded with the files the scenario
lists that it lacks (never overwritten, so a takeover keeps what the run made of them).

A workspace made for a run without one is a temporary directory named
``seamhost-workspace-*``: whoever made it removes it when the run ends, unless the run parked
(its resume works there) or the caller asked to keep it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from seamhost.errors import ConfigError

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.replay import Script

WORKSPACE_PREFIX = "seamhost-workspace-"


def replay(bundle: Bundle, path: Path, first_turn: int = 1) -> Script:
    """The script of `path`, loaded by the plugin that replays scenarios (``llm/replay``).

    Session turn k is scripted turn k from `first_turn` on. A bundle without such a plugin is a
    :class:`~seamhost.errors.ConfigError` naming the profile; a missing or invalid scenario is
    the plugin's error naming the file.
    """
    if not bundle.seams.has("llm/replay"):
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin replays a scenario (none provides llm/replay); "
            "add one that does, such as [plugins.model-scripted]",
        )
    return bundle.seams.llm_replay(path.resolve(), first_turn)


def seed(root: Path, script: Script | None) -> None:
    """Create `root` and the scenario's files that are not there yet."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in script.workspace.items() if script is not None else ():
        target = root / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")


def temporary_workspace() -> Path:
    """A new, empty temporary workspace (see the module docstring)."""
    return Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX)).resolve()


def is_temporary_workspace(path: Path) -> bool:
    """`path` is a workspace made by :func:`temporary_workspace` (by its name and place)."""
    return (
        path.name.startswith(WORKSPACE_PREFIX)
        and path.parent == Path(tempfile.gettempdir()).resolve()
    )


def discard_workspace(path: Path) -> None:
    """Remove a temporary workspace; any other directory is left alone."""
    if is_temporary_workspace(path):
        shutil.rmtree(path, ignore_errors=True)


__all__ = [
    "WORKSPACE_PREFIX",
    "discard_workspace",
    "is_temporary_workspace",
    "replay",
    "seed",
    "temporary_workspace",
]
