"""``seamhost mcp pins``, ``seamhost profile show`` for mounted tools, and the shipped example.

The commands run in a child process, as a user runs them (real exit codes, real stdout).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from tests.tools_mcp.conftest import TIME_SERVER, Area, loopback, one_call, run_turn

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mcp"
GUIDE = ROOT / "docs" / "user-guide.md"
BIN = str(Path(sys.executable).parent)


def seamhost(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": BIN + os.pathsep + os.environ.get("PATH", ""),
        "SEAMHOST_HOME": str(cwd / "home"),  # sessions of shipped profiles stay in the test's area
    }
    return subprocess.run(
        [sys.executable, "-m", "seamhost", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_pins_prints_what_to_paste_and_pasting_it_accepts_the_tools(area: Area) -> None:
    profile = area.profile(loopback(area))
    shown = seamhost("mcp", "pins", "--profile", str(profile), "--json", cwd=area.root)
    assert shown.returncode == 0, shown.stderr
    (server,) = json.loads(shown.stdout)["servers"]
    assert server["server"] == "loop"
    assert server["server_info"]["name"] == "loopback"
    tools = {t["tool"]: t["digest"] for t in server["tools"]}
    bundle = build_bundle(resolve_profile(str(profile)))
    origin = bundle.tools["loop__echo"].spec.origin
    assert origin is not None
    assert tools["echo"] == origin["descriptor_digest"]
    text = seamhost("mcp", "pins", "--profile", str(profile), cwd=area.root)
    assert text.returncode == 0, text.stderr
    assert f'pin = "{server["digest"]}"' in text.stdout
    # The server pin, pasted, is accepted: calls go through.
    pinned = area.profile(
        loopback(area, f'pin = "{server["digest"]}"\n'),
        scenario=one_call("loop__echo", {"text": "hi"}),
        name="pinned.toml",
    )
    assert run_turn(pinned, area).codes == {"c1": "ok"}
    # Once the server changes, the pasted pin refuses, and `pins` flags it.
    (area.state / "v2").touch()
    assert run_turn(pinned, area).codes == {"c1": "TOOL_CHANGED"}
    tool_pin = area.profile(
        loopback(
            area, f'[plugins.tools-mcp.servers.loop.overrides.echo]\npin = "{tools["echo"]}"\n'
        ),
        name="tool-pin.toml",
    )
    flagged = seamhost("mcp", "pins", "--profile", str(tool_pin), cwd=area.root)
    assert f"the profile pins {tools['echo']}: changed" in flagged.stdout


def test_pins_of_an_unreachable_server_fail_naming_it(area: Area) -> None:
    table = '[plugins.tools-mcp.servers.gone]\ncommand = ["/nonexistent/server"]\n'
    result = seamhost("mcp", "pins", "--profile", str(area.profile(table)), cwd=area.root)
    assert result.returncode == 2, result.stderr
    assert 'MCP server "gone"' in result.stderr
    assert "Traceback" not in result.stderr


def test_profile_show_says_which_annotations_are_trusted(area: Area) -> None:
    extra = (
        "trust_annotations = true\n"
        '[plugins.tools-mcp.servers.loop.overrides.hang]\neffect = "read-only"\n'
    )
    result = seamhost("profile", "show", str(area.profile(loopback(area, extra))), cwd=area.root)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if re.match(r"#\s+loop__write_file\s", line))
    assert "annotations trusted: readOnlyHint, idempotentHint, destructiveHint" in lines[at + 1]
    at = next(i for i, line in enumerate(lines) if re.match(r"#\s+loop__hang\s", line))
    assert "profile overrides: effect" in lines[at + 1]
    untrusted = seamhost(
        "profile", "show", str(area.profile(loopback(area), name="u.toml")), cwd=area.root
    )
    assert "annotations trusted: none (hints ignored)" in untrusted.stdout


def test_the_shipped_example_profile_loads_and_runs(area: Area) -> None:
    for name in ("time.toml", "time-scenario.toml"):
        shutil.copy(EXAMPLE / name, area.root / name)
    environ = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
    bundle = build_bundle(
        resolve_profile(str(area.root / "time.toml"), environ=environ), environ=environ
    )
    assert {"time__get_current_time", "time__convert_time"} <= set(bundle.tools)
    assert bundle.tools["time__get_current_time"].spec.effect == "read-only"  # trusted, on purpose
    assert bundle.tools["time__convert_time"].spec.concurrency_safe is False  # the override
    ran = seamhost(
        "run",
        str(area.root / "time-scenario.toml"),
        "--profile",
        str(area.root / "time.toml"),
        "--workspace",
        str(area.workspace),
        "--json",
        cwd=area.root,
    )
    assert ran.returncode == 0, ran.stderr
    results = [json.loads(line) for line in ran.stdout.splitlines() if '"tool/result"' in line]
    assert [r["data"].get("error") for r in results] == [None, None]


def test_the_user_guide_profile_is_valid(area: Area) -> None:
    chapter = GUIDE.read_text(encoding="utf-8").split("## Mounting MCP servers", 1)[1]
    block = re.search(r"```toml\n(.*?)```", chapter, re.S)
    assert block is not None
    text = block.group(1).replace('"mcp-server-time"', json.dumps(TIME_SERVER))
    (area.root / "guide.toml").write_text(text)
    profile = resolve_profile(
        str(area.root / "guide.toml"), environ={**os.environ, "SEARCH_MCP_TOKEN": "t"}
    )
    entry = next(e for e in profile.plugins if e.name == "tools-mcp")
    assert set(entry.config["servers"]) == {"time", "search"}
    assert entry.config["servers"]["search"]["headers"]["Authorization"] == "t"  # $env, resolved
