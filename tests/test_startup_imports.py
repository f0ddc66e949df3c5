"""Building a bundle loads only what building needs (issue "Kernel, workspace and profiles").

``seamhost profile check`` and every command builds the bundle; only a session runs tools, asks
for approvals or streams a model. Each first-party plugin therefore keeps what only running
needs (asyncio, the shell analysis, the answerers, the tool bodies, the session event types) out
of its import and its factory, while still validating its whole table when the bundle is built.
Each case builds, in a fresh interpreter, a bundle of one plugin with a realistic table and
checks which modules that loaded beyond what the kernel loads for an empty profile. The kernel
is held to the same rule by building the shipped profiles whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import attrs
import pytest
from seamhost_tool_policy import config as policy_config
from seamhost_tool_policy import policy as compiled_policy
from seamhost_user_approval import config as approval_config
from seamhost_user_approval import rules as approval_rules

import seamhost.approval.service

# Builds the empty profile first, so that whatever the kernel loads lazily for any bundle is not
# charged to the plugin; then prints the modules the plugin's bundle added.
PROBE = """
import json, sys
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile

build_bundle(resolve_profile(sys.argv[1]))
before = set(sys.modules)
bundle = build_bundle(resolve_profile(sys.argv[2]))
print(json.dumps({
    "plugins": sorted(bundle.pm.get_plugin(name) is not None for name in sys.argv[3:]),
    "loaded": sorted(set(sys.modules) - before),
}))
"""

RUN_TIME_ONLY_EVERYWHERE = (
    "asyncio",
    # whole sub-packages of the kernel that only a running session needs
    "seamhost.session",
    "seamhost.approval",
    "seamhost.llm",
    "seamhost.run",
    "seamhost.gateway",  # mcp serve, and the mcp SDK it loads (pydantic, anyio, starlette)
    "mcp",
    "seamhost.a2a",  # a2a serve, and the a2a SDK it loads (protobuf, starlette)
    "a2a",
    # the values of a running call: votes, results, confinement, the call itself
    "seamhost.tool.call",
    "seamhost.tool.decision",
    "seamhost.tool.result",
    "seamhost.sandbox.confinement",
)
# Building a bundle needs the foundation, the kernel, the sandbox policy and tool declarations;
# every other sub-package is deferred as a whole (docs/design.md §2).
BUILD_TIME_PACKAGES = {"seamhost.kernel", "seamhost.sandbox", "seamhost.tool"}
FOUNDATION = {
    "seamhost.errors",
    "seamhost.input_limits",  # every profile file is read through it
    "seamhost.jsonvalue",
    "seamhost.schema",
    "seamhost.lazy",
}
DEFERRED_MODULES = (
    "seamhost.sandbox.runner",
    "seamhost.sandbox.paths",
    "seamhost.kernel.profile.versions",  # only a profile that pins versions needs it
    "fastjsonschema",  # validators come from the schema cache once it is warm
    "decimal",  # generated validators check numbers without it (see seamhost.schema)
)


def sub_packages(modules: set[str]) -> set[str]:
    """The kernel's sub-packages and foundation modules among `modules`."""
    return {".".join(m.split(".")[:2]) for m in modules if m.startswith("seamhost.")}


@attrs.frozen
class Case:
    """A bundle to build: its plugin tables, what it must load, what it must not."""

    plugins: tuple[str, ...]
    tables: str
    loads: tuple[str, ...]  # proof the plugin was really imported and built
    defers: tuple[str, ...]  # only a running session may import these


