"""The tool and observer kits fail a broken plugin, each for the fault it has.

Each broken plugin is installed through the ``plugin_site`` fixture inside a separate pytest run
(the kit as a plugin author's test module uses it); the run must fail exactly the kit's tests
that check the broken promise and pass the others.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOOL_SOURCE = """
from seamhost import PluginDescriptor, ToolOutput, ToolSpec, hookimpl

OUTPUT = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}


class Broken:
    def __init__(self, ctx):
        pass

    async def body(self, ctx):
        return ToolOutput("echoed", value={"text": VALUE(ctx.arguments)})

    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("broken_echo", "Echo the text.", INPUT, OUTPUT, "read-only", True,
                          self.body, idempotent=True))


descriptor = PluginDescriptor(name=NAME, factory=Broken, provides=["tools/register"])
"""

# Its input schema takes any object: a call without `text` reaches the body.
LAX_INPUT = (
    'NAME = "lax-tool"\nINPUT = {"type": "object"}\n'
    'VALUE = lambda arguments: arguments.get("text", "")\n'
)
# Its input schema is right, but its value's `text` is a number, against its output schema.
WRONG_OUTPUT = (
    'NAME = "wrong-output"\n'
    'INPUT = {"type": "object", "properties": {"text": {"type": "string"}}, '
    '"required": ["text"], "additionalProperties": False}\n'
    "VALUE = lambda arguments: len(arguments['text'])\n"
)

OBSERVER_SOURCE = """
from seamhost import PluginDescriptor, hookimpl


class Raising:
    def __init__(self, ctx):
        self.records, self.results = [], []

    @hookimpl
    def session_event(self, session, record):
        self.records.append(record.seq)
        raise RuntimeError("the observer fails on every record")

    @hookimpl
    def tools_result(self, call, result):
        self.results.append(result.call_id)


descriptor = PluginDescriptor(
    name="raising-observer", factory=Raising, provides=["session/event", "tools/result"]
)
"""

TOOL_TEST = """
import pytest
from seamhost.testing.tools import ToolCall, ToolContract, ToolDriver

SOURCE = {source!r}


class TestBroken(ToolContract):
    @pytest.fixture
    def tool_driver(self, plugin_site):
        plugin_site.add({name!r}, SOURCE)
        return ToolDriver(
            plugin={name!r},
            good=[ToolCall("broken_echo", {{"text": "hello"}})],
            bad=[ToolCall("broken_echo", {{}})],
        )
"""

OBSERVER_TEST = """
import pytest
from seamhost.testing.observers import ObserverContract, ObserverDriver

SOURCE = {source!r}


class TestBroken(ObserverContract):
    @pytest.fixture
    def observer_driver(self, plugin_site):
        plugin_site.add("raising-observer", SOURCE)
        return ObserverDriver(
            plugin="raising-observer",
            records=lambda plugin: list(plugin.records),
            results=lambda plugin: list(plugin.results),
        )
"""


def _outcomes(tmp_path: Path, test_source: str) -> dict[str, str]:
    """Run `test_source` as its own pytest session: each test's name → its outcome."""
    (tmp_path / "test_broken.py").write_text(textwrap.dedent(test_source), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "test_broken.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    line = r"^(PASSED|FAILED|SKIPPED|ERROR) test_broken\.py::TestBroken::(\w+)"
    found = re.findall(line, done.stdout, re.M)
    assert found, done.stdout + done.stderr
    return {test: outcome for outcome, test in found}


@pytest.mark.parametrize(
    ("name", "module", "fails"),
    [
        ("lax-tool", LAX_INPUT, "test_bad_arguments_are_refused_before_the_body"),
        (
            "wrong-output",
            WRONG_OUTPUT,
            "test_a_good_call_succeeds_with_a_value_of_its_output_schema",
        ),
    ],
)
def test_the_tool_kit_fails_a_broken_tool(
    tmp_path: Path, name: str, module: str, fails: str
) -> None:
    source = module + TOOL_SOURCE
    outcomes = _outcomes(tmp_path, TOOL_TEST.format(source=source, name=name))
    assert outcomes.pop(fails) == "FAILED"
    assert set(outcomes.values()) <= {"PASSED", "SKIPPED"}, outcomes


def test_the_observer_kit_fails_an_observer_that_raises(tmp_path: Path) -> None:
    outcomes = _outcomes(tmp_path, OBSERVER_TEST.format(source=OBSERVER_SOURCE))
    assert outcomes.pop("test_it_never_raises_into_the_call") == "FAILED"
    assert set(outcomes.values()) <= {"PASSED", "SKIPPED"}, outcomes
