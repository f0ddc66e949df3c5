"""Token and cost totals end to end: `exec` and `chat` against the OpenAI stand-in (whose
recorded transcripts carry usage, as the scripted model's answers do not), then `session show`,
`session ls --tokens` and the summaries, priced by a profile's ``[pricing]`` or left unknown.

The stand-in is the one mock this project allows: a remote model API cannot run here. Everything
else is real: the CLI in a child process, the built-in tools and the JSONL store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from seamhost.testing.model_adapter import CannedAnswer
from tests.model_openai.canned import canned_reply
from tests.model_openai.standin import Reply, StandIn
from tests.model_openai.test_openai_exec import Rig, write_call

PRICES = '[pricing."gpt-4o-mini"]\ninput = 0.15\noutput = 0.6\ncached_input = 0.075\n'
# Turn 1: two attempts of 9 in, 4 out (canned); turn 2: 64 in, 48 of them cached, 2 out.
TURN_1 = {"input_tokens": 18, "cached_input_tokens": 0, "output_tokens": 8}
TURN_2 = {"input_tokens": 64, "cached_input_tokens": 48, "output_tokens": 2}
COST_1 = (18 * 0.15 + 8 * 0.6) / 1e6  # 0.0000075
COST_2 = (16 * 0.15 + 48 * 0.075 + 2 * 0.6) / 1e6  # 0.0000072


@pytest.fixture
def rig(tmp_path: Path) -> Any:
    with StandIn() as standin:
        rig = Rig(tmp_path, standin)
        rig.priced = tmp_path / "priced.toml"  # type: ignore[attr-defined]
        rig.priced.write_text(rig.profile.read_text() + PRICES)  # type: ignore[attr-defined]
        yield rig


def exec_json(rig: Rig, profile: Path, *args: str) -> dict[str, Any]:
    done = rig.cli("exec", "--profile", str(profile), "--workspace", str(rig.workspace), *args)
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return summary


def two_turns(rig: Any) -> str:
    rig.standin.reply(write_call("note.txt", "hi\n"), canned_reply(CannedAnswer("Done.")))
    first = exec_json(rig, rig.priced, "--json", "write a note")
    assert first["usage"] == {
        "currency": "USD",
        **TURN_1,
        "cost": pytest.approx(COST_1),
        "unpriced": [],
        "turns": [{"turn": 1, **TURN_1, "cost": pytest.approx(COST_1)}],
    }
    rig.standin.reply(Reply.transcript("deepseek_text.sse"))
    session = str(first["session"])
    second = exec_json(rig, rig.priced, "--json", "--resume", session, "again")
    assert second["usage"]["turns"][1] == {"turn": 2, **TURN_2, "cost": pytest.approx(COST_2)}
    assert second["usage"]["cost"] == pytest.approx(COST_1 + COST_2)
    return session


def test_session_show_and_ls_total_each_turn_and_the_session(rig: Any) -> None:
    session = two_turns(rig)
    shown = rig.cli("session", "show", "--profile", str(rig.priced), session)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-3:] == [
        "usage: 82 in (48 cached), 10 out, cost 0.0000147 USD",
        "  turn 1: 18 in (0 cached), 8 out, cost 0.0000075 USD",
        "  turn 2: 64 in (48 cached), 2 out, cost 0.0000072 USD",
    ]
    # The same log under a profile without prices: the tokens, and a cost never guessed.
    unpriced = rig.cli("session", "show", "--profile", str(rig.profile), session)
    assert unpriced.stdout.splitlines()[-3:] == [
        "usage: 82 in (48 cached), 10 out, cost ? (no [pricing] for gpt-4o-mini)",
        "  turn 1: 18 in (0 cached), 8 out, cost ?",
        "  turn 2: 64 in (48 cached), 2 out, cost ?",
    ]
    listed = rig.cli("session", "ls", "--tokens", "--json", "--profile", str(rig.priced))
    [row] = json.loads(listed.stdout)
    assert row["usage"]["output_tokens"] == 10
    assert row["usage"]["cost"] == pytest.approx(COST_1 + COST_2)
    plain = rig.cli("session", "ls", "--json", "--profile", str(rig.priced))
    assert "usage" not in json.loads(plain.stdout)[0], "only --tokens reads the logs"
    table = rig.cli("session", "ls", "--tokens", "--profile", str(rig.profile))
    header, line = table.stdout.splitlines()[:2]
    assert header.split()[:6] == ["session", "created", "in", "out", "cost", "cached"]
    assert line.split()[3:7] == ["82", "10", "?", "48"]


def test_chat_ends_with_the_usage_of_its_session(rig: Any) -> None:
    rig.standin.reply(Reply.transcript("deepseek_text.sse"))
    chat = rig.cli("chat", "--profile", str(rig.priced), stdin="hello\n/exit\n")
    assert chat.returncode == 0, chat.stderr
    lines = chat.stdout.splitlines()
    # (after the prompt "you> " that read /exit: no line break follows it when piped)
    assert lines[-3].endswith("usage: 64 in (48 cached), 2 out, cost 0.0000072 USD")
    assert lines[-2] == "  turn 1: 64 in (48 cached), 2 out, cost 0.0000072 USD"
    assert lines[-1].endswith(f"resume it with `seamhost chat --resume {rig.only_session()}`")
