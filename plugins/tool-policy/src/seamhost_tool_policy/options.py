"""Reading a wrapper's options as getopt would, to find where the command it runs starts.

A wrapper (``sudo``, ``env``, ``timeout`` ...) is described by :class:`Options`, which letters
and long names it takes, with a value or without; the tables of them are in
:mod:`.wrapper_options`. :func:`parse` then reads short options alone or clustered (``-fr`` as
``-f -r``) and long ones (``--force``), values glued (``-n5``, ``--user=root``) or separate
(``-n 5``, ``--user root``), each kept under the option as written, and stops at ``--`` or the
first operand. An option it does not know is not guessed at: it is returned
(:attr:`Parsed.unknown`), for the analyser to treat what follows as unsure.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Options:
    """A wrapper's options, as getopt would read them."""

    flags: str = ""  # short options without a value
    valued: str = ""  # short options with a value, glued (-n5) or next (-n 5)
    glued: str = ""  # short options whose optional value can only be glued (xargs -i)
    long_flags: frozenset[str] = frozenset()  # also those whose optional value needs "="
    long_valued: frozenset[str] = frozenset()
    numeric: bool = False  # "-N" is an option (nice -10)
    moves: frozenset[str] = frozenset()  # options that run the command in another directory
    reroots: frozenset[str] = frozenset()  # options that run it under another root directory


@attrs.frozen
class Parsed:
    """What :func:`parse` read: where the operands start, the options' values, what it did not."""

    operands: int  # the index of the first operand
    values: dict[str, str]  # by option as written ("-n", "--user"); "" for a flag
    unknown: str | None  # the first option not understood


def parse(words: tuple[str, ...], options: Options) -> Parsed:
    """Read the options of the wrapper ``words[0]`` from ``words[1:]``."""
    values: dict[str, str] = {}
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            return Parsed(index + 1, values, None)
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if name in options.long_flags or (name in options.long_valued and equals):
                values[name] = value
                index += 1
            elif name in options.long_valued:
                values[name] = words[index + 1] if index + 1 < len(words) else ""
                index += 2
            else:
                return Parsed(index, values, word)
            continue
        if not word.startswith("-") or word == "-":
            break
        if options.numeric and word[1:].isdigit():
            index += 1
            continue
        step = 1
        for position, letter in enumerate(word[1:], start=2):
            if letter in options.flags:
                values["-" + letter] = ""
            elif letter in options.glued:
                values["-" + letter] = word[position:]
                break
            elif letter in options.valued:
                if position < len(word):
                    values["-" + letter] = word[position:]
                else:
                    values["-" + letter] = words[index + 1] if index + 1 < len(words) else ""
                    step = 2
                break
            else:
                return Parsed(index, values, word)
        index += step
    return Parsed(index, values, None)
