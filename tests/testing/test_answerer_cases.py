"""The answerer contract with calls of the driver's choosing: tool, arguments, expected answer.

user-approval's rules answerer, configured to decide by tool name, is held to the contract
through :class:`~seamhost.testing.approval.AnswerCase` values; and a case that expects the wrong
answer makes the contract fail, naming the case (in a separate pytest run).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from seamhost.testing.approval import NO_ANSWER, AnswerCase, AnswererContract, AnswererDriver

PLUGIN = "user-approval"
RULES = [
    {"tool": "deploy", "args": {"env": "staging"}, "escalation": "any", "decision": "allow"},
    {"tool": "deploy", "escalation": "any", "decision": "reject"},
]
CASES = [
    AnswerCase("allowed-once", "deploy", {"env": "staging"}),
    AnswerCase("rejected", "deploy", {"env": "prod"}),
    AnswerCase("rejected", "deploy", {}),
    AnswerCase(NO_ANSWER, "restart", {"service": "orders"}),
]


class TestRulesByToolName(AnswererContract):
    @pytest.fixture
    def answerer_driver(self) -> AnswererDriver:
        return AnswererDriver(
            plugin=PLUGIN,
            tables={PLUGIN: {"answerers": ["rules"], "rules": RULES}},
            cases=CASES,
        )


def test_the_first_case_of_an_answer_is_the_call_made_for_it() -> None:
    driver = AnswererDriver(plugin=PLUGIN, tables={}, cases=CASES)
    assert driver.answers == {"allowed-once", "rejected", NO_ANSWER}
    assert driver.case_for("rejected") == CASES[1]
    assert driver.case_for("cancelled") == AnswerCase(
        "cancelled", "contract_probe", {"want": "cancelled"}
    )
    assert driver.case_tools == ("deploy", "restart")


def test_a_case_expecting_the_wrong_answer_fails_the_contract(tmp_path: Path) -> None:
    (tmp_path / "test_wrong.py").write_text(
        textwrap.dedent(
            f"""
            import pytest
            from seamhost.testing.approval import AnswerCase, AnswererContract, AnswererDriver

            class TestWrong(AnswererContract):
                @pytest.fixture
                def answerer_driver(self):
                    return AnswererDriver(
                        plugin="user-approval",
                        tables={{"user-approval": {{"answerers": ["rules"], "rules": {RULES!r}}}}},
                        cases=[AnswerCase("allowed-once", "deploy", {{"env": "prod"}})],
                    )
            """
        ),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_wrong.py",
         "-k", "every_case"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout
    assert "case 0 (deploy {'env': 'prod'}, expected allowed-once)" in done.stdout
