"""Who may use the console: the one-time token, the cookie, CSRF and Origin, the headers.

A console under Starlette's TestClient, on a store holding a session parked on an approval:
every refused request is shown why, and the session's log is byte-for-byte what it was.
"""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.console.console_kit import ORIGIN, TOKEN, Rig, csrf_of, digest_of

PAGES = ["/", "/sessions/s1", "/approvals", "/unknowns", "/runs", "/events"]


def test_the_token_is_exchanged_once_for_an_http_only_strict_cookie(anonymous: TestClient) -> None:
    answer = anonymous.get("/login", params={"token": TOKEN})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith("seamhost_console=")
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Secure" not in cookie  # served over plain HTTP on loopback
    assert anonymous.get("/").status_code == 200
    # The token is spent: the same URL again logs nobody in, even a fresh browser.
    fresh = TestClient(anonymous.app, base_url=ORIGIN, follow_redirects=False)
    again = fresh.get("/login", params={"token": TOKEN})
    assert again.status_code == 403
    assert "already used" in again.text
    assert "set-cookie" not in again.headers
    assert fresh.get("/").status_code == 401


@pytest.mark.parametrize("token", ["", "wrong", TOKEN + "x", TOKEN[:-1]])
def test_a_wrong_token_is_refused_and_does_not_spend_the_right_one(
    anonymous: TestClient, token: str
) -> None:
    refused = anonymous.get("/login", params={"token": token})
    assert refused.status_code == 403
    assert "set-cookie" not in refused.headers
    assert anonymous.get("/login", params={"token": TOKEN}).status_code == 303


@pytest.mark.parametrize("path", PAGES)
def test_no_cookie_no_page(anonymous: TestClient, path: str) -> None:
    refused = anonymous.get(path)
    assert refused.status_code == 401
    assert "Open the console with the URL" in refused.text


def test_a_forged_cookie_is_no_login(web: TestClient) -> None:
    forged = TestClient(web.app, base_url=ORIGIN, cookies={"seamhost_console": "forged"})
    assert forged.get("/").status_code == 401


def parked_form(rig: Rig, web: TestClient) -> tuple[str, dict[str, str]]:
    approval = rig.park("s1")
    page = web.get("/approvals").text
    return approval, {"csrf": csrf_of(page), "digest": digest_of(page), "decision": "approve"}


FORGED_POSTS = {
    "csrf missing": ({"csrf": ""}, {"origin": ORIGIN}, "CSRF token is missing or wrong"),
    "csrf forged": ({"csrf": "forged"}, {"origin": ORIGIN}, "CSRF token is missing or wrong"),
    "foreign origin": ({}, {"origin": "http://evil.example"}, "comes from http://evil.example"),
    "other port": ({}, {"origin": "http://testserver:8765"}, "not from this console"),
    "no origin": ({}, {}, "has no Origin header"),
}


def test_a_post_without_csrf_or_from_another_origin_is_refused(rig: Rig, web: TestClient) -> None:
    # Each case writes nothing, so one parked question serves them all, in turn.
    approval, form = parked_form(rig, web)
    before = rig.log_bytes("s1")
    for case, (change, headers, reason) in FORGED_POSTS.items():
        fields = {k: v for k, v in {**form, **change}.items() if v}
        refused = web.post(f"/approvals/s1/{approval}", data=fields, headers=headers)
        assert refused.status_code == 403, case
        assert reason in refused.text, case
        assert "nothing was written" in refused.text, case
        assert rig.log_bytes("s1") == before, case
    assert rig.pending()[0]["decision"] is None


def test_a_post_without_the_cookie_is_refused(rig: Rig, web: TestClient) -> None:
    approval, form = parked_form(rig, web)
    before = rig.log_bytes("s1")
    stranger = TestClient(web.app, base_url=ORIGIN)
    refused = stranger.post(f"/approvals/s1/{approval}", data=form, headers={"origin": ORIGIN})
    assert refused.status_code == 401
    assert rig.log_bytes("s1") == before


def test_a_post_that_is_not_a_form_is_refused(rig: Rig, web: TestClient) -> None:
    approval, form = parked_form(rig, web)
    refused = web.post(f"/approvals/s1/{approval}", json=form, headers={"origin": ORIGIN})
    assert refused.status_code == 415
    assert rig.pending()[0]["decision"] is None


@pytest.mark.parametrize("path", ["/", "/approvals", "/login?token=wrong", "/static/live.js"])
def test_every_answer_carries_the_security_headers(anonymous: TestClient, path: str) -> None:
    headers = anonymous.get(path).headers
    policy = headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "no-store"
    # Not no-referrer: under it Chromium posts `Origin: null` from the console's own forms
    # (tests/console_browser/test_console_answers.py).
    assert headers["referrer-policy"] == "same-origin"
