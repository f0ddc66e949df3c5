"""Reading the console in Chromium: the sessions list, a timeline, and the list kept live.

The store is filled by the real CLI (``seamhost run`` in child processes) and shown by the real
``seamhost console --port 0``; what the pages say is held against what ``seamhost session ls``
and ``session show`` print for the same store. The live list is watched while a run progresses
in another process, one the test holds at a gate (a tool whose body waits for a file), so each
state is on the page before the test lets the run go on: the list must follow without the page
ever being loaded again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Frame, Page, expect

from seamhost.cli.exitcodes import ExitCode
from seamhost.run.deferred import pending_approvals
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source
from tests.console_browser.console_kit import Console, child_environ, login, screenshot
from tests.run.deferral_kit import deferring_profile
from tests.run.test_deferred_approvals import Deferring

WAIT_MS = 60_000  # how long a page may take to show what the store holds, on a loaded machine

# A hostile session: a user message that is markup and a terminal escape. The page must show it
# as text: no element made of it, no script run.
HOSTILE = '<img src=x onerror="window.pwned=1"><b id=bold>bold</b>\u001b[2J'
SCENARIO = f"""
[[turn]]
user = {json.dumps(HOSTILE)}
final = "done"
[[turn.step]]
text = "reading"
[[turn.step.call]]
tool = "read_file"
args = {{ path = "notes.txt" }}
"""

GATE = plugin_source(
    """
    @hookimpl
    def tools_register(self, register):
        import asyncio, os
        path = self.ctx.config["gate"]
        schema = {"type": "object", "properties": {}, "additionalProperties": False}

        async def body(ctx):
            while not os.path.exists(path):
                await asyncio.sleep(0.05)
            return ToolOutput("the gate opened")

        register(ToolSpec("wait_at_gate", "waits until the gate file exists", schema,
                          {}, "read", True, body))
    """,
    name="gate",
    schema='{"type": "object", "properties": {"gate": {"type": "string"}}, '
    '"required": ["gate"], "additionalProperties": False}',
)
GATED = """
[[turn]]
user = "wait, then count"
final = "counted"
[[turn.step]]
[[turn.step.call]]
tool = "wait_at_gate"
args = {}
[[turn.step]]
[[turn.step.call]]
tool = "count_write"
args = { n = 1 }
"""


@pytest.fixture
def rig(tmp_path: Path, plugin_site: PluginSite) -> Deferring:
    return Deferring.make(tmp_path, plugin_site)


def console_of(rig: Deferring, log: Path) -> Console:
    return Console(home=rig.home, profile=rig.profile, site=rig.site, cwd=rig.root, log=log)


def run(rig: Deferring, session: str, scenario: Path) -> subprocess.CompletedProcess[str]:
    workspace = rig.workspace(session)
    workspace.mkdir(exist_ok=True)
    (workspace / "notes.txt").write_text("hello\n")
    return rig.cli(
        "run", "--profile", str(rig.profile), "--session", session,
        "--workspace", str(workspace), str(scenario),
    )  # fmt: skip


def test_the_sessions_list_and_a_timeline_show_what_the_cli_shows(
    rig: Deferring, page: Page, tmp_path: Path
) -> None:
    hostile = tmp_path / "hostile.toml"
    hostile.write_text(SCENARIO)
    with console_of(rig, tmp_path / "console.log") as console:
        done = run(rig, "notes-1", hostile)
        assert done.returncode == ExitCode.OK, done.stdout + done.stderr
        rig.park("deploy-7")
        listed = rig.cli(
            "session", "ls", "--profile", str(rig.profile), "--json", "--tokens",
            "--state", "open", "--state", "closed", "--state", "awaits-approval",
        )  # fmt: skip
        assert listed.returncode == 0, listed.stderr
        expected = {s["session_id"]: s for s in json.loads(listed.stdout)}
        assert set(expected) == {"notes-1", "deploy-7"}

        login(page, console)
        rows = page.locator("#sessions tr[data-session]")
        expect(rows).to_have_count(2)
        # Newest first.
        assert [rows.nth(i).get_attribute("data-session") for i in range(2)] == [
            "deploy-7",
            "notes-1",
        ]
        for session_id, cli in expected.items():
            row = page.locator(f'#sessions tr[data-session="{session_id}"]')
            expect(row.locator("td.state")).to_have_text(cli["state"])
            expect(row).to_contain_text("model-scripted")
            tokens = cli["usage"]  # the scripted model reports none: 0 here, as in the CLI
            expect(row.locator("td.num").nth(0)).to_have_text(f"{tokens['input_tokens']:,}")
            expect(row.locator("td.num").nth(1)).to_have_text(f"{tokens['output_tokens']:,}")
        screenshot(page, "sessions")

        page.locator('#sessions a:text-is("notes-1")').click()
        page.wait_for_url(console.url("/sessions/notes-1"))
        timeline = page.locator("#timeline").inner_text()
        shown = rig.cli("session", "show", "--profile", str(rig.profile), "notes-1")
        assert shown.returncode == 0, shown.stderr
        # Every line `session show` prints is on the page (the page is wider: no line breaks).
        page_lines = {" ".join(line.split()) for line in timeline.splitlines()}
        for line in shown.stdout.splitlines():
            if line.strip() and not line.startswith(" "):
                assert " ".join(line.split()) in page_lines, line
        assert "read_file" in timeline
        # The hostile message is text on the page, its escape shown, nothing of it run.
        assert "<b id=bold>bold</b>" in timeline
        assert "\u001b" not in timeline
        assert "\\x1b[2J" in timeline
        expect(page.locator("#bold")).to_have_count(0)
        assert page.evaluate("window.pwned") is None


def test_the_sessions_list_follows_a_run_without_reloading(
    rig: Deferring, page: Page, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    rig.site.add("gate", GATE)
    rig.profile.write_text(deferring_profile(rig.counter) + f'[plugins.gate]\ngate = "{gate}"\n')
    gated = tmp_path / "gated.toml"
    gated.write_text(GATED)

    with console_of(rig, tmp_path / "console.log") as console:
        login(page, console)
        expect(page.locator("#sessions tr.empty")).to_be_visible()
        expect(page.locator("#live")).to_be_visible()  # the event stream is open
        page.evaluate("() => { window.sameDocument = 'yes'; }")
        navigations: list[str] = []

        def navigated(frame: Frame) -> None:
            if frame == page.main_frame:
                navigations.append(frame.url)

        page.on("framenavigated", navigated)
        row = page.locator('#sessions tr[data-session="live-1"]')
        state = row.locator("td.state")

        running = start_run(rig, "live-1", gated)
        try:
            expect(row).to_be_visible(timeout=WAIT_MS)
            expect(state).to_have_text("open", timeout=WAIT_MS)
            assert running.poll() is None, "the run waits at the gate"
            gate.touch()
            assert running.wait(timeout=120) == ExitCode.AWAITS_APPROVAL
        finally:
            if running.poll() is None:
                running.kill()
                running.wait()
        expect(state).to_have_text("awaits-approval", timeout=WAIT_MS)

        [waiting] = pending_approvals(rig.store())
        approved = rig.answer("approve", "live-1", waiting.approval_id)
        assert approved.returncode == 0, approved.stderr
        resumed = rig.cli("run", "--profile", str(rig.profile), "--resume", "live-1", str(gated))
        assert resumed.returncode == ExitCode.OK, resumed.stdout + resumed.stderr
        expect(state).to_have_text("closed", timeout=WAIT_MS)
        expect(page.locator("#sessions tr.empty")).to_have_count(0)

        assert navigations == [], "the page was loaded again"
        assert page.evaluate("window.sameDocument") == "yes"
        assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
        assert rig.runs() == ["call-1-2-1 1"]


def start_run(rig: Deferring, session: str, scenario: Path) -> subprocess.Popen[str]:
    """`seamhost run` in a child process that the test does not wait for."""
    workspace = rig.workspace(session)
    workspace.mkdir(exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "seamhost", "run", "--profile", str(rig.profile),
         "--session", session, "--workspace", str(workspace), str(scenario)],
        env=child_environ(rig.home, rig.site), cwd=rig.root,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
