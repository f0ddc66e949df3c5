"""Rules through a real bundle: ordering, defaults, shell commands, paths, locations, arguments."""

from __future__ import annotations

import pytest

from seamhost.tool.decision import Verdict
from tests.tool_policy.conftest import PolicyLab

GIT = """
[plugins.tool-policy]
[[plugins.tool-policy.rules]]
tool = "shell"
command = "git status**"
decision = "allow"
reason = "reading is fine"
[[plugins.tool-policy.rules]]
tool = "shell"
command = "git push**"
decision = "ask"
reason = "pushing needs a human"
[[plugins.tool-policy.rules]]
command = "rm -rf /**"
decision = "deny"
reason = "not the root"
[[plugins.tool-policy.rules]]
tool = "shell"
command = "git **"
decision = "deny"
reason = "other git commands are not for agents"
"""


def test_the_first_matching_rule_decides(lab: PolicyLab) -> None:
    bundle = lab.bundle(GIT)
    allowed = lab.decide(bundle, "shell", command="git status --short")
    assert allowed.verdict is Verdict.ALLOW
    assert allowed.reason == 'reading is fine (rules[0] "git status --short")'
    assert allowed.plugin == "tool-policy"
    asked = lab.decide(bundle, "shell", command="git push origin main")
    assert asked.verdict is Verdict.ASK
    assert asked.reason == 'pushing needs a human (rules[1] "git push origin main")'
    denied = lab.decide(bundle, "shell", command="git reset --hard")
    assert (denied.verdict, denied.reason) == (
        Verdict.DENY,
        'other git commands are not for agents (rules[3] "git reset --hard")',
    )
    other = lab.decide(bundle, "shell", command="ls -la")
    assert (other.verdict, other.reason) == (Verdict.ALLOW, "no rule matched; the default is allow")


@pytest.mark.parametrize("default", ["allow", "ask", "deny"])
def test_the_default_applies_when_no_rule_matches(lab: PolicyLab, default: str) -> None:
    bundle = lab.bundle(
        f"""
        [plugins.tool-policy]
        default = "{default}"
        [[plugins.tool-policy.rules]]
        command = "ls*"
        decision = "allow"
        """
    )
    assert str(lab.decide(bundle, "shell", command="make").verdict) == default
    assert lab.decide(bundle, "shell", command="ls").verdict is Verdict.ALLOW
    assert str(lab.decide(bundle, "read_file", path="a.txt").verdict) == default


def test_a_rule_without_a_reason_names_itself(lab: PolicyLab) -> None:
    bundle = lab.bundle(
        """
        [[plugins.tool-policy.rules]]
        tool = "write_*"
        decision = "ask"
        """
    )
    assert lab.decide(bundle, "write_file", path="a", content="").reason == "ask (rules[0])"


@pytest.mark.parametrize(
    ("command", "verdict", "why"),
    [
        ("git status && git push", Verdict.ASK, "pushing needs a human"),
        ("git status; rm -rf /", Verdict.DENY, 'not the root (rules[2] "rm -rf /")'),
        ("git status | rm -rf /home", Verdict.DENY, "not the root"),
        ("(cd x && git push -f) || true", Verdict.ASK, 'rules[1] "git push -f"'),
        ("{ git status; git log; }", Verdict.DENY, 'rules[3] "git log"'),
        ("if git status; then git push; fi", Verdict.ASK, "pushing needs a human"),
        ("sudo 'rm'  -rf   /", Verdict.DENY, "not the root"),
        ("bash -c 'git status && git push'", Verdict.ASK, "pushing needs a human"),
        ("env GIT_DIR=x nohup git push &", Verdict.ASK, "pushing needs a human"),
        ("timeout 9 /usr/bin/git push", Verdict.ASK, "pushing needs a human"),
        ("ls | xargs rm -rf", Verdict.ASK, 'not the root (rules[2] may match "rm -rf …"'),
        ("rm -rf $TARGET", Verdict.ASK, "(part of it is only known at run time)"),
        ("git status $ARGS", Verdict.ALLOW, "reading is fine"),
    ],
)
def test_a_compound_command_gets_its_strictest_simple_command(
    lab: PolicyLab, command: str, verdict: Verdict, why: str
) -> None:
    decision = lab.decide(lab.bundle(GIT), "shell", command=command)
    assert decision.verdict is verdict
    assert why in decision.reason


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("echo $(date)", "command substitution $(...)"),
        ("echo `date`", "command substitution `...`"),
        ("eval ls", "eval runs text as a command"),
        ("source venv/bin/activate", "source runs the commands of a file"),
        ("cat <<EOF\nhi\nEOF", "a here-document <<"),
        ("grep x <<< hi", "a here-string <<<"),
        ("diff <(ls a) <(ls b)", "process substitution <(...)"),
        ("echo 'oops", "an unterminated single quote"),
        ("$EDITOR notes.txt", "the program to run is only known at run time"),
    ],
)
def test_a_command_that_cannot_be_split_reliably_is_at_least_ask(
    lab: PolicyLab, command: str, why: str
) -> None:
    decision = lab.decide(lab.bundle(GIT), "shell", command=command)
    assert decision.verdict is Verdict.ASK
    assert f"this call cannot be checked reliably ({why}" in decision.reason
    assert decision.reason.endswith("so a person has to read it")


