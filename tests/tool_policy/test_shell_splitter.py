"""The shell splitter: words, quoting, operators, compound commands and what makes it unsure."""

from __future__ import annotations

import pytest
from seamhost_tool_policy.splitter import MAX_DEPTH, UNKNOWN, split

U = UNKNOWN


def words(text: str) -> list[list[str]]:
    return [list(command.words) for command in split(text).commands]


def reliable(text: str) -> list[list[str]]:
    """The commands of `text`, which the splitter must be sure about."""
    result = split(text)
    assert result.unsure == (), result.unsure
    return [list(command.words) for command in result.commands]


# -- words and quoting --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rm  -rf   /", ["rm", "-rf", "/"]),
        ("'rm' -rf /", ["rm", "-rf", "/"]),
        ('"r"m -rf /', ["rm", "-rf", "/"]),
        ("r''m -rf /", ["rm", "-rf", "/"]),
        ("\\rm -rf /", ["rm", "-rf", "/"]),
        ("echo 'a b'  \"c  d\"", ["echo", "a b", "c  d"]),
        ("echo a\\ b", ["echo", "a b"]),
        ("echo ''", ["echo", ""]),
        ('echo "a\\"b" "\\$x" "\\\\" "\\q"', ["echo", 'a"b', "$x", "\\", "\\q"]),
        ("echo 'a\\nb'", ["echo", "a\\nb"]),
        ("echo $'a\\nb\\t\\x41\\101\\u00e9\\'q'", ["echo", "a\nb\tAAé'q"]),
        ('echo $"hello"', ["echo", "hello"]),
        ("echo a\\\nb", ["echo", "ab"]),
        ("echo one \\\n two", ["echo", "one", "two"]),
        ("echo a#b # a comment", ["echo", "a#b"]),
        ("echo $ end$", ["echo", "$", "end$"]),
        ("echo 'it''s'", ["echo", "its"]),
        ("echo \"a 'b' c\"", ["echo", "a 'b' c"]),
        ("echo '$x' \"*\" '~'", ["echo", "$x", "*", "~"]),
    ],
)
def test_quote_removal(text: str, expected: list[str]) -> None:
    assert reliable(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("echo $HOME", ["echo", U]),
        ("echo ${HOME}/x", ["echo", U + "/x"]),
        ('echo "$1-$@"', ["echo", U + "-" + U]),
        ("echo ${x:-default}", ["echo", U]),
        ("echo *.py", ["echo", U + ".py"]),
        ("echo file?.txt", ["echo", "file" + U + ".txt"]),
        ("echo [ab]c", ["echo", U + "c"]),
        ("echo ~/notes ~root", ["echo", U + "/notes", U]),
        ("cp f{,.bak}", ["cp", "f" + U]),
        ("echo {1..3}", ["echo", U]),
        ("X=~/bin cmd", ["X=" + U + "/bin", "cmd"]),
    ],
)
def test_run_time_text_is_marked(text: str, expected: list[str]) -> None:
    assert reliable(text) == [expected]


@pytest.mark.parametrize(
    "text", ["echo {}", "echo {a}", "[ -f x ]", "echo a]b", "echo ~x'y'", "echo [", "echo }"]
)
def test_literal_brackets_and_braces_stay_literal(text: str) -> None:
    (command,) = reliable(text)
    assert U not in "".join(command)


def test_assignments_are_counted_only_before_the_program() -> None:
    (command,) = split("A=1 B+=2 c[3]=4 env X=5").commands
    assert command.assignments == 3
    assert command.words == ("A=1", "B+=2", "c[3]=4", "env", "X=5")
    (quoted,) = split("'A'=1 cmd").commands
    assert quoted.assignments == 0


def test_source_keeps_the_text_each_command_came_from() -> None:
    result = split("ls  -la ;FOO=1 'rm' x 2>/dev/null|wc")
    assert [c.source for c in result.commands] == ["ls  -la", "FOO=1 'rm' x 2>/dev/null", "wc"]


# -- operators, groups, compound commands -----------------------------------------------------


@pytest.mark.parametrize("op", [";", "&", "&&", "||", "|", "|&", "\n", " ;\n ", "&\n"])
def test_every_operator_separates_commands(op: str) -> None:
    assert reliable(f"a 1{op}b 2") == [["a", "1"], ["b", "2"]]


