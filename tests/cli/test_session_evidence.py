"""``seamhost session evidence``: a public projection that carries no content, and its check.

A real scripted session (``seamhost run``) puts random canaries in the prompt, the arguments,
a justification and the outputs (a file written, then read back); its projection must follow
the shipped schema and hold none of them anywhere in its text. ``verify`` accepts it as made
and names the call whose decision was changed.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest

from seamhost.testing.sites import PluginSite
from tests.cli.test_reconcile_cli import Unknown
from tests.conftest import run_cli

SCENARIO = """
[scenario]
name = "evidence"
description = "canaries in every place content goes"

[[turn]]
user = "Write the note {prompt}"
final = "Done: {final}"

[[turn.step]]
text = "Writing {text}"
[[turn.step.call]]
tool = "write_file"
args = {{ path = "notes/{path}.md", content = "{content}", create_dirs = true }}
[[turn.step.call]]
tool = "write_file"
args = {{ path = "release/VERSION", content = "{version}", create_dirs = true }}
sandbox_permissions = "danger-full-access"
justification = "{justification}"

[[turn.step]]
text = "Reading it back"
[[turn.step.call]]
tool = "read_file"
args = {{ path = "notes/{path}.md" }}
"""
FIELDS = ("prompt", "final", "text", "path", "content", "version", "justification")


class Ran:
    """A finished session whose every piece of content is a canary, and the CLI to project it."""

    def __init__(self, tmp_path: Path) -> None:
        self.canaries = {field: f"canary{secrets.token_hex(8)}" for field in FIELDS}
        scenario = tmp_path / "evidence.toml"
        scenario.write_text(SCENARIO.format(**self.canaries))
        self.env = {"SEAMHOST_HOME": str(tmp_path / "home")}
        ran = run_cli("run", str(scenario), "--json", env=self.env)
        assert ran.returncode == 0, ran.stderr
        assert self.canaries["content"] in ran.stdout  # the output does carry it
        listed = json.loads(run_cli("session", "ls", "--json", env=self.env).stdout)
        [self.session] = [s["session_id"] for s in listed]

    def cli(self, *args: str) -> Any:
        return run_cli("session", "evidence", *args, env=self.env)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    return Ran(tmp_path_factory.mktemp("evidence"))


@pytest.fixture(scope="module")
def validate(ran: Ran) -> Any:
    shown = ran.cli("--schema")
    assert shown.returncode == 0, shown.stderr
    return fastjsonschema.compile(json.loads(shown.stdout))


def test_the_projection_follows_the_schema_and_holds_no_canary(ran: Ran, validate: Any) -> None:
    shown = ran.cli(ran.session, "--json")
    assert shown.returncode == 0, shown.stderr
    document = json.loads(shown.stdout)
    validate(document)
    for field, canary in ran.canaries.items():
        assert canary not in shown.stdout, field
    [session] = document["sessions"]
    assert session["session_id"] == ran.session
    calls = {c["tool"] + str(i): c for i, c in enumerate(session["turns"][0]["calls"])}
    written, bumped, read = calls.values()
    assert (written["outcome"]["code"], len(written["attempts"])) == ("OK", 1)
    assert bumped["decisions"][0] == {
        "stage": "policy",
        "verdict": "ask",
        "plugin": "tool-policy",
        "rule": "rules[2]",
    }
    assert bumped["approval"]["outcome"] == "unavailable"
    assert bumped["approval"]["answerer_kind"] == "none"
    assert (bumped["outcome"]["code"], bumped["attempts"]) == ("APPROVAL_UNAVAILABLE", [])
    assert read["outcome"]["code"] == "OK"
    assert read["outcome"]["result_digest"].startswith("sha256:")


def test_out_writes_the_same_document_and_says_where(
    ran: Ran, validate: Any, tmp_path: Path
) -> None:
    out = tmp_path / "evidence.json"
    written = ran.cli(ran.session[:12], "--out", str(out))
    assert written.returncode == 0, written.stderr
    assert f"written to {out}" in written.stdout
    document = json.loads(out.read_text())
    validate(document)
    assert document == json.loads(ran.cli(ran.session, "--json").stdout)
    summary = ran.cli(ran.session)
    assert summary.returncode == 0, summary.stderr
    assert "APPROVAL_UNAVAILABLE" in summary.stdout
    assert not any(c in summary.stdout for c in ran.canaries.values())


def test_verify_accepts_the_projection_and_names_a_changed_decision(
    ran: Ran, tmp_path: Path
) -> None:
    out = tmp_path / "evidence.json"
    assert ran.cli(ran.session, "--out", str(out)).returncode == 0
    checked = ran.cli("verify", str(out), "--against", ran.session)
    assert checked.returncode == 0, checked.stderr
    assert "matches the log" in checked.stdout
    document = json.loads(out.read_text())
    call = document["sessions"][0]["turns"][0]["calls"][1]
    call["decisions"][0]["verdict"] = "allow"
    out.write_text(json.dumps(document))
    refused = ran.cli("verify", str(out), "--against", ran.session, "--json")
    assert refused.returncode == 1, refused.stderr
    [difference] = json.loads(refused.stdout)["differences"]
    assert f"call {call['call_id']}.decisions[0].verdict" in difference
    assert '"allow"' in difference
    assert '"ask"' in difference


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"schema": "other.v1", "sessions": []}', "its schema is 'other.v1'"),
        ('{"schema": "seamhost.evidence.v1", "sessions": [{}]}', "does not follow"),
    ],
)
def test_verify_refuses_a_malformed_or_foreign_file(
    ran: Ran, tmp_path: Path, content: str, named: str
) -> None:
    path = tmp_path / "shared.json"
    path.write_text(content)
    refused = ran.cli("verify", str(path), "--against", ran.session)
    assert refused.returncode == 2
    assert named in refused.stderr


def test_verify_refuses_the_evidence_of_another_session(ran: Ran, tmp_path: Path) -> None:
    out = tmp_path / "evidence.json"
    assert ran.cli(ran.session, "--out", str(out)).returncode == 0
    document = json.loads(out.read_text())
    document["sessions"][0]["session_id"] = "20000101-000000-000000000000"
    out.write_text(json.dumps(document))
    refused = ran.cli("verify", str(out), "--against", ran.session)
    assert refused.returncode == 2
    assert "20000101-000000-000000000000" in refused.stderr


def test_a_reconciled_call_shows_its_source_kind_and_evidence_digest_and_stale_evidence_fails(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    unknown = Unknown(tmp_path, plugin_site)
    canary = f"canary{secrets.token_hex(8)}"
    before = tmp_path / "before.json"
    assert unknown.cli("session", "evidence", unknown.session, "--out", str(before)).returncode == 0
    done = unknown.reconcile(
        unknown.call, "--error", "TOOL_ERROR", "--message", canary, "--source", f"ops {canary}"
    )
    assert done.returncode == 0, done.stderr
    shown = unknown.cli("session", "evidence", unknown.session, "--json")
    assert shown.returncode == 0, shown.stderr
    assert canary not in shown.stdout
    calls = json.loads(shown.stdout)["sessions"][0]["turns"][0]["calls"]
    [call] = [c for c in calls if c["call_id"] == unknown.call]
    [rec] = [r["data"] for r in unknown.records() if r["type"] == "tool/reconciled"]
    assert call["outcome"]["code"] == "TOOL_OUTCOME_UNKNOWN"
    assert call["reconciliation"]["source_kind"] == "operator"
    assert call["reconciliation"]["code"] == "TOOL_ERROR"
    assert call["reconciliation"]["evidence_digest"] == rec["evidence_digest"]
    # The evidence made before the reconciliation no longer names the log.
    stale = unknown.cli("session", "evidence", "verify", str(before), "--against", unknown.session)
    assert stale.returncode == 1, stale.stderr
    assert "session_digest" in stale.stdout
    assert f"call {unknown.call}.reconciliation" in " ".join(stale.stdout.split())
