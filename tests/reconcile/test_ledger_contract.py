"""The acme-ledger example's status probe passes ``seamhost.testing``'s reconciliation contract.

The contract (:class:`~seamhost.testing.reconciliation.ReconcilerContract`) asks the plugin's real
``tools/reconcile`` through a bundle built from the installed example; the driver makes charges
happen out of band by POSTing to the loopback ledger exactly as the body does (same
``Idempotency-Key``, same JSON), counts the ledger's POSTs as body runs and compares its charges
before and after each probe. The tests after the contract drive the body and the probe in-process
over real HTTP: what a retry with the same key does, and how each ledger answer is classified.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seamhost.errors import ErrorCode
from seamhost.jsonvalue import freeze
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.sandbox.policy import SandboxMode
from seamhost.testing.reconciliation import (
    Attempt,
    ReconcilerContract,
    ReconcilerDriver,
    ask,
)
from seamhost.testing.sites import PluginSite
from seamhost.tool.call import ToolContext, ToolOutput
from seamhost.tool.reconcile import Pending, Resolved
from seamhost.tool.result import ToolFailed
from tests.reconcile.ledger_kit import install_ledger
from tests.reconcile.ledger_server import LedgerServer

ARGUMENTS = {"account": "acct-7", "amount_cents": 4200}


@pytest.fixture
def server() -> Iterator[LedgerServer]:
    with LedgerServer(retry_after=12.5) as ledger:
        yield ledger


@pytest.fixture
def bundle(plugin_site: PluginSite, server: LedgerServer) -> Bundle:
    install_ledger(plugin_site)
    text = f'[profile]\nname = "ledger"\n[plugins.ledger]\nbase_url = "{server.url}"\n'
    path = plugin_site.profile("ledger.toml", text + "timeout_s = 2\n")
    return build_bundle(resolve_profile(str(path), environ={}), environ={})


def post(server: LedgerServer, attempt: Attempt) -> None:
    """The body's request, sent by the test: the charge is made and its answer dropped."""
    request = urllib.request.Request(
        server.url + "/charges",
        data=json.dumps(dict(attempt.arguments)).encode(),
        headers={"Idempotency-Key": attempt.idempotency_key, "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status in {200, 201}


class TestLedgerProbe(ReconcilerContract):
    @pytest.fixture
    def reconcile_bundle(self, bundle: Bundle) -> Bundle:
        return bundle

    @pytest.fixture
    def reconcile_driver(self, server: LedgerServer) -> ReconcilerDriver:
        return ReconcilerDriver(
            tool="ledger_charge",
            arguments=ARGUMENTS,
            commit=lambda attempt: post(server, attempt),
            body_runs=lambda: sum(server.posts.values()),
            effects=lambda: dict(server.charges),  # a 404 voids its key: bookkeeping, no effect
            other_arguments={"account": "acct-8", "amount_cents": 1},
        )


# --------------------------------------------------------------------------------------------
# the body and the probe over real HTTP, in-process
# --------------------------------------------------------------------------------------------


def context(session: str, attempt: int = 1, **arguments: Any) -> ToolContext:
    return ToolContext(
        call_id="call-1-1-1",
        arguments=freeze(arguments or ARGUMENTS),
        workspace=Path.cwd(),
        sandbox_mode=SandboxMode.WORKSPACE_WRITE,
        writable_roots=(),
        cancelled=asyncio.Event(),
        session_id=session,
        attempt=attempt,
        idempotency_key=f"{session}:call-1-1-1",
    )


def charge(bundle: Bundle, ctx: ToolContext, timeout: float | None = None) -> ToolOutput:
    async def run() -> ToolOutput:
        output: ToolOutput = await asyncio.wait_for(
            bundle.tools["ledger_charge"].spec.body(ctx), timeout
        )
        return output

    return asyncio.run(run())


def test_a_retry_with_the_same_key_answers_the_same_charge(
    bundle: Bundle, server: LedgerServer
) -> None:
    first = charge(bundle, context("s"))
    again = charge(bundle, context("s", attempt=2))
    assert first.is_error is False
    assert first.value == {"charge_id": "ch_0001", **ARGUMENTS}
    assert again.value == first.value
    assert server.posts == {"s:call-1-1-1": 2}
    assert len(server.charges) == 1


def test_a_body_stopped_by_its_timeout_lets_go_at_once(
    bundle: Bundle, server: LedgerServer
) -> None:
    server.hang_after_commit = True
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        charge(bundle, context("s"), timeout=0.3)
    assert time.monotonic() - start < 2, "the body must honour cancellation"
    assert list(server.charges) == ["s:call-1-1-1"]  # committed: hence an unknown outcome


def test_a_voided_key_is_refused_and_an_unreachable_ledger_is_retryable(
    bundle: Bundle, server: LedgerServer
) -> None:
    assert server.look_up("s:call-1-1-1")[0] == 404  # a status query voided the key
    with pytest.raises(ToolFailed) as refused:
        charge(bundle, context("s"))
    assert refused.value.code == ErrorCode.TOOL_ERROR
    assert "410" in refused.value.message
    assert refused.value.retryable is False
    server.close()
    with pytest.raises(ToolFailed) as unreachable:
        charge(bundle, context("t"))
    assert unreachable.value.retryable is True, "nothing was sent: a retry cannot double"
    assert "no charge was made" in unreachable.value.message


def test_a_processing_ledger_is_pending_with_its_retry_time(
    bundle: Bundle, server: LedgerServer
) -> None:
    server.processing = True
    attempt = Attempt("s", "call-1-1-1", 1, ARGUMENTS)
    answer = ask(bundle, bundle.tools["ledger_charge"], attempt)
    assert answer == Pending(12.5, "the ledger is still processing call-1-1-1")
    server.processing = False
    resolved = ask(bundle, bundle.tools["ledger_charge"], attempt)
    assert isinstance(resolved, Resolved)
    assert resolved.error_code == "TOOL_ERROR"
    assert server.posts == {}


def test_a_broken_ledger_fails_the_probe_closed(bundle: Bundle, server: LedgerServer) -> None:
    server.broken = True
    answer = ask(bundle, bundle.tools["ledger_charge"], Attempt("s", "call-1-1-1", 1, ARGUMENTS))
    assert not isinstance(answer, (Resolved, Pending))
    assert "the ledger answered 500" in str(answer)
