"""The profile matrix: every shipped scenario under every shipped profile, through the real CLI.

Each scenario declares, per call, the outcome it expects under each profile (``expect``);
``seamhost run --check`` compares and exits 1 on a mismatch. ``nox -s matrix`` runs this file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from tests.conftest import replaying_profiles, run_cli

ROOT = Path(__file__).parent.parent
PROFILES = replaying_profiles()
SCENARIOS = sorted(p.name for p in (ROOT / "examples").glob("*.toml"))


def test_there_is_something_to_run() -> None:
    assert {"default", "strict"} <= set(PROFILES)
    assert "quickstart.toml" in SCENARIOS


# Scenarios whose expectations assume a working confinement backend on the machine.
NEEDS_SANDBOX = {"shell.toml"}


def sandbox_available() -> bool:
    from seamhost_sandbox_local import probe_backends

    return any(report.available for report in probe_backends())


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("profile", PROFILES)
def test_scenario_meets_its_expectations(profile: str, scenario: str, tmp_path: Path) -> None:
    if scenario in NEEDS_SANDBOX and not sandbox_available():
        pytest.skip("no sandbox backend works on this machine (see `seamhost doctor`)")
    result = run_cli(
        "run",
        "--profile",
        profile,
        "--check",
        "--workspace",
        str(tmp_path / "ws"),
        str(ROOT / "examples" / scenario),
        env={"SEAMHOST_HOME": str(tmp_path / "home")},
    )
    assert result.returncode == ExitCode.OK, result.stdout + result.stderr
    assert "expectation not met" not in result.stderr
