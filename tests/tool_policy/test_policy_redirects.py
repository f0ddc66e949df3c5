"""Redirections through a real bundle: the file a shell command redirects to or from is a place
of the call, for `location` and `path` rules and for floors alike."""

from __future__ import annotations

import pytest

from seamhost.tool.decision import Verdict
from tests.tool_policy.conftest import PolicyLab

OUTSIDE_ASKS = """
[[plugins.tool-policy.rules]]
tool = "shell"
location = "outside-workspace"
decision = "ask"
reason = "outside the workspace"
"""

OUTSIDE_DENIED = """
[[plugins.tool-policy.rules]]
location = "outside-workspace"
decision = "deny"
reason = "outside the workspace"
"""

SECRETS = """
[[plugins.tool-policy.rules]]
path = "**/.env"
decision = "deny"
reason = "secrets"
"""

OUTSIDE_FLOOR = """
[plugins.tool-policy]
[[plugins.tool-policy.floor]]
location = "outside-workspace"
reason = "nothing outside the workspace"
"""


@pytest.mark.parametrize(
    ("command", "target"),
    [
        ("echo pwned > /etc/cron.d/x", "/etc/cron.d/x"),
        ("cat < /etc/shadow", "/etc/shadow"),
        ("make >> /var/log/build.log", "/var/log/build.log"),
        ("cmd &> /tmp/all", "/tmp/all"),
        ("cmd 2> ../errors", "errors"),
        ("cmd >& /tmp/both", "/tmp/both"),
        ("> /etc/motd", "/etc/motd"),
        ("exec 3<> /etc/hosts", "/etc/hosts"),
        ("cmd >| //etc/x", "/etc/x"),
    ],
)
def test_a_redirection_outside_the_workspace_asks(
    lab: PolicyLab, command: str, target: str
) -> None:
    decision = lab.decide(lab.bundle(OUTSIDE_ASKS), "shell", command=command)
    assert decision.verdict is Verdict.ASK
    assert decision.reason.startswith("outside the workspace (rules[0] ")
    assert "a redirection to " in decision.reason
    assert decision.reason.endswith(f"{target})")


def test_the_reason_names_the_redirection_and_a_command_the_rule_looked_at(
    lab: PolicyLab,
) -> None:
    command = "ls; echo pwned > /etc/cron.d/x"
    decision = lab.decide(lab.bundle(OUTSIDE_ASKS), "shell", command=command)
    assert decision.reason == "outside the workspace (rules[0] a redirection to /etc/cron.d/x)"
    bundle = lab.bundle(
        """
        [[plugins.tool-policy.rules]]
        command = "echo *"
        location = "outside-workspace"
        decision = "deny"
        reason = "no echoing out"
        """
    )
    denied = lab.decide(bundle, "shell", command=command)
    assert (denied.verdict, denied.reason) == (
        Verdict.DENY,
        'no echoing out (rules[0] "echo pwned" and a redirection to /etc/cron.d/x)',
    )
    # places belong to the call: the rule sees "echo" and the place, whichever wrote there
    assert lab.decide(bundle, "shell", command="echo a; cat < /etc/x").verdict is Verdict.DENY
    assert lab.decide(bundle, "shell", command="ls > /etc/x").verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    "command",
    [
        "echo hi > out.txt",
        "sort < data/in.csv >> data/sorted.csv",
        "cmd > ./build/../log 2>&1",
        "cmd 2>&1 >&2 <&0 3>&1- >&-",
        "cmd > /dev/null 2> /dev/stderr < /dev/stdin",
        "cmd > /dev/stdout >> /dev/tty 3> /dev/fd/3",
        "cmd > /dev/../dev/null",
        "cat <<EOF\nhi\nEOF",
        "grep x <<< 'text'",
        "cmd 2>&f",
    ],
)
def test_redirections_inside_the_workspace_or_to_streams_stay_allowed(
    lab: PolicyLab, command: str
) -> None:
    decision = lab.decide(lab.bundle(OUTSIDE_DENIED + SECRETS), "shell", command=command)
    assert decision.verdict is not Verdict.DENY, decision
    assert "redirection" not in decision.reason
    floor = lab.guard(lab.bundle(OUTSIDE_FLOOR), "shell", command=command)
    assert floor.verdict is Verdict.ALLOW, floor


