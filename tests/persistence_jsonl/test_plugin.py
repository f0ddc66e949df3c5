"""The plugin in a bundle: its entry point, config, default root, and the two seams it provides."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from seamhost_persistence_jsonl import descriptor
from seamhost_persistence_jsonl.layout import default_root
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.errors import ConfigError, SeamFailed
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.plugins import discover
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.sessions import bind_session, create_session, open_session
from seamhost.session.memory import MemoryStore
from seamhost.store import ForeignSession
from seamhost.testing.persistence import make_header


def bundle_of(tmp_path: Path, table: str) -> Bundle:
    profile = tmp_path / "profiles" / "jsonl.toml"
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text(
        '[profile]\nname = "jsonl"\n[plugins.persistence-jsonl]\n' + textwrap.dedent(table)
    )
    return build_bundle(resolve_profile(str(profile)))


def test_the_entry_point_names_the_descriptor() -> None:
    installed = discover().get("persistence-jsonl")
    assert installed is not None
    assert installed.distribution == "seamhost-persistence-jsonl"
    assert installed.load() is descriptor
    assert descriptor.provides == {"session/store", "session/flush"}


def test_loading_and_instantiating_the_plugin_stays_cheap() -> None:
    probe = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from seamhost.kernel.plugins import PluginContext
        from seamhost.sandbox.policy import SandboxPolicy
        from seamhost_persistence_jsonl import descriptor
        descriptor.factory(PluginContext("persistence-jsonl", {}, Path("p.toml"), SandboxPolicy()))
        heavy = ("zstandard", "cattrs", "asyncio", "seamhost_persistence_jsonl.store")
        print(sorted(m for m in heavy if m in sys.modules))
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_bundle_stores_its_sessions_under_the_configured_root(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path, 'root = "../data/sessions"\nbatch_window_ms = 10\n')
    store = bundle.store
    assert isinstance(store, JsonlStore)
    assert store.root == tmp_path / "profiles" / "../data/sessions"
    assert (store.encoding, store.window) == ("zstd", 0.01)
    session = create_session(bundle, session_id="s-1", cwd="/w")
    assert session.header.durability["store"] == "persistence-jsonl"
    session.append_data("turn/start", {"turn": 1})
    asyncio.run(session.flush())  # through the façade's session/flush barrier
    session.close()
    again, repair = open_session(bundle, "s-1")
    assert repair is not None  # its turn was left open: opening it closes the turn
    assert again.records[0].type == "turn/start"
    assert again.header.bundle["digest"] == bundle.snapshot.digest
    again.close()
    assert (tmp_path / "data" / "sessions" / "s-1" / "session.v2.jsonl.zst").is_file()


def test_plain_jsonl_is_one_setting_away(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    bundle = bundle_of(tmp_path, f'root = "{root}"\ncompression = "none"\nlevel = 19\n')
    session = create_session(bundle, session_id="s-1")
    session.append_data("turn/start", {"turn": 1})
    asyncio.run(session.flush())
    session.close()
    assert (root / "s-1" / "session.v2.jsonl").read_text().count("\n") == 2


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('compression = "lz4"\n', "compression"),
        ("batch_window_ms = -1\n", "batch_window_ms"),
        ("level = 40\n", "level"),
        ('rooot = "x"\n', "rooot"),
    ],
)
def test_a_bad_table_is_a_config_error(tmp_path: Path, table: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        bundle_of(tmp_path, table)


def test_the_default_root_follows_seamhost_home_then_xdg_then_home() -> None:
    assert default_root({"SEAMHOST_HOME": "/sh", "XDG_DATA_HOME": "/x", "HOME": "/h"}) == Path(
        "/sh/sessions"
    )
    assert default_root({"XDG_DATA_HOME": "/x", "HOME": "/h"}) == Path("/x/seamhost/sessions")
    assert default_root({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == Path(
        "/h/.local/share/seamhost/sessions"
    )
    assert default_root({"HOME": "/h"}) == Path("/h/.local/share/seamhost/sessions")


def test_without_root_the_plugin_uses_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEAMHOST_HOME", str(tmp_path / "home"))
    store = bundle_of(tmp_path, "").store
    assert isinstance(store, JsonlStore)
    assert store.root == tmp_path / "home" / "sessions"


def test_flushing_a_session_of_another_store_fails_closed(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path, f'root = "{tmp_path / "r"}"\n')
    session = bind_session(bundle, MemoryStore().create(make_header("s-1")))
    with pytest.raises(SeamFailed) as info:
        asyncio.run(session.flush())
    assert isinstance(info.value.__cause__, ForeignSession)
    assert "not by persistence-jsonl" in str(info.value)
