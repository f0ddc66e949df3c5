"""The tty answerer's prompt: everything a person needs, nothing a terminal would act on."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from seamhost_user_approval.prompt import MAX_LINE, MAX_LINES, QUESTION, printable, render

from seamhost.sandbox.policy import SandboxMode
from tests.user_approval.approval_requests import request


def test_it_shows_the_tool_the_reason_the_sandbox_and_the_arguments() -> None:
    arguments = {"path": "release/VERSION", "content": "1.4.0\n", "create_dirs": True}
    text = render(request(arguments=arguments))
    assert "  tool        write_file\n" in text
    assert "  reason      files under release/ are what ships\n" in text
    assert "  sandbox     workspace-write\n" in text
    assert "escalation" not in text
    assert request(arguments=arguments).args_digest in text
    pretty = json.dumps(arguments, indent=2, ensure_ascii=False)
    assert "\n".join("    " + line for line in pretty.split("\n")) in text
    assert text.endswith(" ")
    assert QUESTION in text.splitlines()[-1]


def test_it_shows_an_escalation_and_its_justification() -> None:
    text = render(
        request(
            escalation=SandboxMode.DANGER_FULL_ACCESS, justification="installs a system package"
        )
    )
    assert "  escalation  danger-full-access for this call only\n" in text
    assert "  because     installs a system package\n" in text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\u001b[2J"),
        ("bell\x07", "bell\\u0007"),
        ("\x9b31m", "\\u009b31m"),  # C1 control sequence introducer
        ("\x7f", "\\u007f"),
        ("exe.\u202etxt", "exe.\\u202etxt"),  # right-to-left override
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("tab\there", "tab\\u0009here"),
        ("ünïcødé 日本語 🙂", "ünïcødé 日本語 🙂"),
    ],
)
def test_characters_a_terminal_would_act_on_are_escaped(raw: str, shown: str) -> None:
    assert printable(raw) == shown


def _visible(text: str) -> bool:
    return all(ch.isprintable() or ch == "\n" for ch in text)


@given(
    arguments=st.dictionaries(st.text(max_size=8), st.text(max_size=30), max_size=4),
    reason=st.text(max_size=30),
    justification=st.text(min_size=1, max_size=30),
)
def test_nothing_from_the_request_reaches_the_terminal_raw(
    arguments: dict[str, str], reason: str, justification: str
) -> None:
    text = render(
        request(
            arguments=arguments,
            reason=reason,
            escalation=SandboxMode.DANGER_FULL_ACCESS,
            justification=justification,
        )
    )
    assert _visible(text)


def test_long_arguments_are_shortened_and_say_so() -> None:
    text = render(request(arguments={"content": "x" * 10_000}))
    assert "… (9615 more characters)" in text
    assert max(len(line) for line in text.splitlines()) < MAX_LINE + 60
    assert "arguments shortened for display" in text
    many = render(request(arguments={f"k{n}": n for n in range(1_000)}))
    assert f"… {1_002 - MAX_LINES} more lines not shown" in many
    assert len(many.splitlines()) < MAX_LINES + 20


def test_short_arguments_are_not_said_to_be_shortened() -> None:
    assert "shortened" not in render(request())