def test_operators_need_no_spaces_and_quoted_ones_are_words() -> None:
    assert reliable("a&&b||c;d|e") == [["a"], ["b"], ["c"], ["d"], ["e"]]
    assert reliable("echo 'a;b' \"c&&d\" e\\|f") == [["echo", "a;b", "c&&d", "e|f"]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(cd /tmp && rm x)", [["cd", "/tmp"], ["rm", "x"]]),
        ("( (a) ; (b) )", [["a"], ["b"]]),
        ("{ a; b; }", [["a"], ["b"]]),
        ("{ a; } >out 2>&1 && (b) | c", [["a"], ["b"], ["c"]]),
        ("! a", [["a"]]),
        ("if a; then b; elif c; then d; else e; fi", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("while a; do b; done", [["a"], ["b"]]),
        ("until a\ndo\n  b\ndone", [["a"], ["b"]]),
        ("for f in x y; do rm $f; done", [["rm", U]]),
        ("for f\ndo echo $f; done", [["echo", U]]),
        ("select x in a b; do echo $x; done", [["echo", U]]),
        ("case $x in a|b) one;; (c) two ;& *) three;;& esac", [["one"], ["two"], ["three"]]),
        ("case x in\n  a)\n    one\n    ;;\nesac; after", [["one"], ["after"]]),
        ("f() { rm x; }; f", [["rm", "x"], ["f"]]),
        ("function g { rm y; }", [["rm", "y"]]),
        ("function h () ( rm z )", [["rm", "z"]]),
        ("[[ -f a && -d b ]] || c", [["[[", "-f", "a", "&&", "-d", "b", "]]"], ["c"]]),
        ("coproc cat", [["cat"]]),
        ("echo if then fi", [["echo", "if", "then", "fi"]]),
    ],
)
def test_compound_commands_yield_their_inner_commands(text: str, expected: list[list[str]]) -> None:
    assert reliable(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cmd >out", ["cmd"]),
        ("cmd > out 2>&1", ["cmd"]),
        ("cmd 2>err <in >>log", ["cmd"]),
        ("cmd &>all &>>more >|clobber <>rw", ["cmd"]),
        (">out cmd arg", ["cmd", "arg"]),
        ("cmd {fd}>file 3<&- arg", ["cmd", "arg"]),
        ("cmd >&2 x", ["cmd", "x"]),
    ],
)
def test_redirections_are_not_command_words(text: str, expected: list[str]) -> None:
    assert reliable(text) == [expected]


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("cmd >out", ["out"]),
        ("cmd >> log < in", ["log", "in"]),
        (
            "cmd &>all &>>more >|clobber <>rw 9<nine {fd}>named",
            ["all", "more", "clobber", "rw", "nine", "named"],
        ),
        (">out cmd 2>err", ["out", "err"]),
        ("cmd > 'a b' >\"$x\" > ~/x > *.log", ["a b", U, U + "/x", U + ".log"]),
        # >& and 1>& open a file unless the word names a descriptor
        ("cmd >&file 1>& other >&$out", ["file", "other", U]),
    ],
)
def test_file_redirections_record_their_targets(text: str, targets: list[str]) -> None:
    result = split(text)
    (command,) = result.commands
    assert list(command.redirects) == targets
    assert list(result.redirects) == targets


@pytest.mark.parametrize(
    "text",
    [
        "cmd 2>&1 >&2 <&0 3<&- >&- 4>&1- 1>&3",
        # another descriptor, or <&, with a word that is no number is an error, not a file
        "cmd 2>&file <&file 0<&$x",
        "cmd <<EOF\nbody\nEOF",
        "cmd <<-EOF\n\tbody\n\tEOF",
        "cmd <<< text",
        "[[ a > b && c < d ]]",
        "(( a > b ))",
        "echo '>' x \\> y \">\" z",
    ],
)
def test_descriptors_here_documents_and_comparisons_open_no_file(text: str) -> None:
    assert split(text).redirects == ()


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("{ a; b; } > group 2>&1", ["group"]),
        ("( a ) >> sub", ["sub"]),
        ("if a; then b; fi < cond", ["cond"]),
        ("while a; do b > inner; done > loop", ["inner", "loop"]),
        ("for x in 1; do :; done &> each", ["each"]),
        ("case x in *) a;; esac > chosen", ["chosen"]),
        ("[[ -f a ]] > test", ["test"]),
        ("f() { a; } > body", ["body"]),
        ("> truncated", ["truncated"]),
        ("a | b > piped && c < anded", ["piped", "anded"]),
        ("echo $(cat < inside) `cat < quoted`", ["inside", "quoted"]),
        ("cat <<EOF\n$(cat < heredoc)\nEOF", ["heredoc"]),
    ],
)
def test_redirections_of_compound_commands_and_substitutions_are_recorded(
    text: str, targets: list[str]
) -> None:
    assert sorted(split(text).redirects) == sorted(targets)


