"""The contract every approval answerer passes: subclass :class:`AnswererContract`.

An answerer is a plugin implementing ``approval/request`` (design.md §5 step 6). Its test module
subclasses the contract and supplies one fixture, ``answerer_driver``, returning an
:class:`AnswererDriver`: the profile tables that put the answerer in a bundle, which answers it
can be made to give, and how::

    import pytest
    from seamhost.testing.approval import AnswererContract, AnswererDriver, NO_ANSWER

    class TestMyAnswerer(AnswererContract):
        @pytest.fixture
        def answerer_driver(self) -> AnswererDriver:
            return AnswererDriver(
                plugin="my-answerer",
                tables={"my-answerer": {"allow_when": "allowed-once"}},
                gives=frozenset({"allowed-once", "rejected", NO_ANSWER}),
            )

How a test asks for an answer. By default every request the contract makes is for a call of its
probe tool, ``contract_probe``, whose argument ``want`` names the answer the test expects: an
outcome (``"allowed-once"``, ``"rejected"``, ``"cancelled"``, ``"unavailable"``),
:data:`NO_ANSWER` (the answerer passes the request on) or :data:`STALL` (it takes longer than any
timeout). An answerer that decides by the tool's name or by other arguments gives the calls
instead, as :class:`AnswerCase` values (tool, arguments, expected answer) in the driver's
`cases`: the first case of an answer is the call the contract makes to get it, and
``test_every_case_gets_its_answer`` checks each case::

    AnswererDriver(
        plugin="deploy-gate",
        tables={"deploy-gate": {"allow_envs": ["staging"]}},
        cases=[
            AnswerCase("allowed-once", "deploy", {"env": "staging"}),
            AnswerCase("rejected", "deploy", {"env": "prod"}),
            AnswerCase(NO_ANSWER, "restart", {}),
        ],
    )

One that needs a person or a program arranges the answer in `answering`, a context manager
entered around each request with the wanted answer, or in `prepare`, called once the bundle is
built. Tests of answers an answerer cannot give (in neither `gives` nor `cases`) skip, saying so.

The bundle is the driver's tables, in their order, then ``contract-probe`` (the tool, and a
``tools/pre-execute`` that asks about every probe call) and, where a test needs one, a later
answerer ``contract-fallback`` that rejects whatever reaches it. Both are installed for the test
as distributions of their own (the ``plugin_site`` fixture). Calls run through the kernel's
:class:`~seamhost.run.pipeline.ToolPipeline` on a memory-only session, with the service the bundle
provides (``approval/service``) or the kernel's.

The two plugins are in :mod:`seamhost.testing.approval_plugins`, the driver and the bench in
:mod:`seamhost.testing.approval_bench`; every name of the kit is importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.approval.request import ApprovalOutcome
from seamhost.approval.service import ApprovalService, set_policy
from seamhost.errors import ErrorCode
from seamhost.jsonvalue import digest, freeze
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.sessions import create_session
from seamhost.session.events import TurnStart
from seamhost.session.live import Session
from seamhost.testing.approval_bench import (
    NO_ANSWER,
    STALL,
    AnswerCase,
    AnswererDriver,
    ContractBench,
    Probed,
)
from seamhost.testing.approval_plugins import (
    FALLBACK,
    PROBE,
    PROBE_TOOL,
    fallback_answerer,
    probe_source,
)
from seamhost.testing.sites import PluginSite
from seamhost.tool.result import ToolResult

STALL_TIMEOUT = 0.5  # the service's overall timeout in the stall test, seconds

OUTCOME_CODES = {
    ApprovalOutcome.ALLOWED_ONCE: None,
    ApprovalOutcome.REJECTED: ErrorCode.APPROVAL_REJECTED,
    ApprovalOutcome.CANCELLED: ErrorCode.APPROVAL_CANCELLED,
    ApprovalOutcome.UNAVAILABLE: ErrorCode.APPROVAL_UNAVAILABLE,
}


def _code(result: ToolResult) -> str | None:
    return result.error.code if result.error is not None else None


class AnswererContract:
    """Tests any ``approval/request`` answerer passes. Subclass it; provide ``answerer_driver``."""

    @pytest.fixture
    def answerer_driver(self) -> AnswererDriver:
        raise NotImplementedError("an answerer's test class provides the answerer_driver fixture")

    @pytest.fixture
    def contract_site(self, plugin_site: PluginSite, answerer_driver: AnswererDriver) -> PluginSite:
        plugin_site.add(PROBE, probe_source(answerer_driver.case_tools))
        plugin_site.add(FALLBACK, fallback_answerer(FALLBACK))
        return plugin_site

    @pytest.fixture
    def make_bench(
        self, contract_site: PluginSite, answerer_driver: AnswererDriver, tmp_path: Path
    ) -> Iterator[Callable[..., ContractBench]]:
        sessions: list[Session] = []

        def make(*, fallback: bool = False, timeout: float | None = None) -> ContractBench:
            names = [*answerer_driver.tables, PROBE] + ([FALLBACK] if fallback else [])
            text = '[profile]\nname = "answerer-contract"\n'
            text += "".join(f"[plugins.{name}]\n" for name in names)
            text += '[sandbox]\nmode = "workspace-write"\n'
            name = f"contract-{len(sessions)}.toml"
            path = contract_site.profile(name, text)
            overrides = {k: dict(v) for k, v in answerer_driver.tables.items()}
            bundle = build_bundle(resolve_profile(str(path), overrides=overrides))
            if answerer_driver.prepare is not None:
                answerer_driver.prepare(bundle)
            service = bundle.seams.approval_service() or ApprovalService()
            if timeout is not None:
                service = attrs.evolve(service, timeout=timeout)
            session = create_session(bundle, session_id=f"contract-{len(sessions)}")
            sessions.append(session)
            session.append(TurnStart(turn=1))
            workspace = tmp_path / "workspace"
            workspace.mkdir(exist_ok=True)
            return ContractBench(bundle, session, workspace, answerer_driver, service)

        yield make
        for session in sessions:
            session.close()

    @staticmethod
    def needs(driver: AnswererDriver, *wants: str) -> None:
        missing = [want for want in wants if want not in driver.answers]
        if missing:
            pytest.skip(f"{driver.plugin} cannot be made to answer {', '.join(missing)}")

    # -- an answer decides the call, once, and is audited ---------------------------------------

    # `deferred` does not decide a call: it parks it (tested with the deferring answerer).
    @pytest.mark.parametrize("outcome", list(OUTCOME_CODES), ids=str)
    def test_an_answer_decides_the_call_and_is_audited(
        self,
        answerer_driver: AnswererDriver,
        make_bench: Callable[..., ContractBench],
        outcome: ApprovalOutcome,
    ) -> None:
        self.needs(answerer_driver, outcome.value)
        probed = make_bench(fallback=True).call(outcome.value)
        assert _code(probed.result) == OUTCOME_CODES[outcome], probed.result
        allowed = outcome is ApprovalOutcome.ALLOWED_ONCE
        assert [run[0] for run in probed.runs] == (["probe-1"] if allowed else [])
        assert len(probed.of("tool/dispatch")) == (1 if allowed else 0)
        [asked], [decided] = probed.of("approval/asked"), probed.of("approval/decided")
        assert asked["call_id"] == "probe-1"
        assert asked["tool"] == probed.case.tool
        assert asked["args_digest"] == digest(dict(probed.case.arguments))
        assert decided["id"] == asked["id"]
        assert decided["outcome"] == outcome.value
        assert decided["answerer"] == answerer_driver.plugin
        types = [r.type for r in probed.records]
        assert types.index("approval/asked") < types.index("approval/decided")
        assert probed.fallback_asked == (), "an answer must end the chain"

    def test_a_deferral_never_runs_the_call_and_a_session_that_cannot_wait_refuses_it(
        self, answerer_driver: AnswererDriver, make_bench: Callable[..., ContractBench]
    ) -> None:
        # The contract's session is memory-only: it cannot keep a question across processes,
        # so the service refuses the deferral. Parking a durable session is the kernel's part.
        self.needs(answerer_driver, ApprovalOutcome.DEFERRED.value)
        probed = make_bench(fallback=True).call(ApprovalOutcome.DEFERRED.value)
        assert _code(probed.result) == ErrorCode.APPROVAL_UNAVAILABLE
        assert probed.runs == ()
        assert probed.of("tool/dispatch") == []
        [asked], [deferred] = probed.of("approval/asked"), probed.of("approval/deferred")
        assert deferred["id"] == asked["id"]
        assert deferred["args_digest"] == asked["args_digest"]
        [decided] = probed.of("approval/decided")
        assert decided["outcome"] == "unavailable"
        assert probed.fallback_asked == (), "a deferral is an answer: it ends the chain"

    def test_no_answer_passes_the_request_on(
        self, answerer_driver: AnswererDriver, make_bench: Callable[..., ContractBench]
    ) -> None:
        self.needs(answerer_driver, NO_ANSWER)
        probed = make_bench(fallback=True).call(NO_ANSWER)
        assert probed.fallback_asked == ("probe-1",)
        assert _code(probed.result) == ErrorCode.APPROVAL_REJECTED
        [decided] = probed.of("approval/decided")
        assert decided["answerer"] == FALLBACK

    def test_when_nobody_answers_the_call_is_unavailable_and_never_runs(
        self, answerer_driver: AnswererDriver, make_bench: Callable[..., ContractBench]
    ) -> None:
        self.needs(answerer_driver, NO_ANSWER)
        probed = make_bench().call(NO_ANSWER)
        assert _code(probed.result) == ErrorCode.APPROVAL_UNAVAILABLE
        assert probed.runs == ()
        assert probed.of("tool/dispatch") == []
        [decided] = probed.of("approval/decided")
        assert decided["outcome"] == "unavailable"

    def test_policy_never_refuses_before_anyone_answers(
        self, answerer_driver: AnswererDriver, make_bench: Callable[..., ContractBench]
    ) -> None:
        self.needs(answerer_driver, ApprovalOutcome.ALLOWED_ONCE.value)
        bench = make_bench(fallback=True)
        set_policy(bench.session, "never", "the answerer contract")
        probed = bench.call(ApprovalOutcome.ALLOWED_ONCE.value)
        assert _code(probed.result) == ErrorCode.APPROVAL_UNAVAILABLE
        assert probed.runs == ()
        assert probed.fallback_asked == ()
        [decided] = probed.of("approval/decided")
        assert decided.get("answerer") is None
        assert "never" in decided["message"]

    def test_every_case_gets_its_answer(
        self, answerer_driver: AnswererDriver, make_bench: Callable[..., ContractBench]
    ) -> None:
        if not answerer_driver.cases:
            pytest.skip(f"{answerer_driver.plugin}'s driver gives no cases")
        bench = make_bench(fallback=True)
        for index, case in enumerate(answerer_driver.cases):
            call_id = f"case-{index}"
            probed = bench.call(case.outcome, call_id=call_id, case=case)
            label = f"case {index} ({case.tool} {dict(case.arguments)}, expected {case.outcome})"
            [asked] = probed.of("approval/asked")
            assert asked["tool"] == case.tool, label
            [decided] = probed.of("approval/decided")
            if case.outcome == NO_ANSWER:
                assert probed.fallback_asked[-1:] == (call_id,), label
                assert decided["answerer"] == FALLBACK, label
                continue
            assert call_id not in probed.fallback_asked, label
            if case.outcome == ApprovalOutcome.DEFERRED.value:  # memory-only: cannot wait
                assert probed.of("approval/deferred"), label
                assert _code(probed.result) == ErrorCode.APPROVAL_UNAVAILABLE, label
                continue
            assert decided["outcome"] == case.outcome, label
            assert decided["answerer"] == answerer_driver.plugin, label
            assert _code(probed.result) == OUTCOME_CODES[ApprovalOutcome(case.outcome)], label
            ran = [run[0] for run in probed.runs]
            assert (call_id in ran) == (case.outcome == ApprovalOutcome.ALLOWED_ONCE.value), label

    # -- what an approval grants ------------------------------------------------------------------

    def test_an_escalation_is_granted_for_that_call_only(
        self, answerer_driver: AnswererDriver, make_bench: Callable[..., ContractBench]
    ) -> None:
        allow = ApprovalOutcome.ALLOWED_ONCE.value
        self.needs(answerer_driver, allow)
        bench = make_bench()
        wider = ("danger-full-access", "the answerer contract needs the whole machine")
        first = bench.call(allow, call_id="probe-wide", escalation=wider)
        assert _code(first.result) is None, first.result
        [asked] = first.of("approval/asked")
        assert asked["escalation"] == "danger-full-access"
        [dispatch] = first.of("tool/dispatch")
        assert dispatch["sandbox_mode"] == "danger-full-access"
        second = bench.call(allow, call_id="probe-narrow")
        assert _code(second.result) is None, second.result
        assert second.runs == (
            ("probe-wide", "danger-full-access"),
            ("probe-narrow", "workspace-write"),
        )

    @pytest.mark.parametrize(
        "detail",
        [
            "ünïcødé ✓ 日本語 🙂",
            "\x1b[2J\x1b[31mred\x07\x00 and \u202egnp.exe",
            {"nested": [1, 2.5, True, None, {"deep": ["x"] * 50}]},
            "x" * 100_000,
            "\n".join(f"line {n}" for n in range(1_000)),
        ],
        ids=["unicode", "control-characters", "nested", "long", "many-lines"],
    )
    def test_arguments_of_any_shape_get_an_answer(
        self,
        answerer_driver: AnswererDriver,
        make_bench: Callable[..., ContractBench],
        detail: Any,
    ) -> None:
        allow = ApprovalOutcome.ALLOWED_ONCE.value
        self.needs(answerer_driver, allow)
        probed = make_bench().call(allow, detail=detail)
        assert _code(probed.result) is None, probed.result
        [asked] = probed.of("approval/asked")
        expected = {**probed.case.arguments, "detail": freeze(detail)}
        assert asked["args_digest"] == digest(expected)

    # -- time -------------------------------------------------------------------------------------

    def test_a_stalled_answer_is_unavailable_and_the_answerer_recovers(
        self, answerer_driver: AnswererDriver, make_bench: Callable[..., ContractBench]
    ) -> None:
        self.needs(answerer_driver, STALL)
        bench = make_bench(timeout=STALL_TIMEOUT)
        stalled = bench.call(STALL, call_id="probe-stalled")
        assert _code(stalled.result) == ErrorCode.APPROVAL_UNAVAILABLE
        assert stalled.runs == ()
        [decided] = stalled.of("approval/decided")
        assert decided["outcome"] == "unavailable"
        allow = ApprovalOutcome.ALLOWED_ONCE.value
        if allow in answerer_driver.answers:
            after = bench.call(allow, call_id="probe-after")
            assert _code(after.result) is None, after.result


__all__ = [
    "FALLBACK",
    "NO_ANSWER",
    "PROBE",
    "PROBE_TOOL",
    "STALL",
    "AnswerCase",
    "AnswererContract",
    "AnswererDriver",
    "ContractBench",
    "Probed",
    "fallback_answerer",
    "probe_source",
]
