"""The shell tool: real subprocesses through the kernel's `SandboxRunner`.

Confining modes with no `sandbox/confine` provider must never spawn anything. Where a provider is
needed, a small one is registered on a real plugin manager: it wraps the argv with ``env`` (a real
wrapper, not a mock) because the sandbox-local plugin and its backends are not part of this
distribution.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from seamhost_tools.settings import ToolSettings

from seamhost.errors import ErrorCode
from seamhost.kernel.bundle import make_plugin_manager
from seamhost.kernel.hookspecs import hookimpl
from seamhost.kernel.seams import Seams
from seamhost.sandbox.confinement import ConfinedCommand, ConfineRequest
from seamhost.sandbox.policy import ExitVerdict, SandboxMode
from seamhost.schema import compile_schema
from seamhost.tool.result import ToolFailed
from tests.tools.conftest import tool_spec

if TYPE_CHECKING:
    from tests.tools.conftest import Layout, ToolCaller

RO, WW, FULL = (
    SandboxMode.READ_ONLY,
    SandboxMode.WORKSPACE_WRITE,
    SandboxMode.DANGER_FULL_ACCESS,
)
DENIED_EXIT = 77  # what the test provider's classifier reads as "the sandbox denied it"


class EnvSandbox:
    """A `sandbox/confine` provider that marks the command's environment and records requests."""

    def __init__(self, *, fail: bool = False) -> None:
        self.requests: list[ConfineRequest] = []
        self.fail = fail

    @hookimpl
    def sandbox_confine(self, request: ConfineRequest) -> ConfinedCommand:
        self.requests.append(request)
        if self.fail:
            raise RuntimeError("no backend works here")
        return ConfinedCommand(
            argv=("env", "SEAMHOST_TEST_CONFINED=1", *request.argv),
            env=request.env,
            backend="env-wrapper",
            enforcement="partial",
            classify=_classify,
        )


def _classify(returncode: int, stderr: bytes) -> ExitVerdict:
    return "denied" if returncode == DENIED_EXIT else "ok"


def seams_with(provider: object) -> Seams:
    pm = make_plugin_manager()
    pm.register(provider, name="env-sandbox")
    return Seams(pm)


def failure(call: ToolCaller, arguments: dict[str, Any], **kw: Any) -> ToolFailed:
    with pytest.raises(ToolFailed) as failed:
        call("shell", arguments, **kw)
    return failed.value


# --------------------------------------------------------------------------------------------
# no provider: nothing runs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [RO, WW], ids=str)
@pytest.mark.parametrize(
    "arguments",
    [{"command": "touch marker"}, {"argv": ["touch", "marker"]}],
    ids=["command", "argv"],
)
def test_confining_mode_without_provider_spawns_nothing(
    call_tool: ToolCaller, layout: Layout, mode: SandboxMode, arguments: dict[str, Any]
) -> None:
    failed = failure(call_tool, arguments, mode=mode)
    assert failed.code == ErrorCode.SANDBOX_UNAVAILABLE
    assert f"no usable sandbox for mode {mode}" in failed.message
    assert not (layout.workspace / "marker").exists()


def test_full_access_runs_the_same_command(call_tool: ToolCaller, layout: Layout) -> None:
    out = call_tool("shell", {"command": "touch marker"}, mode=FULL)
    assert (layout.workspace / "marker").exists()
    assert out.meta == {"backend": "none", "enforcement": "none"}


# --------------------------------------------------------------------------------------------
# running under danger-full-access
# --------------------------------------------------------------------------------------------


def test_stdout_stderr_and_exit_code(call_tool: ToolCaller) -> None:
    out = call_tool("shell", {"command": "echo hello; echo oops >&2"}, mode=FULL)
    assert not out.is_error
    assert out.value["exit_code"] == 0
    assert out.value["stdout"] == "hello\n"
    assert out.value["stderr"] == "oops\n"
    assert out.content == "exit code 0\n--- stdout ---\nhello\n--- stderr ---\noops"


def test_no_output(call_tool: ToolCaller) -> None:
    assert call_tool("shell", {"command": "true"}, mode=FULL).content == "exit code 0\n(no output)"


def test_non_zero_exit_is_an_error_with_the_code(call_tool: ToolCaller) -> None:
    out = call_tool("shell", {"command": "echo partial; exit 3"}, mode=FULL)
    assert out.is_error
    assert out.error_code == ErrorCode.TOOL_ERROR
    assert out.value["exit_code"] == 3
    assert out.value["stdout"] == "partial\n"
    assert out.content.startswith("exit code 3\n")


def test_killed_by_a_signal(call_tool: ToolCaller) -> None:
    out = call_tool("shell", {"command": "kill -9 $$"}, mode=FULL)
    assert out.is_error
    assert out.value["exit_code"] == -9
    assert out.content.startswith("killed by signal 9")


