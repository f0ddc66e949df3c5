"""MCP programs written by others, from the npm registry, for the tests that run against them.

``tests/node/package.json`` pins them and its lock file fixes the tree; `npm ci` installs them into
``tests/node/node_modules`` (git-ignored) once, the first time a test asks, or beforehand in
``.ci/run``. Without Node and npm the tests that need them skip, naming what is missing, unless
``SEAMHOST_REQUIRE_NODE=1`` (set by ``.ci/run``) turns the skip into a failure.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).parent / "node"
REQUIRE_ENV = "SEAMHOST_REQUIRE_NODE"


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}, and {REQUIRE_ENV}=1 says these tests must run")
    pytest.skip(reason)


def node_modules() -> Path:
    """``tests/node/node_modules``, installed with `npm ci` if it is not there yet."""
    for program in ("node", "npm"):
        if shutil.which(program) is None:
            _unavailable(f"{program} is not installed")
    modules = NODE_DIR / "node_modules"
    with open(NODE_DIR / "package.json", "rb") as manifest:
        fcntl.flock(manifest, fcntl.LOCK_EX)  # pytest-xdist or two checkouts: one install
        if not (modules / ".package-lock.json").exists():
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=NODE_DIR,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            if done.returncode != 0:
                _unavailable(f"`npm ci` in {NODE_DIR} failed: {done.stderr.strip()[-500:]}")
    return modules


def node_program(name: str) -> list[str]:
    """The command that runs the installed package binary `name` (``node_modules/.bin``)."""
    path = node_modules() / ".bin" / name
    if not path.exists():
        pytest.fail(f"{name} is not in {path.parent}; is it in tests/node/package.json?")
    return [str(path)]
