"""``seamhost.testing``: the pytest plugin seamhost ships to plugin authors (entry point pytest11).

Fixtures:

* ``plugin_site`` — a :class:`~seamhost.testing.sites.PluginSite` on ``sys.path``: write a plugin
  module and the dist-info of its distribution (METADATA, entry_points.txt), exactly what an
  installer leaves on disk, so discovery finds it through the real entry-point group.
* ``seamhost_run`` — a :class:`~seamhost.testing.SeamhostRun`: ``seamhost_run(profile_text,
  scenario)`` builds a bundle from the profile, runs the scenario (the model-scripted format, a
  TOML string or a path) in a fresh workspace with a store under the test's directory, and
  returns a :class:`~seamhost.testing.runs.RunOutcome`: each call's outcome and the session's
  records.

Options: ``--seamhost-matrix`` adds one item per cell of the profile matrix (``profile::scenario``,
:mod:`seamhost.testing.matrix_items`), chosen by ``--seamhost-profile`` and ``--seamhost-scenario``
or ``[tool.seamhost.matrix]`` in ``pyproject.toml``; without it nothing of the matrix is imported.

The plugin is registered through the ``pytest11`` entry point of seamhost-runtime, so installing
the runtime is enough; where entry-point plugins are disabled (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``),
add ``pytest_plugins = ["seamhost.testing"]`` to a conftest.py.

Contract suites (classes to subclass in a plugin's own tests) live in the submodules.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import pytest

from seamhost.testing.sites import PluginSite

if TYPE_CHECKING:
    from seamhost.testing.run_outcome import RunOutcome


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


@attrs.define
class SeamhostRun:
    """What the ``seamhost_run`` fixture gives: call it for each run; each has a directory."""

    root: Path  # the test's directory; run n lives in root/seamhost-run-<n>
    runs: int = 0

    def __call__(
        self,
        profile: str,
        scenario: str | Path,
        *,
        environ: Mapping[str, str] | None = None,
        approval_policy: str | None = None,
    ) -> RunOutcome:
        """Run `scenario` in a bundle of `profile` (:func:`seamhost.testing.runs.run_scenario`)."""
        from seamhost.testing.runs import run_scenario  # the run machinery, on first use

        self.runs += 1
        directory = self.root / f"seamhost-run-{self.runs}"
        return run_scenario(
            directory, profile, scenario, environ=environ, approval_policy=approval_policy
        )


@pytest.fixture
def seamhost_run(tmp_path: Path) -> SeamhostRun:
    """Runs scenarios against bundles built from profile texts, under the test's directory."""
    return SeamhostRun(tmp_path)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("seamhost", "seamhost's profile matrix")
    group.addoption(
        "--seamhost-matrix",
        action="store_true",
        default=False,
        help="Add one test per cell of the profile matrix (profile::scenario).",
    )
    group.addoption(
        "--seamhost-profile",
        action="append",
        default=[],
        metavar="PROFILE",
        help="A profile of the matrix: name, path or glob (repeatable; default: "
        "[tool.seamhost.matrix] profiles).",
    )
    group.addoption(
        "--seamhost-scenario",
        action="append",
        default=[],
        metavar="SCENARIO",
        help="A scenario of the matrix: file, directory or glob (repeatable; default: "
        "[tool.seamhost.matrix] scenarios).",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("seamhost_matrix", False):
        from seamhost.testing.matrix_items import MatrixPlugin  # the matrix, only when asked

        config.pluginmanager.register(MatrixPlugin(config), "seamhost-matrix")
