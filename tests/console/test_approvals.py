"""Answering deferred approvals in the console: the same service as ``seamhost approve``.

Each answer is posted as the approvals page's form posts it (the digest it showed, the login's
CSRF token, the console's Origin), to a console under Starlette's TestClient; what it wrote is
read back through the real CLI (``approvals --json``, ``session show --json``), and ``run
--resume`` continues the session in a process of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from seamhost.testing.sites import PluginSite
from tests.console.console_kit import COUNT, ORIGIN, Rig, client, csrf_of, digest_of, login, of_type


def answer(
    web: TestClient, session: str, approval: str, decision: str, **form: str
) -> tuple[int, str]:
    page = web.get("/approvals").text
    fields = {"csrf": csrf_of(page), "digest": digest_of(page), "decision": decision, **form}
    posted = web.post(f"/approvals/{session}/{approval}", data=fields, headers={"origin": ORIGIN})
    return posted.status_code, posted.text


def test_the_page_shows_the_question_with_its_arguments_and_digest(
    rig: Rig, web: TestClient
) -> None:
    approval = rig.park("s1")
    [listed] = rig.pending()
    page = web.get("/approvals")
    assert page.status_code == 200
    text = page.text
    assert approval in text
    assert "count_write" in text
    assert '<pre class="arguments">{&#34;n&#34;:1}</pre>' in text  # as the model wrote them
    assert listed["args_digest"] in text
    assert "counting needs a person" in text  # why it was asked
    assert ">Approve</button>" in text
    assert ">Reject</button>" in text


def test_approve_then_resume_runs_the_call_exactly_once(rig: Rig, web: TestClient) -> None:
    approval = rig.park("s1")
    status, text = answer(web, "s1", approval, "approve", reason="looks right")
    assert status == 200, text
    assert "allowed once" in text
    [decided] = of_type(rig.records("s1"), "approval/decided")
    assert decided["outcome"] == "allowed-once"
    assert decided["source"] == "console"
    assert decided["decider"]
    assert "looks right" in decided["message"]
    # `seamhost approvals` shows it answered: nothing waits for a person any more.
    [listed] = rig.pending()
    assert listed["decision"] == "allowed-once"
    page = web.get("/approvals").text
    assert "answered (allowed-once)" in page
    assert ">Approve</button>" not in page
    assert rig.counted() == []  # answering runs nothing
    resumed = rig.resume("s1")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.counted() == [f"{COUNT} 1"]
    assert rig.pending() == []
    results = {r["call_id"]: r.get("error") for r in of_type(rig.records("s1"), "tool/result")}
    assert results[COUNT] is None


def test_reject_then_resume_refuses_the_call(rig: Rig, web: TestClient) -> None:
    approval = rig.park("s1")
    status, text = answer(web, "s1", approval, "reject")
    assert status == 200, text
    assert "rejected" in text
    resumed = rig.resume("s1")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.counted() == []
    results = {
        r["call_id"]: r.get("error") or {} for r in of_type(rig.records("s1"), "tool/result")
    }
    assert results[COUNT].get("code") == "APPROVAL_REJECTED"


def test_an_answer_given_twice_is_refused_and_writes_nothing(rig: Rig, web: TestClient) -> None:
    approval = rig.park("s1")
    page = web.get("/approvals").text
    form = {"csrf": csrf_of(page), "digest": digest_of(page), "decision": "approve"}
    first = web.post(f"/approvals/s1/{approval}", data=form, headers={"origin": ORIGIN})
    assert first.status_code == 200, first.text
    before = rig.log_bytes("s1")
    replayed = web.post(
        f"/approvals/s1/{approval}", data={**form, "decision": "reject"}, headers={"origin": ORIGIN}
    )
    assert replayed.status_code == 409
    assert "already answered (allowed-once)" in replayed.text
    assert "nothing was written" in replayed.text
    assert rig.log_bytes("s1") == before


def test_an_answer_for_another_digest_is_refused(rig: Rig, web: TestClient) -> None:
    approval = rig.park("s1")
    before = rig.log_bytes("s1")
    forged = "sha256:" + "0" * 64
    status, text = answer(web, "s1", approval, "approve", digest=forged)
    assert status == 409
    assert f"the answer was given for arguments digest {forged}" in text
    assert rig.log_bytes("s1") == before
    assert rig.pending()[0]["decision"] is None


def test_an_answer_posted_under_another_session_is_refused(rig: Rig, web: TestClient) -> None:
    approval = rig.park("s1")
    rig.park("s2")
    before = rig.log_bytes("s2")
    status, text = answer(web, "s2", approval, "approve")
    assert status == 409
    assert "no such approval in this session" in text
    assert rig.log_bytes("s2") == before
    assert [p["decision"] for p in rig.pending()] == [None, None]


def test_an_answer_for_an_unknown_session_is_refused(rig: Rig, web: TestClient) -> None:
    approval = rig.park("s1")
    status, text = answer(web, "nosuch", approval, "approve")
    assert status == 409
    assert "nothing was written" in text


def test_an_expired_question_is_refused(
    tmp_path: Path, plugin_site: PluginSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = Rig.make(tmp_path, plugin_site, expires=0.001)
    approval = rig.park("s1")
    rig.leave_unknown("u1")  # its reconcile form carries the login's CSRF token
    for web in client(rig, monkeypatch):
        login(web)
        page = web.get("/approvals").text
        assert "expired: it can no longer be answered" in page
        assert ">Approve</button>" not in page  # no form for a question nobody can answer
        before = rig.log_bytes("s1")
        [listed] = rig.pending()
        posted = web.post(
            f"/approvals/s1/{approval}",
            data={
                "csrf": csrf_of(web.get("/unknowns").text),
                "digest": listed["args_digest"],
                "decision": "approve",
            },
            headers={"origin": ORIGIN},
        )
        assert posted.status_code == 409
        assert "expired; it can no longer be answered" in posted.text
        assert rig.log_bytes("s1") == before


def test_an_answer_while_a_live_writer_holds_the_session_is_refused(
    rig: Rig, web: TestClient
) -> None:
    from seamhost_persistence_jsonl.store import JsonlStore

    approval = rig.park("s1")
    before = rig.log_bytes("s1")
    writer = JsonlStore(rig.home / "sessions").open("s1")  # as a run resuming it would
    try:
        status, text = answer(web, "s1", approval, "approve")
    finally:
        writer.close()
    assert status == 409, text
    assert "nothing was written" in text
    assert rig.log_bytes("s1") == before
    assert rig.pending()[0]["decision"] is None
