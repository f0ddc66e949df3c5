"""Building bundles: registration order, contract checks, conflicts and the snapshot."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from seamhost.errors import PluginConflict, PluginLoadError, SeamContractError
from seamhost.kernel.bundle import BundleSnapshot, build_bundle
from seamhost.kernel.plugins import discover
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.session.live import StepContext
from seamhost.testing.sites import PluginSite
from tests.conftest import BundleMaker, plugin_source, run_cli

LAYER = """
@hookimpl
async def agent_pre_step(self, ctx, call_next):
    ORDER.append(self.ctx.name)
    await call_next(ctx)
"""


def layered(name: str) -> str:
    return "from seamhost_shared import ORDER\n" + plugin_source(LAYER, name=name)


def test_call_order_is_profile_order(make_bundle: BundleMaker, plugin_site: PluginSite) -> None:
    (plugin_site.root / "seamhost_shared.py").write_text("ORDER = []\n")
    plugin_site.modules.add("seamhost_shared")
    bundle = make_bundle(
        {"zeta": layered("zeta"), "alpha": layered("alpha"), "mid": layered("mid")}
    )

    async def proceed(ctx: StepContext) -> None:
        return None

    no_session: Any = None  # the chain under test never reads it
    asyncio.run(bundle.seams.agent_pre_step(StepContext(no_session, 1, 1), proceed))
    import seamhost_shared  # type: ignore[import-not-found]

    assert seamhost_shared.ORDER == ["zeta", "alpha", "mid"]
    assert bundle.seams.implementers("agent/pre-step") == ("zeta", "alpha", "mid")


def test_misspelt_hook_fails_loudly(make_bundle: BundleMaker) -> None:
    body = "@hookimpl\ndef tools_pre_exectue(self, call):\n    return None\n"
    with pytest.raises(PluginLoadError, match=r'plugin "typo".*tools_pre_exectue'):
        make_bundle({"typo": plugin_source(body, name="typo")})


def test_wrong_hook_arguments_fail_loudly(make_bundle: BundleMaker) -> None:
    body = "@hookimpl\ndef tools_pre_execute(self, invocation):\n    return None\n"
    with pytest.raises(PluginLoadError, match='plugin "odd" failed to load \\(hooks\\)'):
        make_bundle({"odd": plugin_source(body, name="odd")})


def test_wrapper_implementations_are_refused(make_bundle: BundleMaker) -> None:
    body = "@hookimpl(wrapper=True)\ndef tools_pre_execute(self, call):\n    return (yield)\n"
    with pytest.raises(SeamContractError, match="wrapper implementations are refused"):
        make_bundle({"wrap": plugin_source(body, name="wrap")})


def test_undeclared_provider_is_refused(make_bundle: BundleMaker) -> None:
    body = "@hookimpl\ndef llm_adapter(self):\n    return None\n"
    with pytest.raises(SeamContractError, match="does not declare"):
        make_bundle({"sly": plugin_source(body, name="sly")})


def test_declared_provider_without_implementation_is_refused(make_bundle: BundleMaker) -> None:
    with pytest.raises(SeamContractError, match="implements no hook"):
        make_bundle(
            {"empty": plugin_source("pass\n", name="empty", provides='["sandbox/confine"]')}
        )


def test_descriptor_name_must_match_the_entry_point(plugin_site: PluginSite) -> None:
    plugin_site.add("right", plugin_source("pass\n", name="wrong"))
    path = plugin_site.profile("p.toml", "[plugins.right]\n")
    with pytest.raises(PluginLoadError, match="descriptor name 'wrong' differs"):
        resolve_profile(str(path))


def test_entry_point_must_name_a_descriptor(plugin_site: PluginSite) -> None:
    plugin_site.add("odd", "descriptor = object()\n")
    with pytest.raises(PluginLoadError, match="not a PluginDescriptor"):
        resolve_profile(str(plugin_site.profile("p.toml", "[plugins.odd]\n")))


def test_one_name_from_two_distributions_names_both(plugin_site: PluginSite) -> None:
    plugin_site.add("twin", plugin_source("pass\n", name="twin"), distribution="first-twin")
    plugin_site.add(
        "twin",
        plugin_source("pass\n", name="twin"),
        distribution="second-twin",
        module="second_twin",
    )
    with pytest.raises(PluginConflict, match='"first-twin" and "second-twin"'):
        resolve_profile(str(plugin_site.profile("p.toml", "[plugins.twin]\n")))


def test_snapshot_identity(make_bundle: BundleMaker, plugin_site: PluginSite) -> None:
    source = plugin_source(
        "pass\n",
        name="conf",
        schema='{"type": "object", "properties": {"level": {"type": "integer"}}}',
    )
    one = make_bundle({"conf": source}, profile="")
    path = plugin_site.profile("again.toml", "[plugins.conf]\n")
    two = build_bundle(resolve_profile(str(path)))
    assert one.snapshot.plugins == two.snapshot.plugins
    changed = build_bundle(
        resolve_profile(str(plugin_site.profile("c.toml", "[plugins.conf]\nlevel = 2\n")))
    )
    assert changed.snapshot.plugins[0].config_digest != one.snapshot.plugins[0].config_digest
    identity = one.snapshot.plugins[0]
    assert (identity.name, identity.distribution, identity.version) == (
        "conf",
        "seamhost-conf",
        "0.1.0",
    )

    data = json.loads(json.dumps(one.snapshot.to_json()))
    assert BundleSnapshot.from_json(data) == one.snapshot
    data["plugins"][0]["version"] = "9.9"
    with pytest.raises(ValueError, match="digest does not match"):
        BundleSnapshot.from_json(data)


def test_snapshot_is_immutable(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"x": plugin_source("pass\n", name="x")})
    with pytest.raises(AttributeError):
        bundle.snapshot.profile = "other"  # type: ignore[misc]


def test_disabled_plugins_are_not_discovered(plugin_site: PluginSite) -> None:
    plugin_site.add("quiet", plugin_source("pass\n", name="quiet"))
    found = discover(environ={"SEAMHOST_DISABLE_PLUGINS": "quiet"})
    assert "quiet" not in found.plugins
    assert "quiet" in found.blocked
    listed = run_cli(
        "plugins", "--json", site=plugin_site, env={"SEAMHOST_DISABLE_PLUGINS": "quiet"}
    )
    assert "quiet" not in {p["name"] for p in json.loads(listed.stdout)}


def test_trace_hooks_writes_each_seam_call_to_stderr(plugin_site: PluginSite) -> None:
    plugin_site.add(
        "loud",
        plugin_source("@hookimpl\ndef tools_register(self, register):\n    pass\n", name="loud"),
    )
    path = plugin_site.profile("p.toml", "[plugins.loud]\n")
    quiet = run_cli("profile", "check", str(path), site=plugin_site)
    traced = run_cli(
        "profile", "check", str(path), site=plugin_site, env={"SEAMHOST_TRACE_HOOKS": "1"}
    )
    assert "trace" not in quiet.stderr
    assert "seamhost: trace: tools/register -> loud: registered" in traced.stderr
