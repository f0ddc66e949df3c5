"""Here-documents: the ones a line has opened, and reading a body from the lines that follow.

A ``<<WORD`` redirection is read by the parser (:mod:`.parser`), but its body only starts after
the end of the line it is on, which the lexer (:mod:`.shellwords`) reaches later, maybe after
more here-documents were opened. So the parser hands the lexer a :class:`Heredoc` to fill in,
and the lexer reads each body with :func:`read_body` when it meets that newline.
"""

from __future__ import annotations

import attrs


@attrs.define
class Heredoc:
    """A here-document waiting for its body, read after the next newline into `sink`."""

    delimiter: str
    strip_tabs: bool
    expands: bool
    sink: list[str]


def read_body(text: str, pos: int, doc: Heredoc) -> tuple[str, int, bool]:
    """The body of `doc` in the lines from `pos` on.

    Returns the body, the position after its end marker's line, and whether the marker was
    found (without it the body runs to the end of `text`).
    """
    lines: list[str] = []
    ended = False
    while pos < len(text):
        end = text.find("\n", pos)
        stop = len(text) if end < 0 else end
        line = text[pos:stop]
        pos = stop + 1
        if doc.strip_tabs:
            line = line.lstrip("\t")
        if line == doc.delimiter:
            ended = True
            break
        lines.append(line)
    return "".join(line + "\n" for line in lines), pos, ended
