"""The text the ``tty`` answerer shows: the request, made safe to put on a terminal.

Everything in a request except its ids may come from the model (the arguments, the
justification) or from a rule's reason, so nothing is written to the terminal as it is: every
character a terminal would act on or that would hide text (control characters, escape
sequences, bidirectional overrides, zero-width characters) is shown as a ``\\uXXXX`` escape.
The arguments are pretty-printed JSON; very long ones are shortened for display, saying so, and
the `args_digest` printed above them names exactly what is approved.
"""

from __future__ import annotations

import json

from seamhost import ApprovalRequest, jsonvalue

MAX_LINES = 200  # lines of pretty-printed arguments shown
MAX_LINE = 400  # characters shown of one line
QUESTION = "allow this call once? [y/N]"
KEYS = "(y: allow once · n or Enter: reject · Ctrl-C: cancel)"


def printable(text: str) -> str:
    """`text` with every non-printable character written as a ``\\uXXXX`` escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _shorten(line: str) -> str:
    if len(line) <= MAX_LINE:
        return line
    return f"{line[:MAX_LINE]}… ({len(line) - MAX_LINE} more characters)"


def argument_lines(request: ApprovalRequest) -> tuple[list[str], bool]:
    """The arguments as pretty-printed JSON lines, and whether anything was left out."""
    text = json.dumps(jsonvalue.thaw(request.arguments), indent=2, ensure_ascii=False)
    lines = [printable(line) for line in text.split("\n")]
    shortened = len(lines) > MAX_LINES or any(len(line) > MAX_LINE for line in lines)
    shown = [_shorten(line) for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        shown.append(f"… {len(lines) - MAX_LINES} more lines not shown")
    return shown, shortened


def render(request: ApprovalRequest) -> str:
    """The whole prompt for `request`, ending with the question (no newline after it)."""
    rows = [
        ("tool", request.tool),
        ("reason", request.reason),
        ("sandbox", str(request.sandbox_mode)),
    ]
    if request.escalation is not None:
        rows.append(("escalation", f"{request.escalation} for this call only"))
        rows.append(("because", request.justification or ""))
    rows.append(("call", f"{request.call_id} (approval {request.id})"))
    rows.append(("arguments", request.args_digest))
    lines = ["", "seamhost: a tool call needs your approval"]
    lines += [f"  {label:<11} {printable(value)}" for label, value in rows]
    arguments, shortened = argument_lines(request)
    lines += ["    " + line for line in arguments]
    if shortened:
        lines.append("  (arguments shortened for display; the digest above names them exactly)")
    lines.append(f"{QUESTION} {KEYS} ")
    return "\n".join(lines)
