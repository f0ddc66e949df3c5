"""Outputs the user guide shows without their command, each reproduced by a named case.

A block marked ``<!-- docs-test: reproduce CASE -->`` is compared with what ``REPRODUCTIONS[CASE]``
returns: the case sets up what the output needs (files, a parked session, a damaged log) and
runs the real CLI; what differs between runs (random ids, durations, temporary paths) is masked
to the values the guide writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from click.testing import CliRunner, Result

from seamhost.cli import main
from tests.docs.guide_blocks import blocks
from tests.docs.guide_shell import GUIDE, Shell, shown

Reproduction = Callable[[Shell], str]
REPRODUCTIONS: dict[str, Reproduction] = {}


def reproduces(case: str) -> Callable[[Reproduction], Reproduction]:
    def register(function: Reproduction) -> Reproduction:
        REPRODUCTIONS[case] = function
        return function

    return register


@reproduces("extends-cycle")
def _extends_cycle(shell: Shell) -> str:
    etc = shell.root / "etc"
    etc.mkdir()
    (etc / "a.toml").write_text('[profile]\nextends = ["b.toml"]\n', encoding="utf-8")
    (etc / "b.toml").write_text('[profile]\nextends = ["./a.toml"]\n', encoding="utf-8")
    return shown(shell.run("profile", "check", str(etc / "a.toml"))).replace(
        str(etc), "/etc/seamhost"
    )


def _team(shell: Shell, table: str) -> None:
    (shell.cwd / "team.toml").write_text(f'[profile]\nname = "team"\n\n{table}', encoding="utf-8")


@reproduces("unknown-key")
def _unknown_key(shell: Shell) -> str:
    _team(shell, '[plugins.hello]\ngreting = "Hi"\n')
    return shown(shell.run("profile", "check", "./team.toml"))


@reproduces("unknown-key-json")
def _unknown_key_json(shell: Shell) -> str:
    _team(shell, '[plugins.hello]\ngreting = "Hi"\n')
    result = shell.run("profile", "check", "--json", "./team.toml")
    assert result.exit_code == 2
    return json.dumps(json.loads(result.stdout))


@reproduces("not-installed")
def _not_installed(shell: Shell) -> str:
    _team(shell, "[plugins.model-gemini]\n")
    return shown(shell.run("profile", "check", "./team.toml"))


@reproduces("rule-example")
def _rule_example(shell: Shell) -> str:
    (shell.cwd / "p.toml").write_text(
        '[profile]\nname = "p"\n\n[[plugins.tool-policy.floor]]\ntool = "shell"\n'
        'program = "curl"\nreason = "no downloads"\nmatch = ["wget x"]\n',
        encoding="utf-8",
    )
    return shown(shell.run("profile", "check", "p.toml"))


LATER = next(
    b
    for b in blocks(GUIDE.read_text(encoding="utf-8"))
    if b.lang == "toml" and 'name = "later"' in b.text
)


def _park(shell: Shell, session: str, profile: str = "later.toml") -> Result:
    """The guide's `later` profile parks examples/approvals.toml at the version bump."""
    (shell.cwd / profile).write_text(LATER.text, encoding="utf-8")
    result = shell.run(
        "run", "examples/approvals.toml", "--profile", f"./{profile}", "--session", session,
        "--workspace", str(shell.root),  # a parked run keeps a temporary one
    )  # fmt: skip
    assert result.exit_code == 4, shown(result)
    return result


def masked(text: str) -> str:
    """Approval ids (random) and durations as the guide writes them."""
    text = re.sub(
        r"approval-call-[0-9-]+-[0-9a-f]{12}", "approval-call-1-2-1-12-931ba23e0b53", text
    )
    return re.sub(r"expires in \w+", "expires in 23h", re.sub(r"waiting \w+", "waiting 2m", text))


@reproduces("awaits-approval")
def _awaits_approval(shell: Shell) -> str:
    return masked(shown(_park(shell, "rel-1")).splitlines()[-1] + "\n")


@reproduces("approvals")
def _approvals(shell: Shell) -> str:
    _park(shell, "rel-1")
    return masked(shown(shell.run("approvals", "--profile", "./later.toml")))