CASES = {
    "tools": Case(
        plugins=("tools",),
        tables="[plugins.tools]\nshell_timeout_seconds = 30\n",
        loads=("seamhost_tools.plugin", "seamhost_tools.declarations"),
        defers=(
            "seamhost_tools.reading",
            "seamhost_tools.writing",
            "seamhost_tools.shell",
            "seamhost_tools.filework",
            "seamhost.sandbox.paths",
            "seamhost.sandbox.runner",
        ),
    ),
    "tool-policy": Case(
        plugins=("tool-policy",),
        tables="""
            [plugins.tool-policy]
            default = "ask"
            [[plugins.tool-policy.rules]]
            tool = "shell"
            command = "git push*"
            decision = "deny"
            [[plugins.tool-policy.rules]]
            tool = "write_file"
            path = "release/**"
            args = { mode = "a*" }
            decision = "ask"
            [[plugins.tool-policy.floor]]
            command = "rm -rf /*"
            reason = "never"
        """,
        loads=("seamhost_tool_policy.config", "seamhost.globs"),
        defers=(
            "seamhost_tool_policy.policy",
            "seamhost_tool_policy.shellwords",
            "seamhost_tool_policy.splitter",
            "seamhost_tool_policy.unwrap",
            "seamhost_tool_policy.tokens",
            "seamhost_tool_policy.heredocs",
            "seamhost_tool_policy.quoting",
            "seamhost_tool_policy.expansion",
            "seamhost_tool_policy.parser",
            "seamhost_tool_policy.analyser",
            "seamhost_tool_policy.options",
            "seamhost_tool_policy.wrapper_options",
            "seamhost_tool_policy.wrappers",
            "seamhost_tool_policy.shell_builtins",
            "seamhost_tool_policy.handlers",
            "seamhost_tool_policy.calls",
            "seamhost_tool_policy.evaluation",
        ),
    ),
    "user-approval": Case(
        plugins=("user-approval",),
        tables="""
            [plugins.user-approval]
            answerers = ["rules", "tty", "callback"]
            [[plugins.user-approval.rules]]
            tool = "write_file"
            args = { path = "notes/*.md" }
            decision = "allow"
        """,
        loads=("seamhost_user_approval.plugin", "seamhost_user_approval.config"),
        defers=(
            "seamhost_user_approval.rules",
            "seamhost_user_approval.answers",
            "seamhost_user_approval.terminal",
            "seamhost_user_approval.callback",
            "seamhost_user_approval.errors",
        ),
    ),
    "model-scripted": Case(
        plugins=("model-scripted",),
        tables="[plugins.model-scripted]\n",
        loads=("seamhost_model_scripted",),
        defers=(
            "seamhost_model_scripted.adapter",
            "seamhost_model_scripted.scenario",
            "seamhost_model_scripted.scenario_reader",
            "seamhost.llm.adapter",
        ),
    ),
    "sandbox-local": Case(
        plugins=("sandbox-local",),
        tables='[plugins.sandbox-local]\nbackends = ["bwrap", "landlock"]\n',
        loads=("seamhost_sandbox_local.plugin", "seamhost_sandbox_local.config"),
        defers=(
            "seamhost_sandbox_local.bubblewrap",
            "seamhost_sandbox_local.landlock",
            "seamhost_sandbox_local.probing",
            "ctypes",
            "subprocess",
        ),
    ),
    "persistence-postgres": Case(
        plugins=("persistence-postgres",),
        tables='[plugins.persistence-postgres]\ndsn = "host=127.0.0.1 port=1 dbname=unused"\n',
        loads=("seamhost_persistence_postgres", "seamhost_persistence_postgres.plugin"),
        defers=(
            "psycopg",
            "psycopg_pool",
            "seamhost_persistence_postgres.store",
            "seamhost_persistence_postgres.writing",
        ),
    ),
    "checkpoint-policy": Case(
        plugins=("checkpoint-policy", "persistence-jsonl"),
        tables="[plugins.persistence-jsonl]\n[plugins.checkpoint-policy]\n",
        loads=("seamhost_checkpoint_policy", "seamhost_persistence_jsonl.plugin"),
        defers=(
            "seamhost.llm.adapter",
            "seamhost.session.live",
            "seamhost_persistence_jsonl.store",
            "seamhost_persistence_jsonl.writing",
            "zstandard",
        ),
    ),
}


