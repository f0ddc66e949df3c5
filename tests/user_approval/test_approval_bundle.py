"""user-approval in a bundle: its table, its service, the policy, the chain and the audit."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from seamhost_user_approval import set_callback

from seamhost.approval.request import ApprovalOutcome, ApprovalRequest
from seamhost.approval.service import Grant, set_policy
from seamhost.errors import ConfigError, ErrorCode
from seamhost.jsonvalue import digest
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.session.record import Record
from seamhost.session.store import SessionWriter
from seamhost.tool.result import ToolResult
from tests.user_approval.approval_requests import request
from tests.user_approval.conftest import BenchMaker, probe


def code(result: ToolResult) -> str | None:
    return result.error.code if result.error is not None else None


def counting(outcome: ApprovalOutcome | None) -> tuple[list[str], Callable[..., Any]]:
    """A callback answering `outcome`, and the list of call ids it was asked about."""
    asked: list[str] = []

    def answer(request: ApprovalRequest) -> ApprovalOutcome | None:
        asked.append(request.call_id)
        return outcome

    return asked, answer


# -- the table ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("colour = 1", "colour"),
        ('policy = "sometimes"', "policy"),
        ('answerers = ["rules", "web"]', "answerers"),
        ('answerers = ["tty", "tty"]', "answerers"),
        ("answerers = []", "answerers"),
        ("tty_timeout_seconds = 0", "tty_timeout_seconds"),
        ('[[plugins.user-approval.rules]]\ntool = "x"\ndecision = "ask"', "rules"),
        ('[[plugins.user-approval.rules]]\ndecision = "allow"', "rules"),
        ('[[plugins.user-approval.rules]]\ntool = "x"\ndecision = "allow"\nwhen = 1', "rules"),
        (
            '[[plugins.user-approval.rules]]\ntool = "x"\ndecision = "allow"\nargs = { n = 3 }',
            "rules",
        ),
    ],
)
def test_a_bad_table_is_refused_naming_the_file_and_key(
    tmp_path: Path, table: str, key: str
) -> None:
    profile = tmp_path / "bad.toml"
    profile.write_text(f'[profile]\nname = "bad"\n[plugins.user-approval]\n{table}\n')
    with pytest.raises(ConfigError) as caught:
        resolve_profile(str(profile))
    assert caught.value.file == str(profile)
    assert f"plugins.user-approval.{key}" in caught.value.key


def test_the_service_is_configured_from_the_table(make_bench: BenchMaker) -> None:
    bench = make_bench('policy = "never"\ntimeout_seconds = 90')
    service = bench.bundle.seams.approval_service()
    assert service is not None
    assert (service.default_policy, service.timeout) == ("never", 90)
    plain = make_bench().bundle.seams.approval_service()
    assert plain is not None
    assert (plain.default_policy, plain.timeout) == ("ask", None)


# -- the policy -----------------------------------------------------------------------------------


def test_policy_never_refuses_before_any_answerer_runs(make_bench: BenchMaker) -> None:
    bench = make_bench('policy = "never"\nanswerers = ["callback"]')
    asked, answer = counting(ApprovalOutcome.ALLOWED_ONCE)
    set_callback(bench.bundle, answer)
    [result] = bench.run(probe())
    assert code(result) == ErrorCode.APPROVAL_UNAVAILABLE
    assert "approval policy is `never`" in result.error.message  # type: ignore[union-attr]
    assert asked == []
    assert bench.runs == []
    assert [d["outcome"] for d in bench.records("approval/decided")] == ["unavailable"]


def test_the_last_policy_event_overrides_the_profile(make_bench: BenchMaker) -> None:
    bench = make_bench('policy = "never"\nanswerers = ["callback"]')
    asked, answer = counting(ApprovalOutcome.ALLOWED_ONCE)
    set_callback(bench.bundle, answer)
    set_policy(bench.session, "ask", "the operator, for this session")
    assert code(bench.run(probe("c1"), step=1)[0]) is None
    set_policy(bench.session, "never", "the operator changed their mind")
    assert code(bench.run(probe("c2"), step=2)[0]) == ErrorCode.APPROVAL_UNAVAILABLE
    assert asked == ["c1"]
    policies = bench.records("approval/policy")
    assert [(p["policy"], p["source"]) for p in policies] == [
        ("ask", "the operator, for this session"),
        ("never", "the operator changed their mind"),
    ]


# -- the chain ------------------------------------------------------------------------------------

ALLOW_ALL = '[[plugins.user-approval.rules]]\ntool = "probe"\ndecision = "allow"\n'


@pytest.mark.parametrize(
    ("answerers", "outcome", "answered_by"),
    [
        ('["callback", "rules"]', ErrorCode.APPROVAL_REJECTED, "callback: rejected"),
        ('["rules", "callback"]', None, "rules[0] allows it"),
    ],
)
def test_the_first_answerer_in_profile_order_wins(
    make_bench: BenchMaker, answerers: str, outcome: ErrorCode | None, answered_by: str
) -> None:
    bench = make_bench(f"answerers = {answerers}\n" + ALLOW_ALL)
    set_callback(bench.bundle, lambda request: ApprovalOutcome.REJECTED)
    [result] = bench.run(probe())
    assert code(result) == outcome
    [decided] = bench.records("approval/decided")
    assert decided["message"].endswith(answered_by)


def test_an_unmatched_call_passes_from_rules_to_the_next_answerer(make_bench: BenchMaker) -> None:
    bench = make_bench(
        'answerers = ["rules", "callback"]\n'
        '[[plugins.user-approval.rules]]\ntool = "probe"\nargs = { path = "docs/*" }\n'
        'decision = "allow"\n'
    )
    asked, answer = counting(ApprovalOutcome.CANCELLED)
    set_callback(bench.bundle, answer)
    results = bench.run(probe("c1", path="docs/a.md"), probe("c2", path="src/a.py"))
    assert [code(r) for r in results] == [None, ErrorCode.APPROVAL_CANCELLED]
    assert asked == ["c2"]
    decided = bench.records("approval/decided")
    assert decided[1]["message"] == (
        "cancelled by user-approval: rules: none matches this probe call; callback: cancelled"
    )


def test_nobody_answering_names_the_answerers_tried_and_what_to_configure(
    make_bench: BenchMaker, tmp_path: Path
) -> None:
    not_a_terminal = tmp_path / "console"
    not_a_terminal.write_text("")
    bench = make_bench(f'answerers = ["rules", "tty"]\ntty_path = "{not_a_terminal}"')
    [result] = bench.run(probe())
    assert code(result) == ErrorCode.APPROVAL_UNAVAILABLE
    message = result.error.message  # type: ignore[union-attr]
    assert "user-approval tried rules: none are configured; " in message
    assert f"tty: no terminal: {not_a_terminal} is not a terminal; " in message
    assert "add a rule matching it to [plugins.user-approval] rules for headless runs" in message
    assert "run it in a terminal" in message
    assert 'set_callback (with "callback" in answerers)' in message
    [decided] = bench.records("approval/decided")
    assert decided["message"] == message
    assert decided["outcome"] == "unavailable"
    assert "cancel" not in message


def test_the_overall_timeout_ends_the_chain_as_unavailable(make_bench: BenchMaker) -> None:
    import asyncio

    bench = make_bench('answerers = ["callback"]\ntimeout_seconds = 0.3')

    async def ponder(request: ApprovalRequest) -> ApprovalOutcome:
        await asyncio.sleep(60)
        return ApprovalOutcome.ALLOWED_ONCE

    set_callback(bench.bundle, ponder)
    [result] = bench.run(probe())
    assert code(result) == ErrorCode.APPROVAL_UNAVAILABLE
    message = result.error.message  # type: ignore[union-attr]
    assert message.startswith("no answer within 0.3s (tried: user-approval); refused; ")
    assert "callback: still answering when the approval was abandoned" in message
    assert bench.runs == []


# -- the audit ------------------------------------------------------------------------------------


@attrs.define
class RefusingWriter:
    """A store's writer that refuses one type of record, as a full or failing disk would.

    A stand-in: a store that fails on exactly one record cannot be made with real storage.
    """

    inner: SessionWriter
    refused: str

    @property
    def header(self) -> Any:
        return self.inner.header

    @property
    def torn_records(self) -> int:
        return self.inner.torn_records

    def existing(self) -> list[Record]:
        return self.inner.existing()

    def submit(self, record: Record) -> None:
        if record.type == self.refused:
            raise OSError(28, "No space left on device")
        self.inner.submit(record)

    async def flush(self) -> None:
        await self.inner.flush()

    def close(self) -> None:
        self.inner.close()


@pytest.mark.parametrize("refused", ["approval/asked", "approval/decided"])
def test_a_failed_audit_append_refuses_the_call(make_bench: BenchMaker, refused: str) -> None:
    bench = make_bench(
        'answerers = ["callback"]', writer=lambda inner: RefusingWriter(inner, refused)
    )
    asked, answer = counting(ApprovalOutcome.ALLOWED_ONCE)
    set_callback(bench.bundle, answer)
    [result] = bench.run(probe())
    assert code(result) == ErrorCode.APPROVAL_UNAVAILABLE
    assert "could not be recorded" in result.error.message  # type: ignore[union-attr]
    assert "No space left on device" in result.error.message  # type: ignore[union-attr]
    assert bench.runs == []
    assert bench.records("tool/dispatch") == []
    assert asked == ([] if refused == "approval/asked" else ["c1"])


def test_a_decision_binds_to_its_call_its_arguments_and_one_dispatch(
    make_bench: BenchMaker,
) -> None:
    bench = make_bench('answerers = ["callback"]')
    decided: set[str] = set()

    def once(request: ApprovalRequest) -> ApprovalOutcome:
        """Allow a call id the first time only, as a person answering each question would."""
        if request.call_id in decided:
            return ApprovalOutcome.REJECTED
        decided.add(request.call_id)
        return ApprovalOutcome.ALLOWED_ONCE

    set_callback(bench.bundle, once)
    first = bench.run(probe("c1", path="release/VERSION"), step=1)
    replayed = bench.run(probe("c1", path="release/VERSION"), step=2)
    altered = bench.run(probe("c1", path="release/../.ssh/config"), step=3)
    assert [code(r[0]) for r in (first, replayed, altered)] == [
        None,
        ErrorCode.APPROVAL_REJECTED,
        ErrorCode.APPROVAL_REJECTED,
    ]
    assert bench.runs == [("c1", "workspace-write")], "the body ran once, for the first call"
    asked = bench.records("approval/asked")
    assert [a["args_digest"] for a in asked] == [
        digest({"path": "release/VERSION"}),
        digest({"path": "release/VERSION"}),
        digest({"path": "release/../.ssh/config"}),
    ], "every proposal is asked about anew; no earlier decision is reused"
    assert len(bench.records("approval/decided")) == 3
    dispatched = bench.records("tool/dispatch")
    assert [d["args_digest"] for d in dispatched] == [digest({"path": "release/VERSION"})]


def test_a_grant_covers_only_its_call_id_and_args_digest(make_bench: BenchMaker) -> None:
    bench = make_bench(ALLOW_ALL)
    [result] = bench.run(probe("c1", path="a"))
    assert code(result) is None
    [asked] = bench.records("approval/asked")
    grant = Grant(asked["id"], "c1", asked["args_digest"])

    @attrs.frozen
    class Call:
        call_id: str
        args_digest: str

    assert grant.covers(Call("c1", digest({"path": "a"})))  # type: ignore[arg-type]
    assert not grant.covers(Call("c1", digest({"path": "b"})))  # type: ignore[arg-type]
    assert not grant.covers(Call("c2", digest({"path": "a"})))  # type: ignore[arg-type]


# -- sandbox escalation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("escalation", "problem"),
    [
        (("danger-full-access", None), "must be given together"),
        ((None, "because"), "must be given together"),
        (("danger-full-access", "   "), "justification must not be empty"),
        (("workspace-write", "because"), "is not wider than the effective mode"),
        (("read-only", "because"), "is not wider than the effective mode"),
        (("root", "because"), "is not a mode"),
    ],
    ids=["no-justification", "no-mode", "blank-justification", "same", "narrower", "unknown"],
)
def test_an_invalid_escalation_is_refused_before_anything_is_asked(
    make_bench: BenchMaker, escalation: tuple[str | None, str | None], problem: str
) -> None:
    bench = make_bench('answerers = ["callback"]')
    asked, answer = counting(ApprovalOutcome.ALLOWED_ONCE)
    set_callback(bench.bundle, answer)
    [result] = bench.run(probe("c1", escalation))
    assert code(result) == ErrorCode.ESCALATION_INVALID
    assert problem in result.error.message  # type: ignore[union-attr]
    assert asked == []
    assert bench.records("approval/asked") == []
    assert bench.runs == []


def test_an_escalation_is_approved_shown_recorded_and_granted_for_that_call_only(
    make_bench: BenchMaker,
) -> None:
    bench = make_bench('answerers = ["rules", "callback"]\n' + ALLOW_ALL)
    asked, answer = counting(ApprovalOutcome.ALLOWED_ONCE)
    set_callback(bench.bundle, answer)
    wide = probe("wide", ("danger-full-access", "installs a system package"))
    results = bench.run(wide, probe("narrow"))
    assert [code(r) for r in results] == [None, None]
    # The rule allows plain probe calls, not escalations: the callback was asked for that one.
    assert asked == ["wide"]
    approvals = bench.records("approval/asked")
    assert [a.get("escalation") for a in approvals] == ["danger-full-access", None]
    assert "requests danger-full-access: installs a system package" in approvals[0]["reason"]
    dispatched = bench.records("tool/dispatch")
    assert [d["sandbox_mode"] for d in dispatched] == ["danger-full-access", "workspace-write"]
    assert bench.runs == [("wide", "danger-full-access"), ("narrow", "workspace-write")]


def test_a_later_answerer_plugin_is_asked_when_user_approval_passes(
    make_bench: BenchMaker,
) -> None:
    bench = make_bench('answerers = ["rules"]', fallback=True)
    [result] = bench.run(probe())
    assert code(result) == ErrorCode.APPROVAL_REJECTED
    assert bench.fallback_asked == ["c1"]
    [decided] = bench.records("approval/decided")
    assert (decided["answerer"], decided["message"]) == ("ua-fallback", "rejected by ua-fallback")


def test_a_standing_only_request_is_answered_by_the_rules_alone(make_bench: BenchMaker) -> None:
    # mcp serve asks so before it asks its client's user: a rule decides, a person is not asked.
    bench = make_bench(
        'answerers = ["callback", "rules", "defer"]\n'
        '[[plugins.user-approval.rules]]\ntool = "probe"\nargs = { path = "docs/*" }\n'
        'decision = "reject"\n'
    )
    asked, answer = counting(ApprovalOutcome.ALLOWED_ONCE)
    set_callback(bench.bundle, answer)

    def standing(path: str) -> ApprovalOutcome | None:
        question = request("probe", {"path": path}, call_id=f"c-{path}")
        return asyncio.run(
            bench.plugin.approval_request(attrs.evolve(question, standing_only=True))
        )

    assert standing("docs/a.md") is ApprovalOutcome.REJECTED
    assert standing("src/a.py") is None  # no rule matches: neither the callback nor defer answer
    assert asked == []
