"""user-approval's four answerers pass the answerer contract of ``seamhost.testing``.

The ``tty`` answerer is asked on a real pseudo-terminal (``tty_path``); the test types the key
for the wanted answer as soon as the question appears.
"""

from __future__ import annotations

import pytest
from seamhost_user_approval import set_callback

from seamhost.approval.request import ApprovalOutcome, ApprovalRequest
from seamhost.kernel.bundle import Bundle
from seamhost.testing.approval import NO_ANSWER, STALL, AnswererContract, AnswererDriver
from tests.user_approval.conftest import Terminal

PLUGIN = "user-approval"
OUTCOMES = frozenset(outcome.value for outcome in ApprovalOutcome)


class TestRules(AnswererContract):
    @pytest.fixture
    def answerer_driver(self) -> AnswererDriver:
        rules = [
            {
                "tool": "contract_probe",
                "args": {"want": want},
                "escalation": "any",
                "decision": decision,
            }
            for want, decision in (("allowed-once", "allow"), ("rejected", "reject"))
        ]
        return AnswererDriver(
            plugin=PLUGIN,
            tables={PLUGIN: {"answerers": ["rules"], "rules": rules}},
            gives=frozenset({"allowed-once", "rejected", NO_ANSWER}),
        )


async def answer_as_wanted(request: ApprovalRequest) -> ApprovalOutcome | None:
    import asyncio

    want = request.arguments["want"]
    if want == STALL:
        await asyncio.sleep(3600)
    return None if want == NO_ANSWER else ApprovalOutcome(want)


class TestCallback(AnswererContract):
    @pytest.fixture
    def answerer_driver(self) -> AnswererDriver:
        def prepare(bundle: Bundle) -> None:
            set_callback(bundle, answer_as_wanted)

        return AnswererDriver(
            plugin=PLUGIN,
            tables={PLUGIN: {"answerers": ["callback"]}},
            gives=OUTCOMES | {NO_ANSWER, STALL},
            prepare=prepare,
        )


KEYS = {"allowed-once": b"y", "rejected": b"n", "cancelled": b"\x03", STALL: None}


class TestTerminal(AnswererContract):
    @pytest.fixture
    def answerer_driver(self, terminal: Terminal) -> AnswererDriver:
        return AnswererDriver(
            plugin=PLUGIN,
            tables={PLUGIN: {"answerers": ["tty"], "tty_path": terminal.path}},
            gives=frozenset(KEYS),
            answering=lambda want: terminal.answering(KEYS.get(want)),
        )


class TestDefer(AnswererContract):
    @pytest.fixture
    def answerer_driver(self) -> AnswererDriver:
        return AnswererDriver(
            plugin=PLUGIN,
            tables={PLUGIN: {"answerers": ["defer"]}},
            gives=frozenset({ApprovalOutcome.DEFERRED.value}),
        )
