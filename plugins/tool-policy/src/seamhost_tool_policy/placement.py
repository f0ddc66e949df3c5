"""Where a path operand leads, ``..`` resolved, even where part of it is only known at run time.

:func:`place` reads an operand from a directory as ``realpath -m`` would, segment by segment,
and keeps every answer sound for what :data:`~.marks.UNKNOWN` may become:

* a *wild* unknown (a variable, a substitution: see :mod:`.resolution`) may hold ``/`` and
  ``..``, so it may lead anywhere: what came before it no longer counts, and the form starts
  with the unknown (``build/$x`` is anywhere, ``$x/build`` anywhere ending in ``/build``);
* a pattern's unknown stays within its segment, but that segment may be a link to anywhere, so
  a ``..`` after it leads anywhere too (``*/..``); and a pattern starting with ``.`` may match
  ``..`` itself (bash before 5.2, ``shopt -u globskipdots``, other shells), so it is read both
  ways: one form per way.

A relative form whose first segment holds a pattern's unknown starts with ``./``: only a form
that starts with the unknown itself means "anywhere".
"""

from __future__ import annotations

from seamhost_tool_policy.marks import UNKNOWN

MAX_FORMS = 16
"""More ways to read one operand than this and it is read as anywhere."""

_Segments = list[tuple[str, bool]]  # each segment, and whether an unknown in it is wild


def place(operand: str, directory: str = "", *, tame: bool = False) -> tuple[str, ...]:
    """The forms `operand` may name, read from `directory` ("": the call's own, kept relative).

    `tame` says each unknown of the operand is a pattern's; one of the directory is always wild.
    """
    segments: _Segments = []
    absolute = operand.startswith("/")
    if not absolute and directory:
        absolute = directory.startswith("/")
        segments = [(s, True) for s in directory.split("/")]
    segments += [(s, not tame) for s in operand.split("/")]
    forms = _walk(segments, absolute, [])
    if len(forms) > MAX_FORMS:
        return (UNKNOWN,)
    return tuple(dict.fromkeys(forms))


def _walk(segments: _Segments, absolute: bool, stack: _Segments) -> list[str]:
    for index, (segment, wild) in enumerate(segments):
        if segment in ("", "."):
            continue
        if UNKNOWN in segment and wild:
            absolute, stack = False, [(UNKNOWN + segment.rpartition(UNKNOWN)[2], True)]
        elif segment == "..":
            if stack and UNKNOWN in stack[-1][0]:
                absolute, stack = False, [(UNKNOWN, True)]
            elif stack and stack[-1][0] != "..":
                stack = stack[:-1]
            elif not absolute:
                stack = [*stack, ("..", False)]
        elif UNKNOWN in segment and segment.startswith("."):
            rest = segments[index + 1 :]
            as_name = _walk(rest, absolute, [*stack, (segment, False)])
            if len(as_name) > MAX_FORMS:
                return as_name
            return as_name + _walk([("..", False), *rest], absolute, stack)
        else:
            stack = [*stack, (segment, False)]
    return [_render(absolute, stack)]


def _render(absolute: bool, stack: _Segments) -> str:
    text = "/".join(segment for segment, _ in stack)
    if absolute:
        return "/" + text
    if stack and UNKNOWN in stack[0][0] and not stack[0][1]:
        return "./" + text
    return text or "."