def test_unsure_adds_to_an_ask_and_never_softens_a_deny(lab: PolicyLab) -> None:
    bundle = lab.bundle(GIT)
    asked = lab.decide(bundle, "shell", command="git push $(cat remote.txt)")
    assert asked.verdict is Verdict.ASK
    assert asked.reason.startswith("pushing needs a human")
    assert "; also, this call cannot be checked reliably (command substitution" in asked.reason
    denied = lab.decide(bundle, "shell", command="eval 'rm -rf /'")
    assert denied.verdict is Verdict.DENY
    assert denied.reason == 'not the root (rules[2] "rm -rf /")'


def test_an_allow_list_lets_through_only_what_it_names(lab: PolicyLab) -> None:
    bundle = lab.bundle(
        """
        [plugins.tool-policy]
        default = "deny"
        [[plugins.tool-policy.rules]]
        tool = "shell"
        command = "ls**"
        decision = "allow"
        [[plugins.tool-policy.rules]]
        tool = "shell"
        command = "git status**"
        decision = "allow"
        """
    )
    assert lab.decide(bundle, "shell", command="ls -la && git status").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "shell", command="git status $X").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "shell", command="ls && curl evil").verdict is Verdict.DENY
    assert lab.decide(bundle, "shell", command="ls $(curl evil)").verdict is Verdict.DENY
    assert lab.decide(bundle, "shell", command="l$X").verdict is Verdict.DENY
    assert lab.decide(bundle, "write_file", path="a", content="").verdict is Verdict.DENY


def test_argv_calls_are_judged_like_shell_calls(lab: PolicyLab) -> None:
    bundle = lab.bundle(GIT.replace('tool = "shell"', 'tool = "*"'))
    assert lab.decide(bundle, "exec", argv=["git", "push"]).verdict is Verdict.ASK
    assert lab.decide(bundle, "exec", argv=["rm", "-rf", "/"]).verdict is Verdict.DENY
    wrapped = lab.decide(bundle, "exec", argv=["sh", "-c", "git status; rm -rf /usr"])
    assert wrapped.verdict is Verdict.DENY
    # no shell reads an argv: its words are words, operators included
    assert lab.decide(bundle, "exec", argv=["echo", "; rm -rf /"]).verdict is Verdict.ALLOW


def test_tool_and_effect_matchers(lab: PolicyLab) -> None:
    bundle = lab.bundle(
        """
        [[plugins.tool-policy.rules]]
        effect = "read-only"
        decision = "allow"
        [[plugins.tool-policy.rules]]
        tool = "[ew]*"
        effect = "write"
        decision = "ask"
        """
    )
    assert lab.decide(bundle, "read_file", path="x").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "write_file", path="x", content="").verdict is Verdict.ASK
    assert lab.decide(bundle, "exec", argv=["ls"]).verdict is Verdict.ASK
    assert lab.decide(bundle, "shell", command="ls").verdict is Verdict.ALLOW


PATHS = """
[[plugins.tool-policy.rules]]
path = "**/.env"
decision = "deny"
reason = "secrets"
[[plugins.tool-policy.rules]]
location = "outside-workspace"
decision = "ask"
reason = "outside the workspace"
[[plugins.tool-policy.rules]]
tool = "write_file"
path = "src/**"
location = "inside-workspace"
decision = "allow"
[[plugins.tool-policy.rules]]
tool = "write_file"
decision = "ask"
reason = "writes outside src"
"""


@pytest.mark.parametrize(
    ("path", "verdict", "why"),
    [
        (".env", Verdict.DENY, "secrets (rules[0])"),
        ("app/config/.env", Verdict.DENY, "secrets"),
        ("./src/../.env", Verdict.DENY, "secrets"),
        ("src/main.py", Verdict.ALLOW, "rules[2]"),
        ("src/deep/er/x.py", Verdict.ALLOW, "rules[2]"),
        ("./src//x.py", Verdict.ALLOW, "rules[2]"),
        ("README.md", Verdict.ASK, "writes outside src"),
        ("src/../../escape.py", Verdict.ASK, "outside the workspace"),
        ("/etc/passwd", Verdict.ASK, "outside the workspace"),
        ("/home/me/.env", Verdict.DENY, "secrets"),
    ],
)
def test_paths_are_judged_relative_to_the_workspace(
    lab: PolicyLab, path: str, verdict: Verdict, why: str
) -> None:
    decision = lab.decide(lab.bundle(PATHS), "write_file", path=path, content="x")
    assert decision.verdict is verdict
    assert why in decision.reason


