"""``seamhost session unknowns`` and ``session reconcile`` by a person or script (design.md §10).

A ``send`` call (write, not idempotent) outlives the profile's tool timeout, so its outcome is
unknown; the tests then bring evidence through the real CLI. Bad evidence is refused with exit 2
and one line, and the log is byte-for-byte what it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from seamhost.testing.sites import PluginSite
from tests.conftest import run_cli
from tests.run.test_attempts import Rig


class Unknown:
    """A stored session whose one call ended TOOL_OUTCOME_UNKNOWN, and the CLI to reconcile it."""

    def __init__(self, tmp_path: Path, site: PluginSite) -> None:
        self.rig = Rig(tmp_path, site)
        ran = self.rig.run([("send", {"stall": True}), ("look", {})], tool_timeout_s=0.3)
        [call, _] = [r["data"]["call_id"] for r in ran["records"] if r["type"] == "tool/call"]
        self.call = call
        self.known = [r["data"]["call_id"] for r in ran["records"] if r["type"] == "tool/call"][1]
        self.env = {"SEAMHOST_HOME": str(self.rig.home)}
        listed = run_cli("session", "ls", "--json", env=self.env)
        [self.session] = [s["session_id"] for s in json.loads(listed.stdout)]
        self.profile = str(self.rig.root / "flaky.toml")

    def cli(self, *args: str) -> Any:
        return run_cli(*args, "--profile", self.profile, site=self.rig.site, env=self.env)

    def reconcile(self, *args: str) -> Any:
        return self.cli("session", "reconcile", self.session, *args)

    def records(self) -> list[dict[str, Any]]:
        shown = run_cli("session", "show", "--json", self.session, env=self.env)
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def log_bytes(self) -> bytes:
        [path] = (self.rig.home / "sessions").glob("*/session.v*.jsonl*")
        return path.read_bytes()


@pytest.fixture
def unknown(tmp_path: Path, plugin_site: PluginSite) -> Unknown:
    return Unknown(tmp_path, plugin_site)


def write_json(path: Path, value: object) -> str:
    path.write_text(json.dumps(value))
    return str(path)


def test_unknowns_lists_the_call_then_reconcile_resolves_it_once(
    unknown: Unknown, tmp_path: Path
) -> None:
    listed = unknown.cli("session", "unknowns", "--json")
    assert listed.returncode == 0, listed.stderr
    [entry] = json.loads(listed.stdout)
    assert (entry["session_id"], entry["call_id"], entry["tool"], entry["attempt"]) == (
        unknown.session,
        unknown.call,
        "send",
        1,
    )
    assert entry["effect"] == "write"
    assert entry["idempotent"] is False
    value = write_json(tmp_path / "value.json", {"n": 1})
    done = unknown.reconcile(unknown.call, "--result", value, "--source", "ops: ticket 7")
    assert done.returncode == 0, done.stderr
    [rec] = [r["data"] for r in unknown.records() if r["type"] == "tool/reconciled"]
    assert (rec["call_id"], rec["attempt"], rec["outcome"], rec["source"]) == (
        unknown.call,
        1,
        "result",
        "ops: ticket 7",
    )
    assert rec["value"] == {"n": 1}
    assert rec["evidence_digest"].startswith("sha256:")
    # The unknown result stays: the log is append-only.
    results = [r for r in unknown.records() if r["type"] == "tool/result"]
    assert results[0]["data"]["error"]["code"] == "TOOL_OUTCOME_UNKNOWN"
    assert json.loads(unknown.cli("session", "unknowns", "--json").stdout) == []
    # The same evidence again changes nothing; other evidence is refused.
    before = unknown.log_bytes()
    again = unknown.reconcile(
        unknown.call, "--result", value, "--source", "ops: ticket 7", "--json"
    )
    assert again.returncode == 0
    assert json.loads(again.stdout)["state"].startswith("already")
    other = unknown.reconcile(
        unknown.call, "--error", "TOOL_ERROR", "--message", "no", "--source", "x"
    )
    assert other.returncode == 2
    assert "already reconciled" in other.stderr
    assert unknown.log_bytes() == before
    verified = run_cli("session", "verify", unknown.session, env=unknown.env)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_error_evidence_is_recorded_as_an_error(unknown: Unknown) -> None:
    done = unknown.reconcile(
        unknown.call, "--error", "TOOL_ERROR", "--message", "nothing was sent", "--source", "me"
    )
    assert done.returncode == 0, done.stderr
    [rec] = [r["data"] for r in unknown.records() if r["type"] == "tool/reconciled"]
    assert rec["outcome"] == "error"
    assert rec["error"] == {"code": "TOOL_ERROR", "message": "nothing was sent"}


ERROR = ["--error", "TOOL_ERROR", "--message", "it failed"]
BAD = {
    "wrong call id": (["call-9-9-9", *ERROR], "no such call"),
    "wrong attempt": (["{call}", "--attempt", "2", *ERROR], "attempt 2 is not the one"),
    "schema violation": (["{call}", "--result", "{bad}"], "value.n:"),
    "known outcome": (["{known}", *ERROR], "its outcome is known"),
    "no source": (["{call}", "--result", "{good}"], "--source is required"),
    "both kinds": (["{call}", "--result", "{good}", "--error", "TOOL_ERROR"], "exactly one of"),
    "misspelt code": (
        ["{call}", "--error", "TOOL_EROR", "--message", "m"],
        "invalid value for --error: 'TOOL_EROR' is not an error code; did you mean TOOL_ERROR",
    ),
    "lower-case code": (
        ["{call}", "--error", "tool_timeout", "--message", "m"],
        "did you mean TOOL_TIMEOUT",
    ),
    "made-up code": (
        ["{call}", "--error", "BANANA", "--message", "m"],
        "'BANANA' is not an error code. Valid codes: UNKNOWN_TOOL, INVALID_ARGUMENTS,",
    ),
    "unknown outcome as evidence": (
        ["{call}", "--error", "TOOL_OUTCOME_UNKNOWN", "--message", "m"],
        "not an error code that settles",
    ),
    "not json": (["{call}", "--result", "{broken}"], "not valid JSON"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_evidence_is_refused_with_one_line_and_nothing_written(
    unknown: Unknown, tmp_path: Path, case: str
) -> None:
    args, expected = BAD[case]
    files = {
        "good": write_json(tmp_path / "good.json", {"n": 1}),
        "bad": write_json(tmp_path / "bad.json", {"n": "one"}),
        "broken": str(tmp_path / "broken.json"),
    }
    (tmp_path / "broken.json").write_text("{not json")
    filled = [a.format(call=unknown.call, known=unknown.known, **files) for a in args]
    if "--source" not in filled and case != "no source":
        filled += ["--source", "a test"]
    before = unknown.log_bytes()
    done = unknown.reconcile(*filled)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert expected in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert unknown.log_bytes() == before


def test_an_unknown_session_is_refused_with_exit_2(unknown: Unknown) -> None:
    done = unknown.cli(
        "session", "reconcile", "20991231-000000-000000000000", unknown.call,
        "--error", "TOOL_ERROR", "--message", "m", "--source", "s",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "no session" in done.stderr
    assert "Traceback" not in done.stderr


def test_due_without_probes_leaves_the_unknown_alone(unknown: Unknown) -> None:
    before = unknown.log_bytes()
    done = unknown.cli("session", "reconcile", "--due", "--json")
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)
    assert report["outcome"] == "no-probe"
    assert report["call_id"] == unknown.call
    assert unknown.log_bytes() == before
