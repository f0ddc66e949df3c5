"""A run SIGKILLed mid-turn in a child process, then resumed in process through the API.

The child is the crash harness's (tests/crash/harness.py): ``seamhost run`` on a real JSONL
store with ``crashprobe``, held at a phase and killed there. The test process then opens a host
on the same profile and resumes the session with its scenario: the body that was in flight is
reported unknown and never run again, the steps after it run once, and the turn completes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import seamhost
from tests.crash.harness import Rig
from tests.crash.test_continuation import CALLS, SESSION, killed_run, marker_lines


@pytest.mark.parametrize(("phase", "nth"), [("body-after", 2), ("dispatch", 2)])
def test_a_run_killed_mid_turn_is_resumed_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, phase: str, nth: int
) -> None:
    rig = Rig.make(tmp_path)
    script = killed_run(rig, phase, nth)
    before = marker_lines(rig)
    # The probe plugin, as the child had it: importable here, its markers in the rig.
    monkeypatch.syspath_prepend(str(rig.site))
    monkeypatch.setenv("CRASH_MARKERS", str(rig.markers))
    monkeypatch.delitem(sys.modules, "seamhost_crashprobe", raising=False)

    with seamhost.open_host(rig.profile, workspace=tmp_path / "ws") as host:
        report = host.resume(SESSION, scenario=script)
        kinds = [r.type for r in host.bundle.store.read(SESSION).records()]

    assert report.outcome == "completed", report.turns
    assert [t.turn for t in report.turns] == [1]
    assert "session/takeover" in kinds
    assert [c.call_id for c in report.calls] == CALLS  # the scenario's ids, each once
    lines = marker_lines(rig)
    assert all(n == 1 for n in lines.values()), lines  # no body ran twice
    second = report.call("call-1-2-1")
    if phase == "body-after":  # its body had run when the child died: unknown, not run again
        assert second.code == "TOOL_OUTCOME_UNKNOWN"
        assert lines["call-1-2-1"] == before["call-1-2-1"] == 1
    else:  # killed before its dispatch was durable: governed and dispatched once, here
        assert "call-1-2-1" not in before
        assert (second.code, second.ran) == ("ok", True)
    third = report.call("call-1-3-1")
    assert (third.code, third.ran, lines["call-1-3-1"]) == ("ok", True, 1)
