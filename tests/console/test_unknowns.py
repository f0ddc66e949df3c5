"""Reconciling unknown outcomes in the console: the same service as ``session reconcile``.

A ``send`` call outlives the profile's tool timeout, so its outcome is unknown; the evidence is
posted as the unknowns page's forms post it, and what was recorded is read back through the
real CLI. Evidence that cannot settle the call is refused with its reason, and the log is
byte-for-byte what it was.
"""

from __future__ import annotations

import html
import re
from typing import Any

from starlette.testclient import TestClient

from tests.console.console_kit import ORIGIN, Rig, csrf_of, digest_of, of_type

CALL = "call-1-1-1"


def unknowns(rig: Rig) -> list[Any]:
    import json

    listed = rig.cli("session", "unknowns", "--profile", str(rig.profile), "--json")
    assert listed.returncode == 0, listed.stderr
    found: list[Any] = json.loads(listed.stdout)
    return found


def form(web: TestClient, outcome: str, **fields: str) -> dict[str, str]:
    page = web.get("/unknowns").text
    attempt = re.search(r'name="attempt" value="(\d+)"', page)
    assert attempt is not None, page
    return {
        "csrf": csrf_of(page),
        "digest": digest_of(page),
        "attempt": attempt.group(1),
        "outcome": outcome,
        **fields,
    }


def post(web: TestClient, fields: dict[str, str], call: str = CALL) -> Any:
    return web.post(f"/unknowns/u1/{call}", data=fields, headers={"origin": ORIGIN})


def test_the_page_shows_the_call_and_both_forms(rig: Rig, web: TestClient) -> None:
    rig.leave_unknown("u1")
    [listed] = unknowns(rig)
    page = web.get("/unknowns").text
    assert CALL in page
    assert "send" in page
    assert '<pre class="arguments">{&#34;stall&#34;:true}</pre>' in page
    assert listed["args_digest"] in page
    assert ">Succeeded</button>" in page
    assert ">Failed</button>" in page
    assert "<option selected>TOOL_ERROR</option>" in page
    assert "TOOL_OUTCOME_UNKNOWN</option>" not in page


def test_succeeded_with_evidence_is_recorded_once(rig: Rig, web: TestClient) -> None:
    rig.leave_unknown("u1")
    fields = form(web, "succeeded", value='{"n": 1}', evidence="ops ticket 7")
    done = post(web, fields)
    assert done.status_code == 200, done.text
    assert "result recorded" in done.text
    [rec] = of_type(rig.records("u1"), "tool/reconciled")
    assert (rec["call_id"], rec["attempt"], rec["outcome"]) == (CALL, 1, "result")
    assert rec["source"] == "console: ops ticket 7"
    assert rec["value"] == {"n": 1}
    assert unknowns(rig) == []
    assert "No unknown outcome is waiting" in web.get("/unknowns").text
    # The same evidence again changes nothing; other evidence is refused.
    before = rig.log_bytes("u1")
    again = post(web, fields)
    assert again.status_code == 200
    assert "already recorded" in again.text
    other = post(web, {**fields, "value": '{"n": 2}'})
    assert other.status_code == 409
    assert "already reconciled by console: ops ticket 7" in other.text
    assert rig.log_bytes("u1") == before
    assert rig.cli("session", "verify", "u1").returncode == 0


def test_failed_with_a_code_is_recorded_as_an_error(rig: Rig, web: TestClient) -> None:
    rig.leave_unknown("u1")
    fields = form(web, "failed", code="TOOL_ERROR", message="nothing was sent", evidence="logs")
    done = post(web, fields)
    assert done.status_code == 200, done.text
    [rec] = of_type(rig.records("u1"), "tool/reconciled")
    assert rec["outcome"] == "error"
    assert rec["error"] == {"code": "TOOL_ERROR", "message": "nothing was sent"}
    assert rec["source"] == "console: logs"


REFUSED = {
    "result breaks the output schema": (
        {"outcome": "succeeded", "value": '{"n": "three"}', "evidence": "me"},
        409,
        "breaks send's output schema",
    ),
    "result not JSON": (
        {"outcome": "succeeded", "value": "{n: 1}", "evidence": "me"},
        400,
        "not valid JSON",
    ),
    "no evidence": ({"outcome": "succeeded", "value": "null", "evidence": " "}, 400, "evidence"),
    "unknown code": (
        {"outcome": "failed", "code": "NOPE", "message": "m", "evidence": "me"},
        400,
        "'NOPE' is not an error code",
    ),
    "the unknown code itself": (
        {"outcome": "failed", "code": "TOOL_OUTCOME_UNKNOWN", "message": "m", "evidence": "me"},
        400,
        "is not an error code that settles",
    ),
    "failed without a message": (
        {"outcome": "failed", "code": "TOOL_ERROR", "evidence": "me"},
        400,
        "no message",
    ),
    "another attempt": (
        {"outcome": "succeeded", "value": "null", "evidence": "me", "attempt": "2"},
        409,
        "attempt 2 is not the one",
    ),
    "another digest": (
        {"outcome": "succeeded", "value": "null", "evidence": "me", "digest": "sha256:00"},
        409,
        "the evidence was given for arguments digest sha256:00",
    ),
    "neither outcome": ({"outcome": "maybe", "evidence": "me"}, 400, "neither succeeded"),
}


def test_evidence_that_cannot_settle_the_call_is_refused(rig: Rig, web: TestClient) -> None:
    # Each case writes nothing, so one unknown outcome serves them all, in turn.
    rig.leave_unknown("u1")
    before = rig.log_bytes("u1")
    for case, (change, status, reason) in REFUSED.items():
        refused = post(web, {**form(web, "succeeded"), **change})
        assert refused.status_code == status, (case, refused.text)
        assert reason in html.unescape(refused.text), case
        assert "nothing was written" in refused.text, case
        assert rig.log_bytes("u1") == before, case
    assert len(unknowns(rig)) == 1


def test_evidence_for_another_call_or_session_is_refused(rig: Rig, web: TestClient) -> None:
    rig.leave_unknown("u1")
    fields = form(web, "succeeded", value="null", evidence="me")
    before = rig.log_bytes("u1")
    other_call = post(web, fields, call="call-9-9-9")
    assert other_call.status_code == 409
    assert "no such call" in other_call.text
    other_session = web.post(f"/unknowns/nosuch/{CALL}", data=fields, headers={"origin": ORIGIN})
    assert other_session.status_code == 409
    assert rig.log_bytes("u1") == before
