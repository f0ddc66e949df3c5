"""Rules merge across ``extends``: a child's rules come first, ``replace`` drops the parents'.

A child profile that adds one policy rule used to lose every rule of its parents without a word
(the plugin table's ``rules`` key was simply overridden). Keys a plugin declares as ``merge``
now put the child's entries before the parents' (the first match decides, so the child takes
precedence), ``replace = ["rules"]`` says the other thing on purpose, floors stay untouchable,
and ``profile show`` says which file each rule came from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seamhost.errors import ConfigError
from seamhost.kernel.profile.resolve import resolve_profile
from tests.conftest import run_cli

CURL_DENY = (
    '[[plugins.tool-policy.rules]]\ntool = "shell"\nprogram = "curl"\ndecision = "deny"\n'
    'reason = "no downloads"\n'
)


def child(tmp_path: Path, body: str, name: str = "child") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'[profile]\nname = "{name}"\nextends = ["ci"]\n{body}')
    return path


def decision(profile: Path, command: str) -> dict[str, object]:
    shown = run_cli(
        "policy",
        "explain",
        "--profile",
        str(profile),
        "--tool",
        "shell",
        "--args",
        json.dumps({"command": command}),
        "--json",
    )
    assert shown.returncode == 0, shown.stderr
    answer = json.loads(shown.stdout)
    assert isinstance(answer, dict)
    return answer


def test_a_childs_rule_is_added_before_its_parents(tmp_path: Path) -> None:
    profile = resolve_profile(str(child(tmp_path, CURL_DENY)))
    policy = profile.plugin("tool-policy")
    assert policy is not None
    programs = [rule.get("program", rule.get("path")) for rule in policy.config["rules"]]
    assert programs == ["curl", "git", "sudo", "release/**"]  # child first, then default's
    files = policy.entry_files["rules"]
    assert files[0] == str(tmp_path / "child.toml")
    assert all(f.endswith("default.toml") for f in files[1:])


def test_the_parents_rules_still_decide_what_the_child_does_not_cover(tmp_path: Path) -> None:
    path = child(tmp_path, CURL_DENY)
    assert decision(path, "curl https://example.invalid")["decision"] == "deny"
    assert decision(path, "git push")["decision"] == "ask"  # default's rule, kept


def test_replace_drops_what_the_child_inherited(tmp_path: Path) -> None:
    path = child(tmp_path, '[plugins.tool-policy]\nreplace = ["rules"]\n' + CURL_DENY)
    policy = resolve_profile(str(path)).plugin("tool-policy")
    assert policy is not None
    assert [rule["program"] for rule in policy.config["rules"]] == ["curl"]
    assert decision(path, "git push")["decision"] == "allow"  # the default applies
    floors = policy.config["floor"]
    assert floors, "floors are never replaced"


def test_user_approval_rules_merge_too(tmp_path: Path) -> None:
    body = (
        '[[plugins.user-approval.rules]]\ntool = "shell"\ndecision = "allow"\n'
        'reason = "this team approves its own commands"\n'
    )
    approval = resolve_profile(str(child(tmp_path, body))).plugin("user-approval")
    assert approval is not None
    assert [rule["tool"] for rule in approval.config["rules"]] == ["shell", "write_file"]


@pytest.mark.parametrize(
    ("replace", "problem"),
    [
        ('["floor"]', "'floor' accumulates: a child profile adds to the 'floor' entries"),
        ('["default"]', "'default' does not merge, so there is nothing to replace"),
        ('"rules"', 'expected a list of key names, e.g. replace = ["rules"]'),
    ],
)
def test_a_replace_that_cannot_mean_anything_is_refused(
    tmp_path: Path, replace: str, problem: str
) -> None:
    path = child(tmp_path, f"[plugins.tool-policy]\nreplace = {replace}\n" + CURL_DENY)
    with pytest.raises(ConfigError) as info:
        resolve_profile(str(path))
    assert (info.value.file, info.value.key) == (str(path), "plugins.tool-policy.replace")
    assert problem in info.value.problem
    checked = run_cli("profile", "check", str(path))
    assert checked.returncode == 2
    assert "plugins.tool-policy.replace" in checked.stderr
    assert "Traceback" not in checked.stderr


def test_replace_without_the_key_says_how_to_drop_everything(tmp_path: Path) -> None:
    path = child(tmp_path, '[plugins.tool-policy]\nreplace = ["rules"]\n')
    with pytest.raises(ConfigError, match=r"set rules = \[\] to drop every inherited entry"):
        resolve_profile(str(path))


def test_profile_show_says_which_file_each_rule_came_from(tmp_path: Path) -> None:
    path = child(tmp_path, CURL_DENY)
    shown = run_cli("profile", "show", str(path))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    headers = [i for i, line in enumerate(lines) if line == "[[plugins.tool-policy.rules]]"]
    notes = [lines[i - 1] for i in headers]
    assert notes[0] == f"# from {path}"
    assert len(notes) == 4
    assert all(note.startswith("# from ") and note.endswith("default.toml") for note in notes[1:])
    why = run_cli("profile", "show", str(path), "--why", "plugins.tool-policy.rules", "--json")
    answer = json.loads(why.stdout)
    assert answer["kind"] == "merge"
    assert [(s["profile"], len(s["value"])) for s in answer["files"]] == [
        ("default", 3),
        ("child", 1),
    ]
    assert answer["replaced_by"] == ""
    one = run_cli("profile", "show", str(path), "--why", "plugins.tool-policy.rules[0].program")
    assert one.returncode == 0, one.stderr
    assert f"set by   {path} (profile child)" in one.stdout
