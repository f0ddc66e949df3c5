"""Event types a plugin declares are written and read back by the store like the core ones."""

from __future__ import annotations

import asyncio
from pathlib import Path

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.sessions import create_session
from seamhost.testing.sites import PluginSite

PLUGIN = """
from typing import ClassVar
import attrs
from seamhost import PluginDescriptor
from seamhost.session.events import Event

@attrs.frozen
class Deployed(Event):
    TYPE: ClassVar[str] = "acme/deployed"
    service: str

class Plugin:
    def __init__(self, ctx):
        pass

descriptor = PluginDescriptor(name="acme", factory=Plugin, event_types=(Deployed,))
"""


def test_a_plugin_event_type_round_trips_through_the_store(
    plugin_site: PluginSite, tmp_path: Path
) -> None:
    plugin_site.add("acme", PLUGIN)
    profile = plugin_site.profile(
        "p.toml", f'[plugins.acme]\n[plugins.persistence-jsonl]\nroot = "{tmp_path / "s"}"\n'
    )
    bundle = build_bundle(resolve_profile(str(profile)))
    session = create_session(bundle, session_id="with-plugin-types")
    record = session.append_data("acme/deployed", {"service": "orders"})
    assert not record.ignorable
    asyncio.run(session.flush())
    session.close()
    fresh = build_bundle(resolve_profile(str(profile)))
    stored = list(fresh.store.read("with-plugin-types").records())
    assert [(r.type, dict(r.data)) for r in stored] == [("acme/deployed", {"service": "orders"})]
    event = fresh.catalog.structure("acme/deployed", stored[0].data)
    assert type(event).__name__ == "Deployed"


def test_the_default_root_follows_the_environment_the_profile_was_resolved_with(
    plugin_site: PluginSite, tmp_path: Path
) -> None:
    profile = plugin_site.profile("p.toml", "[plugins.persistence-jsonl]\n")
    environ = {"SEAMHOST_HOME": str(tmp_path / "elsewhere")}
    bundle = build_bundle(resolve_profile(str(profile), environ=environ), environ=environ)
    assert Path(bundle.store.root) == tmp_path / "elsewhere" / "sessions"  # type: ignore[attr-defined]
