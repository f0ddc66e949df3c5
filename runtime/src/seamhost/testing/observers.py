"""The contract every observer passes: subclass :class:`ObserverContract`.

An observer implements ``session/event`` (every committed record) or ``tools/result`` (every
settled call, refusals included), or both; both are notify seams: the kernel calls each observer
in order and logs and contains what it raises (docs/design.md, the hook specs). Its test module
subclasses the contract and supplies one fixture, ``observer_driver``, returning an
:class:`ObserverDriver`: the plugin's profile table and how to read back what it saw::

    import pytest
    from seamhost.testing.observers import ObserverContract, ObserverDriver

    class TestMyObserver(ObserverContract):
        @pytest.fixture
        def observer_driver(self) -> ObserverDriver:
            return ObserverDriver(
                plugin="my-observer",
                records=lambda plugin: [record.seq for record in plugin.records],
                results=lambda plugin: [result.call_id for result in plugin.results],
            )

`records` and `results` take the plugin object (what its factory returned) and give the
``seq`` of each record and the ``call_id`` of each result it saw, in the order it saw them; a
driver leaves out the one its plugin does not observe (those tests skip, saying so).

What it holds an observer to: it sees every record in commit order and every result in the order
the model proposed the calls, a coroutine observer included; it never raises into the call (the
kernel would log and contain it: the contract fails on any such log line); and it is cheap, at
most :data:`BUDGET_PER_NOTIFY` seconds a notification on average. The calls are made through the
kernel's :class:`~seamhost.run.pipeline.ToolPipeline` on a memory-only session, to the contract's
own tool ``contract_echo`` (installed for the test as a distribution of its own) and to a tool
nobody registered (a refusal before the call became an invocation).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.approval.service import ApprovalService
from seamhost.errors import ErrorCode
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.pipeline import ToolPipeline
from seamhost.run.sessions import create_session
from seamhost.session.events import TurnEnd, TurnStart
from seamhost.session.live import Session
from seamhost.testing.sites import PluginSite
from seamhost.tool.result import ToolResult

BUDGET_PER_NOTIFY = 0.002  # seconds an observer may spend on one notification, on average
ECHO = "contract-echo"
ECHO_TOOL = "contract_echo"
CHEAP_ROUNDS = 200  # notifications the cheapness test times

_ECHO_SOURCE = '''
from seamhost import PluginDescriptor, ToolOutput, ToolSpec, hookimpl

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


class Echo:
    """The contract's tool: answers its text."""

    def __init__(self, ctx):
        pass

    async def body(self, ctx):
        return ToolOutput(ctx.arguments["text"], value={"text": ctx.arguments["text"]})

    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("contract_echo", "Echo the text.", SCHEMA, SCHEMA, "read-only", True,
                          self.body, idempotent=True))


