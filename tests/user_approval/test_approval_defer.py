"""The ``defer`` answerer: it answers every question with ``deferred`` and allows nothing.

Whether a deferral parks the call depends on the session: in a memory-only session (this bench)
nothing can wait durably, so the service refuses the deferral as unavailable and the body never
runs. Parking and resuming a durable session are tested through the CLI in tests/run.
"""

from __future__ import annotations

import asyncio

from seamhost_user_approval.deferral import DeferringAnswerer

from seamhost.approval.request import ApprovalOutcome
from tests.user_approval.approval_requests import request
from tests.user_approval.conftest import BenchMaker, probe

ALLOW_GOOD = """
answerers = ["rules", "defer"]
rules = [{ tool = "probe", args = { want = "good" }, decision = "allow" }]
"""


def test_it_defers_whatever_it_is_asked() -> None:
    reply = asyncio.run(DeferringAnswerer().answer(request()))
    assert reply.outcome is ApprovalOutcome.DEFERRED
    assert "seamhost approve" in reply.note


def test_rules_before_it_decide_first_and_a_memory_session_cannot_wait(
    make_bench: BenchMaker,
) -> None:
    bench = make_bench(ALLOW_GOOD)
    allowed, deferred = bench.run(probe("c1", want="good"), probe("c2", want="other"))
    assert allowed.error is None
    assert deferred.error is not None
    assert deferred.error.code == "APPROVAL_UNAVAILABLE"
    assert "could not be deferred durably" in deferred.error.message
    assert [run[0] for run in bench.runs] == ["c1"]
    [asked_c1, asked_c2] = bench.records("approval/asked")
    [parked] = bench.records("approval/deferred")
    assert parked["call_id"] == "c2"
    assert parked["id"] == asked_c2["id"]
    decided = {d["id"]: d["outcome"] for d in bench.records("approval/decided")}
    assert decided == {asked_c1["id"]: "allowed-once", asked_c2["id"]: "unavailable"}
