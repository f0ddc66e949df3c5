"""The log is bound to its session (issue 33, point 4): today's attacks on a stored log.

Each test reproduces an attack by someone who can write the store but follows the format: a
frame spliced from another session, a log rolled back to an earlier valid prefix so that an
approved call runs twice, approval ids that repeat across sessions. They failed before the
layout's second generation (design.md §7, "What the binding detects").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.cli import main
from seamhost.cli.exitcodes import ExitCode
from seamhost.session.live import Session
from seamhost.testing.persistence import append_all, make_header, sample_events
from seamhost.testing.sites import PluginSite
from tests.conftest import run_cli
from tests.persistence_jsonl.conftest import flush, frame_spans
from tests.run.test_deferred_approvals import COUNT, Deferring

ROOT = Path(__file__).parent.parent.parent


def write_with(store: JsonlStore, session_id: str, content: str) -> Path:
    """A closed session of three batches whose tool results hold `content`."""
    session = Session(store.create(make_header(session_id)))
    for _ in range(3):
        events = sample_events()
        events[5][1]["content"] = content
        append_all(session, events)
        flush(session)
    session.close()
    return Path(store.stat(session_id).location)


def test_a_frame_spliced_from_another_session_is_refused_with_its_offset(
    store: JsonlStore, root: Path
) -> None:
    victim = write_with(store, "victim", "x" * 5000)
    donor = write_with(store, "donor", "attacker's words")
    target, source = frame_spans(victim)[2], frame_spans(donor)[2]
    assert (target.first_seq, target.count) == (source.first_seq, source.count)
    data = victim.read_bytes()
    spliced = data[: target.offset] + donor.read_bytes()[source.offset : source.end]
    victim.write_bytes(spliced + data[target.end :])

    check = store.verify("victim")
    assert not check.intact, "a frame of another session passed for the victim's own"
    assert check.offset == target.offset
    assert "chain" in (check.problem or "")
    result = CliRunner().invoke(main, ["session", "verify", "victim", "--root", str(root)])
    assert result.exit_code == ExitCode.CORRUPT, result.output
    assert f"byte {target.offset}" in result.output


def test_a_log_rolled_back_to_an_earlier_prefix_does_not_run_an_approved_call_twice(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    rig = Deferring.make(tmp_path, plugin_site)
    approval = rig.park("s")
    assert rig.answer("approve", "s", approval).returncode == 0
    [log] = (rig.home / "sessions" / "s").glob("session.v*.jsonl*")
    approved = log.read_bytes()  # the prefix an attacker keeps: approved, not yet dispatched
    resumed = rig.resume("s")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.runs() == [f"{COUNT} 1"]

    log.write_bytes(approved)  # the rollback: a valid earlier prefix of the same log
    again = rig.resume("s")
    assert rig.runs() == [f"{COUNT} 1"], "the approved call ran a second time"
    assert again.returncode == ExitCode.CORRUPT, again.stdout + again.stderr
    assert "rolled back" in again.stderr
    verified = rig.cli("session", "verify", "s")
    assert verified.returncode == ExitCode.CORRUPT, verified.stdout + verified.stderr
    assert "rolled back" in verified.stdout + verified.stderr


def test_approval_ids_differ_across_two_sessions_of_the_same_scenario(tmp_path: Path) -> None:
    env = {"SEAMHOST_HOME": str(tmp_path / "home")}
    asked: list[set[str]] = []
    for name in ("one", "two"):
        ran = run_cli(
            "run",
            "--profile",
            "ci",
            "--session",
            name,
            "--workspace",
            str(tmp_path / name),
            str(ROOT / "examples" / "approvals.toml"),
            env=env,
        )
        assert ran.returncode in (0, 1), ran.stdout + ran.stderr
        shown = run_cli("session", "show", name, "--json", env=env)
        records = [json.loads(line) for line in shown.stdout.splitlines()]
        ids = {r["data"]["id"] for r in records if r["type"] == "approval/asked"}
        assert ids, "the approvals scenario asks"
        # Readable still: the call id and the seq the question took, then the random part.
        assert all(re.fullmatch(r"approval-call-[\d-]+-\d+-[0-9a-f]{12}", i) for i in ids), ids
        asked.append(ids)
    assert not asked[0] & asked[1], "an approval id of one session names one of another"
