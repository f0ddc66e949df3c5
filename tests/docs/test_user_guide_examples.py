"""Every example of docs/user-guide.md, checked against the code.

Each fenced block is taken by its language (see :mod:`guide_blocks` for the markers a block may
carry): ``toml`` blocks parse, and a profile resolves and builds its bundle (``profile check``;
a part of one is checked inside a profile extending ``default``); ``json`` blocks parse; each
``seamhost`` command line of a ``console``, ``bash`` or ``sh`` block, of a heading's synopsis
and of a client's registration names an existing command with options it has; a ``console``
block runs, step by step, through the real CLI (in-process, click's runner) in a temporary
``HOME``, ``SEAMHOST_HOME`` and working directory, and its output matches the one shown; an
output shown without its command is reproduced by a case of this module. A block that cannot
run here (a real model, a remote server) is marked ``skip`` with the reason, and
``test_the_skipped_examples_are_listed_with_their_reason`` lists them.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import Result

from seamhost.cli import main
from tests.docs.guide_blocks import Block, Command, blocks, output_pattern, steps
from tests.docs.guide_outputs import REPRODUCTIONS
from tests.docs.guide_shell import GUIDE, Shell, shown

BLOCKS = blocks(GUIDE.read_text(encoding="utf-8"))
SUBCOMMANDS = set(main.list_commands(click.Context(main)))
# Keys the guide's profiles read through `$env`: any value resolves them, none is sent anywhere.
FAKE_SECRETS = {
    "OPENAI_API_KEY": "sk-docs-test-openai",
    "ANTHROPIC_API_KEY": "sk-ant-docs-test",
    "SEAMHOST_POSTGRES_DSN": "host=127.0.0.1 dbname=docs_test",
}
SHELL_LANGS = {"console", "bash", "sh"}


def of(*langs: str, verb: str | None = None) -> list[Block]:
    return [b for b in BLOCKS if b.lang in langs and (verb is None or b.verb == verb)]


def ids(found: list[Block]) -> list[str]:
    return [f"line{b.line}" for b in found]


def is_console(block: Block) -> bool:
    return block.lang == "console" or (block.lang in {"", "text"} and block.text.startswith("$ "))


# --------------------------------------------------------------------------------------------
# every block is of a known kind, and what is skipped says why
# --------------------------------------------------------------------------------------------


def test_every_block_is_of_a_kind_the_test_checks() -> None:
    for block in BLOCKS:
        assert block.lang in {"toml", "json", "console", "bash", "sh", "python", "text", ""}, (
            block.where
        )
        if block.lang in {"", "text"} and not is_console(block):
            # an output shown without its command: reproduced here, or said why not
            assert block.verb in {"reproduce", "skip"}, f"{block.where}: mark it reproduce or skip"
        if block.verb in {"skip", "needs"}:
            assert block.arg.strip(), f"{block.where}: {block.verb} says what"
        if block.verb == "reproduce":
            assert block.arg in REPRODUCTIONS, f"{block.where}: no case {block.arg!r}"


def test_the_skipped_examples_are_listed_with_their_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    skipped = [b for b in BLOCKS if b.verb == "skip"]
    with capsys.disabled():
        print(f"\n{len(skipped)} of {len(BLOCKS)} user-guide examples are not run here:")
        for block in skipped:
            print(f"  {block.where}: {block.arg}")
    assert len(skipped) < len(BLOCKS) // 2


# --------------------------------------------------------------------------------------------
# what parses
# --------------------------------------------------------------------------------------------


TOML = [b for b in of("toml") if b.verb != "reproduce"]  # a reproduced one is an output


@pytest.mark.parametrize("block", TOML, ids=ids(TOML))
def test_a_toml_example_parses(block: Block) -> None:
    assert isinstance(tomllib.loads(block.text), dict), block.where


@pytest.mark.parametrize("block", of("json"), ids=ids(of("json")))
def test_a_json_example_parses(block: Block) -> None:
    assert isinstance(json.loads(block.text), dict), block.where


@pytest.mark.parametrize("block", of("python"), ids=ids(of("python")))
def test_a_python_example_compiles(block: Block) -> None:
    compile(block.text, block.where, "exec")


# --------------------------------------------------------------------------------------------
# the commands the guide writes exist, with those options
# --------------------------------------------------------------------------------------------


def command_of(argv: list[str]) -> tuple[click.Command, list[str], list[str]]:
    """The command `argv` names, its name path, and the words after it."""
    command: click.Command = main
    path: list[str] = []
    rest = list(argv)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        found = command.get_command(click.Context(command), rest[0])
        assert found is not None, f"seamhost {' '.join(path)}: no subcommand {rest[0]!r}"
        command, path = found, [*path, rest.pop(0)]
    return command, path, rest


def unknown_options(argv: list[str]) -> list[str]:
    command, _path, rest = command_of(argv)
    known = {"--help"} | {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    known |= {opt for p in main.params for opt in (*p.opts, *p.secondary_opts)}
    unknown = []
    for word in rest:
        if word == "--":
            break
        if word.startswith("-") and word != "-" and word.split("=", 1)[0] not in known:
            unknown.append(word)
    return unknown


def written_commands() -> Iterator[tuple[str, list[str]]]:
    """(where, argv) of every seamhost command line the guide writes."""
    for block in BLOCKS:
        if block.lang in SHELL_LANGS or is_console(block):
            for step in steps(block, SUBCOMMANDS):
                for command in step.commands:
                    yield f"{block.where}: {step.source}", command.argv
        if block.lang in {"json", "toml"} and block.verb != "reproduce":
            for table in _tables(
                tomllib.loads(block.text) if block.lang == "toml" else json.loads(block.text)
            ):
                args = table.get("args")
                if table.get("command") == "seamhost" and isinstance(args, list):
                    yield f"{block.where}: registration", [str(a) for a in args]
    text = GUIDE.read_text(encoding="utf-8")
    for heading in re.finditer(r"^#+ `seamhost (?P<synopsis>[^`]*)`", text, re.M):
        # a synopsis: `[--x]`, `(A | B)`, `ID...` and `--a|--b` spelt out as words
        synopsis = re.sub(r"[\[\]()|]", " ", heading["synopsis"]).replace("...", "")
        written = synopsis.split()
        first_word = next(
            (i for i, w in enumerate(written) if w.startswith("-") or not w.islower()),
            len(written),
        )
        path = written[:first_word]
        argv = path + [w for w in written if w.startswith("-")]
        yield f"heading: {heading.group(0)}", argv


def _tables(value: object) -> Iterator[dict[str, object]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _tables(item)


def test_every_command_the_guide_writes_exists_with_its_options() -> None:
    problems = []
    seen = 0
    for where, argv in written_commands():
        seen += 1
        try:
            unknown = unknown_options(argv)
        except AssertionError as exc:
            problems.append(f"{where}: {exc}")
            continue
        if unknown:
            problems.append(f"{where}: unknown option(s) {unknown}")
    assert not problems, "\n".join(problems)
    assert seen > 50


def every_command(command: click.Command, path: list[str]) -> Iterator[tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        for name in command.list_commands(click.Context(command)):
            found = command.get_command(click.Context(command), name)
            assert found is not None
            yield from every_command(found, [*path, name])
    else:
        yield " ".join(["seamhost", *path]), command


def test_every_command_and_option_of_the_cli_is_in_the_guide() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    missing = []
    for name, command in every_command(main, []):
        if not re.search(re.escape(name) + r"\b", text):
            missing.append(name)
        for param in command.params:
            for option in (*param.opts, *param.secondary_opts):
                if option.startswith("--") and option != "--help" and option not in text:
                    missing.append(f"{name} {option}")
    assert not missing, f"not in docs/user-guide.md: {missing}"


# --------------------------------------------------------------------------------------------
# running examples: a temporary home, store and working directory
# --------------------------------------------------------------------------------------------


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shell:
    return Shell(tmp_path, monkeypatch)


def assert_shows(result: Result, expected: list[str], where: str, home: Path) -> None:
    while expected and not expected[-1].strip():
        expected = expected[:-1]
    if not expected:
        return
    actual = shown(result).replace(str(home), "/home/ana")  # the guide's user
    assert output_pattern(expected).fullmatch(actual), (
        f"{where}: the output differs from the one shown\n--- shown\n"
        + "\n".join(expected)
        + f"\n--- got (exit {result.exit_code})\n{actual}"
    )


# --------------------------------------------------------------------------------------------
# profiles
# --------------------------------------------------------------------------------------------


def profile_text(block: Block) -> tuple[str, str]:
    """The file name and the text of a profile example (a part one inside one extending default)."""
    data = tomllib.loads(block.text)
    named = re.match(r"# (\S+\.toml)", block.text)
    if block.verb == "fragment" or "profile" not in data:
        return f"fragment-{block.line}.toml", (
            f'[profile]\nname = "fragment-{block.line}"\nextends = ["default"]\n\n{block.text}'
        )
    name = named[1] if named else f"{data['profile'].get('name', f'example-{block.line}')}.toml"
    return name, block.text


PROFILES = [b for b in of("toml") if b.verb in {"", "fragment"}]


@pytest.mark.parametrize("block", PROFILES, ids=ids(PROFILES))
def test_a_profile_example_resolves_and_builds(block: Block, shell: Shell) -> None:
    name, text = profile_text(block)
    (shell.cwd / name).write_text(text, encoding="utf-8")
    result = shell.invoke(Command(["profile", "check", f"./{name}"]), FAKE_SECRETS)
    assert result.exit_code == 0, f"{block.where}\n{text}\n{shown(result)}"


# --------------------------------------------------------------------------------------------
# console examples
# --------------------------------------------------------------------------------------------

CONSOLES = [b for b in BLOCKS if is_console(b) and b.verb in {"", "needs"}]


def working_backends() -> set[str]:
    from seamhost_sandbox_local import probe_backends

    return {report.name for report in probe_backends() if report.available}


@pytest.mark.parametrize("block", CONSOLES, ids=ids(CONSOLES))
def test_a_console_example_runs_and_shows_what_the_guide_shows(block: Block, shell: Shell) -> None:
    if block.verb == "needs":
        working = working_backends()
        missing = {b for b in block.arg.split() if b not in working and b != "a-backend"}
        if "a-backend" in block.arg.split() and not working:
            missing.add("a-backend")
        if missing:
            pytest.skip(f"{block.where} needs the sandbox backend(s) {sorted(missing)}")
    exported: dict[str, str] = {}
    for step in steps(block, SUBCOMMANDS):
        exported |= step.exported
        for command in step.commands:
            result = shell.invoke(command, exported)
            fails = any(line.startswith("seamhost: error:") for line in step.output)
            assert (result.exit_code != 0) == fails, (
                f"{block.where}: `{step.source}` exited {result.exit_code}\n{shown(result)}"
            )
            assert_shows(result, step.output, f"{block.where}: `{step.source}`", shell.home)


# --------------------------------------------------------------------------------------------
# outputs shown without their command, reproduced
# --------------------------------------------------------------------------------------------

REPRODUCED = [b for b in BLOCKS if b.verb == "reproduce"]


@pytest.mark.parametrize("block", REPRODUCED, ids=ids(REPRODUCED))
def test_an_output_the_guide_shows_is_reproduced(block: Block, shell: Shell) -> None:
    actual = REPRODUCTIONS[block.arg](shell)
    if block.lang == "json":
        assert json.loads(actual) == json.loads(block.text), f"{block.where}: got {actual}"
        return
    expected = [line for line in block.text.rstrip("\n").split("\n") if not line.startswith("$ ")]
    assert output_pattern(expected).fullmatch(actual), (
        f"{block.where}: the output differs from the one shown\n--- shown\n{block.text}"
        f"--- got\n{actual}"
    )
