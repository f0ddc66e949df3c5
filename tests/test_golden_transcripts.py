"""Golden transcripts: every shipped scenario under every shipped profile writes the same log.

Each run goes through the real CLI into a fresh store, and its log (``session show --json``) is
compared, record by record, with the transcript committed under ``tests/golden``. A profile
whose sessions are memory-only (``minimal``) leaves no log behind, so its timeline as ``seamhost
run`` prints it stands in. Only what
differs between two honest runs is masked: record times, the session id, the workspace and store
paths, measured durations, and the random part of approval ids. Anything else that changes (a
record added, dropped, reordered or with other data) fails the test, so a refactoring that
claims to change nothing is held to it.

After a change that is *meant* to alter a log, regenerate with ``SEAMHOST_GOLDEN_WRITE=1 pytest
tests/test_golden_transcripts.py`` and say in the commit why the transcripts changed. A scenario
that confines a command has one transcript per sandbox backend (``shell.ci.bwrap.jsonl``,
``shell.ci.landlock.jsonl``): write the Landlock ones with bubblewrap hidden (``nox -s
tests_no_bwrap``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import replaying_profiles, run_cli

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden"
PROFILES = replaying_profiles()
SCENARIOS = sorted(p.stem for p in (ROOT / "examples").glob("*.toml"))
NEEDS_SANDBOX = {"shell"}
# Measured, not decided: how long something took differs between two honest runs. A model
# request's digest covers the conversation, which holds this machine's paths and times.
VOLATILE_KEYS = {"time", "duration_ms", "elapsed_ms", "created", "request_digest"}


def sandbox_backend() -> str | None:
    """The backend the shipped profiles confine with here: the first that works, bubblewrap first.

    What a confined command prints differs by backend (bubblewrap mounts read-only, Landlock
    refuses the open), so a scenario that runs one has a transcript per backend.
    """
    from seamhost_sandbox_local import probe_backends

    return next((report.name for report in probe_backends() if report.available), None)


def normalise(value: Any, masks: dict[str, str]) -> Any:
    """`value` with volatile fields and machine-specific strings replaced by placeholders."""
    if isinstance(value, dict):
        return {
            key: ("<volatile>" if key in VOLATILE_KEYS else normalise(item, masks))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [normalise(item, masks) for item in value]
    if isinstance(value, str):
        for real, placeholder in masks.items():
            value = value.replace(real, placeholder)
        value = re.sub(r"\b(approval-[\w.-]+-\d+)-[0-9a-f]{12}\b", r"\1-<random>", value)
        return re.sub(r"\b\d{8}-\d{6}-[0-9a-f]{12}\b", "<session>", value)
    return value


def transcript(profile: str, scenario: str, tmp_path: Path) -> list[Any]:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    env = {"SEAMHOST_HOME": str(home)}
    ran = run_cli(
        "run",
        "--profile",
        profile,
        "--workspace",
        str(workspace),
        str(ROOT / "examples" / f"{scenario}.toml"),
        env=env,
    )
    assert ran.returncode in (0, 1), ran.stdout + ran.stderr
    masks = {
        str(workspace.resolve()): "<workspace>",
        str(home.resolve()): "<home>",
        str(tmp_path.resolve()): "<tmp>",
    }
    listed = run_cli("session", "ls", "--json", env=env)
    stored = json.loads(listed.stdout) if listed.returncode == 0 else []
    if not stored:  # a memory-only store: the printed timeline is all there is
        return [normalise(line, masks) for line in ran.stdout.splitlines()]
    [header] = stored
    shown = run_cli("session", "show", header["session_id"], "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    return [normalise(json.loads(line), masks) for line in shown.stdout.splitlines()]


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("profile", PROFILES)
def test_log_matches_golden_transcript(profile: str, scenario: str, tmp_path: Path) -> None:
    name = f"{scenario}.{profile}"
    if scenario in NEEDS_SANDBOX:
        backend = sandbox_backend()
        if backend is None:
            pytest.skip("no sandbox backend works on this machine (see `seamhost doctor`)")
        name += f".{backend}"
    records = transcript(profile, scenario, tmp_path)
    golden = GOLDEN / f"{name}.jsonl"
    if os.environ.get("SEAMHOST_GOLDEN_WRITE") == "1":
        golden.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    expected = [json.loads(line) for line in golden.read_text().splitlines()]
    assert len(records) == len(expected), f"{golden.name}: record count differs"
    for index, (got, want) in enumerate(zip(records, expected, strict=True)):
        assert got == want, f"{golden.name}: record {index} differs"
