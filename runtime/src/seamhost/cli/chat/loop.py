"""The loop of ``seamhost chat``: read a line, run it as a turn, with Ctrl-C cancelling safely.

One event loop serves the whole chat (the agent's cancellation event belongs to it); the prompt
is read outside it, with Python's own Ctrl-C (``KeyboardInterrupt``). While a turn runs, Ctrl-C
is the loop's signal handler instead, which asks the agent to cancel the turn.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from seamhost.cli.chat.prompt import Prompt
from seamhost.cli.conversation import flush
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.next_steps import (
    awaits_approval,
    awaits_reconciliation,
    continue_session_command,
)
from seamhost.run.probing import probe_unknowns

if TYPE_CHECKING:
    from seamhost.cli.chat.view import ChatView
    from seamhost.run.agent import Agent, TurnOutcome
    from seamhost.session.continuation import ContinuationPlan

HELP = """commands:
  /help   this list
  /exit   leave (so do Ctrl-D and a second Ctrl-C here); the session stays, resumable
anything else is a message to the model; Ctrl-C during a turn cancels it safely"""


class Conversation:
    """The person's lines as turns of one agent, until they leave or a turn parks."""

    def __init__(self, agent: Agent, view: ChatView, plan: ContinuationPlan | None = None) -> None:
        self.agent = agent
        self.plan = plan  # what a resume found open (seamhost.session.continuation)
        self.view = view
        self.prompt = Prompt()
        self.loop = asyncio.new_event_loop()

    def run(self, *, resumed: bool) -> ExitCode:
        """Chat until the person leaves (0) or a turn parks on a deferred approval (4)."""
        if resumed and self._parked(self._continue()):
            return ExitCode.AWAITS_APPROVAL
        out = self.view.out
        interrupted = False  # the last thing at the prompt was a Ctrl-C
        while True:
            try:
                line = self.prompt.read().strip()
            except EOFError:
                out.print()
                return ExitCode.OK
            except KeyboardInterrupt:
                if interrupted:
                    out.print()
                    return ExitCode.OK
                out.print("\n(Ctrl-C again, Ctrl-D or /exit leaves)")
                interrupted = True
                continue
            interrupted = False
            if line in ("/exit", "/quit"):
                return ExitCode.OK
            if line == "/help":
                out.print(HELP, markup=False)
            elif line.startswith("/"):
                out.print(f"unknown command {line.split()[0]}; /help lists them", markup=False)
            elif line and self._parked(self.agent.run_turn(line)):
                return ExitCode.AWAITS_APPROVAL

    def close(self) -> None:
        """Save the history; close the loop as ``asyncio.run`` would: cancel the tasks still
        running (a mounted MCP server's connection lives in one, and must be left in the task
        that entered it, or its cancel scope raises), then generators and executor."""
        self.prompt.save()
        try:
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()
            if pending:
                gathered = asyncio.gather(*pending, return_exceptions=True)
                self.loop.run_until_complete(gathered)
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
        finally:
            self.loop.close()

    async def _continue(self) -> TurnOutcome | None:
        """What a resumed session does first: finish its open turn (design.md §6), or, when none
        is open, probe the unknown outcomes the tools can tell."""
        agent = self.agent
        if self.plan is None:
            await probe_unknowns(
                agent.bundle, agent.session, agent.workspace, cancelled=agent.cancelled
            )
        return await agent.continue_turn(self.plan)

    def _parked(self, work: Awaitable[TurnOutcome | None]) -> bool:
        """Run `work` with Ctrl-C cancelling it safely; whether its turn parked (said so)."""
        outcome = self.loop.run_until_complete(self._guarded(work))
        if outcome is None or outcome.reason not in ("suspended", "parked"):
            return False
        session = self.agent.session
        then = continue_session_command(session, interactive=True)
        advice = (
            awaits_approval(session.id, outcome.approval or "?", then)
            if outcome.reason == "suspended"
            else awaits_reconciliation(session.id, outcome.message, then)
        )
        report(ExitCode.AWAITS_APPROVAL, advice)
        return True

    async def _guarded(self, work: Awaitable[TurnOutcome | None]) -> TurnOutcome | None:
        self.loop.add_signal_handler(signal.SIGINT, self._cancel)
        try:
            outcome = await work
            await flush(self.agent.session)
        finally:
            self.loop.remove_signal_handler(signal.SIGINT)
            self.view.end_line()
        return outcome

    def _cancel(self) -> None:
        self.view.end_line()
        self.view.out.print(
            "[yellow]cancelling: calls not started are aborted, started ones finish[/yellow]"
        )
        self.agent.cancel()
