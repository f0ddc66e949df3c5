"""What the acme-ledger tests share: the example installed for the test, a profile, scenarios.

The example (``examples/plugin-ledger``) is one module, so it is installed into a
:class:`~seamhost.testing.sites.PluginSite` under its own module name with its real distribution
and entry point (``ledger = acme_ledger:descriptor``), exactly as an installer leaves it;
``run_cli`` puts the site on the child's ``PYTHONPATH``. The profile extends ``default`` (durable
jsonl sessions with checkpoints, the scripted model) and stops a tool body after
``TIMEOUT`` seconds, so a charge whose response never comes ends ``TOOL_OUTCOME_UNKNOWN``.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import attrs

from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source, run_cli
from tests.reconcile.ledger_server import LedgerServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "plugin-ledger"
with open(EXAMPLE / "pyproject.toml", "rb") as _fh:
    PROJECT = tomllib.load(_fh)["project"]
TIMEOUT = 0.5  # [limits] tool_timeout_s of the test profile
CHARGE = "call-1-1-1"  # the scenario's charge: turn 1, step 1, call 1


# An outermost ``llm/stream`` wrapper that writes each model request's conversation to the file
# its config names (one JSON line per request): how a test sees what the model was told.
WATCH = plugin_source(
    """
    @hookimpl(tryfirst=True)
    def llm_stream(self, request, call_next):
        import json
        line = {"turn": request.turn, "step": request.step, "messages": [
            {"role": m["role"], "content": m.get("content")} for m in request.messages]}
        with open(self.ctx.config["requests"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\\n")
        return call_next(request)
    """,
    name="modelwatch",
    schema='{"type": "object", "properties": {"requests": {"type": "string"}}, '
    '"required": ["requests"], "additionalProperties": False}',
)


def install_ledger(site: PluginSite) -> PluginSite:
    site.add(
        "ledger",
        (EXAMPLE / "src" / "acme_ledger" / "__init__.py").read_text(encoding="utf-8"),
        distribution=PROJECT["name"],
        version=PROJECT["version"],
        module="acme_ledger",
    )
    return site


def scenario(*turns: tuple[str, str, int]) -> str:
    """A scenario whose turns each charge (user message, account, amount) in one step."""
    text = '[scenario]\nname = "ledger"\n'
    for user, account, amount in turns:
        text += (
            f'\n[[turn]]\nuser = "{user}"\nfinal = "done: {user}"\n\n[[turn.step]]\n'
            f'text = "charging {account}"\n[[turn.step.call]]\ntool = "ledger_charge"\n'
            f'args = {{ account = "{account}", amount_cents = {amount} }}\n'
        )
    return text


@attrs.frozen
class LedgerRig:
    """A SEAMHOST_HOME, the ledger profile and its scenarios under `root`, and the server."""

    root: Path
    site: PluginSite
    server: LedgerServer

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def profile(self) -> Path:
        return self.root / "ledger.toml"

    @property
    def requests_file(self) -> Path:
        return self.root / "model-requests.jsonl"

    def requests(self) -> list[dict[str, Any]]:
        """Every model request so far: turn, step and the conversation the model was sent."""
        if not self.requests_file.exists():
            return []
        lines = self.requests_file.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]

    @classmethod
    def make(
        cls, root: Path, site: PluginSite, server: LedgerServer, *, retries: int = 0
    ) -> LedgerRig:
        rig = cls(root, install_ledger(site), server)
        site.add("modelwatch", WATCH)
        rig.profile.write_text(
            '[profile]\nname = "ledger"\nextends = ["default"]\n'
            f'[plugins.ledger]\nbase_url = "{server.url}"\ntimeout_s = 5\n'
            f'[plugins.modelwatch]\nrequests = "{rig.requests_file}"\n'
            f"[limits]\ntool_timeout_s = {TIMEOUT}\ntool_retries = {retries}\n",
            encoding="utf-8",
        )
        return rig

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, site=self.site, env={"SEAMHOST_HOME": str(self.home)}, cwd=self.root)

    def write_scenario(self, name: str, *turns: tuple[str, str, int]) -> Path:
        path = self.root / name
        path.write_text(scenario(*turns), encoding="utf-8")
        return path

    def run(self, session: str, script: Path) -> subprocess.CompletedProcess[str]:
        workspace = self.root / f"ws-{session}"
        return self.cli(
            "run", "--profile", str(self.profile), "--session", session,
            "--workspace", str(workspace), str(script),
        )  # fmt: skip

    def resume(self, session: str, script: Path | None = None) -> subprocess.CompletedProcess[str]:
        tail = () if script is None else (str(script),)
        return self.cli("run", "--profile", str(self.profile), "--resume", session, *tail)

    def json(self, *args: str) -> Any:
        done = self.cli(*args, "--profile", str(self.profile), "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    def unknowns(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.json("session", "unknowns")
        return found

    def due(self, *session: str) -> list[dict[str, Any]]:
        reports: list[dict[str, Any]] = self.json("session", "reconcile", "--due", *session)
        return reports

    def records(self, session: str) -> list[dict[str, Any]]:
        """The session's records as ``session show --json`` prints them (one per line)."""
        done = self.cli("session", "show", session, "--profile", str(self.profile), "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
