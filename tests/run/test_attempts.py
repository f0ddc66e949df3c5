"""Attempts, live unknowns and output schemas (design.md §10), through the real ``seamhost run``.

The ``flaky`` plugin's tools count every body run in a file outside the log, so a test can tell a
retry from a replay: ``charge`` (write, idempotent) fails retryably on its first attempts or
outlives the tool timeout, ``send`` (write, not idempotent) does the same, ``look`` is read-only,
and ``shape`` returns a value its output schema forbids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source, run_cli

FLAKY = plugin_source(
    """
    @hookimpl
    def tools_register(self, register):
        import asyncio
        runs = self.ctx.config["runs"]
        fail_first = self.ctx.config.get("fail_first", 0)
        schema = {"type": "object", "properties": {"stall": {"type": "boolean"}},
                  "additionalProperties": False}
        out = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
               "additionalProperties": False}

        async def body(ctx):
            with open(runs, "a", encoding="utf-8") as fh:
                fh.write(f"{ctx.call_id} {ctx.attempt} {ctx.idempotency_key}\\n")
            if ctx.arguments.get("stall"):
                await asyncio.sleep(30)
            if ctx.attempt <= fail_first:
                raise ToolFailed(ErrorCode.TOOL_ERROR, "the service was busy", retryable=True)
            return ToolOutput("done", value={"n": ctx.attempt})

        async def shape(ctx):
            return ToolOutput("bad", value={"n": "three"})

        register(ToolSpec("charge", "charges", schema, out, "write", False, body,
                          idempotent=True))
        register(ToolSpec("send", "sends", schema, out, "write", False, body))
        register(ToolSpec("look", "looks", schema, out, "read-only", True, body))
        register(ToolSpec("shape", "lies", schema, out, "read-only", True, shape))
    """,
    name="flaky",
    schema='{"type": "object", "properties": {"runs": {"type": "string"}, '
    '"fail_first": {"type": "integer"}}, "required": ["runs"]}',
)


class Rig:
    def __init__(self, root: Path, site: PluginSite) -> None:
        self.root, self.site = root, site
        self.runs = root / "runs.txt"
        self.home = root / "home"
        site.add("flaky", FLAKY)

    def run(self, calls: list[tuple[str, dict[str, Any]]], **limits: Any) -> dict[str, Any]:
        fail_first = limits.pop("fail_first", 0)
        table = "".join(f"{k} = {v}\n" for k, v in limits.items())
        profile = self.site.profile(
            "flaky.toml",
            '[profile]\nname = "flaky"\nextends = ["default"]\n'
            f'[plugins.flaky]\nruns = "{self.runs}"\nfail_first = {fail_first}\n'
            f"[limits]\n{table}",
        )
        steps = "".join(
            f'[[turn.step.call]]\ntool = "{tool}"\nargs = {{ {toml_pairs(args)} }}\n'
            for tool, args in calls
        )
        scenario = self.root / "scenario.toml"
        scenario.write_text(f'[[turn]]\nuser = "go"\n[[turn.step]]\n{steps}')
        env = {"SEAMHOST_HOME": str(self.home)}
        done = run_cli(
            "run", "--profile", str(profile), "--json", str(scenario), site=self.site, env=env
        )
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        # JSON Lines: the envelopes, then the run's summary (seamhost.cli.summary)
        records = [r for r in lines if "seq" in r]
        return {"done": done, "records": records, "summary": lines[-1] if lines else None}

    def body_runs(self) -> list[str]:
        return self.runs.read_text().splitlines() if self.runs.exists() else []


def toml_pairs(args: dict[str, Any]) -> str:
    return ", ".join(f"{key} = {json.dumps(value)}" for key, value in args.items())


@pytest.fixture
def rig(tmp_path: Path, plugin_site: PluginSite) -> Rig:
    return Rig(tmp_path, plugin_site)


def of(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r["data"] for r in records if r["type"] == kind]


def code(records: list[dict[str, Any]]) -> str | None:
    [result] = of(records, "tool/result")
    error = result.get("error")
    return None if error is None else str(error["code"])


def test_an_idempotent_call_is_dispatched_again_with_the_same_key(rig: Rig) -> None:
    ran = rig.run([("charge", {})], tool_retries=2, fail_first=2)
    records = ran["records"]
    assert code(records) is None, ran["done"].stderr
    assert [d["attempt"] for d in of(records, "tool/dispatch")] == [1, 2, 3]
    assert [f["attempt"] for f in of(records, "tool/attempt/failed")] == [1, 2]
    assert of(records, "tool/result")[0]["value"] == {"n": 3}
    runs = [line.split() for line in rig.body_runs()]
    assert [r[1] for r in runs] == ["1", "2", "3"]
    assert len({r[2] for r in runs}) == 1, "every attempt gets the same idempotency key"
    session = of(records, "tool/call")[0]["call_id"]
    assert runs[0][2].endswith(":" + session)
    # Each dispatch precedes its attempt's failure: the record is written before the body runs.
    kinds = [r["type"] for r in records if r["type"] in ("tool/dispatch", "tool/attempt/failed")]
    assert kinds == ["tool/dispatch", "tool/attempt/failed"] * 2 + ["tool/dispatch"]


def test_retries_stop_at_the_limit(rig: Rig) -> None:
    records = rig.run([("charge", {})], tool_retries=1, fail_first=5)["records"]
    assert code(records) == "TOOL_ERROR"
    assert [d["attempt"] for d in of(records, "tool/dispatch")] == [1, 2]
    assert len(rig.body_runs()) == 2


def test_a_call_that_is_neither_read_only_nor_idempotent_is_never_dispatched_twice(
    rig: Rig,
) -> None:
    records = rig.run([("send", {})], tool_retries=3, fail_first=1)["records"]
    assert code(records) == "TOOL_ERROR"
    assert len(of(records, "tool/dispatch")) == 1
    assert len(rig.body_runs()) == 1


def test_a_writing_body_stopped_by_its_timeout_has_an_unknown_outcome(rig: Rig) -> None:
    ran = rig.run([("send", {"stall": True})], tool_timeout_s=0.3, tool_retries=3)
    records = ran["records"]
    assert code(records) == "TOOL_OUTCOME_UNKNOWN"
    [result] = of(records, "tool/result")
    assert result["meta"]["stopped"] == "TOOL_TIMEOUT"
    assert "neither read-only nor idempotent" in result["error"]["message"]
    assert len(rig.body_runs()) == 1, "an unknown outcome of a writing tool is never retried"
    dispatch = of(records, "tool/dispatch")[0]
    assert (dispatch["effect"], dispatch["idempotent"]) == ("write", False)


def test_a_read_only_body_stopped_by_its_timeout_timed_out_and_may_be_retried(rig: Rig) -> None:
    records = rig.run([("look", {"stall": True})], tool_timeout_s=0.2, tool_retries=1)["records"]
    assert code(records) == "TOOL_TIMEOUT"
    assert [d["attempt"] for d in of(records, "tool/dispatch")] == [1, 2]


def test_an_idempotent_unknown_is_retried_with_advice_to_match(rig: Rig) -> None:
    records = rig.run([("charge", {"stall": True})], tool_timeout_s=0.2)["records"]
    assert code(records) == "TOOL_OUTCOME_UNKNOWN"
    assert "same idempotency key" in of(records, "tool/result")[0]["error"]["message"]


def test_a_value_that_breaks_the_output_schema_is_a_tool_error_naming_the_path(rig: Rig) -> None:
    records = rig.run([("shape", {})])["records"]
    assert code(records) == "TOOL_ERROR"
    message = of(records, "tool/result")[0]["error"]["message"]
    assert "value.n: " in message
    assert "output schema" in message


def test_session_show_lists_each_attempt(rig: Rig) -> None:
    records = rig.run([("charge", {})], tool_retries=1, fail_first=1)["records"]
    session = records[0]  # the header is not in the stream; find the id through ls
    assert session["type"] == "turn/start"
    listed = run_cli("session", "ls", "--json", env={"SEAMHOST_HOME": str(rig.home)})
    [sid] = [s["session_id"] for s in json.loads(listed.stdout)]
    shown = run_cli("session", "show", sid, env={"SEAMHOST_HOME": str(rig.home)}, site=rig.site)
    assert "attempt 1" in shown.stdout
    assert "attempt 2" in shown.stdout
    assert "failed" in shown.stdout
    assert "dispatched again" in shown.stdout
