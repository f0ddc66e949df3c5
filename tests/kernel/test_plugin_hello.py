"""The example third-party plugin, ``examples/plugin-hello``, installed for real.

The CLI half installs the runtime and the example into a *fresh* virtual environment (never the
workspace's, where every first-party plugin is installed) and drives that environment's
``seamhost`` command: discovery through the real entry point, profile validation, and the errors
an operator meets (design.md §3.1, §3.2, §8).

The behaviour half (the tool's output, the policy's votes) runs in-process: the example's module
is installed into a ``plugin_site`` under its own name, with the same entry point
(``hello = acme_hello:descriptor``) and distribution, and driven through a real bundle.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from seamhost.errors import ConfigError
from seamhost.jsonvalue import digest, freeze
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.sandbox.policy import SandboxMode
from seamhost.schema import compile_schema
from seamhost.tool.call import ToolContext, ToolInvocation, ToolOutput
from seamhost.tool.decision import Decision, Verdict
from seamhost.tool.declaration import RegisteredTool, ToolSpec

if TYPE_CHECKING:
    from collections.abc import Mapping

    from seamhost.testing.sites import PluginSite

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "plugin-hello"
with open(EXAMPLE / "pyproject.toml", "rb") as _fh:
    PROJECT = tomllib.load(_fh)["project"]

HELLO_PROFILE = """\
[profile]
name = "hello"

[plugins.hello]
greeting = "Hi"
deny_names = ["mallory"]
"""


# --------------------------------------------------------------------------------------------
# a fresh virtual environment with the runtime and the example installed
# --------------------------------------------------------------------------------------------


def _clean_env(**extra: str) -> dict[str, str]:
    """The test process's environment without anything that would leak into the fresh venv."""
    leaking = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "UV_PROJECT_ENVIRONMENT")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in leaking and not key.startswith("SEAMHOST_")
    }
    env.update(extra)
    return env


