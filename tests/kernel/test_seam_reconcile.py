"""The ``tools/reconcile`` seam (owner mode): only the plugin that registered a tool is asked.

A status query is declared in the tool's declaration and implemented by the same plugin; either
without the other fails the bundle at startup (design.md §10).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from seamhost.errors import SeamContractError, SeamFailed, SeamUnavailable
from seamhost.jsonvalue import freeze
from seamhost.tool.reconcile import Pending, Probe, Resolved
from tests.conftest import BundleMaker, plugin_source, plugin_state

OWNER = """
asked = []
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        raise AssertionError("a probe never runs the body")
    register(ToolSpec("charge", "charges", {"type": "object"}, {"type": "object"}, "write",
                      False, body, idempotent=True, status_query=True))
@hookimpl
def tools_reconcile(self, probe):
    Plugin.asked.append((probe.call_id, probe.attempt, probe.idempotency_key))
    if probe.attempt == 1:
        return Resolved("charged", value={"id": probe.idempotency_key})
    if probe.attempt == 2:
        return Pending(5.0, "the ledger is still processing")
    if probe.attempt == 3:
        return "done"
    raise RuntimeError("the ledger is down")
"""
# Another plugin implementing the seam for a tool of its own: never asked about `charge`.
BYSTANDER = """
asked = []
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        return ToolOutput("ok")
    register(ToolSpec("peek", "peeks", {"type": "object"}, {}, "read-only", True, body,
                      status_query=True))
@hookimpl
async def tools_reconcile(self, probe):
    Plugin.asked.append(probe.call_id)
    return Resolved("not mine")
"""
PLAIN = """
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        return ToolOutput("ok")
    register(ToolSpec("plain", "plain", {"type": "object"}, {}, "write", False, body))
"""


def probe(attempt: int, tool: str = "charge") -> Probe:
    return Probe(
        session_id="s1",
        call_id="c1",
        attempt=attempt,
        tool=tool,
        arguments=freeze({}),
        args_digest="sha256:0",
        idempotency_key="s1:c1",
        workspace=Path("/nonexistent"),
        deadline=1.0,
        cancelled=asyncio.Event(),
    )


def test_seam_tools_reconcile(make_bundle: BundleMaker) -> None:
    bundle = make_bundle(
        {
            "bystander": plugin_source(BYSTANDER, name="bystander"),
            "owner": plugin_source(OWNER, name="owner"),
        }
    )
    charge = bundle.tools["charge"]
    answer = asyncio.run(bundle.seams.tools_reconcile(charge, probe(1)))
    assert answer == Resolved("charged", value={"id": "s1:c1"})
    assert asyncio.run(bundle.seams.tools_reconcile(charge, probe(2))) == Pending(
        5.0, "the ledger is still processing"
    )
    with pytest.raises(SeamFailed, match="answered str, not Resolved or Pending"):
        asyncio.run(bundle.seams.tools_reconcile(charge, probe(3)))
    with pytest.raises(SeamFailed, match="the ledger is down"):
        asyncio.run(bundle.seams.tools_reconcile(charge, probe(4)))
    assert [a[1] for a in plugin_state(bundle, "owner").asked] == [1, 2, 3, 4]
    assert plugin_state(bundle, "bystander").asked == [], "only the tool's own plugin is asked"
    assert bundle.tools["charge"].spec.declaration()["status_query"] is True


def test_a_tool_without_a_probing_plugin_is_unavailable(make_bundle: BundleMaker) -> None:
    bundle = make_bundle(
        {
            "bystander": plugin_source(BYSTANDER, name="bystander"),
            "plain": plugin_source(PLAIN, name="plain"),
        }
    )
    with pytest.raises(SeamUnavailable):
        asyncio.run(bundle.seams.tools_reconcile(bundle.tools["plain"], probe(1, "plain")))
    assert "status_query" not in bundle.tools["plain"].spec.declaration(), "digest unchanged"


def test_declaring_without_implementing_fails_at_startup(make_bundle: BundleMaker) -> None:
    declares = OWNER[: OWNER.index("@hookimpl\ndef tools_reconcile")]
    with pytest.raises(SeamContractError, match="declares status_query for charge"):
        make_bundle({"owner": plugin_source(declares, name="owner")})


def test_implementing_without_declaring_fails_at_startup(make_bundle: BundleMaker) -> None:
    undeclared = OWNER.replace(", status_query=True", "")
    with pytest.raises(SeamContractError, match="registers no tool with status_query=True"):
        make_bundle({"owner": plugin_source(undeclared, name="owner")})


def test_implementing_with_no_tool_registered_at_all_builds(make_bundle: BundleMaker) -> None:
    # A plugin mounting tools from elsewhere (tools-a2a with no agent table yet) registers none.
    start = OWNER.index("@hookimpl\ndef tools_register")
    end = OWNER.index("@hookimpl", start + 1)
    silent = OWNER[:start] + OWNER[end:]
    bundle = make_bundle({"owner": plugin_source(silent, name="owner")})
    assert bundle.tools == {}
