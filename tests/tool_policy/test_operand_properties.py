"""Properties (issue 33 point 3): floors resolve an operand as real bash does.

Random compositions of ``~``, ``~+``, ``~root``, ``$HOME``/``${HOME}``/``$PWD``/``${PWD}``/
``$OLDPWD``, single and double quotes (of parts and of slashes), ``..``, ``.``, plain names and
an optional ``cd X &&`` are given both to the policy (as ``rm -rf OPERAND``) and to a real
``bash``, which prints the operand it would pass to ``rm``, in a tree of real directories (so
every ``cd`` succeeds). Bash's operand, made absolute and with ``..`` resolved as ``realpath -m``
does (the tree holds no links), is the truth: whenever it is a protected place the floors must
deny, and wherever the policy reports the operand fully known it must be bash's.
"""

from __future__ import annotations

import os
import posixpath
import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from seamhost_tool_policy import ToolPolicy
from seamhost_tool_policy.calls import CallView
from seamhost_tool_policy.marks import UNKNOWN

from seamhost.jsonvalue import freeze
from seamhost.kernel.plugins import PluginContext
from seamhost.sandbox.policy import SandboxMode, SandboxPolicy
from seamhost.tool.call import ToolInvocation
from seamhost.tool.decision import Verdict
from tests.tool_policy.test_shell_properties import SHELL

FIRST = [
    "~",
    "$HOME",
    "${HOME}",
    "$PWD",
    "${PWD}",
    "$OLDPWD",
    "~root",
    "~+",
    ".",
    "..",
    "",
    "home",
    "ws",
    "sub",
]
LATER = ["..", "..", ".", "home", "me", "ws", "a", "b", "sub", "$HOME", "${PWD}"]
CD_TARGETS = ["sub", "..", "../..", "~", "$HOME", "~/..", "/", "HOME_ABSOLUTE"]


def quoted(part: str, how: str) -> str:
    return {"none": part, "single": f"'{part}'", "double": f'"{part}"'}[how]


@st.composite
def operands(draw: st.DrawFn) -> str:
    parts = [draw(st.sampled_from(FIRST))]
    parts += draw(st.lists(st.sampled_from(LATER), max_size=5))
    quotes = st.sampled_from(["none", "none", "single", "double"])
    slashes = st.sampled_from(["/", "/", "/", '"/"', "\\/"])  # a quoted / ends no tilde prefix
    text = quoted(parts[0], draw(quotes))
    for part in parts[1:]:
        text += draw(slashes) + quoted(part, draw(quotes))
    return text + draw(st.sampled_from(["", "", "/", '"/"']))


class Tree:
    """root/home/me (HOME) and root/ws/a/b (the workspace, with sub/), all real directories."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.home = self.root / "home" / "me"
        self.workspace = self.root / "ws" / "a" / "b"
        for directory in (self.home / "sub", self.workspace / "sub"):
            directory.mkdir(parents=True)
        # The places the floors protect: the tree's root, its two children and HOME itself.
        self.protected = {str(p) for p in (self.root, self.root / "home", self.root / "ws")}
        self.protected.add(str(self.home))

    def policy(self) -> ToolPolicy:
        floors = [
            {"tool": "shell", "program": "rm", "flags": ["-r"], "operand": place, "reason": "no"}
            for place in sorted(self.protected)
        ]
        config = freeze({"default": "allow", "floor": floors})
        return ToolPolicy(PluginContext("tool-policy", config, Path("p.toml"), SandboxPolicy()))

    def call(self, command: str) -> ToolInvocation:
        return ToolInvocation(
            session_id="s",
            turn=1,
            step=1,
            call_id="c",
            tool=SHELL,
            arguments=freeze({"command": command}),
            args_digest="sha256:0",
            workspace=self.workspace,
            sandbox_mode=SandboxMode.WORKSPACE_WRITE,
        )

    def bash(self, prefix: str, operand: str) -> tuple[str, list[str]]:
        """Where bash runs `rm` from after `prefix`, and the words it passes for `operand`."""
        script = f'{prefix}printf "%s\\0" "$(pwd -P)" {operand}'
        environ = {"PATH": os.environ["PATH"], "HOME": str(self.home)}
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=self.workspace,
            env=environ,
            capture_output=True,
            check=True,
            timeout=30,
        )
        here, *words = done.stdout.decode().split("\0")[:-1]
        return here, words


def lexical(base: str, word: str) -> str:
    """`word` from `base`, absolute, ``..`` resolved as ``realpath -m`` does without links."""
    normal = posixpath.normpath(posixpath.join(base, word))
    return normal[1:] if normal.startswith("//") else normal


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    built = Tree(tmp_path)
    # What the policy reads as the environment the shell tool starts bash with.
    monkeypatch.setenv("HOME", str(built.home))
    monkeypatch.delenv("OLDPWD", raising=False)
    monkeypatch.delenv("CDPATH", raising=False)
    monkeypatch.delenv("BASH_ENV", raising=False)
    return built


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(operand=operands(), cd=st.none() | st.sampled_from(CD_TARGETS))
def test_floors_resolve_an_operand_as_bash_does(tree: Tree, operand: str, cd: str | None) -> None:
    if cd == "HOME_ABSOLUTE":
        cd = shlex.quote(str(tree.home))
    prefix = "" if cd is None else f"cd {cd} && "
    here, words = tree.bash(prefix, operand)
    if len(words) != 1 or not words[0]:
        return  # bash passes rm no operand, or several: not the composition under test
    truth = lexical(here, words[0])

    command = f"{prefix}rm -rf {operand}"
    call = tree.call(command)
    guard = tree.policy().tools_guard(call)
    if truth in tree.protected:
        event("bash reaches a protected place")
        assert guard is not None, (command, truth)
        assert guard.verdict is Verdict.DENY, (command, truth)

    view = CallView.of(call, ())
    assert view.shell is not None
    (rm,) = [c for c in view.shell.commands if c.program == "rm"]
    (resolved,) = rm.resolved
    if not any(UNKNOWN in name for name in resolved):
        event("the policy knows the operand")
        assert truth in resolved, (command, truth, resolved)
