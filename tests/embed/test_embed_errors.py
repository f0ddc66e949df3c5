"""Bad input to the embedding API raises the runtime's errors, naming the file and key to fix.

A bad profile raises exactly what ``seamhost run --profile`` prints (the same class and line);
a missing scenario names its file; an unknown session, a question that is not open and a closed
host each have their error. None of them is a traceback from the internals.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import seamhost
from seamhost.errors import ConfigError, ProfileNotFound, SeamhostError, SessionMissing
from seamhost.run.deferred import ApprovalNotOpen
from tests.conftest import run_cli

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.toml"


def test_a_bad_profile_raises_the_config_error_the_cli_prints(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[profile]\nextends = ["default"]\n[limits]\nmax_steps = "many"\n')
    with pytest.raises(ConfigError) as raised:
        seamhost.open_host(path)
    assert raised.value.file == str(path)
    assert raised.value.key.startswith("limits.max_steps")
    done = run_cli("run", "--profile", str(path), str(QUICKSTART), cwd=tmp_path)
    assert done.returncode == 2
    assert str(raised.value) in done.stderr


def test_a_bad_plugin_table_in_profile_text_is_named_as_the_text() -> None:
    text = '[plugins.tools]\nmax_read_bytes = "lots"\n'
    with pytest.raises(ConfigError) as raised:
        seamhost.open_host(profile_text=text)
    assert raised.value.file == "<profile text>"
    assert raised.value.key.startswith("plugins.tools")


def test_a_profile_that_is_not_toml_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"<profile text>: not valid TOML"):
        seamhost.open_host(profile_text="[profile\n")


def test_an_unknown_profile_name_suggests_the_close_ones() -> None:
    with pytest.raises(ProfileNotFound, match="did you mean 'default'"):
        seamhost.open_host("defualt")


def test_a_missing_scenario_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with seamhost.open_host(store=tmp_path / "s") as host:
        with pytest.raises(ConfigError) as raised:
            host.run(scenario=missing)
        assert list(host.bundle.store.ids()) == []  # no session was created
    assert str(missing) in str(raised.value)


def test_a_prompt_and_a_scenario_together_are_refused(tmp_path: Path) -> None:
    with seamhost.open_host(store=tmp_path / "s") as host:
        with pytest.raises(ConfigError, match="one of them"):
            host.run("hello", scenario=QUICKSTART)
        with pytest.raises(ConfigError, match="one of them"):
            host.run()
        with pytest.raises(ConfigError, match="empty"):
            host.run("   ")


def test_an_unknown_session_and_approval_are_refused(tmp_path: Path) -> None:
    with seamhost.open_host(store=tmp_path / "s") as host:
        with pytest.raises(SessionMissing):
            host.resume("20990101-000000-000000000000")
        done = host.run(scenario=QUICKSTART)
        with pytest.raises(ApprovalNotOpen, match="no such approval"):
            host.approve(done.session_id, "approval-nope")


def test_a_closed_host_refuses_to_run(tmp_path: Path) -> None:
    host = seamhost.open_host(store=tmp_path / "s")
    host.close()
    host.close()  # closing twice is fine
    with pytest.raises(seamhost.HostClosed, match="open a new one") as raised:
        host.run(scenario=QUICKSTART)
    assert isinstance(raised.value, SeamhostError)


def test_a_failing_turn_is_an_outcome_not_an_exception(tmp_path: Path) -> None:
    # The scripted model has no scenario for a prompt: the turn ends in error, as in `exec`.
    with seamhost.open_host(store=tmp_path / "s") as host:
        report = host.run("hello")
    assert report.outcome == "failed"
    assert "no scenario to replay" in (report.turns[0].message or "")
