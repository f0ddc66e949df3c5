"""``seamhost plugin new``: each kind is generated, installed into a temporary environment over
the test one, listed by ``seamhost plugins`` and passes its own tests; bad input exits 2.

The environment is a virtual environment of its own whose site imports the test environment's
(so seamhost and pytest are there) and into which uv installs the generated distribution,
editable, with nothing else: the shared test environment is never changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner

from seamhost.cli import main
from seamhost.cli.plugin.new import KINDS


def _environment(root: Path) -> Path:
    """A virtual environment at `root` layered over this one; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    parent = sysconfig.get_paths()["purelib"]
    (Path(purelib) / "over-test-env.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
    return python


def _generate_install_and_test(tmp_path: Path, kind: str) -> None:
    name = f"gen-{kind}"
    target = tmp_path / name
    result = CliRunner().invoke(main, ["plugin", "new", name, "--kind", kind, "--dir", str(target)])
    assert result.exit_code == 0, result.output
    assert (target / "pyproject.toml").is_file()
    assert (target / "README.md").is_file()
    python = _environment(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMHOST_", "VIRTUAL_ENV"))}
    env["SEAMHOST_HOME"] = str(tmp_path / "home")
    install = ["pip", "install", "-q", "--python", str(python), "--no-deps", "-e", str(target)]
    subprocess.run(
        [sys.executable, "-m", "uv", *install],
        check=True,
        env=env,
    )
    listed = subprocess.run(
        [python, "-m", "seamhost", "plugins", "--json"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    [plugin] = [p for p in json.loads(listed.stdout) if p["name"] == name]
    assert plugin["distribution"] == f"seamhost-{name}"
    tests = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(target)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=target,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr


def test_a_tool_plugin_works_as_generated(tmp_path: Path) -> None:
    _generate_install_and_test(tmp_path, "tool")


@pytest.mark.slow
@pytest.mark.parametrize("kind", [kind for kind in KINDS if kind != "tool"])
def test_every_other_kind_works_as_generated(tmp_path: Path, kind: str) -> None:
    _generate_install_and_test(tmp_path, kind)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["Bad_Name", "--kind", "tool"], "cannot name a plugin"),
        (["ok", "--kind", "teapot"], "'teapot' is not one of"),
    ],
)
def test_bad_input_exits_2_saying_what_to_do(
    tmp_path: Path, arguments: list[str], says: str
) -> None:
    result = CliRunner().invoke(main, ["plugin", "new", *arguments, "--dir", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert says in result.output
    assert not (tmp_path / "x").exists()


def test_a_non_empty_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("mine")
    result = CliRunner().invoke(
        main, ["plugin", "new", "ok", "--kind", "tool", "--dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "is not empty" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]


def test_plugins_still_lists_the_installed_plugins() -> None:
    result = CliRunner().invoke(main, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    assert "tools" in {p["name"] for p in json.loads(result.output)}
