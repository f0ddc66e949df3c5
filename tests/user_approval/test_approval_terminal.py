"""The tty answerer on a real pseudo-terminal: keys, settings restored, hang-ups, time.

The answerer is given the slave's path (``tty_path``); the test holds the master side, reads
the prompt from it and types keys into it, as a terminal emulator would.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import termios
from pathlib import Path

import attrs
import pytest
from seamhost_user_approval.errors import AnswererFailed, AnswererTimedOut
from seamhost_user_approval.prompt import QUESTION
from seamhost_user_approval.terminal import TerminalAnswerer

from seamhost.approval.request import ApprovalOutcome
from seamhost.sandbox.policy import SandboxMode
from tests.user_approval.approval_requests import request
from tests.user_approval.conftest import Terminal

STOP_OUTPUT, START_OUTPUT = b"\x13", b"\x11"  # Ctrl-S, Ctrl-Q (with IXON)
STRESS_ROUNDS = 500


def ask(terminal: Terminal, keys: bytes | None, *, timeout: float = 30) -> ApprovalOutcome | None:
    answerer = TerminalAnswerer(terminal.path, timeout)
    with terminal.answering(keys):
        return asyncio.run(answerer.answer(request())).outcome


@pytest.mark.parametrize(
    ("keys", "outcome"),
    [
        (b"y", ApprovalOutcome.ALLOWED_ONCE),
        (b"Y", ApprovalOutcome.ALLOWED_ONCE),
        (b"n", ApprovalOutcome.REJECTED),
        (b"\r", ApprovalOutcome.REJECTED),
        (b"\x03", ApprovalOutcome.CANCELLED),
        (b"\x04", ApprovalOutcome.CANCELLED),
    ],
    ids=["y", "Y", "n", "enter", "ctrl-c", "ctrl-d"],
)
def test_one_key_decides(terminal: Terminal, keys: bytes, outcome: ApprovalOutcome) -> None:
    assert ask(terminal, keys) is outcome
    said = f"→ {outcome.value.replace('-', ' ')}"
    assert said in terminal.output_after(said)


def test_other_keys_are_ignored_with_a_bell(terminal: Terminal) -> None:
    assert ask(terminal, b"xq\x1b[Ay") is ApprovalOutcome.ALLOWED_ONCE
    after_question = terminal.output_after("→ allowed once").split(QUESTION, 1)[1]
    assert after_question.count("\a") == 5


def test_keys_typed_before_the_question_do_not_answer_it(terminal: Terminal) -> None:
    terminal.type(b"y")  # waiting in the terminal's input before anything was asked
    assert ask(terminal, b"n") is ApprovalOutcome.REJECTED


def test_a_key_typed_while_the_question_is_written_does_not_answer_it(terminal: Terminal) -> None:
    """The window that was racy, held open: output stopped (Ctrl-S) while the question is due.

    The answerer has set the terminal up (non-canonical: where it used to flush its input) but
    cannot write the question; a ``y`` typed now used to answer it once output resumed.
    """
    assert ask_in_the_window(terminal, b"y", b"n") is ApprovalOutcome.REJECTED
    assert terminal.questions() == 1


def ask_in_the_window(terminal: Terminal, early: bytes, answer: bytes) -> ApprovalOutcome | None:
    """Type `early` once the answerer holds the terminal, before its question can be written."""
    settings = termios.tcgetattr(terminal.slave)
    settings[0] |= termios.IXON  # Ctrl-S stops the output, Ctrl-Q resumes it
    termios.tcsetattr(terminal.slave, termios.TCSANOW, settings)
    asked = terminal.questions() + 1
    terminal.type(STOP_OUTPUT)

    async def converse() -> ApprovalOutcome | None:
        asking = asyncio.ensure_future(TerminalAnswerer(terminal.path, 30).answer(request()))
        while termios.tcgetattr(terminal.slave)[3] & termios.ICANON:
            await asyncio.sleep(0.001)  # until the answerer has set the terminal up
        terminal.type(early + START_OUTPUT)
        assert await asyncio.to_thread(terminal.wait_for_question, asked)
        terminal.type(answer)
        return (await asking).outcome

    return asyncio.run(converse())


@pytest.mark.slow
def test_type_ahead_never_answers_under_load(terminal: Terminal) -> None:
    """Both ways of typing early, :data:`STRESS_ROUNDS` times each, with every CPU kept busy."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 2)
    ]
    granted = []
    try:
        for round_ in range(STRESS_ROUNDS):
            terminal.type(b"y")
            if ask(terminal, b"n") is not ApprovalOutcome.REJECTED:
                granted.append(f"typed before, round {round_}")
            if ask_in_the_window(terminal, b"y", b"n") is not ApprovalOutcome.REJECTED:
                granted.append(f"typed in the window, round {round_}")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert granted == []
    assert terminal.questions() == 2 * STRESS_ROUNDS