@pytest.mark.parametrize(
    "command",
    [
        "bash -c 'echo x > /etc/x'",
        "sh -c \"bash -c 'cat < /etc/shadow'\"",
        "( cd sub && echo x ) > /etc/x",
        "(echo x > /etc/x)",
        "{ echo a; echo b; } 2> /etc/x",
        "{ echo x > /etc/x; }",
        "sudo echo x > /etc/x",
        "sudo tee < /etc/shadow",
        "env A=1 echo x >> /etc/x",
        "nohup timeout 5 cmd > /tmp/nohup.out &",
        "if true; then echo x; fi > /etc/x",
        "for f in a b; do echo $f; done >> /etc/x",
        "ls && echo x | tee y > /etc/x",
        "f() { echo x > /etc/x; }; f",
        "echo $(cat < /etc/shadow)",
        "sudo -u root bash -c 'echo x > /etc/x'",
        "xargs sh -c 'echo > /etc/x'",
        "find . -exec sh -c 'cat < /etc/shadow' \\;",
        "watch -n 1 'date > /etc/x'",
    ],
)
def test_a_redirection_counts_through_every_construct_and_wrapper(
    lab: PolicyLab, command: str
) -> None:
    decision = lab.decide(lab.bundle(OUTSIDE_DENIED), "shell", command=command)
    assert decision.verdict is Verdict.DENY, decision
    assert "a redirection to /" in decision.reason
    floor = lab.guard(lab.bundle(OUTSIDE_FLOOR), "shell", command=command)
    assert floor.verdict is Verdict.DENY, floor


def test_a_redirection_inside_an_argv_shell_counts(lab: PolicyLab) -> None:
    bundle = lab.bundle(OUTSIDE_DENIED)
    denied = lab.decide(bundle, "exec", argv=["sh", "-c", "echo x > /etc/x"])
    assert denied.verdict is Verdict.DENY
    # run directly, ">" is a word, not a redirection
    echoed = lab.decide(bundle, "exec", argv=["echo", "x", ">", "/etc/x"])
    assert echoed.verdict is Verdict.ALLOW


def test_a_floor_on_outside_the_workspace_denies_an_append_outside(lab: PolicyLab) -> None:
    bundle = lab.bundle(OUTSIDE_FLOOR)
    denied = lab.guard(bundle, "shell", command="echo x >> /etc/x")
    assert (denied.verdict, denied.reason) == (
        Verdict.DENY,
        "nothing outside the workspace (floor[0] a redirection to /etc/x)",
    )
    assert lab.decide(bundle, "shell", command="echo x >> /etc/x").verdict is Verdict.DENY
    assert lab.guard(bundle, "shell", command="echo x >> log").verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    ("command", "target"),
    [
        ("echo K=V > .env", ".env"),
        ("cat < sub/.env", "sub/.env"),
        ("cmd 2>> deep/er/.env", "deep/er/.env"),
        ("bash -c 'echo > app/.env'", "app/.env"),
    ],
)
def test_a_path_rule_catches_a_redirection_to_its_files(
    lab: PolicyLab, command: str, target: str
) -> None:
    decision = lab.decide(lab.bundle(SECRETS), "shell", command=command)
    assert decision.verdict is Verdict.DENY
    assert decision.reason.startswith("secrets (rules[0] ")
    assert decision.reason.endswith(f"a redirection to {target})")


def test_a_path_rule_still_ignores_the_call_s_own_directory(lab: PolicyLab) -> None:
    bundle = lab.bundle(SECRETS.replace("**/.env", "**"))
    assert lab.decide(bundle, "shell", command="ls").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "shell", command="ls", cwd="sub").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "shell", command="ls > out").verdict is Verdict.DENY


@pytest.mark.parametrize(
    "command",
    [
        'echo x > "$f"',
        "HOME=/etc; echo x > ~/x",  # the call sets HOME: ~ is no longer the environment's
        "cat < *.log",
        "echo x > build/$name",
        "echo x >& $out",
        "cmd > $(mktemp)",
        "cd /etc && echo x > passwd",
        "pushd /etc; echo x > passwd",
        "env -C /etc sh -c 'echo x > passwd'",
        "sudo -D /etc sh -c 'echo x > passwd'",
        "su - root -c 'echo x > .profile'",
        "find / -name x -execdir sh -c 'echo > y' \\;",
        "chroot /srv sh -c 'echo x > /work/file'",
    ],
)
def test_a_target_only_known_at_run_time_may_be_anywhere(lab: PolicyLab, command: str) -> None:
    for rules in (OUTSIDE_ASKS, OUTSIDE_DENIED):
        decision = lab.decide(lab.bundle(rules), "shell", command=command)
        assert decision.verdict is Verdict.ASK, (rules, decision)
        assert "outside the workspace (rules[0] may match" in decision.reason
        assert "(part of it is only known at run time)" in decision.reason
    secrets = lab.decide(lab.bundle(SECRETS), "shell", command=command)
    assert secrets.verdict is Verdict.ASK
    assert "secrets (rules[0] may match" in secrets.reason
    floor = lab.guard(lab.bundle(OUTSIDE_FLOOR), "shell", command=command)
    assert floor.verdict is Verdict.DENY  # a floor denies what it cannot rule out


