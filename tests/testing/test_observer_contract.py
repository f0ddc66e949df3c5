"""The observer contract run against two observers installed for the test as distributions of
their own: one with plain functions, one with coroutines (scheduled on the running loop)."""

from __future__ import annotations

from typing import Any

import pytest

from seamhost.testing.observers import ObserverContract, ObserverDriver
from seamhost.testing.sites import PluginSite

OBSERVER_SOURCE = """
from seamhost import PluginDescriptor, hookimpl


class Recorder:
    def __init__(self, ctx):
        self.records, self.results = [], []

    @hookimpl
    {prefix}def session_event(self, session, record):
        self.records.append(record.seq)

    @hookimpl
    {prefix}def tools_result(self, call, result):
        self.results.append(result.call_id)


descriptor = PluginDescriptor(
    name="{name}", factory=Recorder, provides=["session/event", "tools/result"]
)
"""


def _driver(plugin_site: PluginSite, name: str, prefix: str) -> ObserverDriver:
    plugin_site.add(name, OBSERVER_SOURCE.format(name=name, prefix=prefix))

    def records(plugin: Any) -> list[int]:
        return list(plugin.records)

    def results(plugin: Any) -> list[str]:
        return list(plugin.results)

    return ObserverDriver(plugin=name, records=records, results=results)


class TestAPlainObserver(ObserverContract):
    @pytest.fixture
    def observer_driver(self, plugin_site: PluginSite) -> ObserverDriver:
        return _driver(plugin_site, "plain-recorder", "")


class TestACoroutineObserver(ObserverContract):
    @pytest.fixture
    def observer_driver(self, plugin_site: PluginSite) -> ObserverDriver:
        return _driver(plugin_site, "async-recorder", "async ")
