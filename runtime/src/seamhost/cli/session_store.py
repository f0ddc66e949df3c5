"""The store a session command reads: ``--profile``'s, or a persistence-jsonl ``--root``.

The store is the ``session/store`` provider of a profile's bundle (``--profile``, default
``default``), or a persistence-jsonl root given directly (``--root``, which must exist).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from seamhost.cli.options import profile_option
from seamhost.errors import ConfigError, PluginLoadError, PluginNotInstalled, StoreRootMissing
from seamhost.jsonvalue import freeze
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.plugins import discover
from seamhost.kernel.profile.resolve import PluginEntry, Profile, resolve_profile
from seamhost.sandbox.policy import SandboxPolicy

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore

JSONL_PLUGIN = "persistence-jsonl"
JSONL_DISTRIBUTION = "seamhost-persistence-jsonl"
F = TypeVar("F", bound=Callable[..., Any])


def store_options(command: F) -> F:
    """The ``--root`` and ``--profile`` options every session command takes."""
    command = profile_option("the one whose session/store provider holds the sessions")(command)
    command = click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        help="A persistence-jsonl root to read directly (instead of --profile).",
    )(command)
    return command


def open_store(root: Path | None, profile_ref: str, bundle: Bundle | None = None) -> SessionStore:
    """The store `--root` names, else the `session/store` provider of the profile's bundle
    (`bundle`, when the command has built it already)."""
    if root is not None:
        if not root.is_dir():
            raise StoreRootMissing(str(root))
        return jsonl_store(root)
    if bundle is None:
        bundle = build_bundle(resolve_profile(profile_ref))
    store = bundle.seams.session_store()
    if store is None:
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin provides session/store, so no session is stored; add one (such as "
            f"[plugins.{JSONL_PLUGIN}]) or pass --root DIR",
        )
    return store


def jsonl_store(root: Path) -> SessionStore:
    """The store of a persistence-jsonl root, made by the installed plugin through its seam."""
    installed = discover().get(JSONL_PLUGIN)
    if installed is None:
        raise PluginNotInstalled(JSONL_PLUGIN, JSONL_DISTRIBUTION, "--root")
    config = freeze({"root": str(root.resolve())})
    entry = PluginEntry(JSONL_PLUGIN, installed, installed.load(), config, config, "--root")
    profile = Profile(
        name="--root",
        path=Path.cwd() / "--root",
        description="",
        files=(),
        plugins=(entry,),
        sandbox=SandboxPolicy(),
        require_seams=(),
        require_plugins=freeze({}),
    )
    store = build_bundle(profile).seams.session_store()
    if store is None:
        raise PluginLoadError(JSONL_PLUGIN, "factory", "the plugin provides no session/store")
    return store
