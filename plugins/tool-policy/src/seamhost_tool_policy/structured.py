"""How the structured matchers (``program``, ``subcommand``, ``flags``, ``operand``) meet a command.

Each matcher present must match (:class:`~seamhost.globs.Match` over text only known at run
time): ``program`` and ``subcommand`` are globs on the command's program basename and its
subcommand (:mod:`.structure`); ``flags`` are all present once normalised with the command's
program's aliases (``["--recursive"]`` is ``-r`` for ``rm``; a rule's ``-rf`` is ``-r`` and ``-f``);
``operand`` is a glob on any one operand, in every directory the line may have moved to (it
*may* match when it does in some), by any name the operand goes by there (a relative one by its
absolute names too, where the call says where it runs). A command seen only as text (its
``NAME=value`` prefix or its program's directory) has no structure: the structured matchers
never match it, its unprefixed form is matched instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost.globs import Match
from seamhost_tool_policy.programs import program, split_flag

if TYPE_CHECKING:
    from seamhost_tool_policy.policy import Rule
    from seamhost_tool_policy.structure import Command


def _operand(rule: Rule, command: Command) -> Match:
    assert rule.operand is not None
    best = Match.NO
    for forms in command.operands:
        # A form matches when any name it goes by does (as written, or absolute from the call's
        # directory): they name one place. The forms are places it may be: all, or some.
        found = [max(rule.operand.match(n) for n in command.names(form)) for form in forms]
        lowest, highest = min(found), max(found)
        # in every directory it may be read from, or in some: then it only may match
        best = max(best, lowest if lowest else min(highest, Match.MAY))
    return best


def _flags(rule: Rule, command: Command) -> Match:
    entry = program(command.program or "")
    wanted = {flag for written in rule.flags for flag in split_flag(written, entry)}
    if wanted <= command.flags:
        return Match.MUST
    return Match.MAY if command.maybe_flags else Match.NO


def meets_structure(rule: Rule, command: Command | None) -> Match:
    """How the rule's structured matchers meet `command` (MUST when it has none)."""
    if not rule.structured:
        return Match.MUST
    if command is None or command.program is None:
        return Match.NO
    found = Match.MUST
    if rule.program is not None:
        found = min(found, rule.program.match(command.program))
    if rule.subcommand is not None and found:
        sub = command.subcommand
        found = min(found, Match.NO if sub is None else rule.subcommand.match(sub))
    if rule.flags and found:
        found = min(found, _flags(rule, command))
    if rule.operand is not None and found:
        found = min(found, _operand(rule, command))
    return found
