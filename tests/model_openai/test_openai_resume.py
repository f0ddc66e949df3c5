"""Issue 32: resuming a session continues it only under the bundle and model that wrote it.

Against the OpenAI API stand-in (the one mock this project allows: a remote model API cannot run
here); the CLI runs in child processes on a real JSONL store. A session whose turn a SIGKILL left
open is resumed with ``exec --resume``: after editing the profile (sandbox mode, a limit, the
model name) the resume is refused with every difference named and nothing appended; with
``--accept-changes`` it continues and the takeover record lists what was accepted. The token
budget counts what the turn used before the crash.
"""

from __future__ import annotations

import json
from pathlib import Path

from seamhost.testing.model_adapter import CannedAnswer, CannedCall
from tests.model_openai.canned import canned_reply
from tests.model_openai.standin import Reply
from tests.model_openai.test_openai_exec import Rig, kill_during_the_stream, rig, standin

__all__ = ["rig", "standin"]  # the fixtures, shared with the exec tests


def slow(text: str) -> Reply:
    return Reply.sse(canned_reply(CannedAnswer(text)).body, delay_s=5.0)


def note(n: int) -> Reply:
    arguments = json.dumps({"path": f"note{n}.txt", "content": f"{n}\n"})
    return canned_reply(
        CannedAnswer(f"Note {n}.", (CannedCall(f"call_n{n}", "write_file", arguments),))
    )


def test_a_changed_profile_is_refused_naming_every_difference(rig: Rig) -> None:
    rig.standin.reply(slow("never finished"), canned_reply(CannedAnswer("Back.")))
    session = kill_during_the_stream(rig)
    before = rig.records(session)
    rig.profile.write_text(
        rig.profile.read_text().replace("max_attempts = 3", 'max_attempts = 3\nmodel = "gpt-4.1"')
        + '[sandbox]\nmode = "read-only"\n[limits]\nmax_steps = 7\n'
    )
    refused = rig.cli("exec", "--profile", str(rig.profile), "--resume", session)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    for difference in (
        "sandbox mode: workspace-write -> read-only",
        "limits.max_steps: 32 -> 7",
        "plugin model-openai config_digest",
        "model model: gpt-4o-mini -> gpt-4.1",
    ):
        assert difference in refused.stderr, refused.stderr
    assert "--accept-changes" in refused.stderr
    assert rig.records(session) == before, "a refused resume appends nothing"
    assert len(rig.standin.requests) == 1

    done = rig.cli("exec", "--profile", str(rig.profile), "--resume", session, "--accept-changes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "Back."
    records = rig.records(session)
    [takeover] = [r["data"] for r in records if r["type"] == "session/takeover"]
    accepted = takeover["accepted_changes"]
    assert "sandbox mode: workspace-write -> read-only" in accepted
    assert "limits.max_steps: 32 -> 7" in accepted
    assert [r["data"]["reason"] for r in records if r["type"] == "turn/end"] == ["completed"]


def test_a_profile_other_than_the_recorded_one_is_refused(rig: Rig, tmp_path: Path) -> None:
    rig.standin.reply(slow("never finished"))
    session = kill_during_the_stream(rig)
    other = tmp_path / "other.toml"
    other.write_text(rig.profile.read_text().replace('name = "real"', 'name = "other"'))
    refused = rig.cli("exec", "--profile", str(other), "--resume", session)
    assert refused.returncode == 2, refused.stderr
    assert "profile: real -> other" in refused.stderr


def test_the_token_budget_counts_what_the_turn_used_before_the_crash(rig: Rig) -> None:
    # Each answer uses 4 output tokens: two steps used 8 of the 9 allowed (89%) when the third
    # request's stream was killed. The resumed turn issues that request again, asking the
    # provider for at most the 1 token left (a real provider stops there; the stand-in replays
    # its canned 4), and then stops: BUDGET_EXCEEDED, no fourth request, where a budget that
    # forgot the turn's first 8 tokens would have let it go on.
    rig.standin.reply(note(1), note(2), slow("never finished"), note(3), note(4), note(5))
    limit = ("--limit", "max_output_tokens=9")
    session = kill_during_the_stream(rig, *limit, nth=3)
    used = [r["data"]["output_tokens"] for r in rig.records(session) if r["type"] == "model/usage"]
    assert sum(used) == 8
    done = rig.cli("exec", "--profile", str(rig.profile), "--resume", session, *limit)
    assert done.returncode == 1, done.stdout + done.stderr
    records = rig.records(session)
    [end] = [r["data"] for r in records if r["type"] == "turn/end"]
    assert end["message"].startswith("BUDGET_EXCEEDED"), end
    assert len(rig.standin.requests) == 4, "one re-issued request, then none"
    caps = [r.body.get("max_tokens") for r in rig.standin.requests]
    assert caps == [9, 5, 1, 1], "each request asks for what the budget leaves"
    assert len([r for r in records if r["type"] == "turn/start"]) == 1


def test_run_resume_without_a_scenario_continues_a_real_model_session(rig: Rig) -> None:
    rig.standin.reply(slow("never finished"), canned_reply(CannedAnswer("Back.")))
    session = kill_during_the_stream(rig)
    done = rig.cli("run", "--profile", str(rig.profile), "--resume", session)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "continuing turn 1: step 1's model request is issued again" in done.stdout
    records = rig.records(session)
    assert [r["data"]["content"] for r in records if r["type"] == "assistant/message"] == ["Back."]
    again = rig.cli("run", "--profile", str(rig.profile), "--resume", session)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "nothing to continue: the last turn ended" in again.stdout
    assert rig.records(session) == records
    assert len(rig.standin.requests) == 2
