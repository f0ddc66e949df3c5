"""Answering from the console in Chromium: approve, reject, reconcile, and the posts it refuses.

Each test starts the real ``seamhost console --port 0`` on a store the real CLI filled: a
session parked on a deferred approval (``tests/run/deferral_kit.py``: ``count_write`` appends one
line to a counter file each time its body runs, so "exactly once" is counted outside the log),
or a session whose call ended ``TOOL_OUTCOME_UNKNOWN`` (``tests/cli/test_reconcile_cli.py``). The
person's part is played in the page: buttons clicked, forms filled. What was recorded is read
back through the CLI (``seamhost approvals``, ``session show --json``, ``session unknowns``).

A forged post is made the ways a page can make one: from the console's own page with ``fetch()``
and no CSRF token (or a wrong one), and from a page of another origin served by a second local
HTTP server, by ``fetch()`` and by a form; and by a browser that never logged in. Each is
refused and leaves the session log byte for byte as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from seamhost.cli.exitcodes import ExitCode
from seamhost.testing.sites import PluginSite
from tests.cli.test_reconcile_cli import Unknown
from tests.console_browser.console_kit import Console, OtherSite, login, screenshot
from tests.run.test_deferred_approvals import COUNT, READ, Deferring, dispatches, results

SESSION = "deploy-7"


@pytest.fixture
def rig(tmp_path: Path, plugin_site: PluginSite) -> Deferring:
    return Deferring.make(tmp_path, plugin_site)


@pytest.fixture
def parked(rig: Deferring, tmp_path: Path) -> Iterator[tuple[Console, str]]:
    """The console on a store where session SESSION waits on one approval; and its id."""
    with Console(
        home=rig.home, profile=rig.profile, site=rig.site, cwd=rig.root, log=tmp_path / "c.log"
    ) as console:
        yield console, rig.park(SESSION)


def log_bytes(rig: Deferring) -> bytes:
    [path] = (rig.home / "sessions").glob(f"{SESSION}/session.v*.jsonl*")
    return path.read_bytes()


def approvals_text(rig: Deferring) -> str:
    listed = rig.cli("approvals", "--profile", str(rig.profile))
    assert listed.returncode == 0, listed.stderr
    return listed.stdout


def waiting(rig: Deferring) -> list[str | None]:
    """The decision on each question the store's parked sessions wait on (None: unanswered),
    read in this process: what `seamhost approvals` lists."""
    from seamhost.run.deferred import pending_approvals

    return [p.decision for p in pending_approvals(rig.store())]


def card_of(page: Page, console: Console, approval: str) -> Locator:
    """The approvals page, opened; the card of `approval` on it."""
    page.goto(console.url("/approvals"))
    card = page.locator(f'section[data-approval="{approval}"]')
    expect(card).to_be_visible()
    return card


def click(page: Page, button: Locator) -> tuple[int, str]:
    """Click a form's submit button; the status of the page it posts to, and that page's
    message."""
    with page.expect_navigation() as navigation:
        button.click()
    response = navigation.value
    assert response is not None
    return response.status, page.locator("#message").inner_text()


def test_approve_in_the_page_then_resume_runs_the_approved_call_once(
    parked: tuple[Console, str], rig: Deferring, page: Page
) -> None:
    console, approval = parked
    [deferred] = [r for r in rig.records(SESSION) if r.type == "approval/deferred"]
    login(page, console)
    card = card_of(page, console, approval)
    assert json.loads(card.locator("pre.arguments").inner_text()) == {"n": 1}
    expect(card.locator("code.digest")).to_have_text(deferred.data["args_digest"])
    expect(card).to_contain_text("count_write")
    expect(card).to_contain_text("counting needs a person")
    screenshot(page, "approvals")
    action, fields = form_of(card, console)

    status, message = click(page, card.get_by_role("button", name="Approve"))
    assert status == 200, message
    assert f"{approval} allowed once" in message
    [answer] = [r for r in rig.records(SESSION) if r.type == "approval/decided"]
    assert (answer.data["id"], answer.data["outcome"]) == (approval, "allowed-once")
    assert answer.data["source"] == "console"
    listed = approvals_text(rig)
    assert "answered: allowed-once, resume to continue" in listed, listed
    assert "pending" not in listed, listed
    assert rig.runs() == [], "approving runs nothing"

    resumed = rig.resume(SESSION)
    assert resumed.returncode == ExitCode.OK, resumed.stdout + resumed.stderr
    assert rig.runs() == [f"{COUNT} 1"], "the approved call ran, exactly once"
    records = rig.records(SESSION)
    assert dispatches(records, COUNT) == 1
    assert results(records)[COUNT] == "ok"
    assert approvals_text(rig).strip() == "no approval is waiting"

    # The question is used: its card is gone, and its form posted again is refused, unwritten.
    page.goto(console.url("/approvals"))
    expect(page.locator("#none")).to_be_visible()
    after = log_bytes(rig)
    status, text = post_from(page, action, {**fields, "decision": "approve"})
    assert status == 409, text
    assert log_bytes(rig) == after
    page.goto(console.url(f"/sessions/{SESSION}"))
    expect(page.locator("#timeline")).to_contain_text("count_write")
    screenshot(page, "timeline")


def test_reject_in_the_page_and_the_call_never_runs(
    parked: tuple[Console, str], rig: Deferring, page: Page
) -> None:
    console, approval = parked
    login(page, console)
    card = card_of(page, console, approval)
    card.get_by_label("Reason").fill("not during the freeze")
    status, message = click(page, card.get_by_role("button", name="Reject"))
    assert status == 200, message
    assert f"{approval} rejected" in message
    [answer] = [r for r in rig.records(SESSION) if r.type == "approval/decided"]
    assert (answer.data["outcome"], answer.data["source"]) == ("rejected", "console")
    assert "not during the freeze" in answer.data["message"]
    assert waiting(rig) == ["rejected"]

    resumed = rig.resume(SESSION)
    assert resumed.returncode == ExitCode.OK, resumed.stdout + resumed.stderr
    assert rig.runs() == []
    records = rig.records(SESSION)
    assert dispatches(records, COUNT) == 0
    assert results(records)[COUNT] == "APPROVAL_REJECTED"
    assert results(records)[READ] == "ok"


def form_of(card: Locator, console: Console) -> tuple[str, dict[str, str]]:
    """The URL the card's form posts to, and its hidden fields (the CSRF token, the digest)."""
    form = card.locator("form").first
    action = console.url(str(form.get_attribute("action")))
    hidden = form.locator('input[type="hidden"]')
    names = [str(hidden.nth(i).get_attribute("name")) for i in range(hidden.count())]
    return action, {n: str(form.locator(f'input[name="{n}"]').input_value()) for n in names}


