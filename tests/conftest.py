"""Shared fixtures: bundles built from throwaway plugin distributions installed for the test."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.testing.sites import PluginSite

BundleMaker = Callable[..., Bundle]


@pytest.fixture
def make_bundle(plugin_site: PluginSite) -> BundleMaker:
    """Install plugins from source and build a bundle of them.

    ``make_bundle({"name": source, ...}, profile="extra toml")`` writes each source as a plugin
    distribution (entry point ``name``), a profile naming every plugin in the given order, and
    returns the built bundle.
    """

    def make(
        plugins: dict[str, str], profile: str = "", environ: dict[str, str] | None = None
    ) -> Bundle:
        tables = []
        for name, source in plugins.items():
            plugin_site.add(name, source)
            tables.append(f"[plugins.{name}]\n")
        path = plugin_site.profile(
            "bundle.toml",
            '[profile]\nname = "test"\n' + "".join(tables) + textwrap.dedent(profile),
        )
        return build_bundle(resolve_profile(str(path), environ=environ), environ=environ)

    return make


def plugin_source(body: str, *, name: str, provides: str = "[]", schema: str | None = None) -> str:
    """Source of a plugin module whose class body is `body` (indented 4 spaces)."""
    schema = schema or '{"type": "object", "properties": {}, "additionalProperties": False}'
    return (
        "from seamhost import *\n"
        "from seamhost.kernel.hookspecs import hookimpl\n"
        "class Plugin:\n"
        "    def __init__(self, ctx):\n"
        "        self.ctx = ctx\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
        + f"\ndescriptor = PluginDescriptor(name={name!r}, factory=Plugin, provides={provides}, "
        f"config_schema={schema})\n"
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def run_cli(
    *args: str,
    site: PluginSite | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run the real ``seamhost`` CLI in a child interpreter (plugins from `site` importable)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    if site is not None:
        environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(site.root), environ.get("PYTHONPATH", "")])
        )
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "seamhost", *args],
        check=False,
        capture_output=True,
        text=True,
        env=environ,
        cwd=cwd,
        input=input,
        timeout=timeout,
    )


def plugin_state(bundle: Bundle, name: str) -> Any:
    """The class of plugin `name`'s registered object (test plugins keep their records there)."""
    return type(bundle.pm.get_plugin(name))
