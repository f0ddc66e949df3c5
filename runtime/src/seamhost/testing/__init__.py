"""``seamhost.testing``: the pytest plugin seamhost ships to plugin authors (entry point pytest11).

Fixtures:

* ``plugin_site`` — a :class:`~seamhost.testing.sites.PluginSite` on ``sys.path``: write a plugin
  module and the dist-info of its distribution (METADATA, entry_points.txt), exactly what an
  installer leaves on disk, so discovery finds it through the real entry-point group.

Contract suites (classes to subclass in a plugin's own tests) live in the submodules.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from seamhost.testing.sites import PluginSite


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginSite]:
    """A site directory on ``sys.path`` to install throwaway plugin distributions into."""
    site = PluginSite(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site.root))
    before = set(sys.modules)
    yield site
    for name in set(sys.modules) - before:
        if name in site.modules:
            del sys.modules[name]
