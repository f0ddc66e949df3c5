"""The console's pages: sessions, a timeline, unknown outcomes, runs; nothing unsafe shown.

Sessions are made by the real ``seamhost run``; the pages are read from a console under
Starlette's TestClient and compared with what the CLI prints for the same store.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from starlette.testclient import TestClient

from tests.console.console_kit import SECRET, Rig

# A user message carrying what would act on a terminal (OSC 52 writes the clipboard, CSI
# clears the screen, U+202E reverses the text around it) and on a page (a script).
HOSTILE = r"""
[scenario]
name = "hostile"

[[turn]]
user = "osc \u001b]52;c;ZXZpbA==\u0007 csi \u001b[2J bidi \u202eevil <script>alert(1)</script>"
final = "done"
"""


def test_the_sessions_page_lists_each_session_with_state_model_and_usage(
    rig: Rig, web: TestClient
) -> None:
    rig.park("s1")
    rig.leave_unknown("u1")
    page = web.get("/")
    assert page.status_code == 200
    rows = dict(re.findall(r'<tr data-session="([^"]+)">(.*?)</tr>', page.text, re.S))
    assert set(rows) == {"s1", "u1"}
    assert 'class="state">awaits-approval<' in rows["s1"]
    assert 'class="state">closed<' in rows["u1"]
    assert "deferred (model-scripted)" in rows["s1"]  # the model the header recorded
    assert '<a href="/sessions/s1">s1</a>' in rows["s1"]
    # Tokens and cost as `session ls --tokens` counts them (a scripted model reports none).
    listed = json.loads(rig.cli("session", "ls", "--tokens", "--json").stdout)
    usage = {row["session_id"]: row["usage"] for row in listed}
    assert f'class="num">{usage["s1"]["input_tokens"]:,}<' in rows["s1"]
    assert 'src="/static/live.js"' in page.text


def test_the_timeline_is_what_session_show_prints_with_control_characters_escaped(
    rig: Rig, web: TestClient, tmp_path: Path
) -> None:
    (tmp_path / "hostile.toml").write_text(HOSTILE)
    assert rig.run("h1", "hostile.toml").returncode == 0
    page = web.get("/sessions/h1")
    assert page.status_code == 200
    body = page.text
    for raw in ("\x1b", "\x07", "\u202e", "<script>"):
        assert raw not in body
    assert r"osc \x1b]52;c;ZXZpbA==\x07 csi \x1b[2J bidi \u202eevil" in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    # Line by line the text `seamhost session show` prints (HTML-unescaped).
    shown = rig.cli("session", "show", "h1")
    assert shown.returncode == 0, shown.stderr
    [pre] = re.findall(r'<pre id="timeline">(.*?)</pre>', body, re.S)
    unescaped = (
        pre.replace("&lt;", "<").replace("&gt;", ">").replace("&#34;", '"').replace("&#39;", "'")
    ).replace("&amp;", "&")
    assert unescaped.splitlines() == shown.stdout.splitlines()


def test_an_unknown_session_is_a_404_page(web: TestClient) -> None:
    missing = web.get("/sessions/nosuch")
    assert missing.status_code == 404
    assert "nosuch" in missing.text


def test_the_runs_page_of_a_store_without_a_queue_says_so(web: TestClient) -> None:
    page = web.get("/runs")
    assert page.status_code == 200
    assert "This profile's store is not a queue store" in page.text
    assert "persistence-postgres" in page.text


def test_no_page_shows_a_profile_secret(rig: Rig, web: TestClient) -> None:
    rig.park("s1")
    rig.leave_unknown("u1")
    for path in ("/", "/sessions/s1", "/sessions/u1", "/approvals", "/unknowns", "/runs"):
        page = web.get(path)
        assert page.status_code == 200, path
        assert SECRET not in page.text, path


def test_live_js_is_served_as_javascript(web: TestClient) -> None:
    script = web.get("/static/live.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert 'new EventSource("/events")' in script.text
    assert "textContent" in script.text
    assert "innerHTML" not in script.text
