"""model-scripted as an installed plugin: through a profile, a real bundle and the real CLI."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from seamhost.errors import ConfigError, SeamUnavailable
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ModelDone, ModelEvent, ModelRequest, TextDelta, ToolCallProposal

if TYPE_CHECKING:
    from seamhost.testing.sites import PluginSite

SCENARIO = """\
[[turn]]
user = "read it"
final = "It says orders."
[[turn.step]]
text = "Reading."
[[turn.step.call]]
tool = "read_file"
args = { path = "deploy.toml" }
"""


def write_profile(directory: Path, plugins: str) -> Path:
    path = directory / "profile.toml"
    path.write_text('[profile]\nname = "scripted"\n' + textwrap.dedent(plugins), encoding="utf-8")
    return path


def bundle_of(profile: Path) -> Bundle:
    return build_bundle(resolve_profile(str(profile)))


def request(turn: int, step: int) -> ModelRequest:
    return ModelRequest(session_id="s", turn=turn, step=step, messages=(), tools=())


def stream(bundle: Bundle, req: ModelRequest) -> list[ModelEvent]:
    adapter = bundle.seams.llm_adapter()

    async def drain() -> list[ModelEvent]:
        return [event async for event in bundle.seams.llm_stream(req, adapter.stream)]

    return asyncio.run(drain())


def test_the_bundle_streams_the_scenario_named_relative_to_the_profile(tmp_path: Path) -> None:
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "read.toml").write_text(SCENARIO, encoding="utf-8")
    bundle = bundle_of(
        write_profile(tmp_path, '[plugins.model-scripted]\nscenario = "scenarios/read.toml"\n')
    )
    (identity,) = bundle.snapshot.plugins
    assert (identity.name, identity.distribution) == ("model-scripted", "seamhost-model-scripted")
    assert identity.provides == ("llm/adapter", "llm/replay")
    assert bundle.seams.implementers("llm/adapter") == ("model-scripted",)

    assert stream(bundle, request(1, 1)) == [
        TextDelta("Reading."),
        ToolCallProposal("call-1-1-1", "read_file", '{"path":"deploy.toml"}'),
        ModelDone(),
    ]
    assert stream(bundle, request(1, 2)) == [TextDelta("It says orders."), ModelDone()]


def test_the_adapter_is_the_innermost_link_of_llm_stream(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    plugin_site.add(
        "stream-tap",
        """
        from seamhost.kernel.plugins import PluginDescriptor
        from seamhost.kernel.hookspecs import hookimpl

        SEEN = []

        class Tap:
            def __init__(self, ctx):
                pass

            @hookimpl
            async def llm_stream(self, request, call_next):
                async def tapped():
                    async for event in call_next(request):
                        SEEN.append(event)
                        yield event
                return tapped()

        descriptor = PluginDescriptor(name="stream-tap", factory=Tap)
        """,
    )
    scenario = tmp_path / "read.json"
    scenario.write_text(
        '{"turn": [{"user": "u", "step": [{"call": [{"tool": "t", "id": "only"}]}]}]}',
        encoding="utf-8",
    )
    profile = write_profile(
        tmp_path, f"[plugins.stream-tap]\n[plugins.model-scripted]\nscenario = '{scenario}'\n"
    )
    events = stream(bundle_of(profile), request(4, 1))
    assert events == [ToolCallProposal("only", "t", "{}"), ModelDone()]
    import seamhost_stream_tap  # type: ignore[import-not-found]  # written by plugin_site

    assert events == seamhost_stream_tap.SEEN


def test_without_a_scenario_the_bundle_builds_but_has_no_model(tmp_path: Path) -> None:
    profile = write_profile(tmp_path, "[plugins.model-scripted]\n")
    bundle = bundle_of(profile)
    with pytest.raises(ConfigError) as info:
        bundle.seams.llm_adapter()
    assert (info.value.file, info.value.key) == (str(profile), "plugins.model-scripted.scenario")
    assert "seamhost run SCENARIO" in info.value.problem


def test_without_the_plugin_there_is_no_adapter(tmp_path: Path) -> None:
    bundle = bundle_of(write_profile(tmp_path, ""))
    with pytest.raises(SeamUnavailable, match="llm/adapter"):
        bundle.seams.llm_adapter()


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[[turn]]\nuser = "u"\n[[turn.step]]\nerror = 1\n', "turn[0].step[0].error"),
        ("[[turn]\n", ""),
    ],
)
def test_a_broken_scenario_fails_the_bundle_naming_the_scenario_file(
    tmp_path: Path, text: str, key: str
) -> None:
    scenario = tmp_path / "broken.toml"
    scenario.write_text(text, encoding="utf-8")
    profile = write_profile(tmp_path, '[plugins.model-scripted]\nscenario = "broken.toml"\n')
    with pytest.raises(ConfigError) as info:
        bundle_of(profile)
    # A factory's ConfigError is raised as is: it already names the file and key to fix.
    assert (info.value.file, info.value.key) == (str(scenario), key)


def test_a_missing_scenario_file_fails_the_bundle(tmp_path: Path) -> None:
    profile = write_profile(tmp_path, '[plugins.model-scripted]\nscenario = "gone.json"\n')
    with pytest.raises(ConfigError, match=r"gone\.json: cannot read the scenario"):
        bundle_of(profile)


def test_an_unknown_plugin_key_is_refused(tmp_path: Path) -> None:
    profile = write_profile(tmp_path, '[plugins.model-scripted]\nscript = "s.toml"\n')
    with pytest.raises(ConfigError) as info:
        resolve_profile(str(profile))
    assert info.value.key == "plugins.model-scripted.script"


# --------------------------------------------------------------------------------------------
# the real CLI, in a subprocess
# --------------------------------------------------------------------------------------------


def seamhost(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("seamhost")
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_profile_check_accepts_a_valid_scenario(tmp_path: Path) -> None:
    (tmp_path / "read.toml").write_text(SCENARIO, encoding="utf-8")
    profile = write_profile(tmp_path, '[plugins.model-scripted]\nscenario = "read.toml"\n')
    done = seamhost("profile", "check", str(profile))
    assert done.returncode == 0, done.stderr
    assert "profile 'scripted' is valid: 1 plugin(s)" in done.stdout


def test_profile_check_exits_2_naming_the_broken_scenario(tmp_path: Path) -> None:
    scenario = tmp_path / "broken.toml"
    scenario.write_text(
        '[[turn]]\nuser = "u"\n[[turn.step]]\n[[turn.step.call]]\ntool = "t"\nargs_raw = 1\n',
        encoding="utf-8",
    )
    profile = write_profile(tmp_path, '[plugins.model-scripted]\nscenario = "broken.toml"\n')
    done = seamhost("profile", "check", str(profile))
    assert done.returncode == 2
    assert f"{scenario}: turn[0].step[0].call[0].args_raw: expected a string" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