@pytest.mark.parametrize("keys", [b"y", b"\x03", None], ids=["answered", "ctrl-c", "abandoned"])
def test_the_terminal_settings_are_restored(terminal: Terminal, keys: bytes | None) -> None:
    before = termios.tcgetattr(terminal.slave)
    assert before[3] & termios.ISIG
    answerer = TerminalAnswerer(terminal.path, 30)

    async def answer() -> object:
        # Abandoning the approval (what the service's timeout does) cancels the answer.
        return await asyncio.wait_for(answerer.answer(request()), None if keys else 0.5)

    with terminal.answering(keys):
        if keys is None:
            with pytest.raises(TimeoutError):
                asyncio.run(answer())
        else:
            asyncio.run(answer())
    assert termios.tcgetattr(terminal.slave) == before
    assert terminal.questions() == 1


def test_the_prompt_shows_an_escalation(terminal: Terminal) -> None:
    wide = request(escalation=SandboxMode.DANGER_FULL_ACCESS, justification="needs /etc")
    with terminal.answering(b"n"):
        asyncio.run(TerminalAnswerer(terminal.path, 30).answer(wide))
    shown = terminal.output_after("→ rejected")
    assert "escalation  danger-full-access for this call only" in shown
    assert "because     needs /etc" in shown


def test_no_key_in_time_is_a_timeout_naming_the_setting(terminal: Terminal) -> None:
    with pytest.raises(AnswererTimedOut) as caught:
        ask(terminal, None, timeout=0.3)
    assert "tty_timeout_seconds" in str(caught.value)
    assert "→ no answer in time" in terminal.output_after("→ no answer in time")


def test_a_terminal_that_hangs_up_is_a_failure_not_a_cancel() -> None:
    master, slave = os.openpty()
    answerer = TerminalAnswerer(os.ttyname(slave), 30)

    async def hang_up_while_asked() -> object:
        asking = asyncio.ensure_future(answerer.answer(request()))
        output = b""
        while QUESTION.encode() not in output:
            output += await asyncio.to_thread(os.read, master, 4096)
        os.close(master)
        return await asking

    try:
        with pytest.raises(AnswererFailed) as caught:
            asyncio.run(hang_up_while_asked())
    finally:
        os.close(slave)
    assert caught.value.answerer == "tty"
    assert "hung up" in str(caught.value) or "cannot use the terminal" in str(caught.value)


def test_two_questions_are_asked_one_after_the_other(terminal: Terminal) -> None:
    answerer = TerminalAnswerer(terminal.path, 30)

    async def both() -> list[ApprovalOutcome | None]:
        first = asyncio.ensure_future(answerer.answer(request(call_id="c1")))
        second = asyncio.ensure_future(answerer.answer(request(call_id="c2")))
        assert await asyncio.to_thread(terminal.wait_for_question, 1)
        await asyncio.sleep(0.2)
        assert terminal.questions() == 1  # the second waits for the first
        terminal.type(b"y")
        assert await asyncio.to_thread(terminal.wait_for_question, 2)
        terminal.type(b"n")
        return [(await first).outcome, (await second).outcome]

    assert asyncio.run(both()) == [ApprovalOutcome.ALLOWED_ONCE, ApprovalOutcome.REJECTED]


def test_without_a_terminal_it_does_not_answer(tmp_path: Path) -> None:
    plain = tmp_path / "not-a-terminal"
    plain.write_text("")
    reply = asyncio.run(TerminalAnswerer(str(plain)).answer(request()))
    assert reply.outcome is None
    assert reply.note == f"tty: no terminal: {plain} is not a terminal"
    missing = tmp_path / "missing"
    reply = asyncio.run(TerminalAnswerer(str(missing)).answer(request()))
    assert reply.outcome is None
    assert reply.note.startswith(f"tty: no terminal: cannot open {missing}")


def test_a_terminal_nobody_reads_does_not_hold_the_answerer_past_its_timeout() -> None:
    master, slave = os.openpty()  # nobody reads the master: the prompt cannot all be written
    try:
        answerer = TerminalAnswerer(os.ttyname(slave), 0.5)
        huge = request(arguments={f"line{n}": "x" * 300 for n in range(400)})
        before = termios.tcgetattr(slave)
        with pytest.raises(AnswererTimedOut):
            asyncio.run(answerer.answer(huge))
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(slave)
        os.close(master)


def test_a_request_that_forbids_the_terminal_is_passed_on_unasked(terminal: Terminal) -> None:
    # mcp serve on stdio: standard input carries the protocol, so nobody may be asked there.
    answerer = TerminalAnswerer(terminal.path, 30)
    reply = asyncio.run(answerer.answer(attrs.evolve(request(), terminal=False)))
    assert reply.outcome is None
    assert "not asked here" in reply.note
    assert terminal.questions() == 0
    assert terminal.output == ""
