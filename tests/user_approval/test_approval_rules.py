"""The rules answerer: strict, documented matching; the first matching rule decides."""

from __future__ import annotations

import asyncio
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from seamhost_user_approval.rules import Rule, RulesAnswerer, glob_matches

from seamhost.approval.request import ApprovalOutcome
from seamhost.globs import Glob
from seamhost.sandbox.policy import SandboxMode
from tests.user_approval.approval_requests import request


def answerer(*tables: dict[str, Any]) -> RulesAnswerer:
    return RulesAnswerer.from_config(tables)


def outcome(rules: RulesAnswerer, **kwargs: Any) -> ApprovalOutcome | None:
    return asyncio.run(rules.answer(request(**kwargs))).outcome


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("release/*", "release/VERSION", True),
        ("release/*", "release/notes/1.4.md", False),  # * stays in one segment
        ("release/**", "release/notes/1.4.md", True),  # ** crosses /
        ("release/notes/*.md", "release/notes/internal/keys/prod.md", False),
        ("release/notes/**.md", "release/notes/internal/keys/prod.md", True),
        ("release/*", "Release/VERSION", False),  # case-sensitive
        ("release/*", "release", False),  # the whole text
        ("release/*", "x/release/VERSION", False),
        ("release/?.md", "release/a.md", True),
        ("release/?.md", "release/ab.md", False),
        ("v[0-9].*", "v1.4", True),
        ("v[!0-9]*", "v1.4", False),
        ("a[*]", "a*", True),
        ("a[*]", "ab", False),
        ("line*", "line one\nline two", True),  # * crosses newlines
    ],
)
def test_globs_match_whole_text_case_sensitively(pattern: str, text: str, matches: bool) -> None:
    assert glob_matches(pattern, text) is matches


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("3", 3, True),
        ("3*", 30, True),
        ("true", True, True),
        ("True", True, False),
        ("null", None, True),
        ('[[]"a","b"]', ["a", "b"], True),  # [[] is a literal [
        ('[[]"a", "b"]', ["a", "b"], False),  # canonical JSON has no spaces
        ('[[]"a",*]', ["a", "b", "c"], True),
        ('{"a":1,"b":2}', {"b": 2, "a": 1}, True),  # and sorted keys
        ("2.5", 2.5, True),
    ],
)
def test_other_values_are_matched_as_canonical_json(
    pattern: str, value: Any, matches: bool
) -> None:
    assert glob_matches(pattern, value) is matches


@pytest.mark.parametrize(
    "text",
    ["release/notes/../../.ssh/config", "release/notes/..", "..\\windows", "release/../x.md"],
)
def test_a_wildcard_never_climbs_out_with_dotdot(text: str) -> None:
    assert not glob_matches("release/*", text)
    assert not glob_matches("*", text)
    literal = text.replace("\\", "\\\\").replace("[", "[[]")
    assert glob_matches(literal, text)  # written out literally, it matches


def test_dots_that_are_not_a_segment_are_plain_text() -> None:
    assert glob_matches("release/*", "release/v1..2")
    assert glob_matches("release/*", "release/..hidden")


def _literal(text: str) -> str:
    """A glob that matches exactly `text`: each wildcard character escaped."""
    return "".join(f"\\{ch}" if ch in "*?[\\" else ch for ch in text)


@given(st.text(alphabet=string.printable + "äß日🙂", max_size=40))
def test_a_literal_glob_matches_its_text_and_nothing_else(text: str) -> None:
    assert glob_matches(_literal(text), text)
    assert not glob_matches(_literal(text), text + "x")
    assert not glob_matches(_literal(text + "x"), text)


def test_the_first_matching_rule_decides() -> None:
    rules = answerer(
        {"tool": "write_file", "args": {"path": "release/VERSION"}, "decision": "reject"},
        {"tool": "write_file", "args": {"path": "release/*"}, "decision": "allow"},
    )
    assert outcome(rules, arguments={"path": "release/VERSION"}) is ApprovalOutcome.REJECTED
    assert outcome(rules, arguments={"path": "release/notes.md"}) is ApprovalOutcome.ALLOWED_ONCE


