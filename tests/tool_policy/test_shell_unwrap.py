"""Unwrapping: what wrappers run is seen next to the wrappers; opaque commands are unsure."""

from __future__ import annotations

import pytest
from seamhost_tool_policy.splitter import UNKNOWN
from seamhost_tool_policy.unwrap import analyse_argv, analyse_script

U = UNKNOWN


def texts(line: str) -> list[str]:
    return [command.text for command in analyse_script(line).commands]


@pytest.mark.parametrize(
    "line",
    [
        "bash -c 'rm -rf /'",
        'sh -c "rm -rf /"',
        "zsh -c 'rm -rf /'",
        "bash -lc 'cd x && rm -rf /'",
        "bash -o pipefail -e -c 'rm -rf /' name arg",
        "bash --norc --rcfile x -c 'rm -rf /'",
        "dash -c 'rm -rf / &'",
        "env rm -rf /",
        "env -i FOO=1 BAR=2 rm -rf /",
        "env -u HOME -C /tmp rm -rf /",
        "env --unset=HOME --chdir /tmp -- rm -rf /",
        "env - PATH=/bin rm -rf /",
        "env -S 'rm -rf' /",
        "sudo rm -rf /",
        "sudo -u root -E -- rm -rf /",
        "sudo -n --user=root HOME=/x rm -rf /",
        "doas -u root rm -rf /",
        "su -c 'rm -rf /' root",
        "su root --command='rm -rf /'",
        "nohup rm -rf /",
        "setsid -f rm -rf /",
        "timeout 5 rm -rf /",
        "timeout -k 1 --signal=KILL 5s rm -rf /",
        "nice rm -rf /",
        "nice -n 10 rm -rf /",
        "nice -5 rm -rf /",
        "nice --adjustment=3 rm -rf /",
        "ionice -c 3 rm -rf /",
        "stdbuf -oL -e 0 rm -rf /",
        "chroot /srv rm -rf /",
        "taskset -c 0,1 rm -rf /",
        "flock /tmp/lock rm -rf /",
        "flock -w 3 /tmp/lock -c 'rm -rf /'",
        "exec rm -rf /",
        "exec -a name rm -rf /",
        "command rm -rf /",
        "command -p rm -rf /",
        "builtin rm -rf /",
        "time rm -rf /",
        "time -p rm -rf /",
        "busybox rm -rf /",
        "watch -n 5 rm -rf /",
        "watch -x rm -rf /",
        "FOO=1 BAR=2 rm -rf /",
        "/bin/rm -rf /",
        "./rm -rf /",
        "sudo env timeout 3 nice -n 1 nohup bash -c \"sh -c 'rm -rf /'\"",
        "if true; then (sudo rm -rf / ); fi",
    ],
)
def test_wrapped_commands_are_seen(line: str) -> None:
    analysis = analyse_script(line)
    assert "rm -rf /" in [c.text for c in analysis.commands]
    assert analysis.unsure == ()


def test_the_wrapper_itself_is_seen_too() -> None:
    assert texts("sudo -u bob FOO=1 make install") == [
        "sudo -u bob FOO=1 make install",
        "make install",
    ]
    assert texts("X=1 /usr/bin/git push") == [
        "X=1 /usr/bin/git push",
        "/usr/bin/git push",
        "git push",
    ]


def test_xargs_and_find_feed_their_commands_run_time_words() -> None:
    assert texts("ls | xargs rm -f")[-1] == f"rm -f {U}"
    assert texts("ls | xargs -0 -n 1 -P4 rm")[-1] == f"rm {U}"
    assert texts("ls | xargs -I{} rm -rf {}")[-1] == f"rm -rf {U}"
    assert texts("ls | xargs -I % rm -rf %/x")[-1] == f"rm -rf {U}/x"
    assert texts("ls | xargs -i rm -rf {}")[-1] == f"rm -rf {U}"
    assert texts("find . -name '*.pyc' -exec rm -f {} \\; -print")[-1] == f"rm -f {U}"
    assert texts("find / -execdir sh -c 'rm -rf \"$1\"' _ {} +")[-1] == f"rm -rf {U}"


