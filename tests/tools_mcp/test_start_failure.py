"""A stdio server that fails to start is reported with its command and the end of its stderr.

Its stderr goes to its log file, never to the terminal: the error used to say only
"initialize failed: stopped reading its stdin", hiding the server's own reason (bubblewrap's
``execvp ...: No such file or directory``, a missing configuration file). These servers are real
processes, run confined or not, and the bundle is built through the real plugin.
"""

from __future__ import annotations

import json
import sys

import pytest

from seamhost.errors import PluginLoadError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from tests.tools_mcp.conftest import Area

DYING = "import sys; sys.stderr.write('boom: no config file at /etc/loop.conf\\n'); sys.exit(3)"


@pytest.mark.parametrize("mode", ["danger-full-access", "workspace-write"])
def test_the_error_names_the_command_and_what_its_stderr_said(area: Area, mode: str) -> None:
    (area.root / "logs").mkdir(parents=True, exist_ok=True)
    (area.root / "logs" / "dying.log").write_text("an earlier start said this\n")
    command = json.dumps([sys.executable, "-c", DYING])
    table = f'[plugins.tools-mcp.servers.dying]\ncommand = {command}\nsandbox = "{mode}"\n'
    profile = resolve_profile(str(area.profile(table)))
    with pytest.raises(PluginLoadError) as info:
        build_bundle(profile)
    text = str(info.value)
    assert 'MCP server "dying"' in text
    assert "command: " in text
    assert "sys.exit(3)" in text
    assert "boom: no config file at /etc/loop.conf" in text
    assert "an earlier start said this" not in text  # only what this start wrote


def test_a_program_the_sandbox_cannot_find_says_what_to_do(area: Area) -> None:
    table = '[plugins.tools-mcp.servers.gone]\ncommand = ["no-such-mcp-server-here"]\n'
    profile = resolve_profile(str(area.profile(table)))
    with pytest.raises(PluginLoadError) as info:
        build_bundle(profile)
    text = str(info.value)
    assert "command: no-such-mcp-server-here" in text, text
    # bubblewrap says `execvp ...: No such file or directory`; under Landlock the launcher
    # reports the missing program its own way: either way the advice follows what it said.
    assert "No such file" in text or "not found" in text.lower(), text
    assert "give the command's absolute path" in text, text
