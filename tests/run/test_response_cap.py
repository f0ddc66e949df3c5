"""A model response is cut off at ``[limits] max_response_bytes`` (issue 33, point 10).

The runtime counts what every adapter yields as it arrives, so the cap holds for an adapter
that does not count (this one streams 1 KiB text deltas without end, as a runaway model would):
the attempt fails ``response-too-large`` once the total passes the cap, the adapter's stream is
closed there (it yielded no more), and nothing of the response is kept.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from seamhost.kernel.bundle import Bundle
from seamhost.kernel.profile.limits import MAX_RESPONSE_BYTES, Limits
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from tests.conftest import BundleMaker, plugin_source, plugin_state

ADAPTER = """
yielded = 0
closed = False
name = "runaway"
identity = {"plugin": "runaway-model", "model": "runaway-1"}
max_attempts = 3
@hookimpl
def llm_adapter(self):
    return self
async def stream(self, request):
    Plugin.limit = request.max_response_bytes
    try:
        while Plugin.yielded < 100_000:  # 100 MB if nothing stopped it
            Plugin.yielded += 1
            yield TextDelta("é" * 512)  # 1 KiB of UTF-8, 512 characters
        yield ModelDone("end")
    finally:
        Plugin.closed = True
"""


def bundle_of(make_bundle: BundleMaker, limits: str = "") -> Bundle:
    source = plugin_source(ADAPTER, name="runaway-model", provides='["llm/adapter"]')
    return make_bundle({"runaway-model": source}, profile=f"[limits]\n{limits}")


def test_a_response_past_the_cap_is_a_failed_attempt_and_its_stream_is_closed(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_of(make_bundle, "max_response_bytes = 65536\n")
    state = plugin_state(bundle, "runaway-model")
    session = create_session(bundle)
    outcome = asyncio.run(Agent(bundle, session, workspace=tmp_path).run_turn("go"))
    assert state.limit == 65536
    assert state.yielded == 65, "counted as UTF-8 bytes: the 65th KiB passes 64 KiB"
    assert state.closed
    [failed] = [r.data for r in session.records if r.type == "model/failed"]
    assert (failed["code"], failed["retryable"]) == ("response-too-large", False)
    assert "65536 bytes ([limits] max_response_bytes)" in failed["message"]
    assert "assistant/message" not in [r.type for r in session.records]
    assert outcome.reason == "error"
    assert outcome.message is not None
    assert "response-too-large" in outcome.message


def test_the_cap_defaults_to_8_mib() -> None:
    assert Limits().max_response_bytes == MAX_RESPONSE_BYTES == 8 * 1024 * 1024
