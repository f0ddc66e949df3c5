"""Text made safe to show on a terminal: control characters written as escapes.

Whatever a session holds (a tool's output, the model's text, a call's arguments, an error a
provider sent) was written by someone the person at the terminal does not control. Printed as
it is, an escape sequence in it acts on the terminal: OSC 52 writes the clipboard, CSI sequences
clear the screen or move the cursor to hide text, C1 controls (U+009B is a one-character CSI on
terminals that honour C1) do the same, BEL rings. So every human-facing view goes through
:func:`terminal_safe`: the consoles :func:`seamhost.cli.output.console` makes apply it to every
string they render, markup or not, and what is written without a console (``exec``'s answer,
the failure line on stderr, the plain listings) applies it directly. The log keeps the bytes;
``--json`` output is exact JSON, whose escaping already makes it safe.
"""

from __future__ import annotations

import re

# C0 controls but newline and tab, DEL and the C1 controls: what a terminal acts on rather than
# shows; then the bidirectional embeddings, overrides and isolates, which reorder what is shown
# around them (text that reads differently from what it is).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """`text` with every control character but newline and tab written as an escape.

    ESC is shown as ``\\x1b``, BEL as ``\\x07``, U+009B as ``\\x9b``, a bidirectional override
    as ``\\u202e``; the rest of the text is unchanged.
    """
    return _UNSAFE.sub(_escaped, text)
