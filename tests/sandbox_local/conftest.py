"""Fixtures for sandbox-local: the plugin object configured as a profile would, and its backends.

Nothing here is mocked: backends are probed and used for real. A backend that cannot work on
this machine (no bubblewrap, no user namespaces, a kernel without Landlock) makes the tests that
need it skip, saying why.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from seamhost_sandbox_local.config import Settings
from seamhost_sandbox_local.plugin import SandboxLocal, find_backend
from seamhost_sandbox_local.probing import NOT_CONFINING, report_of
from seamhost_sandbox_local.report import BackendReport

from seamhost.jsonvalue import freeze
from seamhost.kernel.plugins import PluginContext
from seamhost.sandbox.policy import SandboxPolicy

# Layouts must not live under /tmp: bubblewrap mounts a private /tmp over it, so an escape
# aimed there would fail for the wrong reason (the target out of sight, not refused).
SCRATCH_PARENT = Path("/var/tmp")
REQUIRE_ENV = "SEAMHOST_REQUIRE_SANDBOX_BACKENDS"


def make_plugin(**config: Any) -> SandboxLocal:
    """The plugin object as the kernel makes it for a ``[plugins.sandbox-local]`` table."""
    return SandboxLocal(
        PluginContext("sandbox-local", freeze(config), Path("profile.toml"), SandboxPolicy())
    )


def working(name: str, **config: Any) -> BackendReport:
    """The probe report of backend `name`; skips the test when it cannot work here.

    A backend that runs commands without confining them fails instead (that is a bug, not a
    machine without the backend), and so does any unavailable backend named in
    ``$SEAMHOST_REQUIRE_SANDBOX_BACKENDS`` (comma-separated), for CI machines known to have it.
    """
    report = report_of(find_backend(name, Settings.from_config(config)))
    if report.available:
        return report
    required = os.environ.get(REQUIRE_ENV, "").split(",")
    if report.reason == NOT_CONFINING or name in required:
        pytest.fail(f"the {name} backend does not work: {report.reason}")
    pytest.skip(f"the {name} backend cannot work on this machine: {report.reason}")


@pytest.fixture(scope="session")
def scratch() -> Iterator[Path]:
    parent = SCRATCH_PARENT if SCRATCH_PARENT.is_dir() else None
    root = Path(tempfile.mkdtemp(prefix="seamhost-sandbox-tests-", dir=parent))
    yield root
    shutil.rmtree(root, ignore_errors=True)