def test_an_unknown_target_shows_what_is_known_of_it(lab: PolicyLab) -> None:
    decision = lab.decide(lab.bundle(OUTSIDE_ASKS), "shell", command="cd x && make > log")
    assert decision.reason == (
        "outside the workspace (rules[0] may match a redirection to …/log "
        "(part of it is only known at run time))"
    )


def test_an_unknown_target_is_not_known_to_be_inside_either(lab: PolicyLab) -> None:
    bundle = lab.bundle(
        """
        [plugins.tool-policy]
        default = "deny"
        [[plugins.tool-policy.rules]]
        tool = "shell"
        location = "inside-workspace"
        decision = "allow"
        """
    )
    assert lab.decide(bundle, "shell", command="echo x > out").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "shell", command="echo x > /tmp/out").verdict is Verdict.DENY
    assert lab.decide(bundle, "shell", command='echo x > "$out"').verdict is Verdict.DENY


def test_a_relative_target_is_relative_to_the_cwd_argument(lab: PolicyLab) -> None:
    bundle = lab.bundle(OUTSIDE_ASKS)
    (lab.workspace / "sub").mkdir()
    inside = lab.decide(bundle, "shell", command="echo x > out", cwd="sub")
    assert inside.verdict is Verdict.ALLOW
    escaped = lab.decide(bundle, "shell", command="echo x > ../../out", cwd="sub")
    assert escaped.verdict is Verdict.ASK
    assert escaped.reason.endswith(f"a redirection to {lab.workspace.parent / 'out'})")
    # the cwd itself is outside too, and the target is named where it lies
    elsewhere = lab.decide(bundle, "shell", command="echo x > out", cwd="/tmp")
    assert elsewhere.verdict is Verdict.ASK
    into = lab.decide(bundle, "shell", command=f"cat < {lab.workspace}/a", cwd="/tmp")
    assert into.verdict is Verdict.ASK  # the cwd is outside; the target is not
    assert "redirection" not in into.reason
    floor = lab.bundle(OUTSIDE_FLOOR)
    assert lab.guard(floor, "shell", command="echo > ../../x", cwd="sub").verdict is Verdict.DENY
    assert lab.guard(floor, "shell", command="echo > ../x", cwd="sub").verdict is Verdict.ALLOW


def test_a_redirection_through_a_symlink_out_of_the_workspace_is_outside(
    lab: PolicyLab,
) -> None:
    outside = lab.workspace.parent / "elsewhere"
    outside.mkdir()
    (lab.workspace / "link").symlink_to(outside)
    (lab.workspace / "secret").symlink_to(outside / ".env")
    bundle = lab.bundle(OUTSIDE_ASKS + SECRETS)
    linked = lab.decide(bundle, "shell", command="echo x > link/file")
    assert linked.verdict is Verdict.ASK
    assert linked.reason.endswith(f"a redirection to {outside / 'file'})")
    hidden = lab.decide(bundle, "shell", command="echo x > secret")
    assert hidden.verdict is Verdict.ASK  # outside (rules[0]) decides before secrets (rules[1])
    secrets = lab.decide(lab.bundle(SECRETS), "shell", command="echo x > secret")
    assert secrets.verdict is Verdict.DENY


def test_many_redirections_do_not_multiply_the_subjects(lab: PolicyLab) -> None:
    # 400 commands, each writing its own file: the rules see two kinds of place, not 400
    script = "\n".join(f"step{i} > logs/{i}.txt" for i in range(400))
    bundle = lab.bundle(OUTSIDE_ASKS + SECRETS)
    decision = lab.decide(bundle, "shell", command=script)
    assert (decision.verdict, decision.reason) == (
        Verdict.ALLOW,
        "no rule matched; the default is allow",
    )
    escaped = lab.decide(bundle, "shell", command=script + "\nstep > /etc/x")
    assert escaped.verdict is Verdict.ASK
    assert escaped.reason == "outside the workspace (rules[0] a redirection to /etc/x)"