@reproduces("bundle-changed")
def _bundle_changed(shell: Shell) -> str:
    _park(shell, "s-1", "changed.toml")
    profile = shell.cwd / "changed.toml"
    text = profile.read_text(encoding="utf-8")
    profile.write_text(
        text + '\n[sandbox]\nmode = "read-only"\n\n[limits]\nmax_steps = 7\n', encoding="utf-8"
    )
    result = shell.run(
        "run", "--resume", "s-1", "examples/approvals.toml", "--profile", "./changed.toml"
    )
    assert result.exit_code == 2
    return shown(result)


@reproduces("corrupt-json")
def _corrupt_json(shell: Shell) -> str:
    ran = shell.run(
        "run", "examples/quickstart.toml", "--session", "s1", "--workspace", str(shell.root)
    )
    assert ran.exit_code == 0, shown(ran)
    [log] = (shell.home / "seamhost" / "sessions" / "s1").glob("session.*.jsonl.zst")
    data = bytearray(log.read_bytes())
    # a byte in the middle of the second frame's payload: past the 84-byte frame headers
    # (persistence-jsonl's format.py), whose damage is reported in other words
    first = 84 + int.from_bytes(data[12:16], "little")
    second = int.from_bytes(data[first + 12 : first + 16], "little")
    data[first + 84 + second // 2] ^= 0xFF
    log.write_bytes(bytes(data))
    result = shell.run("session", "show", "s1", "--json")
    assert result.exit_code == 3
    # where the damage is found depends on how the records were framed: the path and offset masked
    failure = json.loads(result.stdout.splitlines()[-1])
    failure["error"]["details"]["offset"] = 1184
    text = json.dumps(failure).replace(str(log.parent.parent), "/srv/seamhost/sessions")
    return re.sub(r"at byte \d+", "at byte 1184", text)


CHAT_SCENARIO = """\
[scenario]
name = "changelog"

[[turn]]
user = "add a changelog entry for 1.4"
final = "The entry is written."

[[turn.step]]
text = "I'll read the changelog first."
[[turn.step.call]]
tool = "read_file"
args = { path = "CHANGELOG.md" }
"""


@reproduces("chat")
def _chat(shell: Shell) -> str:
    """The chat example's turn, with the scripted model standing in for OpenAI's.

    A user profile named `openai` (found first through SEAMHOST_PROFILE_PATH) is `default` with
    the scripted model replaying that turn, so what is checked is chat's own output: the header,
    the timeline of the turn and the goodbye. The lines typed are put back after each prompt, as
    a terminal echoes them.
    """
    profiles = shell.root / "stand-in"
    profiles.mkdir()
    (profiles / "changelog.toml").write_text(CHAT_SCENARIO, encoding="utf-8")
    (profiles / "openai.toml").write_text(
        '[profile]\nname = "openai"\nextends = ["default"]\n\n'
        '[plugins.model-scripted]\nscenario = "changelog.toml"\n',
        encoding="utf-8",
    )
    (shell.cwd / "CHANGELOG.md").write_text("# Changelog\n", encoding="utf-8")
    typed = ["add a changelog entry for 1.4", "/exit"]
    result = CliRunner().invoke(
        main,
        ["chat", "--profile", "openai"],
        input="".join(f"{line}\n" for line in typed),
        env=shell.environ | {"SEAMHOST_PROFILE_PATH": str(profiles)},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, shown(result)
    text = shown(result)
    first, *after_prompts = text.split("you> ")
    assert len(after_prompts) == len(typed), text
    text = first + "".join(
        f"you> {t}\n{rest}" for t, rest in zip(typed, after_prompts, strict=True)
    )
    text = re.sub(r"\b\d{8}-\d{6}-[0-9a-f]{12}\b", "20261201-120837-1b4591378bbc", text)
    return text.replace(str(shell.cwd), "/home/me/project")


@reproduces("profile-show-ci")
def _profile_show_ci(shell: Shell) -> str:
    return shown(shell.run("profile", "show", "ci"))
