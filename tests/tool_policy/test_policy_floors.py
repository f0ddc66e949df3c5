"""Floors: tools/guard denies on any match; floors accumulate across extends and cannot be shed."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from seamhost_tool_policy import ToolPolicy
from seamhost_tool_policy.environment import ShellEnvironment
from seamhost_tool_policy.marks import UNKNOWN
from seamhost_tool_policy.unwrap import analyse_script

from seamhost.errors import ConfigError
from seamhost.kernel.bundle import Bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.tool.decision import Verdict
from tests.tool_policy.conftest import PolicyLab

BASE = """
[plugins.tool-policy]
[[plugins.tool-policy.floor]]
tool = "shell"
command = "rm -rf /*"
reason = "never wipe the root"
"""

CHILD = """
[[plugins.tool-policy.floor]]
path = "**/.git/**"
reason = "the repository's own files are off limits"
[[plugins.tool-policy.rules]]
decision = "allow"
reason = "everything else is fine"
"""


def family(lab: PolicyLab) -> tuple[Path, Path]:
    base = lab.profile("base.toml", BASE)
    child = lab.profile("child.toml", "[plugins.tool-policy]\n" + CHILD, extends='"base.toml"')
    return base, child


def policy_object(bundle: Bundle) -> ToolPolicy:
    plugin = bundle.pm.get_plugin("tool-policy")
    assert isinstance(plugin, ToolPolicy)
    return plugin


def test_a_matching_floor_denies_and_otherwise_the_guard_abstains(lab: PolicyLab) -> None:
    bundle = lab.bundle(BASE)
    denied = lab.guard(bundle, "shell", command="cd / && sudo rm -rf /*")
    assert denied.verdict is Verdict.DENY
    assert denied.plugin == "tool-policy"
    assert denied.reason == 'never wipe the root (floor[0] matched "rm -rf /…")'
    passed = lab.guard(bundle, "shell", command="rm -rf build/")
    assert (passed.verdict, passed.plugin) == (Verdict.ALLOW, "")  # nobody voted
    plugin = policy_object(bundle)
    assert plugin.tools_guard(lab.call(bundle, "shell", command="ls")) is None


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /",
        "ls; rm  -rf  /",
        "'rm' -rf /etc",
        "bash -c 'sh -c \"rm -rf /\"'",
        "sudo env A=1 timeout 3 rm -rf /var",
        "(cd /tmp && { nohup rm -rf / & })",
        "rm -rf $TARGET",
        "X=/; rm -rf $X",
        "find / -maxdepth 0 -exec rm -rf {} +",
        "echo / | xargs rm -rf",
        "eval 'rm -rf /'",
        "echo $(rm -rf /)",
        "bash <<EOF\nrm -rf /\nEOF",
    ],
)
def test_floors_cannot_be_dodged(lab: PolicyLab, command: str) -> None:
    bundle = lab.bundle(BASE)
    assert lab.guard(bundle, "shell", command=command).verdict is Verdict.DENY
    assert lab.decide(bundle, "shell", command=command).verdict is Verdict.DENY


def test_an_unsplittable_command_is_also_tried_as_raw_text(lab: PolicyLab) -> None:
    # source runs what the substitution prints: the splitter cannot see it is code
    command = "source <(echo rm -rf /)"
    narrow = lab.bundle(BASE)
    assert lab.guard(narrow, "shell", command=command).verdict is Verdict.ALLOW
    assert lab.decide(narrow, "shell", command=command).verdict is Verdict.ASK
    broad = lab.bundle(BASE.replace('"rm -rf /*"', '"*rm -rf /*"'))
    denied = lab.guard(broad, "shell", command=command)
    assert denied.verdict is Verdict.DENY
    assert denied.reason.startswith("never wipe the root (floor[0] matched")


def test_a_shell_reading_commands_it_is_not_shown_fails_the_floors(lab: PolicyLab) -> None:
    # cat's here-document reaches sh through a pipe: what sh runs cannot be analysed
    command = "cat <<EOF | sh\nrm -rf /\nEOF"
    denied = lab.guard(lab.bundle(BASE), "shell", command=command)
    assert denied.verdict is Verdict.DENY
    assert "cannot be checked against floor[0]: sh reads the commands" in denied.reason
    assert "never wipe the root" not in denied.reason  # it says why, not the floor's reason


def test_a_command_nested_past_the_limit_fails_the_floors(lab: PolicyLab) -> None:
    bundle = lab.bundle(BASE)
    denied = lab.guard(bundle, "shell", command="sudo " * 60 + "rm -rf /")
    assert (denied.verdict, denied.reason) == (
        Verdict.DENY,
        "this call cannot be checked against floor[0]: the command nests too deeply, and a "
        "floor denies what it cannot rule out",
    )
    substituted = "echo " + "$(" * 60 + "rm -rf /" + ")" * 60
    assert lab.guard(bundle, "shell", command=substituted).verdict is Verdict.DENY
    assert lab.guard(bundle, "shell", command="sudo " * 60 + "ls").verdict is Verdict.DENY
    assert lab.guard(bundle, "read_file", path="a").verdict is Verdict.ALLOW


def test_a_floor_denies_in_pre_execute_before_any_rule(lab: PolicyLab) -> None:
    bundle = lab.bundle(
        BASE
        + """
        [[plugins.tool-policy.rules]]
        tool = "shell"
        decision = "allow"
        """
    )
    decision = lab.decide(bundle, "shell", command="rm -rf /")
    assert (decision.verdict, decision.reason) == (
        Verdict.DENY,
        'never wipe the root (floor[0] matched "rm -rf /")',
    )


def test_floors_accumulate_across_extends(lab: PolicyLab) -> None:
    _, child = family(lab)
    profile = resolve_profile(str(child))
    entry = profile.plugin("tool-policy")
    assert entry is not None
    assert [f["reason"] for f in entry.config["floor"]] == [
        "never wipe the root",
        "the repository's own files are off limits",
    ]
    bundle = lab.bundle(path=child)
    root = lab.guard(bundle, "shell", command="rm -rf /")
    assert (root.verdict, root.reason) == (
        Verdict.DENY,
        'never wipe the root (floor[0] matched "rm -rf /")',
    )
    git = lab.guard(bundle, "write_file", path="sub/.git/config", content="")
    assert (git.verdict, git.reason) == (
        Verdict.DENY,
        "the repository's own files are off limits (floor[1])",
    )
    fine = lab.decide(bundle, "write_file", path="notes.md", content="")
    assert (fine.verdict, fine.reason) == (Verdict.ALLOW, "everything else is fine (rules[0])")


def test_a_grandchild_adds_floors_and_keeps_all_inherited(lab: PolicyLab) -> None:
    family(lab)
    grandchild = lab.profile(
        "grandchild.toml",
        """
        [plugins.tool-policy]
        default = "ask"
        floor = [{ tool = "deploy", args = { targets = "prod*" }, reason = "no prod" }]
        """,
        extends='"child.toml"',
    )
    bundle = lab.bundle(path=grandchild)
    assert [floor.where for floor in policy_object(bundle).policy.floors] == [
        "floor[0]",
        "floor[1]",
        "floor[2]",
    ]
    assert lab.guard(bundle, "shell", command="rm -rf /").verdict is Verdict.DENY
    assert lab.guard(bundle, "read_file", path=".git/HEAD").verdict is Verdict.DENY
    prod = lab.guard(bundle, "deploy", branch="main", targets=["staging", "prod-1"])
    assert (prod.verdict, prod.reason) == (Verdict.DENY, "no prod (floor[2])")


def test_a_child_cannot_remove_inherited_floors(lab: PolicyLab) -> None:
    lab.profile("base.toml", BASE)
    child = lab.profile(
        "child.toml",
        """
        [plugins.tool-policy]
        floor = []
        default = "allow"
        rules = [{ decision = "allow" }]
        """,
        extends='"base.toml"',
    )
    bundle = lab.bundle(path=child)
    assert lab.guard(bundle, "shell", command="rm -rf /").verdict is Verdict.DENY


def test_disabling_tool_policy_with_inherited_floors_is_a_configuration_error(
    lab: PolicyLab,
) -> None:
    lab.profile("base.toml", BASE)
    child = lab.profile(
        "child.toml", "[plugins.tool-policy]\nenabled = false\n", extends='"base.toml"'
    )
    with pytest.raises(ConfigError) as info:
        resolve_profile(str(child))
    error = info.value
    assert error.file == str(child)
    assert error.key == "plugins.tool-policy.enabled"
    assert "floor" in error.problem
    assert str(child) in str(error)


def test_disabling_tool_policy_without_floors_is_allowed(lab: PolicyLab) -> None:
    lab.profile("base.toml", '[plugins.tool-policy]\nrules = [{ decision = "deny" }]\n')
    child = lab.profile(
        "child.toml", "[plugins.tool-policy]\nenabled = false\n", extends='"base.toml"'
    )
    assert resolve_profile(str(child)).plugin("tool-policy") is None


def test_the_guard_only_ever_denies_or_abstains(lab: PolicyLab) -> None:
    bundle = lab.bundle(
        BASE
        + """
        [[plugins.tool-policy.rules]]
        decision = "allow"
        """
    )
    plugin = policy_object(bundle)
    calls = [
        lab.call(bundle, "shell", command=command)
        for command in ("ls", "rm -rf /", "eval x", "$X", "")
    ] + [lab.call(bundle, "write_file", path="/etc/x", content="")]
    votes = [plugin.tools_guard(call) for call in calls]
    assert all(vote is None or vote.verdict is Verdict.DENY for vote in votes)
    # "$X" may be "rm -rf /": a floor denies what it cannot rule out
    assert [vote is None for vote in votes] == [True, False, True, False, True, True]
    # what the kernel's guard dispatch makes of the votes
    outcomes = [asyncio.run(bundle.seams.tools_guard(call)).verdict for call in calls]
    assert outcomes.count(Verdict.DENY) == 2


STRUCTURED_ROOT = """
[plugins.tool-policy]
[[plugins.tool-policy.floor]]
tool = "shell"
program = "rm"
flags = ["-r"]
operand = "/"
reason = "never wipe the root"
[[plugins.tool-policy.floor]]
tool = "shell"
program = "rm"
flags = ["-r"]
operand = "/*"
reason = "never wipe a top-level directory"
"""


def test_a_relative_operand_is_judged_by_where_it_leads_from_the_workspace(
    lab: PolicyLab,
) -> None:
    bundle = lab.bundle(STRUCTURED_ROOT)
    up = "/".join([".."] * (len(lab.workspace.parts) - 1))  # from the workspace to /
    (lab.workspace / "root").symlink_to("/")
    (lab.workspace / "sub").mkdir()
    for command, cwd in [
        (f"rm -rf {up}", None),
        (f"rm -rf {up}/..", None),
        (f"rm -rf {up}/usr", None),
        (f"cd sub && rm -rf ../{up}", None),
        (f"rm -rf ../{up}", "sub"),
        ("rm -rf root/", None),
    ]:
        args = {"command": command} if cwd is None else {"command": command, "cwd": cwd}
        decision = lab.guard(bundle, "shell", **args)
        assert decision.verdict is Verdict.DENY, (command, cwd, decision.reason)
    for command in ("rm -rf ..", "rm -rf build", f"rm -rf {up}/usr/local", "rm -rf sub/x"):
        decision = lab.guard(bundle, "shell", command=command)
        assert decision.verdict is Verdict.ALLOW, (command, decision.reason)


SHELL_SPELLINGS_OF_ROOT = [
    "rm -rf ~/../..",
    "rm -rf $HOME/../..",
    "rm -rf ${HOME}/../..",
    'rm -rf "$HOME"/../../',
    'rm -rf "$PWD"/../../..',
    "rm -rf ~/../../*",
]


@pytest.mark.parametrize("command", SHELL_SPELLINGS_OF_ROOT)
def test_the_root_floor_sees_through_the_shells_expansions(
    lab: PolicyLab, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # As issue 33 reported them: HOME=/root and a workspace two levels below /, where bash
    # turns every one of these operands into / (or everything under it).
    monkeypatch.setenv("HOME", "/root")
    monkeypatch.delenv("OLDPWD", raising=False)
    deep = PolicyLab(lab.site, Path("/a/b"))
    bundle = deep.bundle(STRUCTURED_ROOT)
    denied = deep.guard(bundle, "shell", command=command)
    assert denied.verdict is Verdict.DENY, denied.reason
    assert deep.decide(bundle, "shell", command=command).verdict is Verdict.DENY


@pytest.mark.parametrize(
    "command",
    [
        'cd "$X" && rm -rf ../..',  # the .. of a directory only the run knows may reach /
        "rm -rf build/$X",  # $X may be ../../..
        "rm -rf ./*/../..",  # a match may be a link anywhere, and then .. is its parent's
        'rm -rf "$(pwd)"/..',
    ],
)
def test_an_operand_only_the_run_can_place_fails_the_root_floor(
    lab: PolicyLab, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setenv("HOME", "/root")
    deep = PolicyLab(lab.site, Path("/a/b/c/d"))  # no .. of it is a top-level directory
    denied = deep.guard(deep.bundle(STRUCTURED_ROOT), "shell", command=command)
    assert denied.verdict is Verdict.DENY, denied.reason


ROOT_ONLY = STRUCTURED_ROOT.split("[[plugins.tool-policy.floor]]")
ROOT_ONLY_FLOOR = "[[plugins.tool-policy.floor]]".join(ROOT_ONLY[:2])


@pytest.mark.parametrize(
    "command",
    [
        "HOME=/; rm -rf ~",
        "HOME=/ bash -c 'rm -rf ~'",
        "export HOME=/; rm -rf $HOME",
        "read HOME <<< /; rm -rf ~",
        "for HOME in /; do rm -rf ~; done",
        "declare -n h=HOME; h=/; rm -rf ~",
        'x=HO; declare -n h="${x}ME"; h=/; rm -rf ~',
        "eval 'HO''ME=/'; rm -rf ~",
        "eval \"$(printf 'HO%s=/' ME)\"; rm -rf ~",  # eval of text only the run knows
        ': ${HOME:=/}; rm -rf "$HOME"',
        'cd / && rm -rf "$PWD"',
        'rm -rf "$PWD"/..; cd /',  # a loop or a function may run the rm after the cd
        "CDPATH=/; cd usr && rm -rf ..",
        "env -i bash -c 'rm -rf ~/../../..'",  # without HOME, ~ is the password database's
        "sudo -u nobody bash -c 'rm -rf ~/../..'",
    ],
)
def test_a_variable_the_call_may_set_is_not_taken_from_the_environment(
    lab: PolicyLab, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # Taken from the environment, every one of these operands would be far below / here; bash
    # may make each of them /, so the floor must deny.
    monkeypatch.setenv("HOME", "/home/deep/er/me")
    monkeypatch.delenv("CDPATH", raising=False)
    deep = PolicyLab(lab.site, Path("/w/o/r/k"))
    denied = deep.guard(deep.bundle(ROOT_ONLY_FLOOR), "shell", command=command)
    assert denied.verdict is Verdict.DENY, denied.reason


@pytest.mark.parametrize(
    ("environ", "command"),
    [
        ({"OLDPWD": "/"}, 'rm -rf "$OLDPWD"'),
        ({"OLDPWD": "/"}, "cd - && rm -rf ."),
        ({"HOME": "/"}, "cd && rm -rf ."),
        ({"HOME": "/root"}, "rm -rf ~root/.."),
        ({}, "rm -rf ~+/../../../.."),
    ],
)
def test_the_environment_the_shell_starts_with_resolves_the_operand(
    lab: PolicyLab, monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], command: str
) -> None:
    monkeypatch.setenv("HOME", "/home/deep/er/me")
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    deep = PolicyLab(lab.site, Path("/w/o/r/k"))
    bundle = deep.bundle(ROOT_ONLY_FLOOR)
    denied = deep.guard(bundle, "shell", command=command)
    assert denied.verdict is Verdict.DENY, denied.reason
    assert denied.reason.startswith("never wipe the root (floor[0] matched")


def test_a_bare_expansion_is_only_resolved_while_ifs_is_the_default(
    lab: PolicyLab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/me")
    environment = ShellEnvironment.of(str(lab.workspace), os.environ)
    for command, operand in [
        ("rm -rf $HOME", "/home/me"),
        ('IFS=/; rm -rf "$HOME"', "/home/me"),
        ("IFS=/; rm -rf $HOME", UNKNOWN),  # split at each /
    ]:
        (rm,) = [c for c in analyse_script(command, environment).commands if c.program == "rm"]
        assert rm.operands == ((operand,),), command


def test_a_startup_file_makes_every_variable_unknown(
    lab: PolicyLab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/deep/er/me")
    bundle = lab.bundle(ROOT_ONLY_FLOOR)
    assert lab.guard(bundle, "shell", command="rm -rf ~/..").verdict is Verdict.ALLOW
    monkeypatch.setenv("BASH_ENV", "/etc/bash_env")  # it may set HOME=/
    assert lab.guard(bundle, "shell", command="rm -rf ~/..").verdict is Verdict.DENY
