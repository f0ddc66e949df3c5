"""``pytest --seamhost-matrix``: the profile matrix as pytest items, one per cell.

The same cells as ``seamhost matrix`` (:mod:`seamhost.matrix`), chosen the same way:
``--seamhost-profile`` and ``--seamhost-scenario`` (repeatable; names, paths, globs), else the
``[tool.seamhost.matrix]`` table of the ``pyproject.toml`` in pytest's root directory. Each cell
is an item with the id ``profile::scenario``, added to whatever else was collected, so
``--junitxml`` (classname the profile, name the scenario), ``-k``, ``-x`` and pytest-xdist work
as for any test. A profile or scenario that does not load stops the run before any test, as a
usage error naming the file and the key.

Registered by :mod:`seamhost.testing` only when ``--seamhost-matrix`` is given, so that the
pytest plugin every seamhost installation brings imports none of this otherwise.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seamhost.errors import SeamhostError
from seamhost.matrix.plan import Cell, command_line, make_plan, read_defaults
from seamhost.matrix.running import run_one


class CellFailed(SeamhostError, AssertionError):
    """A cell did not meet its expectations, or crashed."""

    reason: str

    def __str__(self) -> str:
        return self.reason


class MatrixPlugin:
    """Adds the matrix's items at collection; keeps their stores in one directory."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.work = Path(tempfile.mkdtemp(prefix="seamhost-matrix-"))
        self.failed = False

    @pytest.hookimpl(tryfirst=True)  # before -k and -m deselect
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        root = config.rootpath
        defaults = read_defaults(root)
        here = Path.cwd()
        profiles = command_line("--seamhost-profile", config.getoption("seamhost_profile"), here)
        scenarios = command_line("--seamhost-scenario", config.getoption("seamhost_scenario"), here)
        try:
            plan = make_plan(profiles or defaults.profiles, scenarios or defaults.scenarios)
        except SeamhostError as exc:
            raise pytest.UsageError(f"seamhost matrix: {exc}") from exc
        collectors: dict[str, ProfileCells] = {}
        for cell in plan.cells:
            if cell.profile not in collectors:
                collectors[cell.profile] = ProfileCells.from_parent(
                    session, name=cell.profile, nodeid=cell.profile
                )
            items.append(CellItem.from_parent(collectors[cell.profile], cell=cell, work=self.work))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed = True

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.failed:  # the failures name sessions: their stores stay to be looked at
            session.config.stash[KEPT] = self.work
        else:
            shutil.rmtree(self.work, ignore_errors=True)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        kept = self.config.stash.get(KEPT, None)
        if kept is not None:
            terminalreporter.write_line(f"seamhost matrix: the failed cells' stores are in {kept}")


KEPT = pytest.StashKey[Path]()


class ProfileCells(pytest.Collector):
    """The cells of one profile (their items are made at collection, not by this node)."""

    def collect(self) -> Iterator[pytest.Item]:  # pragma: no cover  (never asked)
        return iter(())


class CellItem(pytest.Item):
    """One cell: its scenario run under its profile in a fresh session and store."""

    def __init__(self, *, cell: Cell, work: Path, **kwargs: Any) -> None:
        super().__init__(name=cell.scenario.stem, nodeid=cell.id, **kwargs)
        self.cell = cell
        self.work = work

    def runtest(self) -> None:
        result = run_one(self.cell, self.work)
        if not result.ok:
            raise CellFailed(result.reason)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, CellFailed):
            return f"{self.cell.id}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.cell.scenario, None, self.cell.id


__all__ = ["CellItem", "MatrixPlugin"]
