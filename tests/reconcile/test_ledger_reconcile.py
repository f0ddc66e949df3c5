"""The acme-ledger example reconciles unknown charges through the real CLI (issue 16, point 5).

Each test runs a loopback ledger (tests/reconcile/ledger_server.py) and drives ``seamhost``
commands in child interpreters against a durable store: ``run`` charges an account with
``ledger_charge`` under a profile that stops a tool body after 0.5 s, the ledger is made to lose
the response (or the request, or to be still processing, or to be broken), and then
``session unknowns``, ``session reconcile --due`` and ``run --resume`` must settle the outcome to
what the ledger really did, from the plugin's status probe alone: the ledger's POST counter
proves the body never ran again, its charges that nothing was charged twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seamhost.testing.sites import PluginSite
from tests.reconcile.ledger_kit import CHARGE, LedgerRig
from tests.reconcile.ledger_server import LedgerServer

UNKNOWN = "TOOL_OUTCOME_UNKNOWN"


@pytest.fixture
def server() -> Iterator[LedgerServer]:
    with LedgerServer() as ledger:
        yield ledger


@pytest.fixture
def rig(tmp_path: Path, plugin_site: PluginSite, server: LedgerServer) -> LedgerRig:
    return LedgerRig.make(tmp_path, plugin_site, server)


def key(session: str, call_id: str = CHARGE) -> str:
    return f"{session}:{call_id}"


def of(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r["data"] for r in records if r["type"] == kind]


def result_code(records: list[dict[str, Any]], call_id: str) -> str:
    [result] = [d for d in of(records, "tool/result") if d["call_id"] == call_id]
    return str((result.get("error") or {}).get("code", "ok"))


def lose_the_response(rig: LedgerRig, session: str) -> None:
    """Run one charge whose response the ledger never sends; it ends unknown."""
    rig.server.hang_after_commit = True
    done = rig.run(session, rig.write_scenario("charge.toml", ("charge it", "acct-1", 1250)))
    rig.server.hang_after_commit = False
    assert done.returncode == 0, done.stdout + done.stderr
    assert UNKNOWN in done.stdout
    assert result_code(rig.records(session), CHARGE) == UNKNOWN


def test_a_lost_response_is_resolved_by_the_probe_and_the_body_never_runs_again(
    rig: LedgerRig, server: LedgerServer
) -> None:
    lose_the_response(rig, "s1")
    assert server.posts == {key("s1"): 1}
    charge = server.charges[key("s1")]  # the ledger did charge, once
    [unknown] = rig.unknowns()
    assert (unknown["session_id"], unknown["call_id"]) == ("s1", CHARGE)
    assert (unknown["tool"], unknown["attempt"], unknown["idempotent"]) == (
        "ledger_charge",
        1,
        True,
    )

    [report] = rig.due()
    assert report["outcome"] == "resolved", report
    assert report["detail"] == f"charged 1250 cents to acct-1 (charge {charge['charge_id']})"
    assert rig.unknowns() == []
    records = rig.records("s1")
    [reconciled] = of(records, "tool/reconciled")
    assert reconciled["call_id"] == CHARGE
    assert reconciled["attempt"] == 1
    assert reconciled["source"] == "probe:ledger"
    assert reconciled["outcome"] == "result"
    assert reconciled["value"] == charge
    assert reconciled["args_digest"] == of(records, "tool/dispatch")[0]["args_digest"]
    # The probe asked once and never POSTed: the body ran exactly once, the charge is single.
    assert server.gets == {key("s1"): 1}
    assert server.posts == {key("s1"): 1}
    assert len(server.charges) == 1

    # Asking again finds nothing to ask about and writes nothing.
    assert rig.due() == []
    assert rig.records("s1") == records
    assert server.gets == {key("s1"): 1}


def test_a_lost_request_is_resolved_as_no_charge(rig: LedgerRig, server: LedgerServer) -> None:
    server.drop_before_commit = True
    done = rig.run("s2", rig.write_scenario("charge.toml", ("charge it", "acct-2", 700)))
    server.drop_before_commit = False
    assert done.returncode == 0, done.stdout + done.stderr
    assert result_code(rig.records("s2"), CHARGE) == UNKNOWN
    assert server.charges == {}

    [report] = rig.due("s2")
    assert report["outcome"] == "resolved", report
    assert report["detail"].startswith("TOOL_ERROR: no charge was made")
    [reconciled] = of(rig.records("s2"), "tool/reconciled")
    assert reconciled["outcome"] == "error"
    assert reconciled["error"]["code"] == "TOOL_ERROR"
    assert "no charge was made" in reconciled["error"]["message"]
    assert reconciled["source"] == "probe:ledger"
    assert rig.unknowns() == []
    # The 404 is authoritative because it voids the key: the lost request, should it arrive
    # late, can no longer charge.
    assert server.charge(key("s2"), {"account": "acct-2", "amount_cents": 700})[0] == 410
    assert server.charges == {}
    assert server.posts == {key("s2"): 1}


def test_a_ledger_still_processing_is_pending_and_not_asked_again_before_its_time(
    rig: LedgerRig, server: LedgerServer
) -> None:
    lose_the_response(rig, "s3")
    server.processing = True  # answers 202 with retry_after = 30 s
    [report] = rig.due()
    assert report["outcome"] == "pending", report
    records = rig.records("s3")
    [pending] = of(records, "tool/reconcile/pending")
    assert (pending["call_id"], pending["attempt"]) == (CHARGE, 1)
    assert pending["retry_at"] >= records[-1]["time"] + 29_000
    assert of(records, "tool/reconciled") == []
    [unknown] = rig.unknowns()
    assert unknown["retry_at"] == pending["retry_at"]

    [again] = rig.due()
    assert again["outcome"] == "not-due", again
    assert rig.records("s3") == records, "a pass that is not due writes nothing"
    assert server.gets == {key("s3"): 1}, "nor does it ask the ledger"
    assert server.posts == {key("s3"): 1}


def test_resume_probes_before_the_next_step_and_the_model_is_told(
    rig: LedgerRig, server: LedgerServer
) -> None:
    lose_the_response(rig, "s4")
    charge = server.charges[key("s4")]
    # Session turn k is the scenario's turn k: the first turn is the one that ran.
    more = rig.write_scenario(
        "more.toml", ("charge it", "acct-1", 1250), ("and another", "acct-9", 300)
    )
    done = rig.resume("s4", more)
    assert done.returncode == 0, done.stdout + done.stderr

    records = rig.records("s4")
    kinds = [r["type"] for r in records]
    reconciled_at = kinds.index("tool/reconciled")
    second_turn = next(
        n for n, r in enumerate(records) if r["type"] == "turn/start" and r["data"]["turn"] == 2
    )
    assert reconciled_at < second_turn, kinds
    assert records[reconciled_at]["data"]["value"] == charge
    assert result_code(records, "call-2-1-1") == "ok"
    assert rig.unknowns() == []
    # The model's first request of the new turn carries the news, before the user's message.
    first = next(r for r in rig.requests() if r["turn"] == 2)
    told = [m["content"] for m in first["messages"] if m["role"] == "context"]
    assert any(
        CHARGE in text and "probe:ledger" in text and charge["charge_id"] in text for text in told
    ), first["messages"]
    roles = [m["role"] for m in first["messages"]]
    assert roles.index("context") < len(roles) - 1 - roles[::-1].index("user")
    # One POST per call: the lost charge was never sent again, the new one was sent once.
    assert server.posts == {key("s4"): 1, key("s4", "call-2-1-1"): 1}
    assert len(server.charges) == 2


def test_a_probe_that_fails_writes_nothing_and_the_outcome_stays_unknown(
    rig: LedgerRig, server: LedgerServer
) -> None:
    lose_the_response(rig, "s5")
    records = rig.records("s5")
    server.broken = True  # GET answers 500: the probe raises
    [report] = rig.due()
    assert report["outcome"] == "failed", report
    assert "500" in report["detail"]
    assert "nothing written" in report["detail"]
    assert rig.records("s5") == records
    [unknown] = rig.unknowns()
    assert unknown["call_id"] == CHARGE

    server.close()  # unreachable: the probe raises too
    [report] = rig.due()
    assert report["outcome"] == "failed", report
    assert "cannot reach the ledger" in report["detail"]
    assert rig.records("s5") == records
    assert server.posts == {key("s5"): 1}


def test_a_retry_with_the_same_key_settles_the_call_without_charging_twice(
    tmp_path: Path, plugin_site: PluginSite, server: LedgerServer
) -> None:
    # With `[limits] tool_retries = 1` the idempotent charge is dispatched again after its first
    # attempt ends unknown: the same Idempotency-Key, so the ledger answers the charge it made.
    rig = LedgerRig.make(tmp_path, plugin_site, server, retries=1)
    server.hang_first = 1
    done = rig.run("s6", rig.write_scenario("charge.toml", ("charge it", "acct-6", 600)))
    assert done.returncode == 0, done.stdout + done.stderr
    records = rig.records("s6")
    assert [d["attempt"] for d in of(records, "tool/dispatch")] == [1, 2]
    [failed] = of(records, "tool/attempt/failed")
    assert (failed["attempt"], failed["error"]["code"]) == (1, UNKNOWN)
    assert result_code(records, CHARGE) == "ok"
    [result] = of(records, "tool/result")
    assert result["value"] == server.charges[key("s6")]
    assert server.posts == {key("s6"): 2}
    assert len(server.charges) == 1, "two attempts, one charge"
    assert rig.unknowns() == []
