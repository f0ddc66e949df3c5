"""The ``rules`` answerer: the operator's allow and reject rules, for runs nobody watches.

Each rule of ``[[plugins.user-approval.rules]]`` is::

    tool = "write_file"                   # required: glob on the tool name ("*": any tool)
    args = { path = "release/notes/*" }   # optional: globs on named arguments, all must match
    escalation = "none"                   # none (default) | any | workspace-write |
                                          # danger-full-access
    decision = "allow"                    # required: allow (→ allowed-once) | reject
    reason = "drafts are reviewed later"  # optional: recorded with the decision

Rules are tried in the order the profile lists them; the first that matches decides. A request
no rule matches gets no answer from this answerer, and the next answerer is asked.

Matching is strict:

* Globs are the dialect every shipped plugin shares (:mod:`seamhost.globs`): a glob matches
  the **whole** text, case-sensitively; ``*`` any run of characters but ``/``, ``**`` any run
  ``/`` included, ``?`` one character but ``/``, ``[abc]``/``[a-z]`` one character of a set,
  ``[!abc]`` one not in it, ``\\c`` the character ``c``. So ``release/notes/*.md`` never
  reaches ``release/notes/internal/keys/prod.md``. A literal ``*``, ``?`` or ``[`` is written
  ``[*]``, ``[?]``, ``[[]`` (or ``\\*`` ...).
* Every argument `args` names must be present in the call. A string argument is matched as it
  is; any other value (number, boolean, null, list, object) as its canonical JSON text
  (``3``, ``true``, ``["a","b"]``, ``{"k":1}`` with sorted keys and no spaces).
* A string argument with a ``..`` path segment (``notes/../../.ssh/config``) is matched only by
  a glob without wildcards, that is by exactly that text: a wildcard written for one directory
  never reaches out of it.
* `escalation` is what the call asks for its sandbox: ``none`` (the default) matches only calls
  that ask for no escalation, so a rule written for ordinary calls never approves a wider
  sandbox; a mode matches requests for exactly that mode; ``any`` matches every call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from seamhost import ApprovalOutcome, ApprovalRequest, jsonvalue
from seamhost.globs import Glob
from seamhost_user_approval.answers import Reply

# What each decision the config schema accepts (config.DECISIONS) answers.
DECISIONS = {"allow": ApprovalOutcome.ALLOWED_ONCE, "reject": ApprovalOutcome.REJECTED}
_SEGMENTS = re.compile(r"[/\\]")


def climbs(text: str) -> bool:
    """True when `text` has a ``..`` path segment (``/`` or ``\\`` separated)."""
    return ".." in _SEGMENTS.split(text)


def glob_matches(pattern: str | Glob, value: Any) -> bool:
    """True when `pattern` matches the whole text of `value` (see the module docstring)."""
    glob = pattern if isinstance(pattern, Glob) else Glob.of(pattern)
    text = jsonvalue.as_text(value)
    if isinstance(value, str) and climbs(text) and not glob.literal:
        return False
    return glob.matches(text)


@attrs.frozen
class Rule:
    """One rule; `where` names it as the profile does (``rules[2]``)."""

    where: str
    tool: Glob
    decision: ApprovalOutcome
    args: tuple[tuple[str, Glob], ...] = ()
    escalation: str = "none"
    reason: str = ""

    @classmethod
    def from_table(cls, where: str, table: Mapping[str, Any]) -> Rule:
        """A rule from a table the config schema accepted."""
        return cls(
            where=where,
            tool=Glob.of(table["tool"]),
            decision=DECISIONS[table["decision"]],
            args=tuple((k, Glob.of(v)) for k, v in sorted(dict(table.get("args", {})).items())),
            escalation=table.get("escalation", "none"),
            reason=table.get("reason", ""),
        )

    def matches(self, request: ApprovalRequest) -> bool:
        """True when every matcher of this rule matches `request`."""
        if not self.tool.matches(request.tool):
            return False
        if not self._escalation_matches(request):
            return False
        arguments = request.arguments
        return all(
            name in arguments and glob_matches(pattern, arguments[name])
            for name, pattern in self.args
        )

    def _escalation_matches(self, request: ApprovalRequest) -> bool:
        if self.escalation == "any":
            return True
        if self.escalation == "none":
            return request.escalation is None
        return request.escalation is not None and str(request.escalation) == self.escalation


@attrs.frozen
class RulesAnswerer:
    """Answers with the first matching rule; no match → no answer."""

    rules: tuple[Rule, ...] = ()
    name: str = "rules"

    @classmethod
    def from_config(cls, tables: Sequence[Mapping[str, Any]]) -> RulesAnswerer:
        return cls(tuple(Rule.from_table(f"rules[{i}]", t) for i, t in enumerate(tables)))

    def first_match(self, request: ApprovalRequest) -> Rule | None:
        return next((rule for rule in self.rules if rule.matches(request)), None)

    async def answer(self, request: ApprovalRequest) -> Reply:
        rule = self.first_match(request)
        if rule is None:
            if not self.rules:
                return Reply.none("rules: none are configured")
            return Reply.none(f"rules: none matches this {request.tool} call")
        verb = "allows" if rule.decision is ApprovalOutcome.ALLOWED_ONCE else "rejects"
        because = f": {rule.reason}" if rule.reason else ""
        return Reply(rule.decision, f"{rule.where} {verb} it{because}")