def _run(argv: list[str], *, env: Mapping[str, str] | None = None) -> None:
    done = subprocess.run(
        argv, capture_output=True, text=True, env=env or _clean_env(), timeout=600, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment holding only seamhost-runtime and acme-seamhost-hello."""
    root = tmp_path_factory.mktemp("plugin-hello") / "venv"
    _run([sys.executable, "-m", "uv", "venv", "--quiet", "--python", sys.executable, str(root)])
    _run(
        [
            sys.executable, "-m", "uv", "pip", "install", "--quiet",
            "--python", str(root / "bin" / "python"),
            str(REPO / "runtime"), str(EXAMPLE),
        ]
    )  # fmt: skip
    return root


def seamhost(venv: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the fresh environment's ``seamhost`` command."""
    return subprocess.run(
        [str(venv / "bin" / "seamhost"), *args],
        capture_output=True,
        text=True,
        env=_clean_env(**env),
        timeout=120,
        check=False,
    )


def write_profile(directory: Path, text: str, name: str = "hello.toml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def assert_usage_error(done: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Exit 2, one message naming every fragment, no traceback, nothing on stdout."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("seamhost: error: ")
    for fragment in fragments:
        assert fragment in done.stderr


# --------------------------------------------------------------------------------------------
# discovery and the CLI
# --------------------------------------------------------------------------------------------


def test_plugins_lists_the_installed_example(venv: Path) -> None:
    done = seamhost(venv, "plugins", "--json")
    assert done.returncode == 0, done.stderr
    # The fresh environment holds the runtime and the example only: exactly one plugin.
    [entry] = json.loads(done.stdout)
    expected = {
        "name": "hello",
        "distribution": "acme-seamhost-hello",
        "version": PROJECT["version"],
        "entry_point": "acme_hello:descriptor",
        "description": "A hello tool, and a policy that refuses the names the profile lists.",
        "provides": ["tools/pre-execute", "tools/register"],
        "requires": [],
        "config_keys": ["deny_names", "greeting"],
    }
    assert {key: entry.get(key) for key in expected} == expected


def test_version_names_the_plugin_and_its_distribution(venv: Path) -> None:
    done = seamhost(venv, "--version")
    assert done.returncode == 0, done.stderr
    assert f"hello {PROJECT['version']} (acme-seamhost-hello)" in done.stdout


def test_profile_check_accepts_a_hello_profile(venv: Path, tmp_path: Path) -> None:
    path = write_profile(tmp_path, HELLO_PROFILE)
    done = seamhost(venv, "profile", "check", "--json", str(path))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["valid"] is True
    assert summary["plugins"] == ["hello"]
    assert summary["tools"] == ["hello"]


def test_profile_show_lists_the_hello_tool_and_its_declaration(venv: Path, tmp_path: Path) -> None:
    path = write_profile(tmp_path, HELLO_PROFILE)
    done = seamhost(venv, "profile", "show", "--json", str(path))
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    plugin = info["profile"]["plugins"]["hello"]
    assert plugin["distribution"] == "acme-seamhost-hello"
    assert plugin["config"] == {"greeting": "Hi", "deny_names": ["mallory"]}
    [tool] = info["tools"]
    assert tool["name"] == "hello"
    assert tool["plugin"] == "hello"
    assert tool["digest"].startswith("sha256:")
    assert tool["effect"] == "read-only"
    assert tool["concurrency_safe"] is True
    assert tool["idempotent"] is True
    assert tool["runs_subprocesses"] is False
    assert tool["input_schema"]["required"] == ["name"]
    assert tool["input_schema"]["additionalProperties"] is False
    assert tool["output_schema"]["required"] == ["greeting"]
    assert tool["output_schema"]["additionalProperties"] is False


def test_profile_schema_carries_the_config_descriptions(venv: Path) -> None:
    done = seamhost(venv, "profile", "schema")
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)["properties"]["plugins"]["properties"]["hello"]
    assert table["additionalProperties"] is False
    assert set(table["properties"]) == {"greeting", "deny_names", "enabled", "distribution"}
    greeting = table["properties"]["greeting"]["anyOf"][0]
    assert greeting["type"] == "string"
    assert greeting["description"]


def test_an_unknown_config_key_names_the_file_and_the_key(venv: Path, tmp_path: Path) -> None:
    path = write_profile(tmp_path, '[plugins.hello]\ngreting = "Hi"\n')
    done = seamhost(venv, "profile", "check", str(path))
    assert_usage_error(done, str(path), "plugins.hello.greting", "deny_names, greeting")


def test_a_config_value_of_the_wrong_type_names_the_key(venv: Path, tmp_path: Path) -> None:
    path = write_profile(tmp_path, '[plugins.hello]\ndeny_names = "mallory"\n')
    done = seamhost(venv, "profile", "check", str(path))
    assert_usage_error(done, str(path), "plugins.hello.deny_names")


def test_a_plugin_that_is_not_installed_names_its_distribution(venv: Path, tmp_path: Path) -> None:
    path = write_profile(tmp_path, HELLO_PROFILE + "\n[plugins.sandbox-local]\n")
    done = seamhost(venv, "profile", "check", str(path))
    assert_usage_error(
        done, str(path), "plugins.sandbox-local", "not installed", "seamhost-sandbox-local"
    )


def test_a_blocked_plugin_fails_the_profile(venv: Path, tmp_path: Path) -> None:
    path = write_profile(tmp_path, HELLO_PROFILE)
    done = seamhost(venv, "profile", "check", str(path), SEAMHOST_DISABLE_PLUGINS="hello")
    assert_usage_error(done, str(path), "plugins.hello", "blocked by SEAMHOST_DISABLE_PLUGINS")
    listed = seamhost(venv, "plugins", "--json", SEAMHOST_DISABLE_PLUGINS="hello")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []


# --------------------------------------------------------------------------------------------
# behaviour, in-process
# --------------------------------------------------------------------------------------------


@pytest.fixture
def hello_site(plugin_site: PluginSite) -> PluginSite:
    """The example's module installed as ``acme_hello`` with its real entry point."""
    # The example is a single module (src/acme_hello/__init__.py), so a copy laid out as a
    # top-level module imports exactly as the installed package does.
    plugin_site.add(
        "hello",
        (EXAMPLE / "src" / "acme_hello" / "__init__.py").read_text(encoding="utf-8"),
        distribution="acme-seamhost-hello",
        version=PROJECT["version"],
        module="acme_hello",
    )
    return plugin_site


def build(site: PluginSite, text: str, name: str = "hello.toml") -> Bundle:
    path = site.profile(name, text)
    return build_bundle(resolve_profile(str(path), environ={}), environ={})


def invocation(tool: RegisteredTool, workspace: Path, **arguments: Any) -> ToolInvocation:
    frozen = freeze(arguments)
    return ToolInvocation(
        session_id="s-1",
        turn=0,
        step=0,
        call_id="call-1",
        tool=tool,
        arguments=frozen,
        args_digest=digest(arguments),
        workspace=workspace,
        sandbox_mode=SandboxMode.READ_ONLY,
    )


def greet(bundle: Bundle, workspace: Path, name: str) -> ToolOutput:
    async def run() -> ToolOutput:
        ctx = ToolContext(
            call_id="call-1",
            arguments=freeze({"name": name}),
            workspace=workspace,
            sandbox_mode=SandboxMode.READ_ONLY,
            writable_roots=(),
            cancelled=asyncio.Event(),
        )
        output: ToolOutput = await bundle.tools["hello"].spec.body(ctx)
        return output

    return asyncio.run(run())


def vote(bundle: Bundle, call: ToolInvocation) -> Decision:
    return asyncio.run(bundle.seams.tools_pre_execute(call))


def test_the_tool_greets_with_the_configured_greeting(hello_site: PluginSite) -> None:
    bundle = build(hello_site, HELLO_PROFILE)
    output = greet(bundle, hello_site.root, "Ada")
    assert output.content == "Hi, Ada!"
    assert output.value == {"greeting": "Hi, Ada!"}
    assert output.is_error is False
    assert compile_schema(bundle.tools["hello"].spec.output_schema)(output.value) is None


def test_the_greeting_defaults_to_hello(hello_site: PluginSite) -> None:
    bundle = build(hello_site, "[plugins.hello]\n")
    assert greet(bundle, hello_site.root, "Ada").content == "Hello, Ada!"


def test_the_tool_is_declared_read_only_and_concurrency_safe(hello_site: PluginSite) -> None:
    tool = build(hello_site, HELLO_PROFILE).tools["hello"]
    assert tool.plugin == "hello"
    assert tool.spec.effect == "read-only"
    assert tool.spec.concurrency_safe is True
    assert tool.spec.runs_subprocesses is False


@pytest.mark.parametrize(
    ("arguments", "valid"),
    [
        ({"name": "Ada"}, True),
        ({}, False),
        ({"name": ""}, False),
        ({"name": 7}, False),
        ({"name": "Ada", "shout": True}, False),
    ],
)
def test_the_input_schema_is_strict(
    hello_site: PluginSite, arguments: dict[str, Any], valid: bool
) -> None:
    spec = build(hello_site, HELLO_PROFILE).tools["hello"].spec
    assert (compile_schema(spec.input_schema)(arguments) is None) is valid


def test_the_policy_denies_a_listed_name_whatever_its_case(hello_site: PluginSite) -> None:
    bundle = build(hello_site, HELLO_PROFILE)
    decision = vote(bundle, invocation(bundle.tools["hello"], hello_site.root, name="MalLory"))
    assert decision.verdict is Verdict.DENY
    assert decision.plugin == "hello"
    assert "'MalLory'" in decision.reason
    assert "plugins.hello.deny_names" in decision.reason


def test_the_policy_abstains_on_other_names(hello_site: PluginSite) -> None:
    bundle = build(hello_site, HELLO_PROFILE)
    decision = vote(bundle, invocation(bundle.tools["hello"], hello_site.root, name="Ada"))
    # Nobody voted: the seam's default (allow) carries no plugin name.
    assert decision == Decision.allow()


def test_the_policy_abstains_on_other_tools(hello_site: PluginSite) -> None:
    bundle = build(hello_site, HELLO_PROFILE)

    async def body(ctx: ToolContext) -> ToolOutput:
        raise AssertionError("governance never runs a body")

    other = RegisteredTool.of(
        ToolSpec(
            name="echo",
            description="echo",
            input_schema={"type": "object"},
            output_schema={"type": "object"},
            effect="read-only",
            concurrency_safe=True,
            body=body,
        ),
        "other",
    )
    assert vote(bundle, invocation(other, hello_site.root, name="mallory")) == Decision.allow()


def test_deny_names_accumulate_across_extends(hello_site: PluginSite) -> None:
    hello_site.profile("base.toml", HELLO_PROFILE)
    bundle = build(
        hello_site,
        """\
        [profile]
        extends = ["base.toml"]

        [plugins.hello]
        deny_names = ["eve"]
        """,
        name="child.toml",
    )
    hello = bundle.tools["hello"]
    for name in ("mallory", "eve"):
        decision = vote(bundle, invocation(hello, hello_site.root, name=name))
        assert decision.verdict is Verdict.DENY, name
    assert bundle.profile.plugins[0].config["deny_names"] == ("mallory", "eve")


def test_a_child_profile_cannot_disable_inherited_denials(hello_site: PluginSite) -> None:
    hello_site.profile("base.toml", HELLO_PROFILE)
    path = hello_site.profile(
        "child.toml", '[profile]\nextends = ["base.toml"]\n\n[plugins.hello]\nenabled = false\n'
    )
    with pytest.raises(ConfigError) as caught:
        resolve_profile(str(path), environ={})
    assert caught.value.key == "plugins.hello.enabled"
    assert caught.value.file == str(path)
