"""Throwaway plugin distributions written to a directory, as an installer would leave them."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path


class PluginSite:
    """A directory holding plugin modules and the dist-info of their distributions."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.modules: set[str] = set()

    def add(
        self,
        name: str,
        source: str,
        *,
        distribution: str | None = None,
        version: str = "0.1.0",
        module: str | None = None,
        attribute: str = "descriptor",
    ) -> Path:
        """Install plugin `name` whose module holds `source`; returns the module's path.

        The distribution defaults to ``seamhost-<name>`` and the module to
        ``seamhost_<name>`` (dashes become underscores).
        """
        dist = distribution or f"seamhost-{name}"
        mod = module or "seamhost_" + name.replace("-", "_")
        path = self.root / f"{mod}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        self.modules.add(mod)
        # The source just written is what the entry point loads: a module of that name that an
        # earlier test (or an earlier add) imported must not answer for it.
        sys.modules.pop(mod, None)
        importlib.invalidate_caches()
        info = self.root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(
            f"[seamhost.plugins]\n{name} = {mod}:{attribute}\n", encoding="utf-8"
        )
        return path

    def profile(self, filename: str, text: str) -> Path:
        """Write a profile file next to the site and return its path."""
        path = self.root.parent / filename
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path
