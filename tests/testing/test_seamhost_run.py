"""The ``seamhost_run`` fixture of ``seamhost.testing``: a scenario run against a profile text.

Run through the fixture as a plugin author's test would (the runtime's ``pytest11`` entry point
registers it), and once in a separate pytest run (pytester) to show that installing the runtime
is all it takes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from seamhost.errors import ConfigError
from seamhost.testing import SeamhostRun

TOOLS = '[profile]\nname = "kit"\n[plugins.tools]\n[plugins.model-scripted]\n'
POLICY = (
    TOOLS
    + '[plugins.tool-policy]\n[[plugins.tool-policy.rules]]\ntool = "write_file"\n'
    + 'decision = "deny"\nreason = "the kit test refuses writes"\n'
    + '[sandbox]\nmode = "workspace-write"\n'
)
SCENARIO = """\
[scenario]
workspace = { "notes.txt" = "hello\\n" }

[[turn]]
user = "read the notes, then write a copy"
final = "done"

[[turn.step]]
[[turn.step.call]]
tool = "read_file"
args = { path = "notes.txt" }
id = "c-read"
expect = { "*" = "ok" }

[[turn.step.call]]
tool = "write_file"
args = { path = "copy.txt", content = "hello\\n" }
id = "c-write"
expect = { "*" = "DENIED_BY_POLICY" }
"""


def test_each_call_has_its_outcome_and_the_log_its_records(seamhost_run: SeamhostRun) -> None:
    run = seamhost_run(POLICY, SCENARIO)
    assert run.outcomes == {"c-read": "ok", "c-write": "DENIED_BY_POLICY"}
    read = run.call("c-read")
    assert read.name == "read_file"
    assert read.code is None
    assert "hello" in read.content
    assert run.call("c-write").code == "DENIED_BY_POLICY"
    assert run.unmet == ()
    assert [t.reason for t in run.turns] == ["completed"]
    types = [record.type for record in run.records]
    assert types[0] == "turn/start"
    assert types[-1] == "turn/end"
    assert types.count("tool/result") == 2
    assert not (run.workspace / "copy.txt").exists()
    assert (run.workspace / "notes.txt").read_text() == "hello\n"


def test_expectations_that_the_run_does_not_meet_are_listed(seamhost_run: SeamhostRun) -> None:
    # Without tool-policy the write succeeds, against the scenario's expectation.
    run = seamhost_run(TOOLS + '[sandbox]\nmode = "workspace-write"\n', SCENARIO)
    assert run.outcomes == {"c-read": "ok", "c-write": "ok"}
    assert run.unmet == ("c-write (write_file): expected DENIED_BY_POLICY, got ok",)
    assert (run.workspace / "copy.txt").read_text() == "hello\n"


def test_an_unknown_call_id_names_the_calls_there_were(seamhost_run: SeamhostRun) -> None:
    run = seamhost_run(POLICY, SCENARIO)
    with pytest.raises(KeyError, match="c-read"):
        run.call("c-nope")


def test_a_scenario_may_be_a_path(seamhost_run: SeamhostRun, tmp_path: Path) -> None:
    path = tmp_path / "read.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    assert seamhost_run(POLICY, path).outcomes["c-write"] == "DENIED_BY_POLICY"


def test_a_durable_store_writes_under_the_tests_directory(
    seamhost_run: SeamhostRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "the-testers-home"
    monkeypatch.setenv("SEAMHOST_HOME", str(home))
    # Compiled schemas are this process's cache, under its own SEAMHOST_HOME unless
    # SEAMHOST_CACHE says otherwise: kept apart, so that the test does not depend on whether an
    # earlier test compiled them already.
    monkeypatch.setenv("SEAMHOST_CACHE", str(tmp_path / "process-cache"))
    run = seamhost_run(POLICY + "[plugins.persistence-jsonl]\n", SCENARIO)
    assert run.outcomes["c-read"] == "ok"
    assert run.bundle.store.name == "persistence-jsonl"
    stored = list((tmp_path / "seamhost-run-1" / "home").rglob(f"{run.session_id}*"))
    assert stored, "the session was not stored under the run's own SEAMHOST_HOME"
    assert not home.exists()
    stored_records = list(run.bundle.store.read(run.session_id).records())
    assert stored_records == list(run.records)


def test_each_run_gets_its_own_directory(seamhost_run: SeamhostRun) -> None:
    first, second = seamhost_run(POLICY, SCENARIO), seamhost_run(POLICY, SCENARIO)
    assert first.workspace != second.workspace
    assert first.workspace.parent.name == "seamhost-run-1"
    assert second.workspace.parent.name == "seamhost-run-2"


def test_a_policy_of_never_refuses_what_would_ask(seamhost_run: SeamhostRun) -> None:
    profile = POLICY.replace('decision = "deny"', 'decision = "ask"')
    run = seamhost_run(profile, SCENARIO, approval_policy="never")
    assert run.outcomes == {"c-read": "ok", "c-write": "APPROVAL_UNAVAILABLE"}


def test_a_profile_without_a_replaying_model_is_refused(seamhost_run: SeamhostRun) -> None:
    with pytest.raises(ConfigError, match=r"plugins: no plugin replays a scenario"):
        seamhost_run('[profile]\nname = "no-model"\n[plugins.tools]\n', SCENARIO)


def test_a_broken_scenario_names_its_file_and_key(seamhost_run: SeamhostRun) -> None:
    with pytest.raises(ConfigError, match=r"scenario\.toml.*turn\[0\]\.user"):
        seamhost_run(POLICY, '[[turn]]\nfinal = "no user message"\n')


def test_the_fixture_comes_with_the_runtime(tmp_path: Path) -> None:
    # A separate pytest process in a directory with no conftest: the fixture is there because
    # seamhost-runtime declares the pytest11 entry point, nothing else.
    (tmp_path / "test_kit.py").write_text(
        textwrap.dedent(
            f"""
            SCENARIO = {SCENARIO!r}
            PROFILE = {POLICY!r}

            def test_write_is_refused(seamhost_run):
                run = seamhost_run(PROFILE, SCENARIO)
                assert run.outcomes["c-write"] == "DENIED_BY_POLICY"
            """
        ),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_kit.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
