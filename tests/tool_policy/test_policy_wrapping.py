"""The shipped profile's decision on a denied or asked command never weakens when it is wrapped.

Generated compound commands put the bare command (``rm -rf /`` spelt with permuted options,
``git push`` with git's global options) inside known wrappers, subshells, groups, pipes and
``bash -c``; the decision of the default profile's tool-policy (its rules and its floors, as
``seamhost policy explain`` sees them) is never weaker than for the bare command.
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from seamhost_tool_policy import ToolPolicy

from seamhost import PluginContext
from seamhost.jsonvalue import freeze
from seamhost.sandbox.policy import SandboxPolicy
from seamhost.tool.decision import Verdict
from tests.tool_policy.test_shell_properties import shell_call

_DEFAULT = tomllib.loads(
    resources.files("seamhost").joinpath("profiles/default.toml").read_text(encoding="utf-8")
)
PLUGIN = ToolPolicy(
    PluginContext(
        "tool-policy", freeze(_DEFAULT["plugins"]["tool-policy"]), Path("default.toml"),
        SandboxPolicy(),
    )
)  # fmt: skip

WRAPPERS: list[Callable[[str], str]] = [
    lambda c: f"sudo {c}",
    lambda c: f"sudo -u root -E {c}",
    lambda c: f"env -i A=1 {c}",
    lambda c: f"timeout -s KILL 5 {c}",
    lambda c: f"nice -n 5 {c}",
    lambda c: f"nohup {c}",
    lambda c: f"unshare -r -n {c}",
    lambda c: f"strace -f -o /dev/null {c}",
    lambda c: f"chrt -i 0 {c}",
    lambda c: f"setpriv --no-new-privs {c}",
    lambda c: f"prlimit --nofile=64 {c}",
    lambda c: f"fakeroot -- {c}",
    lambda c: f"nsenter -t 1 -n {c}",
    lambda c: f"systemd-run --user --wait {c}",
    lambda c: f"doas {c}",
    lambda c: f"runuser -u me -- {c}",
    lambda c: f"flock /tmp/lock {c}",
    lambda c: f"ionice -c 3 {c}",
    lambda c: f"taskset 0x1 {c}",
    lambda c: f"stdbuf -oL {c}",
    lambda c: f"xargs -0 {c}",
    lambda c: f"unshare --no-such-option {c}",  # unanalysable: a floor denies, a rule asks
]
# These make a compound command (or a string of one): only they may wrap it further, since an
# argv wrapper runs a simple command.
COMPOUNDS: list[Callable[[str], str]] = [
    lambda c: f"( {c} )",
    lambda c: f"{{ {c}; }}",
    lambda c: f"true && {c}",
    lambda c: f"echo x | {c} | cat",
    lambda c: f"bash -c {shlex.quote(c)}",
    lambda c: f"su -c {shlex.quote(c)}",
    lambda c: f"watch -n 1 {shlex.quote(c)}",
]
STRINGS = COMPOUNDS[4:]  # bash -c, su -c, watch: a simple command again


@st.composite
def root_deletion(draw: st.DrawFn) -> str:
    recursive = draw(st.sampled_from(["-r", "-R", "--recursive"]))
    force = draw(st.sampled_from(["", "-f", "--force"]))
    options = [o for o in (recursive, force) if o]
    options = draw(st.permutations(options))
    if draw(st.booleans()) and recursive in ("-r", "-R") and force == "-f":
        options = [draw(st.sampled_from(["-rf", "-fr", "-Rf", "-fR"]))]
    target = draw(st.sampled_from(["/", "//", "/tmp/..", "/usr/..", "-- /"]))
    return " ".join(["rm", *options, target])


@st.composite
def git_push(draw: st.DrawFn) -> str:
    globals_ = draw(
        st.lists(
            st.sampled_from(["-C .", "-c k=v", "--git-dir=.git", "--no-pager", "-P", "--bare"]),
            max_size=3,
        )
    )
    tail = draw(st.sampled_from(["", "origin", "--force origin main", "-f"]))
    return " ".join(["git", *globals_, "push", tail]).strip()


def verdict(command: str) -> Verdict:
    call = shell_call(command)
    if PLUGIN.tools_guard(call) is not None:
        return Verdict.DENY
    return PLUGIN.tools_pre_execute(call).verdict


@settings(max_examples=300, deadline=None)
@given(st.one_of(root_deletion(), git_push()), st.data())
def test_wrapping_never_weakens_the_decision(bare: str, data: st.DataObject) -> None:
    expected = verdict(bare)
    assert expected is not Verdict.ALLOW, bare  # the bare command is denied or asked
    command, simple = bare, True
    for _ in range(data.draw(st.integers(0, 4))):
        wrap = data.draw(st.sampled_from(WRAPPERS + COMPOUNDS if simple else COMPOUNDS))
        command = wrap(command)
        simple = wrap in WRAPPERS or wrap in STRINGS
    assert verdict(command) >= expected, (bare, command)