def _profile(path: Path, name: str, tables: str) -> str:
    path.write_text(f'[profile]\nname = "{name}"\n' + textwrap.dedent(tables), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("name", sorted(CASES))
def test_building_the_bundle_defers_what_only_a_session_needs(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    empty = _profile(tmp_path / "empty.toml", "empty", "")
    profile = _profile(tmp_path / "plugin.toml", name, case.tables)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, empty, profile, *case.plugins],
        capture_output=True,
        text=True,
        check=False,
        env={**environ, "SEAMHOST_HOME": str(tmp_path / "home")},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["plugins"] == [True] * len(case.plugins)
    loaded = set(report["loaded"])
    assert set(case.loads) <= loaded, "the probe did not build the plugin it names"
    early = sorted(loaded & {*case.defers, *RUN_TIME_ONLY_EVERYWHERE})
    early += sorted(sub_packages(loaded) & set(RUN_TIME_ONLY_EVERYWHERE))
    assert not early, f"building a bundle with {name} imported {early}"


def test_the_approval_policies_in_the_schema_are_the_kernels() -> None:
    # user-approval spells them out rather than import seamhost.approval.service (see its config).
    assert approval_config.POLICIES == seamhost.approval.service.POLICIES
    schema = approval_config.SCHEMA["properties"]["policy"]["enum"]
    assert tuple(schema) == seamhost.approval.service.POLICIES


def test_the_decisions_the_schemas_accept_are_those_the_plugins_compile() -> None:
    # Each config module spells them out rather than import the module that compiles them.
    assert tuple(approval_rules.DECISIONS) == approval_config.DECISIONS
    assert tuple(compiled_policy.VERDICTS) == policy_config.VERDICTS


KERNEL_PROBE = """
import json, sys
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile

build_bundle(resolve_profile(sys.argv[1]))
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize("profile", ["default", "minimal", "strict", "ci"])
def test_building_a_shipped_profile_defers_what_only_a_session_needs(
    profile: str, tmp_path: Path
) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    environ |= {"SEAMHOST_HOME": str(tmp_path / "home"), "SEAMHOST_CACHE": str(tmp_path / "cache")}
    for _ in range(2):  # the first fills the schema cache; every later command is the second
        result = subprocess.run(
            [sys.executable, "-c", KERNEL_PROBE, profile],
            capture_output=True,
            text=True,
            check=False,
            env=environ,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout))
    assert "seamhost_tools.plugin" in loaded, "the probe did not build the profile's plugins"
    packages = sub_packages(loaded)
    # seamhost.globs: loaded by the profiles whose plugins have globs (tool-policy, user-approval)
    optional = {"seamhost.version", "seamhost.globs"}
    assert packages - optional == BUILD_TIME_PACKAGES | FOUNDATION, sorted(packages)
    early = sorted(loaded & {*RUN_TIME_ONLY_EVERYWHERE, *DEFERRED_MODULES})
    assert not early, f"building the {profile} profile imported {early}"


# -- whole commands (issue 36 point 6)
# --------------------------------------------------------------------------------------

# Runs the `seamhost` command as its console script does, then prints the modules it loaded.
COMMAND_PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.__stderr__.write("\\nMODULES " + json.dumps(sorted(sys.modules))))
sys.argv = ["seamhost", *sys.argv[1:]]
from seamhost.cli import main
sys.exit(main())
"""

ROOT = Path(__file__).parent.parent

# `seamhost --help` lists the commands from the summaries the lazy group holds: click and the
# CLI's core, nothing else (not orjson, not attrs, no command module).
HELP_MODULES = {
    "seamhost",
    "seamhost.cli",
    "seamhost.cli.exitcodes",
    "seamhost.cli.failures",
    "seamhost.cli.lazy_group",
    "seamhost.cli.output",
    "seamhost.cli.terminal",
    "seamhost.errors",
    "seamhost.lazy",
    "seamhost.version",
}

# A quickstart run (file tools, a scripted model, the jsonl store) needs none of these: other
# plugins' SDKs, the gateway, the schema compiler once its cache is warm, the shell analysis
# (no call is a shell call), distribution metadata, rich's heavier renderables.
NOT_ON_A_QUICKSTART_RUN = (
    "mcp",
    "psycopg",
    "psycopg_pool",
    "opentelemetry",
    "anthropic",
    "openai",
    "httpx",
    "pydantic",
    "fastjsonschema",
    "importlib.metadata",
    "email",
    "rich.progress",
    "rich.live",
    "rich.table",
    "rich.syntax",
    "seamhost.gateway",
    "seamhost_tool_policy.unwrap",
    "seamhost_tool_policy.analyser",
    "seamhost_tool_policy.splitter",
    "seamhost_tool_policy.structure",
    "seamhost_tool_policy.programs",
    "seamhost_tool_policy.examples",
)


def _command_modules(args: list[str], tmp_path: Path) -> set[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    environ["SEAMHOST_HOME"] = str(tmp_path / "home")
    result = subprocess.run(
        [sys.executable, "-c", COMMAND_PROBE, *args],
        capture_output=True,
        text=True,
        check=False,
        env=environ,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    _, _, listed = result.stderr.rpartition("MODULES ")
    return set(json.loads(listed))


def test_help_imports_click_and_the_cli_core_alone(tmp_path: Path) -> None:
    loaded = _command_modules(["--help"], tmp_path)
    packages = {m.partition(".")[0] for m in loaded} - set(sys.stdlib_module_names)
    assert packages - {"__main__"} == {"click", "seamhost"}, sorted(packages)
    assert {m for m in loaded if m.startswith("seamhost")} == HELP_MODULES


def test_a_quickstart_run_loads_only_what_it_needs(tmp_path: Path) -> None:
    scenario = str(ROOT / "examples" / "quickstart.toml")
    _command_modules(["run", scenario], tmp_path)  # fills the caches, as any first run does
    loaded = _command_modules(["run", scenario], tmp_path)
    # proof that it ran: the file tools and the policy judged calls
    assert {"seamhost_tools.reading", "seamhost_tool_policy.evaluation"} <= loaded
    below = tuple(f"{name}." for name in NOT_ON_A_QUICKSTART_RUN)
    early = sorted(m for m in loaded if m in NOT_ON_A_QUICKSTART_RUN or m.startswith(below))
    assert not early, f"a quickstart run imported {early}"