def test_argv_runs_without_a_shell(call_tool: ToolCaller) -> None:
    out = call_tool("shell", {"argv": ["printf", "%s|", "a b", "$HOME", "c"]}, mode=FULL)
    assert out.value["stdout"] == "a b|$HOME|c|"


def test_a_program_that_cannot_start(call_tool: ToolCaller) -> None:
    out = call_tool("shell", {"argv": ["/nonexistent/program"]}, mode=FULL)
    assert out.is_error
    assert out.error_code == ErrorCode.TOOL_ERROR
    assert out.content.startswith("the command could not be run\n--- stderr ---\n")
    assert "/nonexistent/program" in out.value["stderr"]


def test_output_is_capped_with_a_marker(call_tool: ToolCaller) -> None:
    command = "head -c 1000 /dev/zero | tr '\\0' x; head -c 10 /dev/zero | tr '\\0' e >&2"
    out = call_tool(
        "shell", {"command": command}, mode=FULL, settings=ToolSettings(output_limit_bytes=100)
    )
    assert out.value["stdout"] == "x" * 100
    assert out.value["stdout_truncated"]
    assert out.value["stderr"] == "e" * 10
    assert not out.value["stderr_truncated"]
    assert "x" * 100 + "\n[... stdout cut after 100 bytes]\n--- stderr ---" in out.content


def test_runner_cap_is_reported_too(call_tool: ToolCaller) -> None:
    out = call_tool("shell", {"command": "seq 1000"}, mode=FULL, runner_output_limit=50)
    assert len(out.value["stdout"]) == 50
    assert out.value["stdout_truncated"]
    assert out.content.endswith("[... stdout cut after 50 bytes]")


def test_cut_never_splits_a_character(call_tool: ToolCaller) -> None:
    out = call_tool(
        "shell",
        {"command": "printf 'ééé'"},
        mode=FULL,
        settings=ToolSettings(output_limit_bytes=5),
    )
    assert out.value["stdout"] == "éé"


