"""No schema a plugin declares may make the host fetch or read anything (issue 33, point 1).

A plugin's tool schemas are checked when the tool is registered, its config schema when the
profile is resolved; either fails naming the plugin and the reference, and the trap (a real
listening socket counting connections) sees nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from seamhost.errors import PluginLoadError
from tests.conftest import BundleMaker, plugin_source
from tests.reference_traps import Listener

TOOL = """
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        return None
    register(ToolSpec(
        name="fetcher",
        description="d",
        input_schema={"type": "object", "properties": {"x": {"$ref": URL}}},
        output_schema={},
        effect="read-only",
        concurrency_safe=True,
        body=body,
    ))
"""


@pytest.fixture
def listener() -> Iterator[Listener]:
    with Listener() as trap:
        yield trap


def test_a_tool_schema_referring_outside_fails_the_bundle(
    make_bundle: BundleMaker, listener: Listener
) -> None:
    source = f"URL = {listener.url!r}\n" + plugin_source(TOOL, name="fetching")
    with pytest.raises(PluginLoadError) as caught:
        make_bundle({"fetching": source})
    message = str(caught.value)
    assert 'plugin "fetching"' in message
    assert "tool 'fetcher' input_schema refers outside its own document" in message
    assert repr(listener.url) in message
    assert listener.connections == 0


def test_a_config_schema_referring_outside_is_refused(
    make_bundle: BundleMaker, listener: Listener
) -> None:
    schema = '{"type": "object", "properties": {"level": {"$ref": URL}}}'
    source = f"URL = {listener.url!r}\n" + plugin_source("pass\n", name="conf", schema=schema)
    with pytest.raises(PluginLoadError) as caught:
        make_bundle({"conf": source})
    message = str(caught.value)
    assert 'plugin "conf" failed to load (descriptor)' in message
    assert f"config_schema refers outside its own document with {listener.url!r}" in message
    assert listener.connections == 0
