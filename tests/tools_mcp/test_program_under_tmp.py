"""A confined stdio server whose program and Python environment live under /tmp.

bubblewrap gives the server a private /tmp; without ``readable_paths`` a server kept there (a
venv in a clone under /tmp, as on CI) could not see its own interpreter and died at once. Here
a real virtual environment is made under /tmp (``--without-pip``: fast), given the running
environment's packages through a ``.pth`` file, and a copy of the loopback server is installed
in its ``bin`` as a ``#!`` script found on the server's ``PATH``: the program, its interpreter
and its environment are all under /tmp, and the call must be ``ok`` under either backend.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from seamhost_tools_mcp.programs import readable_paths

from seamhost import SandboxMode
from seamhost.sandbox.runner import SandboxRunner
from seamhost.testing.sandbox import SandboxProvider
from tests.sandbox_local.conftest import make_plugin, working
from tests.tools_mcp.conftest import HERE, Area, inline, one_call, run_turn


@pytest.fixture(scope="module")
def venv_under_tmp() -> Iterator[Path]:
    """A venv under /tmp that can import what the running one can, holding ``loop-server``."""
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="seamhost-mcp-venv-") as root:
        venv = Path(root) / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python = venv / "bin" / "python"
        site = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        (Path(site) / "running.pth").write_text(sysconfig.get_path("purelib") + "\n")
        server = venv / "bin" / "loop-server"
        server.write_text(f"#!{python}\n" + (HERE / "loopback_server.py").read_text())
        server.chmod(0o755)
        yield venv


def test_without_readable_paths_the_venv_is_out_of_sight(venv_under_tmp: Path) -> None:
    """What the fix is for: under bubblewrap the /tmp venv's interpreter cannot even start."""
    working("bwrap")
    seams = SandboxProvider("bwrap", make_plugin(backends=["bwrap"])).seams()
    runner = SandboxRunner(seams.confine, SandboxMode.READ_ONLY, Path.cwd())
    argv = (str(venv_under_tmp / "bin" / "python"), "-c", "print('ran')")
    result = asyncio.run(runner.run(argv, timeout=30))
    assert result.returncode != 0
    assert b"ran" not in result.stdout


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_a_server_under_tmp_starts_and_answers(
    area: Area, venv_under_tmp: Path, backend: str
) -> None:
    working(backend)
    path = f"{venv_under_tmp / 'bin'}:/usr/bin:/bin"
    table = (
        "[plugins.tools-mcp.servers.loop]\n"
        'command = ["loop-server"]\n'
        f"env = {inline({'LOOPBACK_STATE': str(area.state), 'PATH': path})}\n"
    )
    profile = area.profile(
        table,
        scenario=one_call("loop__echo", {"text": "from tmp"}),
        plugins=f'[plugins.sandbox-local]\nbackends = ["{backend}"]\n',
    )
    run = run_turn(profile, area)
    assert run.codes == {"c1": "ok"}, run.contents
    assert run.values["c1"]["text"] == "from tmp"
    assert run.metas["c1"]["server_backend"] == backend


def test_read_paths_name_what_else_a_server_reads(area: Area, venv_under_tmp: Path) -> None:
    """A server whose code sits in a directory of its own under /tmp (on its PYTHONPATH) starts
    only once the table's ``read_paths`` names that directory."""
    working("bwrap")
    lib = venv_under_tmp.parent / "lib"
    lib.mkdir(exist_ok=True)
    (lib / "loopmod.py").write_text((HERE / "loopback_server.py").read_text())
    server = venv_under_tmp / "bin" / "loop-from-lib"
    python = venv_under_tmp / "bin" / "python"
    run_module = "import runpy\nrunpy.run_module('loopmod', run_name='__main__')\n"
    server.write_text(f"#!{python}\n{run_module}")
    server.chmod(0o755)
    env = {"LOOPBACK_STATE": str(area.state), "PYTHONPATH": str(lib)}
    table = f'[plugins.tools-mcp.servers.loop]\ncommand = ["{server}"]\nenv = {inline(env)}\n'
    plugins = '[plugins.sandbox-local]\nbackends = ["bwrap"]\n'
    scenario = one_call("loop__echo", {"text": "lib"})
    hidden = area.profile(table, scenario=scenario, plugins=plugins, name="hidden.toml")
    with pytest.raises(Exception, match="initialize failed"):
        run_turn(hidden, area)
    named = table + f"read_paths = [{json.dumps(str(lib))}]\n"
    run = run_turn(area.profile(named, scenario=scenario, plugins=plugins), area)
    assert run.codes == {"c1": "ok"}, run.contents
    assert run.values["c1"]["text"] == "lib"


def test_the_program_is_found_as_exec_finds_it(tmp_path: Path) -> None:
    """PATH lookup, a ``#!/usr/bin/env`` interpreter, a node_modules tree, a script argument."""
    tree = tmp_path / "node_modules"
    (tree / "pkg" / "dist").mkdir(parents=True)
    (tree / ".bin").mkdir()
    main = tree / "pkg" / "dist" / "main.js"
    main.write_text("#!/usr/bin/env -S sh -e\necho\n")
    main.chmod(0o755)
    (tree / ".bin" / "pkg").symlink_to(main)
    script = tmp_path / "data" / "script.txt"
    script.parent.mkdir()
    script.write_text("")
    env = {"PATH": f"{tree / '.bin'}:/usr/bin:/bin"}
    found = readable_paths(("pkg", "data/script.txt", "missing"), env, tmp_path, (Path("/opt"),))
    sh = Path(shutil.which("sh", path="/usr/bin:/bin") or "/bin/sh")
    expected = [tree / ".bin", tree, main.parent, sh.parent, sh.resolve().parent, script.parent]
    assert found == tuple(dict.fromkeys([*expected, Path("/opt")]))


def test_a_program_right_in_tmp_uncovers_only_itself(under_tmp_file: Path) -> None:
    found = readable_paths((str(under_tmp_file),), {"PATH": "/usr/bin:/bin"}, Path("/"))
    assert found == (under_tmp_file,)


@pytest.fixture
def under_tmp_file() -> Iterator[Path]:
    with tempfile.NamedTemporaryFile(dir="/tmp", prefix="seamhost-server-") as file:
        path = Path(file.name)
        path.chmod(0o755)
        yield path


def test_a_script_uncovers_its_directory_and_packages_a_data_file_only_itself(
    tmp_path: Path,
) -> None:
    """``node app/src/server.js conf/app.json``: the script imports its siblings and the
    packages Node finds in ``node_modules`` beside it or above; the second file is data."""
    server = tmp_path / "app" / "src" / "server.js"
    server.parent.mkdir(parents=True)
    server.write_text("")
    (tmp_path / "app" / "node_modules").mkdir()
    config = tmp_path / "conf" / "app.json"
    config.parent.mkdir()
    config.write_text("{}")
    argv = ("/bin/true", "app/src/server.js", "conf/app.json")
    found = readable_paths(argv, {"PATH": "/usr/bin:/bin"}, tmp_path)
    assert server.parent in found
    assert tmp_path / "app" / "node_modules" in found
    assert config in found
    assert config.parent not in found
    assert tmp_path not in found