def _gone(pid: int) -> bool:
    """The process no longer runs (reaped, or a zombie nobody reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.02)
    return False


def test_timeout_kills_the_process_group(call_tool: ToolCaller, layout: Layout) -> None:
    command = "sleep 60 & echo $! > child.pid; wait"
    out = call_tool("shell", {"command": command, "timeout_seconds": 0.5}, mode=FULL)
    assert out.is_error
    assert out.error_code == ErrorCode.TOOL_TIMEOUT
    assert out.value["timed_out"]
    assert out.value["exit_code"] is None
    assert out.content.startswith("timed out after 0.5 s")
    child = int((layout.workspace / "child.pid").read_text())
    assert _wait_gone(child), f"background child {child} survived the timeout"


def test_cancellation_kills_the_command(call_tool: ToolCaller, layout: Layout) -> None:
    command = "sleep 60 & echo $! > child.pid; wait"
    out = call_tool(
        "shell", {"command": command, "timeout_seconds": 30}, mode=FULL, cancel_after=0.5
    )
    assert out.is_error
    assert out.error_code == ErrorCode.ABORTED  # not TOOL_TIMEOUT: it did not wait 30 s
    child = int((layout.workspace / "child.pid").read_text())
    assert _wait_gone(child), f"background child {child} survived the cancellation"


# --------------------------------------------------------------------------------------------
# working directory
# --------------------------------------------------------------------------------------------


def test_cwd_inside_the_workspace(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "sub").mkdir()
    out = call_tool("shell", {"command": "pwd -P", "cwd": "sub"}, mode=FULL)
    assert out.value["stdout"] == f"{layout.workspace.resolve() / 'sub'}\n"
    default = call_tool("shell", {"argv": ["pwd", "-P"]}, mode=FULL)
    assert default.value["stdout"] == f"{layout.workspace.resolve()}\n"


@pytest.mark.parametrize("mode", [RO, WW, FULL], ids=str)
def test_cwd_outside_the_workspace_is_refused(
    call_tool: ToolCaller, layout: Layout, mode: SandboxMode
) -> None:
    (layout.workspace / "door").symlink_to(layout.outside)
    for cwd in ("..", "door", str(layout.outside)):
        failed = failure(call_tool, {"command": "touch marker", "cwd": cwd}, mode=mode)
        assert failed.code == ErrorCode.SANDBOX_DENIED
        assert "outside the workspace" in failed.message
    assert not (layout.outside / "marker").exists()


def test_missing_cwd(call_tool: ToolCaller) -> None:
    failed = failure(call_tool, {"command": "true", "cwd": "nope"}, mode=FULL)
    assert failed.code == ErrorCode.TOOL_ERROR
    assert "is not a directory" in failed.message


# --------------------------------------------------------------------------------------------
# through a sandbox provider
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [RO, WW], ids=str)
def test_confined_run_goes_through_the_provider(
    call_tool: ToolCaller, layout: Layout, mode: SandboxMode
) -> None:
    provider = EnvSandbox()
    out = call_tool(
        "shell", {"command": "echo $SEAMHOST_TEST_CONFINED"}, mode=mode, seams=seams_with(provider)
    )
    assert out.value["stdout"] == "1\n"
    assert out.meta == {"backend": "env-wrapper", "enforcement": "partial"}
    [request] = provider.requests
    assert request.argv == ("bash", "-c", "echo $SEAMHOST_TEST_CONFINED")
    assert request.mode is mode
    assert request.workspace == layout.workspace


def test_full_access_bypasses_the_provider(call_tool: ToolCaller) -> None:
    provider = EnvSandbox()
    out = call_tool(
        "shell", {"command": "echo ${SEAMHOST_TEST_CONFINED:-no}"}, mode=FULL,
        seams=seams_with(provider),
    )  # fmt: skip
    assert out.value["stdout"] == "no\n"
    assert provider.requests == []


def test_denial_by_the_sandbox(call_tool: ToolCaller) -> None:
    out = call_tool(
        "shell", {"command": f"exit {DENIED_EXIT}"}, mode=WW, seams=seams_with(EnvSandbox())
    )
    assert out.is_error
    assert out.error_code == ErrorCode.SANDBOX_DENIED
    assert out.content.startswith(
        f"the sandbox (env-wrapper) denied the command (exit code {DENIED_EXIT})"
    )


def test_a_failing_provider_runs_nothing(call_tool: ToolCaller, layout: Layout) -> None:
    seams = seams_with(EnvSandbox(fail=True))
    failed = failure(call_tool, {"command": "touch marker"}, mode=WW, seams=seams)
    assert failed.code == ErrorCode.SANDBOX_UNAVAILABLE
    assert "no backend works here" in failed.message
    assert not (layout.workspace / "marker").exists()


# --------------------------------------------------------------------------------------------
# the input schema
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"command": "true", "argv": ["true"]},
        {"argv": []},
        {"command": ""},
        {"command": "true", "shell": "zsh"},
        {"command": "true", "timeout_seconds": 0},
        {"command": "true", "timeout_seconds": 1801},
    ],
    ids=["neither", "both", "empty-argv", "empty-command", "unknown-key", "zero-timeout",
         "timeout-above-max"],
)  # fmt: skip
def test_invalid_arguments_are_refused_by_the_schema(arguments: dict[str, Any]) -> None:
    validate = compile_schema(tool_spec("shell", ToolSettings()).input_schema)
    assert validate(arguments) is not None


def test_the_timeout_bound_follows_the_settings() -> None:
    settings = ToolSettings(shell_timeout_seconds=5, shell_max_timeout_seconds=10)
    validate = compile_schema(tool_spec("shell", settings).input_schema)
    assert validate({"command": "true", "timeout_seconds": 10}) is None
    assert validate({"command": "true", "timeout_seconds": 11}) is not None


def test_default_timeout_applies(call_tool: ToolCaller) -> None:
    out = call_tool(
        "shell",
        {"command": "sleep 10"},
        mode=FULL,
        settings=ToolSettings(shell_timeout_seconds=0.3),
    )
    assert out.error_code == ErrorCode.TOOL_TIMEOUT
    assert out.content.startswith("timed out after 0.3 s")


def test_environment_is_inherited(call_tool: ToolCaller, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEAMHOST_TOOLS_PROBE", "here")
    out = call_tool("shell", {"command": "echo $SEAMHOST_TOOLS_PROBE"}, mode=FULL)
    assert out.value["stdout"] == "here\n"


def test_a_descendant_holding_the_pipes_cannot_hang_the_runner(tmp_path: Path) -> None:
    """The command ends; a process that left its group keeps stdout open: the run still returns.

    The kernel's own reaper (danger-full-access) and sandbox-local's backends end such a
    process with the command; a third-party backend might not, which this confinement mimics.
    """
    import asyncio

    from seamhost.sandbox.runner import PIPE_GRACE_SECONDS, SandboxRunner

    async def not_reaping(request: ConfineRequest) -> ConfinedCommand:
        return ConfinedCommand(request.argv, request.env, "not-reaping", "partial", _ok)

    runner = SandboxRunner(not_reaping, SandboxMode.WORKSPACE_WRITE, tmp_path)
    start = time.monotonic()
    result = asyncio.run(runner.run(("bash", "-c", "echo hi; setsid sleep 5 &")))
    elapsed = time.monotonic() - start
    assert result.returncode == 0
    assert result.stdout == b"hi\n"
    assert result.stdout_truncated, "what a stray descendant might still write is reported as cut"
    assert elapsed < 5, f"the run waited {elapsed:.1f}s for a stray descendant"
    assert elapsed >= PIPE_GRACE_SECONDS * 0.9


def _ok(returncode: int, stderr: bytes) -> ExitVerdict:
    return "ok"
