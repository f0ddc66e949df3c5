"""A profile's secrets stay out of what a session records and what the CLI prints (issue 33.8).

Whatever model answers, the kernel redacts the secrets the profile resolved (``{"$env"}``,
``{"$file"}``) from the errors it records and the failure line on stderr. The model here is
model-scripted, whose scripted error quotes a token the profile took from the environment, as a
plugin's error quoting its credentials would; the rest is real (the CLI in a child process, the
JSONL store on disk).
"""

from __future__ import annotations

import json
from pathlib import Path

from seamhost.cli.exitcodes import ExitCode
from tests.conftest import run_cli
from tests.leaks import places_holding

TOKEN = "tok-9f8e7d6c5b4a3210"
SCENARIO = f"""
[[turn]]
user = "deploy"
[[turn.step]]
error = "the deploy server refused token {TOKEN}"
"""


def test_a_secret_quoted_by_a_failing_model_is_redacted_everywhere(tmp_path: Path) -> None:
    (tmp_path / "scenario.toml").write_text(SCENARIO)
    (tmp_path / "token").write_text(TOKEN + "\n")
    profile = tmp_path / "profile.toml"
    profile.write_text(
        '[profile]\nname = "secrets"\nextends = ["default"]\n'
        '[plugins.model-scripted]\nscenario = "scenario.toml"\n'
        "[[plugins.tool-policy.rules]]\n"  # a secret from a file, for a rule's reason
        'tool = "shell"\ncommand = "deploy*"\ndecision = "deny"\nreason = { "$file" = "token" }\n'
    )
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {"SEAMHOST_HOME": str(tmp_path / "home")}
    done = run_cli(
        "exec", "--profile", str(profile), "--workspace", str(workspace), "--json", "deploy",
        env=env,
    )  # fmt: skip
    assert done.returncode == ExitCode.FAILURE, done.stderr
    assert "the deploy server refused token [redacted]" in done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    assert "refused token [redacted]" in final["error"]["message"]
    shown = run_cli("session", "show", final["session"], "--profile", str(profile), env=env)
    assert "refused token [redacted]" in shown.stdout
    outputs = {"stdout": done.stdout, "stderr": done.stderr, "show": shown.stdout}
    # The scenario and the token's file hold it; nothing the commands wrote does.
    assert places_holding(TOKEN, tmp_path / "home", **outputs) == []
