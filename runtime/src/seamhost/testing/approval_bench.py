"""How the answerer contract drives one answerer: the driver a test class supplies, and the bench.

:class:`AnswererDriver` says how to put the answerer in a bundle and which answers it can be
made to give; :class:`ContractBench` is one bundle and memory-only session on which a test
proposes probe calls, and :class:`Probed` what each call left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import attrs
import orjson

from seamhost.approval.service import ApprovalService
from seamhost.jsonvalue import FrozenDict
from seamhost.kernel.bundle import Bundle
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.pipeline import ToolPipeline
from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.testing.approval_plugins import FALLBACK, PROBE, PROBE_TOOL
from seamhost.tool.result import ToolResult

NO_ANSWER = "no-answer"
STALL = "stall"


def _as_dict(value: Mapping[str, Any]) -> dict[str, Any]:
    return dict(value)


def _as_cases(value: Iterable[AnswerCase]) -> tuple[AnswerCase, ...]:
    return tuple(value)


@attrs.frozen
class AnswerCase:
    """One call the contract proposes, and the answer the answerer must give to it.

    `outcome` is an :class:`~seamhost.approval.request.ApprovalOutcome` value or
    :data:`NO_ANSWER`; `tool` (any name but a tool of the driver's plugins) and `arguments` are
    the call's. The contract registers the tool for the test and asks about each of its calls.
    """

    outcome: str
    tool: str = PROBE_TOOL
    arguments: Mapping[str, Any] = attrs.field(factory=dict, converter=_as_dict)


@attrs.frozen
class AnswererDriver:
    """How the contract puts one answerer in a bundle and makes it answer.

    * `plugin`: the plugin whose answers are under test (the ``answerer`` of the decisions);
    * `tables`: plugin name → profile table, in chain order; the bundle lists them first;
    * `gives`: the answers it can be made to give with the default probe call
      (``contract_probe {want = <answer>}``): outcome values, :data:`NO_ANSWER`, :data:`STALL`;
    * `cases`: :class:`AnswerCase` calls and the answer each must get, for an answerer that
      decides by tool name or arguments: the first case of an answer is the call the contract
      makes to get that answer, and every case is checked;
    * `prepare(bundle)`: called once the bundle is built (register a callback, say);
    * `answering(want)`: a context manager entered around each request that should be answered
      `want` (type a key at a terminal, say).
    """

    plugin: str
    tables: Mapping[str, Mapping[str, Any]]
    gives: frozenset[str] = frozenset()
    prepare: Callable[[Bundle], None] | None = None
    answering: Callable[[str], AbstractContextManager[None]] | None = None
    cases: tuple[AnswerCase, ...] = attrs.field(default=(), converter=_as_cases)

    @property
    def answers(self) -> frozenset[str]:
        """Every answer the contract can get: `gives` and the outcomes of the `cases`."""
        return self.gives | {case.outcome for case in self.cases}

    @property
    def case_tools(self) -> tuple[str, ...]:
        """The tools the cases call, besides ``contract_probe``, in order."""
        names = (case.tool for case in self.cases if case.tool != PROBE_TOOL)
        return tuple(dict.fromkeys(names))

    def case_for(self, want: str) -> AnswerCase:
        """The call that gets `want`: its first case, else the default probe call."""
        for case in self.cases:
            if case.outcome == want:
                return case
        return AnswerCase(want, PROBE_TOOL, {"want": want})

    def arrange(self, want: str) -> AbstractContextManager[None]:
        return self.answering(want) if self.answering is not None else contextlib.nullcontext()


@attrs.frozen
class Probed:
    """What one contract call left: its result and the records about it."""

    case: AnswerCase
    result: ToolResult
    records: tuple[Record, ...]
    runs: tuple[tuple[str, str], ...]
    fallback_asked: tuple[str, ...]

    def of(self, type_: str) -> list[FrozenDict]:
        return [r.data for r in self.records if r.type == type_]


@attrs.define
class ContractBench:
    """One bundle and session of the contract, and the calls made on it."""

    bundle: Bundle
    session: Session
    workspace: Path
    driver: AnswererDriver
    service: ApprovalService
    step: int = 0

    def call(
        self,
        want: str,
        *,
        call_id: str = "probe-1",
        detail: Any = None,
        escalation: tuple[str, str] | None = None,
        case: AnswerCase | None = None,
    ) -> Probed:
        """Propose the call that should get `want` (`case`, else the driver's
        :meth:`~AnswererDriver.case_for`), run it through the pipeline, and report."""
        case = case if case is not None else self.driver.case_for(want)
        arguments: dict[str, Any] = dict(case.arguments)
        if detail is not None:
            arguments["detail"] = detail
        permissions, justification = escalation or (None, None)
        proposal = ToolCallProposal(
            call_id, case.tool, orjson.dumps(arguments).decode(), permissions, justification
        )
        self.step += 1
        start = self.session.next_seq
        pipeline = ToolPipeline(self.bundle, self.session, self.workspace, self.service)
        with self.driver.arrange(case.outcome):
            results = asyncio.run(pipeline.run_step(1, self.step, [proposal], asyncio.Event()))
        probe: Any = self.bundle.pm.get_plugin(PROBE)
        fallback: Any = self.bundle.pm.get_plugin(FALLBACK)
        return Probed(
            case,
            results[0],
            tuple(self.session.records[start:]),
            tuple(probe.runs),
            tuple(fallback.asked) if fallback is not None else (),
        )


__all__ = ["NO_ANSWER", "STALL", "AnswerCase", "AnswererDriver", "ContractBench", "Probed"]
