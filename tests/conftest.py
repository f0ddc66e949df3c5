"""Shared fixtures: bundles built from throwaway plugin distributions installed for the test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.testing.sites import PluginSite

BundleMaker = Callable[..., Bundle]

# --------------------------------------------------------------------------------------------
# the suite leaves nothing in the temporary directory
# --------------------------------------------------------------------------------------------

_SCRATCH: list[Path] = []


def pytest_configure(config: pytest.Config) -> None:
    """Point the temporary directory of the suite (and of every process it starts) at a fresh
    one, so that what a test leaves there can be told from what other programs leave in /tmp.
    pytest's own ``tmp_path`` directories stay where they were.

    Under pytest-xdist the workers inherit the controller's directory (its environment is theirs)
    and only the controller checks it, once every worker has finished."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller made the directory
        return
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
    scratch = Path(tempfile.mkdtemp(prefix="seamhost-tests-tmp-"))
    scratch.chmod(0o755)  # reachable by other users, as /tmp is (tests run children as nobody)
    _SCRATCH.append(scratch)
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = None  # recomputed from TMPDIR


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a test left anything in the suite's temporary directory (a run's
    workspace that was not removed, above all), naming it."""
    if not _SCRATCH:
        return
    scratch = _SCRATCH.pop()
    left = sorted(p.name for p in scratch.iterdir())
    shutil.rmtree(scratch, ignore_errors=True)
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"the test suite left {len(left)} file(s) in the temporary directory: {left}"
        if reporter is not None:
            reporter.write_line(f"ERROR: {message}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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


def replaying_profiles() -> list[str]:
    """The shipped profiles that replay scenarios: a real model's profile (openai...) disables
    model-scripted, and its model cannot be reached from a test. A profile whose sessions live
    in a database server (postgres) runs against the tests' server, in its own schema, in
    tests/persistence_postgres/test_shipped_profile.py."""
    import tomllib

    found = []
    for path in sorted((Path(__file__).parent.parent / "profiles").glob("*.toml")):
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("plugins", {})
        if "persistence-postgres" in table:
            continue
        if table.get("model-scripted", {}).get("enabled", True):
            found.append(path.stem)
    return found


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