def test_every_named_argument_must_be_present_and_match() -> None:
    rules = answerer(
        {"tool": "deploy", "args": {"branch": "main", "replicas": "[1-3]"}, "decision": "allow"}
    )
    assert outcome(rules, tool="deploy", arguments={"branch": "main", "replicas": 2}) == (
        ApprovalOutcome.ALLOWED_ONCE
    )
    assert outcome(rules, tool="deploy", arguments={"branch": "main", "replicas": 5}) is None
    assert outcome(rules, tool="deploy", arguments={"branch": "main"}) is None
    assert outcome(rules, tool="shell", arguments={"branch": "main", "replicas": 2}) is None


def test_an_unmatched_call_gets_no_answer_and_says_why() -> None:
    rules = answerer({"tool": "read_file", "decision": "allow"})
    reply = asyncio.run(rules.answer(request()))
    assert reply.outcome is None
    assert reply.note == "rules: none matches this write_file call"
    assert asyncio.run(answerer().answer(request())).note == "rules: none are configured"


def test_a_decision_names_its_rule_and_reason() -> None:
    rules = answerer(
        {"tool": "read_file", "decision": "allow"},
        {"tool": "write_file", "decision": "reject", "reason": "releases are cut by CI"},
    )
    reply = asyncio.run(rules.answer(request()))
    assert reply.outcome is ApprovalOutcome.REJECTED
    assert reply.note == "rules[1] rejects it: releases are cut by CI"


WIDER = {"escalation": SandboxMode.DANGER_FULL_ACCESS, "justification": "needs the machine"}


def test_a_rule_without_escalation_never_approves_a_wider_sandbox() -> None:
    rules = answerer({"tool": "*", "decision": "allow"})
    assert outcome(rules) is ApprovalOutcome.ALLOWED_ONCE
    assert outcome(rules, **WIDER) is None


@pytest.mark.parametrize(
    ("escalation", "plain", "wide"),
    [
        ("none", ApprovalOutcome.ALLOWED_ONCE, None),
        ("any", ApprovalOutcome.ALLOWED_ONCE, ApprovalOutcome.ALLOWED_ONCE),
        ("danger-full-access", None, ApprovalOutcome.ALLOWED_ONCE),
        ("workspace-write", None, None),
    ],
)
def test_escalation_matches_what_the_call_asks_for(
    escalation: str, plain: ApprovalOutcome | None, wide: ApprovalOutcome | None
) -> None:
    rules = answerer({"tool": "*", "escalation": escalation, "decision": "allow"})
    assert outcome(rules) is plain
    assert outcome(rules, **WIDER) is wide


def test_rules_are_read_from_their_tables() -> None:
    rule = Rule.from_table(
        "rules[0]", {"tool": "t", "args": {"b": "2", "a": "1"}, "decision": "reject"}
    )
    globs = (("a", Glob.of("1")), ("b", Glob.of("2")))
    assert rule == Rule("rules[0]", Glob.of("t"), ApprovalOutcome.REJECTED, globs)


def test_a_malformed_glob_fails_the_bundle_naming_its_key(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from seamhost.cli import main

    profile = tmp_path / "p.toml"
    profile.write_text(
        '[profile]\nname = "p"\n[plugins.user-approval]\n'
        '[[plugins.user-approval.rules]]\ntool = "write_file"\n'
        'args = { path = "release/[abc" }\ndecision = "allow"\n'
    )
    result = CliRunner().invoke(main, ["profile", "check", str(profile)])
    assert result.exit_code == 2, result.output
    assert "plugins.user-approval.rules[0].args.path" in result.output
    assert "is never closed" in result.output
