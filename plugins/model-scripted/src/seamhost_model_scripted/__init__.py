"""seamhost-model-scripted: a deterministic model that replays a scenario file.

It provides ``llm/adapter`` for demos, tests and CI: the same scenario gives the same assistant
messages, calls and call ids on every run. The scenario format is documented in
:mod:`seamhost_model_scripted.scenario`; how requests map to scripted turns in
:mod:`seamhost_model_scripted.adapter`.

Profile table::

    [plugins.model-scripted]
    scenario = "scenarios/deploy.toml"   # a relative path is taken from the profile's directory

``seamhost run SCENARIO`` sets ``scenario`` for its run. The scenario is loaded and validated
when the bundle is built, so ``seamhost profile check`` reports a broken one (naming its file)
before anything runs. Without a scenario the bundle still builds (a profile may leave it to
``seamhost run``), but asking for the adapter fails with a configuration error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from seamhost import PluginContext, PluginDescriptor, hookimpl
from seamhost.errors import ConfigError
from seamhost.lazy import lazy_exports

if TYPE_CHECKING:
    from seamhost import ModelAdapter, Script
    from seamhost_model_scripted.adapter import (
        InvalidModelRequest,
        ScenarioExhausted,
        ScriptedAdapter,
        ScriptedModelError,
    )

NAME = "model-scripted"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "scenario": {
            "type": "string",
            "minLength": 1,
            "description": "The scenario file to replay (.toml or .json); relative to the profile.",
        },
    },
    "additionalProperties": False,
}


class ScriptedModel:
    """The plugin object: loads the scenario once and provides its adapter."""

    def __init__(self, ctx: PluginContext) -> None:
        self.profile = str(ctx.profile_path)
        self.adapter: ScriptedAdapter | None = None
        configured = ctx.config.get("scenario")
        if configured is not None:
            path = Path(configured).expanduser()
            if not path.is_absolute():
                path = ctx.profile_path.parent / path
            # Only a configured scenario needs the loader and the adapter; without one,
            # building the bundle (``seamhost profile check``) imports neither.
            from seamhost_model_scripted.adapter import ScriptedAdapter
            from seamhost_model_scripted.scenario_reader import load_scenario

            self.adapter = ScriptedAdapter(load_scenario(path))

    @hookimpl
    def llm_replay(self, path: Path, first_turn: int) -> Script:
        """Load the scenario at `path` and replay it from now on (``seamhost run SCENARIO``)."""
        from seamhost_model_scripted.adapter import ScriptedAdapter
        from seamhost_model_scripted.scenario_reader import load_scenario

        scenario = load_scenario(path)
        self.adapter = ScriptedAdapter(scenario, first_turn)
        return scenario

    @hookimpl
    def llm_adapter(self) -> ModelAdapter:
        """The adapter of this bundle; it keeps a separate cursor for each session."""
        if self.adapter is None:
            raise ConfigError(
                self.profile,
                f"plugins.{NAME}.scenario",
                "no scenario to replay; pass one with `seamhost run SCENARIO` or set it here",
            )
        return self.adapter


descriptor = PluginDescriptor(
    name=NAME,
    factory=ScriptedModel,
    config_schema=CONFIG_SCHEMA,
    provides=["llm/adapter", "llm/replay"],
    description="A deterministic model that replays a scenario file (demos, tests, CI).",
)

__all__ = [
    "InvalidModelRequest",
    "ScenarioExhausted",
    "ScriptedAdapter",
    "ScriptedModel",
    "ScriptedModelError",
    "descriptor",
]

# The adapter's names are imported on first use, so that importing this package for its
# descriptor stays cheap.
_ADAPTER_EXPORTS = (
    "InvalidModelRequest",
    "ScenarioExhausted",
    "ScriptedAdapter",
    "ScriptedModelError",
)
__getattr__ = lazy_exports(
    __name__, dict.fromkeys(_ADAPTER_EXPORTS, "seamhost_model_scripted.adapter")
)
