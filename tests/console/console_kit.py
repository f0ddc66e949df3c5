"""What the console tests share: one profile, sessions parked on approvals and unknown outcomes.

The profile extends ``default`` (durable jsonl sessions, the scripted model) with two throwaway
plugins: ``counter`` (``count_write``, always asked about, whose body appends a line to a file
outside the log, tests/run/deferral_kit.py) and ``flaky`` (``send``, a write that outlives the
tool timeout and so ends ``TOOL_OUTCOME_UNKNOWN``, tests/run/test_attempts.py). user-approval
answers every question ``defer``. A third, ``keeper``, gets a secret from the environment, which
no page may show.

Sessions are made by the real CLI, one process per command; the console under test reads the
same ``SEAMHOST_HOME``.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
from starlette.testclient import TestClient

from seamhost.cli.exitcodes import ExitCode
from seamhost.console.app import create_app
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source, run_cli
from tests.run.deferral_kit import COUNTER, SCENARIO
from tests.run.test_attempts import FLAKY

SECRET = "s3cr3t-console-value-7f1d"  # CONSOLE_SECRET: a profile secret no page may show
ORIGIN = "http://testserver"  # where Starlette's TestClient says it is
COUNT = "call-1-1-2"  # the scenario's count_write call: the one that parks
# A plugin holding a secret from the profile, as a model adapter holds its API key.
KEEPER = plugin_source(
    """
    @hookimpl
    def tools_register(self, register):
        assert self.ctx.config["secret"]
    """,
    name="keeper",
    schema='{"type": "object", "properties": {"secret": {"type": "string"}}, '
    '"required": ["secret"], "additionalProperties": False}',
)
UNKNOWN_SCENARIO = """
[scenario]
name = "unknown"

[[turn]]
user = "send it"
[[turn.step]]
[[turn.step.call]]
tool = "send"
args = { stall = true }
"""


@attrs.frozen
class Rig:
    """A SEAMHOST_HOME, the profile and the scenarios under `root`; the CLI to drive them."""

    root: Path
    site: PluginSite

    @classmethod
    def make(cls, root: Path, site: PluginSite, *, expires: float | None = None) -> Rig:
        rig = cls(root, site)
        site.add("counter", COUNTER)
        site.add("flaky", FLAKY)
        site.add("keeper", KEEPER)
        expiry = f"defer_expires_seconds = {expires}\n" if expires is not None else ""
        rig.profile.write_text(
            '[profile]\nname = "console"\nextends = ["default"]\n'
            f'[plugins.counter]\ncounter = "{rig.counter}"\n'
            f'[plugins.flaky]\nruns = "{root / "runs.txt"}"\n'
            '[plugins.keeper]\nsecret = { "$env" = "CONSOLE_SECRET" }\n'
            f'[plugins.user-approval]\nanswerers = ["defer"]\n{expiry}'
            "[limits]\ntool_timeout_s = 0.3\n"
        )
        (root / "deferred.toml").write_text(SCENARIO)
        (root / "unknown.toml").write_text(UNKNOWN_SCENARIO)
        return rig

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def profile(self) -> Path:
        return self.root / "console.toml"

    @property
    def counter(self) -> Path:
        return self.root / "counter.txt"

    @property
    def env(self) -> dict[str, str]:
        return {"SEAMHOST_HOME": str(self.home), "CONSOLE_SECRET": SECRET}

    def cli(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, site=self.site, env=self.env, cwd=self.root, timeout=timeout)

    def run(self, session: str, scenario: str) -> subprocess.CompletedProcess[str]:
        return self.cli(
            "run",
            "--profile",
            str(self.profile),
            "--session",
            session,
            "--workspace",
            str(self.root / f"ws-{session}"),
            str(self.root / scenario),
        )

    def park(self, session: str) -> str:
        """Run the deferred scenario until it parks; the id of the approval it waits on."""
        parked = self.run(session, "deferred.toml")
        assert parked.returncode == ExitCode.AWAITS_APPROVAL, parked.stdout + parked.stderr
        found = re.search(r"awaits approval ([\w.-]+)", parked.stderr)
        assert found is not None, parked.stderr
        return found.group(1)

    def leave_unknown(self, session: str) -> None:
        """Run a session whose one call ends TOOL_OUTCOME_UNKNOWN."""
        done = self.run(session, "unknown.toml")
        assert done.returncode == 0, done.stdout + done.stderr

    def resume(self, session: str) -> subprocess.CompletedProcess[str]:
        return self.cli(
            "run",
            "--profile",
            str(self.profile),
            "--resume",
            session,
            str(self.root / "deferred.toml"),
        )

    def pending(self) -> list[dict[str, Any]]:
        listed = self.cli("approvals", "--profile", str(self.profile), "--json")
        assert listed.returncode == 0, listed.stderr
        found: list[dict[str, Any]] = json.loads(listed.stdout)
        return found

    def records(self, session: str) -> list[dict[str, Any]]:
        shown = self.cli("session", "show", "--json", session)
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def log_bytes(self, session: str) -> bytes:
        [path] = (self.home / "sessions" / session).glob("session.v*.jsonl*")
        return path.read_bytes()

    def counted(self) -> list[str]:
        """One line per run of count_write's body."""
        return self.counter.read_text().splitlines() if self.counter.exists() else []


def of_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r["data"] for r in records if r["type"] == kind]


TOKEN = "the-one-time-token"


def client(rig: Rig, monkeypatch: Any) -> Iterator[TestClient]:
    """A TestClient on a console of `rig`'s profile, not logged in (its token: TOKEN)."""
    for key, value in rig.env.items():
        monkeypatch.setenv(key, value)
    app = create_app(str(rig.profile), token=TOKEN, origin=ORIGIN)
    with TestClient(app, base_url=ORIGIN, follow_redirects=False) as test_client:
        yield test_client


def login(test_client: TestClient) -> None:
    """Exchange the token for the cookie, as the printed URL does."""
    answer = test_client.get("/login", params={"token": TOKEN})
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == "/"


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None, page
    return found.group(1)


def digest_of(page: str) -> str:
    found = re.search(r'name="digest" value="([^"]+)"', page)
    assert found is not None, page
    return found.group(1)