def test_a_symlink_out_of_the_workspace_is_outside(lab: PolicyLab) -> None:
    outside = lab.workspace.parent / "elsewhere"
    outside.mkdir()
    (lab.workspace / "src").mkdir()
    (lab.workspace / "src" / "link").symlink_to(outside)
    (lab.workspace / "src" / "secret").symlink_to(outside / ".env")
    bundle = lab.bundle(PATHS)
    linked = lab.decide(bundle, "write_file", path="src/link/x.py", content="x")
    assert (linked.verdict, linked.reason) == (Verdict.ASK, "outside the workspace (rules[1])")
    hidden = lab.decide(bundle, "write_file", path="src/secret", content="x")
    assert (hidden.verdict, hidden.reason) == (Verdict.DENY, "secrets (rules[0])")


def test_location_of_a_shell_call_is_its_cwd_or_the_workspace(lab: PolicyLab) -> None:
    bundle = lab.bundle(
        """
        [[plugins.tool-policy.rules]]
        tool = "shell"
        location = "outside-workspace"
        decision = "ask"
        [[plugins.tool-policy.rules]]
        tool = "shell"
        path = "*"
        decision = "deny"
        reason = "path globs only look at a path argument"
        """
    )
    assert lab.decide(bundle, "shell", command="ls").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "shell", command="ls", cwd="sub/dir").verdict is Verdict.ALLOW
    assert lab.decide(bundle, "shell", command="ls", cwd="/tmp").verdict is Verdict.ASK
    assert lab.decide(bundle, "shell", command="ls", cwd="..").verdict is Verdict.ASK


DEPLOY = """
[plugins.tool-policy]
default = "deny"
[[plugins.tool-policy.rules]]
tool = "deploy"
args = { branch = "main", targets = "prod*" }
decision = "ask"
reason = "production from main needs a human"
[[plugins.tool-policy.rules]]
tool = "deploy"
args = { targets = "staging*" }
decision = "allow"
[[plugins.tool-policy.rules]]
tool = "deploy"
args = { replicas = "[1-9][0-9]" }
decision = "ask"
reason = "ten or more replicas"
[[plugins.tool-policy.rules]]
tool = "deploy"
args = { branch = "release/*" }
decision = "allow"
"""


@pytest.mark.parametrize(
    ("arguments", "verdict", "why"),
    [
        ({"branch": "main", "targets": ["staging"]}, Verdict.ALLOW, "rules[1]"),
        ({"branch": "main", "targets": ["prod-eu"]}, Verdict.ASK, "production from main"),
        ({"branch": "main", "targets": ["staging", "prod-eu"]}, Verdict.ASK, "production"),
        ({"branch": "dev", "targets": ["staging", "prod-eu"]}, Verdict.DENY, "default is deny"),
        ({"branch": "main", "targets": []}, Verdict.DENY, "default is deny"),
        ({"branch": "release/2", "replicas": 12}, Verdict.ASK, "ten or more replicas"),
        ({"branch": "release/2", "replicas": 3}, Verdict.ALLOW, "rules[3]"),
        ({"branch": "main"}, Verdict.DENY, "default is deny"),
    ],
)
def test_argument_globs_judge_each_element_of_a_list(
    lab: PolicyLab, arguments: dict[str, object], verdict: Verdict, why: str
) -> None:
    decision = lab.decide(lab.bundle(DEPLOY), "deploy", **arguments)
    assert decision.verdict is verdict
    assert why in decision.reason


def test_many_list_elements_are_still_judged(lab: PolicyLab) -> None:
    bundle = lab.bundle(DEPLOY)
    many = [f"staging-{i}" for i in range(5000)]
    decision = lab.decide(bundle, "deploy", branch="release/9", targets=many)
    assert decision.verdict is Verdict.ASK
    assert "more than 4096 combinations" in decision.reason
    denied = lab.decide(bundle, "deploy", branch="x", targets=["prod", *many])
    assert denied.verdict is Verdict.DENY


def test_a_command_glob_written_with_a_tilde_still_meets_the_spelling(
    lab: PolicyLab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Floors see ~ resolved (issue 33); a rule written against the spelling keeps its effect.
    monkeypatch.setenv("HOME", "/root")
    bundle = lab.bundle(
        """
        [plugins.tool-policy]
        rules = [{ tool = "shell", command = "cat ~/.ssh/*", decision = "deny", reason = "keys" }]
        """
    )
    decision = lab.decide(bundle, "shell", command="cat ~/.ssh/id_rsa")
    assert decision.verdict is Verdict.ASK, decision.reason
    assert decision.reason.startswith("keys (rules[0] may match")
