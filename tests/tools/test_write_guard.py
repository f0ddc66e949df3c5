"""Policy and sandbox agree: a write the sandbox will refuse is denied before anyone is asked.

The default profile's rules ask a person before anything is written under ``release/``, and its
``[sandbox] read_only_paths`` makes ``release/`` unwritable in ``workspace-write``: a person was
asked, said yes, and the write then ended ``SANDBOX_DENIED``. The tools plugin's ``tools/guard``
now asks the sandbox's path policy first, for the mode the call would run in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.sandbox.paths import PathPolicy
from tests.conftest import run_cli

ROOT = Path(__file__).parent.parent.parent
SHIPPED = sorted(p.stem for p in (ROOT / "profiles").glob("*.toml"))
# Writes a model proposes: into the workspace, under the default profile's read-only path,
# beside the workspace, and into the system.
# What the shipped profiles' secrets need to resolve (no model or database is reached).
KEYS = {
    "OPENAI_API_KEY": "sk-test",
    "ANTHROPIC_API_KEY": "sk-test",
    "SEAMHOST_POSTGRES_DSN": "host=127.0.0.1 dbname=test",
}
PATHS = ["out/report.md", "release/VERSION", "release/notes/1.4.md", "../copy.md", "/etc/x"]


def explain(profile: str, workspace: Path, args: dict[str, object]) -> dict[str, object]:
    shown = run_cli(
        "policy",
        "explain",
        "--profile",
        profile,
        "--tool",
        "write_file",
        "--args",
        json.dumps(args),
        "--json",
        cwd=workspace,
        env=KEYS,
    )
    assert shown.returncode == 0, shown.stderr
    answer = json.loads(shown.stdout)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.parametrize("profile", SHIPPED)
def test_no_shipped_profile_asks_about_a_write_its_sandbox_refuses(
    profile: str, tmp_path: Path
) -> None:
    workspace = tmp_path / "a" / "ws"
    (workspace / "release").mkdir(parents=True)
    sandbox = resolve_profile(profile, environ=KEYS).sandbox
    policy = PathPolicy(sandbox.mode, workspace, sandbox.writable_roots, sandbox.read_only_paths)
    for path in PATHS:
        answer = explain(profile, workspace, {"path": path, "content": "x"})
        if not policy.writable(path):
            assert answer["decision"] == "deny", (profile, path, answer)
            assert "the sandbox will refuse this write" in str(answer["reason"])
        else:
            assert "the sandbox will refuse" not in json.dumps(answer), (profile, path)


ESCALATING = """
[scenario]
name = "escalating"
workspace = { "release/README" = "what ships" }
[[turn]]
user = "Bump the version."
final = "Done."
[[turn.step]]
text = "Bumping it."
[[turn.step.call]]
tool = "write_file"
args = { path = "release/VERSION", content = "2\\n" }
sandbox_permissions = "danger-full-access"
justification = "the version file ships"
"""


def test_an_escalated_write_still_reaches_the_people_who_approve_it(tmp_path: Path) -> None:
    scenario = tmp_path / "escalating.toml"
    scenario.write_text(ESCALATING)
    ran = run_cli(
        "run",
        "--profile",
        "ci",
        "--workspace",
        str(tmp_path / "ws"),
        str(scenario),
        env={"SEAMHOST_HOME": str(tmp_path / "home")},
    )
    # ci has no person to ask: the call reached the approvers, who could not answer; the guard
    # let it through because danger-full-access, once approved, may write there.
    assert "APPROVAL_UNAVAILABLE write_file" in ran.stdout, ran.stdout + ran.stderr
    assert "guard deny" not in ran.stdout
    assert not (tmp_path / "ws" / "release" / "VERSION").exists()


def test_the_explanation_shows_both_layers(tmp_path: Path) -> None:
    (tmp_path / "release").mkdir()
    shown = run_cli(
        "policy",
        "explain",
        "--tool",
        "write_file",
        "--args",
        '{"path": "release/VERSION", "content": "2"}',
        cwd=tmp_path,
    )
    assert "tools/pre-execute tool-policy: ask" in shown.stdout
    assert "tools/guard tools: deny  the sandbox will refuse this write" in shown.stdout
    assert "read_only_paths" in shown.stdout
