"""Quoting with escape rules of its own: ``$'...'`` (ANSI-C) and backquoted code.

Both are small languages apart from the rest of the shell: ``$'...'`` has its escapes
(``\\n``, ``\\x41``, ``\\u00e9``, ``\\101``, ``\\cA`` ...) and no expansion, and backquotes
strip one level of backslashes before the code inside is read at all. So each is a pure
function of the text, kept apart from the lexer (:mod:`.shellwords`), which only says where the
quote starts, reads what comes out, and records when it is not closed.
"""

from __future__ import annotations

import re

from seamhost_tool_policy.marks import UNKNOWN

# The escapes of $'...' that stand for one character; \xHH \uHHHH \UHHHHHHHH \NNN give a code.
_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_NUMERIC = {"x": (16, 2), "u": (16, 4), "U": (16, 8)}


def decode_ansi_c(text: str, pos: int, chars: list[tuple[str, str]]) -> tuple[int, bool]:
    """Add to `chars` what the ``$'...'`` whose opening quote is at `pos` stands for.

    Returns where reading stopped and whether the quote was closed: the position after the
    closing quote, or the end of `text`.
    """
    pos += 1
    while pos < len(text):
        char = text[pos]
        if char == "'":
            return pos + 1, True
        if char != "\\" or pos + 1 >= len(text):
            chars.append((char, "q"))
            pos += 1
            continue
        code = text[pos + 1]
        pos += 2
        if code in _SIMPLE:
            chars.append((_SIMPLE[code], "q"))
        elif code in _NUMERIC or code in "01234567":
            base, width = _NUMERIC.get(code, (8, 3))
            if base == 8:
                pos -= 1  # an octal escape's first digit is the letter just read
            digits = re.match(
                f"[0-7]{{1,{width}}}" if base == 8 else f"[0-9a-fA-F]{{1,{width}}}",
                text[pos:],
            )
            if digits is None:
                chars.extend((c, "q") for c in "\\" + code)
                continue
            pos += digits.end()
            value = int(digits.group(), base)
            # No str holds a code past U+10FFFF: what bash writes for it is left unknown.
            chars.append((chr(value) if value <= 0x10FFFF else UNKNOWN, "q"))
        elif code == "c" and pos < len(text):
            chars.append((chr(ord(text[pos]) & 0x1F), "q"))
            pos += 1
        else:
            chars.extend((c, "q") for c in "\\" + code)
    return pos, False


def backquoted(text: str, pos: int) -> tuple[str, int, bool]:
    """The code of the backquoted substitution whose opening backquote is at `pos`.

    Returns the code, with the backslashes that quote ``$``, a backquote and ``\\`` removed, the
    position after the closing backquote, and whether there was one.
    """
    index = pos + 1
    code: list[str] = []
    while index < len(text) and text[index] != "`":
        if text[index] == "\\" and text[index + 1 : index + 2] in ("$", "`", "\\"):
            index += 1
        code.append(text[index])
        index += 1
    return "".join(code), index + 1, index < len(text)
