"""The plugin guide's example plugin, extracted from docs/plugin-guide.md, installed and run.

Every fenced block of the guide whose first line is ``# file: <path>`` is a file of the example:
the distribution (``pyproject.toml`` and its module) and the profile and scenario that use it.
The test writes them into a temporary directory, installs the distribution for real (a wheel
built by its declared backend, installed by uv into a target directory, so the entry point is
the one its ``pyproject.toml`` declares), and runs ``seamhost run --check`` with the guide's
profile and scenario in a subprocess whose ``sys.path`` holds that directory. So the guide
cannot drift from what works.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "plugin-guide.md"
BLOCK = re.compile(r"^```[a-z]*\n# file: (?P<path>\S+)\n(?P<body>.*?)^```$", re.M | re.S)


def example_files(markdown: str) -> dict[str, str]:
    """Path → content of every ``# file:`` block (the marker line left out)."""
    return {match["path"]: match["body"] for match in BLOCK.finditer(markdown)}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The guide's files written out, and the directory its distribution is installed into."""
    root = tmp_path_factory.mktemp("guide-example")
    source = root / "plugin"
    for name, content in example_files(GUIDE.read_text(encoding="utf-8")).items():
        path = source / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    target = root / "site"
    done = subprocess.run(
        [sys.executable, "-m", "uv", "pip", "install", "--quiet", "--no-deps",
         "--python", sys.executable, "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return source, target


def seamhost(target: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    env["SEAMHOST_HOME"] = str(cwd / "home")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(target), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "seamhost", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_guide_holds_a_whole_distribution_a_profile_and_a_scenario() -> None:
    files = example_files(GUIDE.read_text(encoding="utf-8"))
    assert set(files) == {
        "pyproject.toml",
        "src/acme_shout/__init__.py",
        "shout.toml",
        "shout-scenario.toml",
    }


def test_the_installed_example_is_discovered_through_its_entry_point(
    installed: tuple[Path, Path],
) -> None:
    source, target = installed
    assert list(target.glob("acme_seamhost_shout-0.1.0.dist-info/entry_points.txt"))
    done = seamhost(target, source, "plugins", "--json")
    assert done.returncode == 0, done.stderr
    [shout] = [p for p in json.loads(done.stdout) if p["name"] == "shout"]
    assert shout["distribution"] == "acme-seamhost-shout"
    assert shout["entry_point"] == "acme_shout:descriptor"


def test_the_guides_profile_runs_the_guides_scenario_and_the_tool_runs(
    installed: tuple[Path, Path],
) -> None:
    source, target = installed
    workspace = source / "workspace"
    done = seamhost(
        target, source, "run", "--profile", "shout.toml", "--check", "--json",
        "--workspace", str(workspace), "shout-scenario.toml",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    *records, summary = [json.loads(line) for line in done.stdout.splitlines()]
    assert (summary["outcome"], summary["exit_code"]) == ("completed", 0), summary
    [result] = [r["data"] for r in records if r["type"] == "tool/result"]
    assert result.get("error") is None, result
    assert result["content"] == "HELLO!!"
    assert result["value"] == {"text": "HELLO!!"}
