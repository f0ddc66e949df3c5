"""Fixtures of the console tests: the rig (tests/console/console_kit.py) and a console on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from seamhost.testing.sites import PluginSite
from tests.console.console_kit import Rig, client, login


@pytest.fixture
def rig(tmp_path: Path, plugin_site: PluginSite) -> Rig:
    return Rig.make(tmp_path, plugin_site)


@pytest.fixture
def anonymous(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """A console on the rig's profile, not logged in."""
    yield from client(rig, monkeypatch)


@pytest.fixture
def web(anonymous: TestClient) -> TestClient:
    """A console on the rig's profile, logged in with the one-time token."""
    login(anonymous)
    return anonymous