def post_from(page: Page, action: str, fields: dict[str, str], mode: str = "cors") -> Any:
    """POST `fields` as a form from `page` with fetch(); [status, text] (status 0 when the
    response is opaque to the page, as a no-cors answer from another origin is)."""
    return page.evaluate(
        """async ([action, fields, mode]) => {
            const response = await fetch(action, {
                method: "POST", body: new URLSearchParams(fields), mode, credentials: "include",
            });
            return [response.status, response.type === "opaque" ? "" : await response.text()];
        }""",
        [action, fields, mode],
    )


def test_forged_and_altered_posts_are_refused_and_write_nothing(
    parked: tuple[Console, str], rig: Deferring, page: Page, browser: Browser
) -> None:
    console, approval = parked
    login(page, console)
    card = card_of(page, console, approval)
    action, fields = form_of(card, console)
    csrf = fields["csrf"]
    answer = {"digest": fields["digest"], "decision": "approve"}
    before = log_bytes(rig)

    # From the console's own page (its origin, its cookie): the token missing, then wrong.
    for fields in (answer, {**answer, "csrf": csrf[::-1]}):
        status, text = post_from(page, action, fields)
        assert status == 403, text
        assert "CSRF token is missing or wrong" in text
        assert log_bytes(rig) == before

    # From a page of another origin on this host: the same site, so Chromium sends the
    # SameSite=Strict cookie along; even with the right token, the Origin check refuses.
    forged = {**answer, "csrf": csrf}
    inputs = "".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in forged.items()
    )
    html = f'<form method="post" action="{escape(action)}">{inputs}<button>Win</button></form>'
    with OtherSite(f"<!doctype html><title>elsewhere</title>{html}") as other:
        elsewhere = page.context.new_page()
        elsewhere.goto(other.origin)
        status, _ = post_from(elsewhere, action, forged, mode="no-cors")
        assert status == 0
        assert log_bytes(rig) == before
        status, message = click(elsewhere, elsewhere.get_by_role("button"))
        assert status == 403, message
        assert f"the request comes from {other.origin}, not from this console" in message
        assert log_bytes(rig) == before

    # A browser that never opened the printed URL: no cookie, no page, no post.
    stranger = browser.new_context()
    try:
        lost = stranger.new_page()
        for path in ("/", "/approvals", "/unknowns", f"/sessions/{SESSION}", "/events"):
            response = lost.goto(console.url(path))
            assert response is not None
            assert response.status == 401, path
        expect(lost.locator("#message")).to_contain_text("Open the console with the URL")
        status, text = post_from(lost, action, forged)
        assert status == 401, text
        for token in ("not-the-token", console.token):  # a wrong token, then a spent one
            response = lost.goto(console.url(f"/login?token={token}"))
            assert response is not None
            assert response.status == 403
        assert not stranger.cookies()
    finally:
        stranger.close()
    assert log_bytes(rig) == before

    # The page's own form altered to carry another digest than the one shown: refused, with
    # the reason on the page.
    card.locator('input[name="digest"]').evaluate(
        "input => { input.value = 'sha256:' + '0'.repeat(64); }"
    )
    status, message = click(page, card.get_by_role("button", name="Approve"))
    assert status == 409, message
    assert "nothing was written" in message
    assert log_bytes(rig) == before
    assert waiting(rig) == [None]

    # The page's own form, as served, still answers: the refusals above spent nothing.
    card = card_of(page, console, approval)
    status, message = click(page, card.get_by_role("button", name="Approve"))
    assert status == 200, message
    assert waiting(rig) == ["allowed-once"]