descriptor = PluginDescriptor(name="contract-echo", factory=Echo, provides=["tools/register"])
'''


def _as_dict(value: Mapping[str, Any]) -> dict[str, Any]:
    return dict(value)


@attrs.frozen
class ObserverDriver:
    """How the contract puts the observer in a bundle and reads what it saw.

    * `plugin`: the observer under test; `table`: its profile table;
    * `records(plugin_object)`: the ``seq`` of each record it saw, in order (``session/event``);
    * `results(plugin_object)`: the ``call_id`` of each result it saw, in order (``tools/result``).
    """

    plugin: str
    table: Mapping[str, Any] = attrs.field(factory=dict, converter=_as_dict)
    records: Callable[[Any], Sequence[int]] | None = None
    results: Callable[[Any], Sequence[str]] | None = None


@attrs.define
class ObserverBench:
    """One bundle and memory-only session with the observer, and a turn of calls made on it."""

    bundle: Bundle
    session: Session
    workspace: Path
    plugin: str

    @property
    def observer(self) -> Any:
        """The plugin object under test, as its factory returned it."""
        return self.bundle.pm.get_plugin(self.plugin)

    def turn(self) -> list[ToolResult]:
        """One turn of two steps: an echo call and an unknown tool, then two echo calls."""
        pipeline = ToolPipeline(self.bundle, self.session, self.workspace, ApprovalService())
        steps = [
            [_proposal("echo-1"), ToolCallProposal("unknown-1", "no_such_tool", "{}", None, None)],
            [_proposal("echo-2"), _proposal("echo-3")],
        ]

        async def run() -> list[ToolResult]:
            self.session.append(TurnStart(turn=1))
            results: list[ToolResult] = []
            for step, proposals in enumerate(steps, start=1):
                results += await pipeline.run_step(1, step, proposals, asyncio.Event())
            self.session.append(TurnEnd(turn=1, reason="completed"))
            await _settle()
            return results

        return asyncio.run(run())


def _proposal(call_id: str) -> ToolCallProposal:
    return ToolCallProposal(call_id, ECHO_TOOL, f'{{"text": "{call_id}"}}', None, None)


async def _settle() -> None:
    """Let the coroutine observers the kernel scheduled run to their end."""
    current = asyncio.current_task()
    while pending := [t for t in asyncio.all_tasks() if t is not current and not t.done()]:
        await asyncio.wait(pending)


class ObserverContract:
    """Tests any ``session/event`` or ``tools/result`` observer passes. Subclass it; provide
    ``observer_driver``."""

    @pytest.fixture
    def observer_driver(self) -> ObserverDriver:
        raise NotImplementedError("an observer's test class provides the observer_driver fixture")

    @pytest.fixture
    def observer_bench(
        self, observer_driver: ObserverDriver, plugin_site: PluginSite, tmp_path: Path
    ) -> Iterator[ObserverBench]:
        plugin_site.add(ECHO, _ECHO_SOURCE)
        text = '[profile]\nname = "observer-contract"\n'
        text += f"[plugins.{observer_driver.plugin}]\n[plugins.{ECHO}]\n"
        profile = plugin_site.profile("observer-contract.toml", text)
        overrides = {observer_driver.plugin: dict(observer_driver.table)}
        bundle = build_bundle(resolve_profile(str(profile), overrides=overrides))
        session = create_session(bundle, session_id="observer-contract")
        workspace = tmp_path / "workspace"
        workspace.mkdir()
        yield ObserverBench(bundle, session, workspace, observer_driver.plugin)
        session.close()

    def test_the_plugin_observes_something(
        self, observer_driver: ObserverDriver, observer_bench: ObserverBench
    ) -> None:
        seams = observer_bench.bundle.seams
        observed = [
            seam
            for seam in ("session/event", "tools/result")
            if observer_driver.plugin in seams.implementers(seam)
        ]
        assert observed, (
            f"{observer_driver.plugin} implements neither session/event nor tools/result"
        )

    def test_records_are_seen_in_commit_order(
        self, observer_driver: ObserverDriver, observer_bench: ObserverBench
    ) -> None:
        if observer_driver.records is None:
            pytest.skip(f"{observer_driver.plugin}'s driver does not read back records")
        observer_bench.turn()
        committed = [record.seq for record in observer_bench.session.records]
        assert list(observer_driver.records(observer_bench.observer)) == committed

    def test_results_are_seen_once_each_in_model_order(
        self, observer_driver: ObserverDriver, observer_bench: ObserverBench
    ) -> None:
        if observer_driver.results is None:
            pytest.skip(f"{observer_driver.plugin}'s driver does not read back results")
        results = observer_bench.turn()
        seen = list(observer_driver.results(observer_bench.observer))
        assert seen == [result.call_id for result in results]

    def test_it_never_raises_into_the_call(
        self,
        observer_driver: ObserverDriver,
        observer_bench: ObserverBench,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        with caplog.at_level(logging.WARNING, logger="seamhost.seams"):
            results = observer_bench.turn()
        assert [r.error.code if r.error else None for r in results] == [
            None,
            "UNKNOWN_TOOL",
            None,
            None,
        ]
        failures = [r.getMessage() for r in caplog.records if r.name == "seamhost.seams"]
        assert failures == [], f"{observer_driver.plugin} raised into the kernel"

    def test_it_is_cheap(
        self, observer_driver: ObserverDriver, observer_bench: ObserverBench
    ) -> None:
        observer_bench.turn()
        seams = observer_bench.bundle.seams
        session = observer_bench.session
        record = session.records[len(session.records) - 1]
        result = ToolResult.failure("cheap-1", ErrorCode.UNKNOWN_TOOL, "the cheapness probe")

        async def notify() -> float:
            began = time.perf_counter()
            for _ in range(CHEAP_ROUNDS):
                seams.session_event(session, record)
                seams.tools_result(None, result)
            await _settle()
            return time.perf_counter() - began

        seconds = asyncio.run(notify())
        per_notify = seconds / (2 * CHEAP_ROUNDS)
        assert per_notify <= BUDGET_PER_NOTIFY, f"{per_notify * 1000:.2f} ms a notification"


__all__ = [
    "BUDGET_PER_NOTIFY",
    "ObserverBench",
    "ObserverContract",
    "ObserverDriver",
]
