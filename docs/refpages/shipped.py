"""The first-party plugins, read from the repository (``plugins/*/pyproject.toml``).

The pages describe what seamhost ships, so they are built from the workspace's own plugin
distributions, whatever else the environment has installed.
"""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path
from typing import NamedTuple

from seamhost import PluginDescriptor

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


class Shipped(NamedTuple):
    """One first-party plugin: its distribution, module and descriptor."""

    distribution: str
    module: str
    descriptor: PluginDescriptor


def shipped_plugins() -> list[Shipped]:
    """Every plugin a first-party distribution declares, by plugin name."""
    found = []
    for pyproject in sorted(PLUGINS.glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        for value in project.get("entry-points", {}).get("seamhost.plugins", {}).values():
            module, _, attribute = value.partition(":")
            descriptor = getattr(importlib.import_module(module), attribute)
            found.append(Shipped(project["name"], module, descriptor))
    return sorted(found, key=lambda shipped: shipped.descriptor.name)