@pytest.fixture
def unknown(tmp_path: Path, plugin_site: PluginSite) -> Iterator[tuple[Unknown, Console]]:
    """A stored session whose `send` call's outcome is unknown, and the console on its store."""
    found = Unknown(tmp_path, plugin_site)
    with Console(
        home=found.rig.home,
        profile=Path(found.profile),
        site=found.rig.site,
        cwd=tmp_path,
        log=tmp_path / "c.log",
    ) as console:
        yield found, console


def test_reconcile_an_unknown_outcome_through_the_form(
    unknown: tuple[Unknown, Console], page: Page
) -> None:
    found, console = unknown
    login(page, console)
    page.goto(console.url("/unknowns"))
    card = page.locator(f'section[data-call="{found.call}"]')
    expect(card).to_contain_text("send")
    expect(card).to_contain_text("write")
    screenshot(page, "unknowns")
    # A second tab holds the same form, to answer later with what is then stale evidence.
    later = page.context.new_page()
    later.goto(console.url("/unknowns"))

    succeeded = card.locator("form.succeeded")
    succeeded.locator('textarea[name="value"]').fill('{"n": 1}')
    succeeded.get_by_label(re.compile("Evidence")).fill("ops: ticket 7")
    status, message = click(page, succeeded.get_by_role("button", name="Succeeded"))
    assert status == 200, message
    assert f"{found.call}: " in message
    assert "recorded" in message
    [rec] = [r["data"] for r in found.records() if r["type"] == "tool/reconciled"]
    assert (rec["call_id"], rec["attempt"], rec["outcome"]) == (found.call, 1, "result")
    assert rec["value"] == {"n": 1}
    assert rec["source"] == "console: ops: ticket 7"
    listed = found.cli("session", "unknowns", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []
    page.goto(console.url("/unknowns"))
    expect(page.locator("#none")).to_be_visible()

    # The other tab's "Failed" contradicts what is now recorded: refused, shown, not written.
    before = found.log_bytes()
    failed = later.locator(f'section[data-call="{found.call}"] form.failed')
    failed.get_by_label("What happened").fill("nothing was sent")
    failed.get_by_label(re.compile("Evidence")).fill("ops: ticket 8")
    status, message = click(later, failed.get_by_role("button", name="Failed"))
    assert status == 409, message
    assert "already reconciled" in message
    assert "nothing was written" in message
    assert found.log_bytes() == before
    verified = found.cli("session", "verify", found.session)
    assert verified.returncode == 0, verified.stdout + verified.stderr