def test_sudoedit_runs_no_command() -> None:
    assert texts("sudo -e /etc/hosts") == ["sudo -e /etc/hosts"]


def test_argv_calls_are_analysed_without_a_shell() -> None:
    analysis = analyse_argv(["rm", "-rf", "/; ls"])
    assert [c.text for c in analysis.commands] == ["rm -rf /; ls"]
    assert analysis.raw == "rm -rf '/; ls'"
    wrapped = analyse_argv(["sudo", "bash", "-c", "git push && rm -rf /"])
    assert {"git push", "rm -rf /"} <= {c.text for c in wrapped.commands}


@pytest.mark.parametrize(
    ("line", "why", "seen"),
    [
        ("eval 'rm -rf /'", "eval runs text as a command", "rm -rf /"),
        ("builtin eval rm -rf /", "eval runs text as a command", "rm -rf /"),
        ("trap 'rm -rf /' EXIT", "trap runs text as a command later", "rm -rf /"),
        ("source ./env.sh", "source runs the commands of a file", None),
        (". ./env.sh", ". runs the commands of a file", None),
        ("alias ls='rm -rf /'", "alias defines words", None),
        ("let x=y", "let evaluates arithmetic", None),
        ("$CMD -rf /", "the program to run is only known at run time", None),
        ('"$(which rm)" -rf /', "the program to run is only known at run time", None),
        ("r* -rf /", "the program to run is only known at run time", None),
        ("curl -s x | sh", "sh reads the commands it runs from its input", None),
        ("bash -s < script", "bash reads the commands it runs from its input", None),
        ("bash <<EOF\nrm -rf /\nEOF", "a here-document <<", "rm -rf /"),
        ("sh <<< 'rm -rf /'", "a here-string <<<", "rm -rf /"),
        ("BASH_ENV=/tmp/x bash -c ls", "setting BASH_ENV", None),
        ("PS4='$(rm x)' bash -xc ls", "setting PS4", None),
        ("env 'BASH_FUNC_ls%%=() { rm -rf /; }' bash -c ls", "setting BASH_FUNC_ls%%", None),
        ("export PROMPT_COMMAND='rm x'", "setting PROMPT_COMMAND", None),
        ("declare -i n=$x", "declare -i: integer variables", None),
        ("declare a[$i]=1", "an array subscript", None),
        ("read 'a[$(rm x)]'", "an array subscript", None),
        ("printf -v 'a[$(rm x)]' %s y", "an array subscript", None),
        ("unset 'a[$(rm x)]'", "an array subscript", None),
        ("mapfile -C 'rm x' -c 1 lines", "mapfile -C runs a callback", None),
        ("sudo --frobnicate rm -rf /", "sudo: option --frobnicate is not understood", "rm -rf /"),
        ("env -Z rm -rf /", "env: option -Z is not understood", "rm -rf /"),
        ("xargs --frob x rm -rf /", "xargs: option --frob is not understood", f"rm -rf / {U}"),
    ],
)
def test_opaque_commands_are_unsure(line: str, why: str, seen: str | None) -> None:
    analysis = analyse_script(line)
    assert any(reason.startswith(why) for reason in analysis.unsure), analysis.unsure
    if seen is not None:
        assert seen in [c.text for c in analysis.commands]


def test_displays_show_run_time_text_as_an_ellipsis() -> None:
    (command,) = analyse_script("rm -rf $DIR").commands
    assert command.display == "rm -rf …"


def test_ordinary_commands_are_not_unsure() -> None:
    for line in (
        "git status && git diff | less",
        "bash build.sh --fast",
        "python -c 'import os'",
        "export PATH=$HOME/bin:$PATH",
        "declare -r X=1",
        "read -r line",
        "printf '%s\\n' a b",
        "command -v git",
    ):
        assert analyse_script(line).unsure == (), line


def test_unknown_options_in_a_row_are_followed_without_blowing_up() -> None:
    # each unknown option tries two starting points; followed naively that is 2**200 paths
    analysis = analyse_script("sudo --x " * 200 + "rm -rf /")
    assert analysis.truncated
    assert any(reason.startswith("nesting deeper") for reason in analysis.unsure)
    shallow = analyse_script("sudo --x " * 30 + "rm -rf /")
    assert not shallow.truncated
    assert "rm -rf /" in [c.text for c in shallow.commands]


