"""``@modelcontextprotocol/server-filesystem`` (npm) mounted, run in the session's workspace.

The server is given ``.`` as the directory it serves, so where it starts decides what it serves.
``seamhost run --workspace WS`` from another directory used to list it in that other directory
(the bundle was built before any workspace was known); the server now starts with the
session's workspace as its working directory and is confined to it, at listing too. The calls go
through the real CLI, the real pipeline and the real sandbox (bubblewrap here, else Landlock).

A second test runs the server as ``node script.js`` from a copy of its package tree under
``/tmp``, which bubblewrap hides behind a private ``/tmp``: the script's ``node_modules`` tree
must be made readable, or the server cannot import its own modules.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from seamhost.errors import PluginLoadError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from tests.conftest import run_cli
from tests.node_programs import node_modules
from tests.sandbox_local.conftest import working
from tests.tools_mcp.conftest import Area

PACKAGE = Path("@modelcontextprotocol") / "server-filesystem" / "dist" / "index.js"


@pytest.fixture(scope="session")
def script() -> Path:
    """The server's entry point, run by ``node`` (found through PATH) as a script."""
    path = node_modules() / PACKAGE
    if not path.is_file():
        pytest.fail(f"{path} is missing; is the package in tests/node/package.json?")
    return path


def profile(
    area: Area, script: Path, *served: str, extra: str = "", read_paths: tuple[Path, ...] = ()
) -> Path:
    """A profile extending ``default`` that mounts the server as ``fs``, serving `served`
    (`extra`: more tables; `read_paths`: the server table's)."""
    text = f"""\
        [profile]
        name = "fs-test"
        extends = ["default"]
        [plugins.tools-mcp]
        log_dir = "logs"
        startup_timeout_s = 30
        [plugins.tools-mcp.servers.fs]
        command = {json.dumps(["node", str(script), *served])}
        timeout_s = 30
        read_paths = {json.dumps([str(path) for path in read_paths])}
        [plugins.persistence-jsonl]
        root = "{area.root / "sessions"}"
        """
    path = area.root / "fs.toml"
    path.write_text(textwrap.dedent(text) + textwrap.dedent(extra))
    return path


def scenario(area: Area) -> Path:
    """Read notes.txt in the workspace, then write a file outside it (the server would let it:
    it serves that directory too; the sandbox must refuse)."""
    text = f"""\
        [[turn]]
        user = "go"
        final = "done"
        [[turn.step]]
        [[turn.step.call]]
        id = "read"
        tool = "fs__read_text_file"
        args = {{ path = "notes.txt" }}
        [[turn.step]]
        [[turn.step.call]]
        id = "escape"
        tool = "fs__write_file"
        args = {{ path = "{area.outside / "escaped.txt"}", content = "out of the workspace" }}
        """
    path = area.root / "scenario.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_a_run_elsewhere_serves_the_workspace_and_is_confined_to_it(
    script: Path, area: Area
) -> None:
    (area.workspace / "notes.txt").write_text("the words in the workspace\n")
    elsewhere = area.root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("the words of the current directory\n")
    fs = profile(area, script, ".", str(area.outside))
    env = {"HOME": str(area.state)}
    ran = run_cli(
        "run", "--profile", str(fs), "--workspace", str(area.workspace), "--json",
        str(scenario(area)), cwd=elsewhere, env=env, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    results = {
        e["data"]["call_id"]: e["data"]
        for e in map(json.loads, ran.stdout.splitlines())
        if e.get("type") == "tool/result"
    }
    assert results["read"].get("error") is None, results["read"]
    assert "the words in the workspace" in results["read"]["content"]
    assert results["escape"]["error"]["code"] == "TOOL_ERROR", results["escape"]
    assert not (area.outside / "escaped.txt").exists()
    # Every start of the server, the listing at bundle build included, served the workspace.
    log_file = area.root / "logs" / "fs.log"
    log = log_file.read_text()
    assert str(area.workspace) in log
    assert str(elsewhere) not in log, log

    listed = run_cli("session", "ls", "--profile", str(fs), "--json", cwd=elsewhere, env=env)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert row["profile"] == "fs-test"
    shown = run_cli("session", "show", row["session_id"], "--profile", str(fs), env=env)
    assert shown.returncode == 0, shown.stderr
    assert "fs__read_text_file" in shown.stdout
    assert "the words in the workspace" in shown.stdout

    # A resume from elsewhere lists the server in the session's own workspace too.
    before = len(log_file.read_bytes())
    resumed = run_cli(
        "run", "--profile", str(fs), "--resume", row["session_id"], cwd=elsewhere, env=env,
        timeout=120,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    started = log_file.read_bytes()[before:].decode()
    assert str(area.workspace) in started
    assert str(elsewhere) not in started, started


@pytest.fixture
def tree_under_tmp() -> Iterator[Path]:
    """A copy of tests/node/node_modules in a directory under /tmp (hidden by bubblewrap)."""
    root = Path(tempfile.mkdtemp(prefix="seamhost-node-tree-", dir="/tmp"))
    shutil.copytree(node_modules(), root / "node_modules", symlinks=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_a_node_script_whose_tree_lies_under_tmp_starts_confined(
    script: Path, tree_under_tmp: Path, area: Area
) -> None:
    copied = tree_under_tmp / "node_modules" / PACKAGE
    bundle = build_bundle(resolve_profile(str(profile(area, copied, "."))))
    assert "fs__read_text_file" in bundle.tools


def test_a_path_the_sandbox_hides_is_named_with_the_way_to_show_it(
    script: Path, tree_under_tmp: Path, area: Area
) -> None:
    """A script under /tmp that imports a module from a directory beside its own: bubblewrap
    hides it, and the error names that path and ``read_paths``; naming it there lets the
    server start."""
    working("bwrap")
    app, lib = tree_under_tmp / "app", tree_under_tmp / "lib"
    app.mkdir()
    lib.mkdir()
    (app / "server.mjs").write_text('import "../lib/serve.mjs";\n')
    (lib / "serve.mjs").write_text(f"import {json.dumps(script.as_uri())};\n")
    bwrap = '[plugins.sandbox-local]\nbackends = ["bwrap"]\n'
    hidden = profile(area, app / "server.mjs", ".", extra=bwrap)
    with pytest.raises(PluginLoadError) as info:
        build_bundle(resolve_profile(str(hidden)))
    text = str(info.value)
    assert f"the sandbox (bwrap) hides {lib / 'serve.mjs'}" in text, text
    assert "read_paths" in text, text
    shown = profile(area, app / "server.mjs", ".", extra=bwrap, read_paths=(lib,))
    bundle = build_bundle(resolve_profile(str(shown)))
    assert "fs__read_text_file" in bundle.tools
