"""How rules and floors decide a call.

Rules (``tools/pre-execute``). Each :class:`~seamhost_tool_policy.calls.Subject` of a call is
judged on its own: the rules are read in order and the first that matches decides; none →
the default. A rule that only *may* match (a command glob meeting text known only at run time,
a ``path`` or ``location`` meeting a redirection target known only at run time) adds its
decision, a deny softened to ask since only a person can tell what the text will be,
and the reading goes on, so the outcome covers whatever that text becomes. The call gets the
most restrictive outcome of its subjects; a shell call the analysis is unsure about is at least
ask. A floor that matches denies before any rule is read (asking a person about a call the
guard will refuse wastes their attention).

Floors (``tools/guard``). A floor denies when some subject matches all its matchers, a *may*
match included; for an unsure shell call its glob is also tried on the raw command text, and a
command nested too deeply to be read whole fails every floor that looks at commands.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import attrs

from seamhost import Decision, Verdict
from seamhost.globs import Match
from seamhost_tool_policy.calls import CallView, Place, Subject
from seamhost_tool_policy.policy import Policy, Rule

if TYPE_CHECKING:
    from seamhost_tool_policy.structure import Command

MAX_SUBJECTS = 4096
"""More combinations than this are not judged one by one: the call is at least ask."""


@attrs.frozen
class Outcome:
    """A judgement and the rule behind it (None: the default)."""

    verdict: Verdict
    reason: str
    rule: Rule | None = None


@attrs.frozen
class FloorHit:
    """A floor that denies a call; `unanalysable` says why a part could not be read (or "")."""

    floor: Rule
    reason: str
    unanalysable: str = ""


def meets_command(rule: Rule, command: Command | None) -> Match:
    """How a rule's `command` glob and structured matchers meet a command (MUST: none)."""
    if not rule.looks_at_commands:
        return Match.MUST
    if command is None:
        return Match.NO
    found = Match.MUST if rule.command is None else rule.command.match(command.text)
    if not found:
        return found
    # Only a shell call has commands, and it loaded the analysis (calls._shell); the programs
    # table the structured matchers read is loaded with them, not by a session of file tools.
    from seamhost_tool_policy.structured import meets_structure

    return min(found, meets_structure(rule, command))


def _meets_place(rule: Rule, place: Place | None) -> Match:
    """How a rule's `path` and `location` meet a place (MUST when it has neither)."""
    if rule.path is None and rule.inside is None:
        return Match.MUST
    return Match.NO if place is None else place.meets(rule.path, rule.inside)


def _match(rule: Rule, view: CallView, subject: Subject) -> Match:
    if not rule.tool.matches(view.tool) or rule.effect not in (None, view.effect):
        return Match.NO
    found = _meets_place(rule, subject.place)
    if found is Match.NO:
        return Match.NO
    found = min(found, meets_command(rule, subject.command))
    if found is Match.NO:
        return Match.NO
    for name, glob in rule.args:
        value = subject.values.get(name)
        if value is None or not glob.matches(value):
            return Match.NO
    return found


def _explain(rule: Rule, subject: Subject, found: Match) -> str:
    said = f"{rule.reason} " if rule.reason else f"{rule.verdict} "
    if subject.command is None:
        return f"{said}({rule.where})"
    hedge = " may match" if found is Match.MAY else ""
    tail = " (part of it is only known at run time)" if found is Match.MAY else ""
    shown = f'"{subject.command.display}"'
    place = subject.place
    if place is not None and place.redirect and not (rule.path is None and rule.inside is None):
        # The redirection made the rule match. Places belong to the call, not to one of its
        # commands, so a command is named only when the rule looked at it.
        redirection = f"a redirection to {place.display}"
        shown = redirection if rule.command is None else f"{shown} and {redirection}"
    return f"{said}({rule.where}{hedge} {shown}{tail})"


def _distinct_places(policy: Policy, view: CallView) -> CallView:
    """The view with one place per way the rules meet places.

    A subject's judgement depends on its place only through how each rule's `path` and
    `location` meet it, so places the rules cannot tell apart are judged once: a call with many
    redirections does not multiply its subjects past :data:`MAX_SUBJECTS`.
    """
    kinds: dict[tuple[Match, ...], Place] = {}
    for place in view.places:
        kinds.setdefault(tuple(_meets_place(rule, place) for rule in policy.rules), place)
    return attrs.evolve(view, places=tuple(kinds.values()))