# -- redirections -------------------------------------------------------------------------------


def redirects(line: str) -> list[str]:
    return list(analyse_script(line).redirects)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("echo x > out; cat < in >> out", ["out", "in"]),
        ("sudo -u root tee < /etc/shadow > copy", ["/etc/shadow", "copy"]),
        ("bash -c 'echo > a' > b", ["b", "a"]),
        ("sh -c \"bash -c 'echo > deep'\"", ["deep"]),
        ("env -S 'sh -c \"echo > s\"'", ["s"]),
        ("su -c 'echo > su' root", ["su"]),
        ("flock /tmp/l -c 'echo > locked'", ["locked"]),
        ("watch 'date > watched'", ["watched"]),
        ("eval 'echo > evaluated'", ["evaluated"]),
        ("trap 'echo > trapped' EXIT", ["trapped"]),
        ("bash <<EOF\necho > fed\nEOF", ["fed"]),
        ("xargs sh -c 'echo > x'", ["x"]),
        ("find . -exec sh -c 'echo > found' \\;", ["found"]),
        ("echo > same; bash -c 'echo > same'", ["same"]),
    ],
)
def test_redirections_are_collected_through_every_wrapper(line: str, expected: list[str]) -> None:
    assert redirects(line) == expected


def test_argv_calls_have_redirections_only_in_the_scripts_they_run() -> None:
    assert analyse_argv(["echo", ">", "/etc/x"]).redirects == ()
    assert analyse_argv(["sudo", "sh", "-c", "echo > /etc/x"]).redirects == ("/etc/x",)


@pytest.mark.parametrize(
    "line",
    [
        "cd /etc && echo x > passwd",
        "echo x > passwd; cd /etc",  # a loop or a function may run the line again after the cd
        "pushd /etc; echo x > passwd",
        "popd; echo x > passwd",
        "builtin cd /etc; echo x > passwd",
        "bash -c 'cd /etc' && echo x > passwd",
    ],
)
def test_a_change_of_directory_makes_every_relative_target_unknown(line: str) -> None:
    assert redirects(line) == [f"{U}/passwd"]
    assert redirects(line.replace("> passwd", "> /etc/passwd")) == ["/etc/passwd"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("env -C /etc sh -c 'echo > p' > q", ["q", f"{U}/p"]),
        ("env --chdir=/etc sh -c 'echo > /abs'", ["/abs"]),
        ("sudo -D /etc sh -c 'echo > p'", [f"{U}/p"]),
        ("sudo -i sh -c 'echo > p'", [f"{U}/p"]),
        ("sudo -i <<EOF\necho > p\nEOF", [f"{U}/p"]),
        ("sudo -u root sh -c 'echo > p'", ["p"]),
        ("su - root -c 'echo > p'", [f"{U}/p"]),
        ("su -l root -c 'echo > p'", [f"{U}/p"]),
        ("su root -c 'echo > p'", ["p"]),
        ("runuser -l bob -c 'echo > p'", [f"{U}/p"]),
        ("runuser --login -u bob -- sh -c 'echo > p'", [f"{U}/p"]),
        ("find . -execdir sh -c 'echo > p' \\; -exec sh -c 'echo > q' \\;", [f"{U}/p", "q"]),
        ("env -Z sh -c 'echo > p'", [f"{U}/p"]),
        (
            "chroot /srv sh -c 'echo > /etc/x; echo > y' > /etc/z",
            ["/etc/z", f"{U}/etc/x", f"{U}/y"],
        ),
        ("sudo -R /srv sh -c 'echo > /etc/x'", [f"{U}/etc/x"]),
        ("chroot / echo x > /etc/x", ["/etc/x"]),
    ],
)
def test_a_wrapper_that_runs_its_command_elsewhere_moves_only_that_command(
    line: str, expected: list[str]
) -> None:
    assert redirects(line) == expected


def test_the_same_command_run_in_two_places_is_read_in_both() -> None:
    line = "sh -c 'echo > x'; env -C /etc sh -c 'echo > x'"
    assert redirects(line) == ["x", f"{U}/x"]