def test_empty_lines_and_comments_hold_no_command() -> None:
    assert reliable("") == []
    assert reliable("  \n\t# only a comment\n;") == []


# -- what makes the split unsure --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "why", "inner"),
    [
        ("echo $(rm -rf /)", "command substitution $(...)", ["rm", "-rf", "/"]),
        ('echo "$(rm -rf /)"', "command substitution $(...)", ["rm", "-rf", "/"]),
        ("echo `rm -rf /`", "command substitution `...`", ["rm", "-rf", "/"]),
        ("echo `echo \\`rm x\\``", "command substitution `...`", ["rm", "x"]),
        ("diff <(rm a) >(rm b)", "process substitution <(...)", ["rm", "a"]),
        ("tee >(rm b)", "process substitution >(...)", ["rm", "b"]),
        ("echo $((1 + $(rm c)))", "arithmetic expansion $((...))", ["rm", "c"]),
        ("echo $[1 + 2]", "arithmetic expansion $[...]", None),
        ("(( x = 1 ))", "an arithmetic command ((...))", None),
        ("for ((i=0; i<3; i++)); do rm $i; done", "an arithmetic for loop", ["rm", U]),
        ("[[ $a -eq 1 ]]", "an arithmetic comparison in [[ ]]", None),
        ("echo ${a[$i]}", "an array subscript in ${...}", None),
        ("echo ${a:$n}", "a substring offset in ${...}", None),
        ("echo ${x@P}", "prompt expansion", None),
        ("cat <<EOF\nrm -rf /\nEOF", "a here-document <<", None),
        ("cat <<-'EOF'\n\tbody\n\tEOF\nls", "a here-document <<", ["ls"]),
        ("cat <<EOF\n$(rm d)\nEOF", "command substitution $(...)", ["rm", "d"]),
        ("bash <<< 'rm -rf /'", "a here-string <<<", None),
        ("echo 'open", "an unterminated single quote", None),
        ('echo "open', "an unterminated double quote", None),
        ("echo $'open", "an unterminated $'...' quote", None),
        ("echo $(rm e", "an unterminated $(", ["rm", "e"]),
        ("(rm f", "an unterminated (", ["rm", "f"]),
        ("rm g )", "an unmatched )", ["rm", "g"]),
        ("echo ${x", "an unterminated {...}", None),
        ("echo `rm h", "an unterminated `...`", ["rm", "h"]),
        ("cat <<EOF\nno end", "a here-document without its end marker", None),
        ("cat <<EOF", "a here-document without its body", None),
        ("cmd >", "a > redirection without its target", None),
        ("a ;; b", ";; outside a case statement", ["b"]),
        ("case x in a) one", "a case statement", ["one"]),
        ("echo (x)", "a ( right after a command", ["x"]),
        ("[[ -f a", "a [[ without ]]", None),
    ],
)
def test_unsure_constructs_are_flagged_and_still_read(
    text: str, why: str, inner: list[str] | None
) -> None:
    result = split(text)
    assert not result.reliable
    assert any(reason.startswith(why) for reason in result.unsure), result.unsure
    if inner is not None:
        assert inner in [list(c.words) for c in result.commands]


def test_here_document_bodies_reach_the_command_they_feed() -> None:
    result = split("bash <<EOF; ls\nrm -rf /\nEOF\n")
    bash, ls = result.commands
    assert bash.stdin == ("rm -rf /\n",)
    assert ls.words == ("ls",)
    (here_string,) = split("sh <<< 'rm x'").commands
    assert here_string.stdin == ("rm x\n",)


def test_quoted_here_document_delimiters_turn_off_expansion() -> None:
    result = split("cat <<'EOF'\n$(rm x)\nEOF")
    assert [c.words for c in result.commands] == [("cat",)]
    assert "command substitution $(...)" not in result.unsure


def test_nesting_beyond_the_limit_is_unsure_and_terminates() -> None:
    deep = "$(" * (MAX_DEPTH + 5) + "rm x" + ")" * (MAX_DEPTH + 5)
    result = split(f"echo {deep}")
    assert any("nesting deeper" in reason for reason in result.unsure)
    subshells = "( " * 500 + "rm y" + " )" * 500
    assert any("nesting deeper" in reason for reason in split(subshells).unsure)
    braces = "echo " + "${x:-" * 500 + "}" * 500
    assert any("nesting deeper" in reason for reason in split(braces).unsure)
