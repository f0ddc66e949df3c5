"""The contract every tool plugin passes: subclass :class:`ToolContract`.

A tool plugin implements ``tools/register`` (docs/plugin-guide.md, "Writing a tool"). Its test
module subclasses the contract and supplies one fixture, ``tool_driver``, returning a
:class:`ToolDriver`: the plugin's profile table, a call of each tool that must succeed and a
call of each tool whose arguments its input schema refuses::

    import pytest
    from seamhost.testing.tools import ToolCall, ToolContract, ToolDriver

    class TestMyTools(ToolContract):
        @pytest.fixture
        def tool_driver(self) -> ToolDriver:
            return ToolDriver(
                plugin="my-tools",
                good=[ToolCall("hello", {"name": "Ada"})],
                bad=[ToolCall("hello", {"name": 7})],
            )

What it holds each tool to: a declaration whose name and description are set, whose schemas
compile and refer to nothing outside themselves, with an input schema of type ``object``; its
effect (``read-only`` or ``write``), idempotency and concurrency declared as such; a tool that
declares ``status_query`` has its plugin implement ``tools/reconcile``. Each good call runs
through the kernel's :class:`~seamhost.run.pipeline.ToolPipeline` and succeeds with a value that
matches the output schema; each bad one is refused ``INVALID_ARGUMENTS`` before the body runs
(no ``tool/dispatch`` record); a good call whose turn is cancelled while it runs settles within
:data:`CANCEL_WITHIN` seconds. Calls run in a fresh workspace under ``workspace-write`` with no
approval answerer: a call that needs a person is refused, so the driver leaves such calls out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import orjson
import pytest

from seamhost.approval.service import ApprovalService
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.pipeline import ToolPipeline
from seamhost.run.sessions import create_session
from seamhost.schema import check_references, compile_schema
from seamhost.session.events import TurnStart
from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.tool.declaration import RegisteredTool
from seamhost.tool.result import ToolResult

CANCEL_WITHIN = 5.0  # seconds a cancelled call may take to settle
CANCEL_AFTER = 0.05  # seconds into the call the contract cancels its turn


def _as_dict(value: Mapping[str, Any]) -> dict[str, Any]:
    return dict(value)


def _as_calls(value: Iterable[ToolCall]) -> tuple[ToolCall, ...]:
    return tuple(value)


@attrs.frozen
class ToolCall:
    """One call the contract proposes: a tool and its arguments (files to seed the workspace)."""

    tool: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict, converter=_as_dict)
    files: Mapping[str, str] = attrs.field(factory=dict, converter=_as_dict)


@attrs.frozen
class ToolDriver:
    """How the contract puts the tool plugin in a bundle and calls its tools.

    * `plugin`: the plugin whose tools are under test;
    * `table`: its profile table (``[plugins.<plugin>]``);
    * `others`: plugin name → table of the plugins its tools need besides (a sandbox for a
      tool that runs processes), listed after it;
    * `good`: calls that must succeed, at least one of each tool the contract should run;
    * `bad`: calls whose arguments the tool's input schema refuses.
    """

    plugin: str
    table: Mapping[str, Any] = attrs.field(factory=dict, converter=_as_dict)
    others: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict, converter=_as_dict)
    good: tuple[ToolCall, ...] = attrs.field(default=(), converter=_as_calls)
    bad: tuple[ToolCall, ...] = attrs.field(default=(), converter=_as_calls)


@attrs.frozen
class Called:
    """What one contract call left: its result, the records about it and how long it took."""

    result: ToolResult
    records: tuple[Record, ...]
    seconds: float

    @property
    def dispatched(self) -> bool:
        return any(r.type == "tool/dispatch" for r in self.records)


@attrs.define
class ToolBench:
    """One bundle and memory-only session of the contract, and the calls made on it."""

    bundle: Bundle
    session: Session
    root: Path
    step: int = 0

    def tools(self, plugin: str) -> list[RegisteredTool]:
        """The tools `plugin` registered, in registration order."""
        return [tool for tool in self.bundle.tools.values() if tool.plugin == plugin]

    def call(self, call: ToolCall, *, cancel_after: float | None = None) -> Called:
        """Run `call` through the pipeline in a fresh workspace; cancel its turn after
        `cancel_after` seconds when given."""
        self.step += 1
        workspace = self.root / f"workspace-{self.step}"
        for name, content in call.files.items():
            (workspace / name).parent.mkdir(parents=True, exist_ok=True)
            (workspace / name).write_text(content, encoding="utf-8")
        workspace.mkdir(parents=True, exist_ok=True)
        arguments = orjson.dumps(dict(call.arguments)).decode()
        proposal = ToolCallProposal(f"call-{self.step}", call.tool, arguments, None, None)
        pipeline = ToolPipeline(self.bundle, self.session, workspace, ApprovalService())
        start = self.session.next_seq

        async def run() -> ToolResult:
            cancelled = asyncio.Event()
            if cancel_after is not None:
                asyncio.get_running_loop().call_later(cancel_after, cancelled.set)
            [result] = await pipeline.run_step(1, self.step, [proposal], cancelled)
            return result

        began = time.monotonic()
        result = asyncio.run(run())
        seconds = time.monotonic() - began
        return Called(result, tuple(self.session.records[start:]), seconds)


class ToolContract:
    """Tests any ``tools/register`` plugin passes. Subclass it; provide ``tool_driver``."""

    @pytest.fixture
    def tool_driver(self) -> ToolDriver:
        raise NotImplementedError("a tool plugin's test class provides the tool_driver fixture")

    @pytest.fixture
    def tool_bench(self, tool_driver: ToolDriver, tmp_path: Path) -> Iterator[ToolBench]:
        profile = tmp_path / "tool-contract.toml"
        tables = {tool_driver.plugin: tool_driver.table, **tool_driver.others}
        text = '[profile]\nname = "tool-contract"\n'
        text += "".join(f"[plugins.{name}]\n" for name in tables)
        profile.write_text(text + '[sandbox]\nmode = "workspace-write"\n', encoding="utf-8")
        overrides = {name: dict(table) for name, table in tables.items()}
        bundle = build_bundle(resolve_profile(str(profile), overrides=overrides))
        session = create_session(bundle, session_id="tool-contract")
        session.append(TurnStart(turn=1))
        yield ToolBench(bundle, session, tmp_path)
        session.close()

    # -- the declaration ------------------------------------------------------------------------

    def test_the_plugin_registers_tools(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        assert tool_bench.tools(tool_driver.plugin), f"{tool_driver.plugin} registered no tool"

    def test_each_declaration_is_complete_and_its_schemas_valid(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        for tool in tool_bench.tools(tool_driver.plugin):
            spec = tool.spec
            assert spec.name.strip(), f"a tool of {tool_driver.plugin} has no name"
            assert spec.description.strip(), f"{spec.name} has no description"
            assert spec.input_schema.get("type") == "object", f"{spec.name}: input is an object"
            for label, schema in (("input", spec.input_schema), ("output", spec.output_schema)):
                check_references(schema, f"tool {spec.name!r} {label}_schema")
                compile_schema(schema)

    def test_effects_and_idempotency_are_declared(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        for tool in tool_bench.tools(tool_driver.plugin):
            spec = tool.spec
            assert spec.effect in ("read-only", "write"), f"{spec.name}: effect {spec.effect!r}"
            for flag in ("idempotent", "concurrency_safe", "runs_subprocesses", "status_query"):
                assert isinstance(getattr(spec, flag), bool), f"{spec.name}: {flag} is a bool"

    def test_a_status_query_tool_has_a_reconciler(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        querying = [
            t.spec.name for t in tool_bench.tools(tool_driver.plugin) if t.spec.status_query
        ]
        if not querying:
            pytest.skip(f"no tool of {tool_driver.plugin} declares status_query")
        reconcilers = tool_bench.bundle.seams.implementers("tools/reconcile")
        assert tool_driver.plugin in reconcilers, f"{querying} declare status_query"

    # -- calls ----------------------------------------------------------------------------------

    def test_each_tool_has_a_good_call(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        called = {call.tool for call in tool_driver.good}
        missing = [t.spec.name for t in tool_bench.tools(tool_driver.plugin)]
        missing = [name for name in missing if name not in called]
        assert not missing, f"give the driver a good call of {', '.join(missing)}"

    def test_a_good_call_succeeds_with_a_value_of_its_output_schema(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        for call in tool_driver.good:
            called = tool_bench.call(call)
            assert called.result.error is None, (call, called.result)
            assert called.dispatched, call
            tool = tool_bench.bundle.tools[call.tool]
            violation = tool.value_validator(called.result.value)
            assert violation is None, f"{call}: its value breaks the output schema: {violation}"

    def test_bad_arguments_are_refused_before_the_body(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        if not tool_driver.bad:
            pytest.skip(f"{tool_driver.plugin}'s driver gives no bad calls")
        for call in tool_driver.bad:
            called = tool_bench.call(call)
            assert called.result.error is not None, call
            assert called.result.error.code == "INVALID_ARGUMENTS", (call, called.result)
            assert not called.dispatched, f"{call} reached the body"

    def test_a_cancelled_call_settles_promptly(
        self, tool_driver: ToolDriver, tool_bench: ToolBench
    ) -> None:
        for call in tool_driver.good:
            called = tool_bench.call(call, cancel_after=CANCEL_AFTER)
            assert called.seconds < CANCEL_WITHIN, f"{call} took {called.seconds:.1f}s cancelled"
            assert any(r.type == "tool/result" for r in called.records), call


__all__ = ["CANCEL_WITHIN", "Called", "ToolBench", "ToolCall", "ToolContract", "ToolDriver"]