def _judge(policy: Policy, view: CallView, subject: Subject) -> Outcome:
    worst: Outcome | None = None
    for rule in policy.rules:
        found = _match(rule, view, subject)
        if found is Match.NO:
            continue
        verdict = rule.verdict if found is Match.MUST else min(rule.verdict, Verdict.ASK)
        if worst is None or verdict > worst.verdict:
            worst = Outcome(verdict, _explain(rule, subject, found), rule)
        if found is Match.MUST:
            return worst
    if worst is None or policy.default > worst.verdict:
        return Outcome(policy.default, f"no rule matched; the default is {policy.default}")
    return worst


def floor_hit(policy: Policy, view: CallView) -> FloorHit | None:
    """The first floor that denies the call, or None when none matches."""
    for floor in policy.floors:
        if not floor.tool.matches(view.tool) or floor.effect not in (None, view.effect):
            continue
        shown, unanalysable = "", ""
        if floor.looks_at_commands:
            shell = view.shell
            met = [c for c in view.commands or () if meets_command(floor, c) is not Match.NO]
            known = [c for c in met if not c.opaque]
            hits = [f'matched "{c.display}"' for c in known]
            if not known and met:
                unanalysable = met[0].opaque
            elif (
                shell is not None
                and shell.unsure
                and floor.command is not None
                and floor.command.matches(shell.raw)
            ):
                hits = hits or [f'matched "{shell.raw}"']
            if not hits and not unanalysable and shell is not None and shell.truncated:
                unanalysable = "the command nests too deeply"
            if not hits and not unanalysable:
                continue
            shown = f" {hits[0]}" if hits else ""
        if floor.path is not None or floor.inside is not None:
            places = [place for place in view.places if _meets_place(floor, place) is not Match.NO]
            if not places:
                continue
            if places[0].redirect:
                shown += f"{' and' if shown else ''} a redirection to {places[0].display}"
        if not all(
            any(value is not None and glob.matches(value) for value in view.values[name])
            for name, glob in floor.args
        ):
            continue
        if unanalysable:
            reason = (
                f"this call cannot be checked against {floor.where}: {unanalysable}, and a floor "
                "denies what it cannot rule out"
            )
            return FloorHit(floor, reason, unanalysable)
        return FloorHit(floor, f"{floor.reason} ({floor.where}{shown})")
    return None


def floor_reason(policy: Policy, view: CallView) -> str | None:
    """Why a floor denies the call, or None when none matches."""
    hit = floor_hit(policy, view)
    return None if hit is None else hit.reason


def judge(policy: Policy, view: CallView) -> Outcome:
    """The rules' outcome on a call (the floors aside), with the rule that decided."""
    unsure = list(view.shell.unsure) if view.shell is not None else []
    view = _distinct_places(policy, view)
    if view.subject_count > MAX_SUBJECTS:
        many = f"more than {MAX_SUBJECTS} combinations of commands, places and values"
        unsure.append(f"it holds {many}")
    worst: Outcome | None = None
    for subject in itertools.islice(view.subjects(), MAX_SUBJECTS):
        outcome = _judge(policy, view, subject)
        if worst is None or outcome.verdict > worst.verdict:
            worst = outcome
    assert worst is not None  # every dimension of a view holds at least one entry
    if not unsure or worst.verdict is Verdict.DENY:
        return worst
    why = f"this call cannot be checked reliably ({'; '.join(unsure)}), so a person has to read it"
    if worst.verdict is Verdict.ASK:
        return attrs.evolve(worst, reason=f"{worst.reason}; also, {why}")
    return Outcome(Verdict.ASK, why, worst.rule)


def decide(policy: Policy, view: CallView) -> Decision:
    """The ``tools/pre-execute`` vote on a call."""
    floor = floor_reason(policy, view)
    if floor is not None:
        return Decision.deny(floor)
    outcome = judge(policy, view)
    return Decision(outcome.verdict, outcome.reason)
