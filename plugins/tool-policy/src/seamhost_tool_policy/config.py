"""The ``[plugins.tool-policy]`` table: its JSON Schema and the rules compiled from it.

The schema refuses what it can (unknown keys, a decision outside allow/ask/deny, a floor without
a reason) so the profile error names the file and key; :meth:`Policy.from_config` compiles every
glob and refuses a malformed one with the rule's index (:class:`RuleError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from seamhost.decisions import Verdict
from seamhost.errors import SeamhostError
from seamhost_tool_policy.globs import Glob, GlobError

VERDICTS = {"allow": Verdict.ALLOW, "ask": Verdict.ASK, "deny": Verdict.DENY}
LOCATIONS = ("inside-workspace", "outside-workspace")
# Arguments with a matcher of their own, which `args` may not name.
DEDICATED_ARGUMENTS = ("command", "argv", "path")

_GLOB_SYNTAX = (
    "Glob syntax: * any run of characters, ? one character, [abc] [a-z] [!abc] one character of "
    "(or not of) a set, \\c the character c itself."
)


def _matchers(what: str) -> dict[str, Any]:
    return {
        "tool": {
            "type": "string",
            "minLength": 1,
            "default": "*",
            "description": f"Glob on the tool name; {what} applies to the tools it matches "
            f'(default "*": every tool). {_GLOB_SYNTAX}',
        },
        "effect": {
            "enum": ["read-only", "write"],
            "description": f"Only tools declared with this effect class; {what} ignores the "
            "others.",
        },
        "command": {
            "type": "string",
            "minLength": 1,
            "description": "Glob on the `command` argument. For a shell call (a `command` "
            "string run as `bash -c`, or an `argv` list) it is matched against EACH simple "
            "command of a compound one (; && || | & newlines, subshells, groups, if/for/while/"
            "case bodies, substitutions) and against the command each wrapper runs (bash -c, "
            "env, sudo, nohup, timeout, nice, xargs, exec, command, find -exec ...), its words "
            "joined by single spaces after quote removal: `rm -rf /*` matches "
            "`sudo 'rm'  -rf /home`. " + _GLOB_SYNTAX,
        },
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "Glob on the `path` argument, resolved against the workspace: "
            "matched relative to the workspace when the path is inside it, as an absolute path "
            "otherwise, both as written (with `..` resolved) and with symlinks followed. Here * "
            "and ? stay within one path segment and ** as a whole segment spans any number of "
            "them: `**/.env`, `secrets/**`, `/etc/**`.",
        },
        "location": {
            "enum": list(LOCATIONS),
            "description": "Where the `path` argument (else the `cwd` argument; a shell call "
            "with neither runs in the workspace) lies: inside the workspace or outside it, "
            "judged both as written and with symlinks followed.",
        },
        "args": {
            "type": "object",
            "description": "Globs on other named arguments, all of which must match: "
            '`{ branch = "main" }`. A string is matched as is, a number, boolean or null as its '
            "JSON text, an object as its canonical JSON; a list is matched element by "
            "element, each element judged like a separate call. A missing argument never "
            "matches. `command`, `argv` and `path` have matchers of their own.",
            "propertyNames": {"not": {"enum": list(DEDICATED_ARGUMENTS)}},
            "additionalProperties": {"type": "string"},
        },
    }


_RULE = {
    "type": "object",
    "description": "One rule: every matcher present must match; the first matching rule decides.",
    "properties": {
        **_matchers("the rule"),
        "decision": {
            "enum": list(VERDICTS),
            "description": "What the rule decides: allow, ask (a person approves this exact "
            "call) or deny.",
        },
        "reason": {
            "type": "string",
            "description": "Why, shown with the decision to the model and to whoever approves.",
        },
    },
    "required": ["decision"],
    "additionalProperties": False,
}

_FLOOR = {
    "type": "object",
    "description": "One floor: a call any of whose commands matches every matcher present is "
    "denied by tools/guard, whatever the rules and approvals said.",
    "properties": {
        **_matchers("the floor"),
        "reason": {
            "type": "string",
            "minLength": 1,
            "description": "Why the floor exists, shown with the denial.",
        },
    },
    "required": ["reason"],
    "additionalProperties": False,
}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The operator's allow/ask/deny rules for tool calls (tools/pre-execute) "
    "and the non-negotiable floors (tools/guard).",
    "properties": {
        "default": {
            "enum": list(VERDICTS),
            "default": "allow",
            "description": "The decision when no rule matches: allow, ask or deny (default allow).",
        },
        "rules": {
            "type": "array",
            "items": _RULE,
            "description": "Ordered rules for tools/pre-execute: for each command of a call "
            "the first matching rule decides, and the call gets the most restrictive decision "
            "of its commands (deny > ask > allow). A command glob meeting text known only at "
            "run time ($x, *.py) counts when it may match, a deny then asking. A shell command "
            "that cannot be split reliably (eval, $(...), backquotes, here-documents ...) is at "
            "least ask.",
        },
        "floor": {
            "type": "array",
            "items": _FLOOR,
            "description": "Floors for tools/guard: any match denies. Floors accumulate "
            "across `extends`: a profile adds to its parents' floors and can neither remove "
            "them nor disable this plugin while it carries any.",
        },
    },
    "additionalProperties": False,
}


@attrs.frozen(auto_exc=True)
class RuleError(SeamhostError, ValueError):
    """A rule or floor of the tool-policy table cannot be compiled."""

    key: str  # e.g. "rules[2].command"
    problem: str
    profile: str = ""  # the profile being loaded (the rule may come from one it extends)

    def __str__(self) -> str:
        where = f"{self.profile}: " if self.profile else ""
        return (
            f"{where}plugins.tool-policy.{self.key}: {self.problem}; fix the rule in this "
            "profile or the one it extends that sets it"
        )


@attrs.frozen
class Rule:
    """A compiled rule or floor. `where` names it as the profile does (``rules[2]``)."""

    where: str
    verdict: Verdict
    reason: str
    tool: Glob
    effect: str | None = None
    command: Glob | None = None
    path: Glob | None = None
    location: str | None = None
    args: tuple[tuple[str, Glob], ...] = ()

    @property
    def inside(self) -> bool | None:
        """What `location` asks: inside the workspace (True), outside (False), either (None)."""
        return None if self.location is None else self.location == LOCATIONS[0]


def _compile(where: str, table: Mapping[str, Any], verdict: Verdict) -> Rule:
    def glob(key: str, build: Any) -> Any:
        if key not in table:
            return None
        try:
            return build(table[key])
        except GlobError as exc:
            raise RuleError(f"{where}.{key}", str(exc)) from None

    args = table.get("args", {})
    return Rule(
        where=where,
        verdict=verdict,
        reason=table.get("reason", ""),
        tool=glob("tool", Glob.text) or Glob.text("*"),
        effect=table.get("effect"),
        command=glob("command", Glob.command),
        path=glob("path", Glob.path),
        location=table.get("location"),
        args=tuple((name, _arg_glob(where, name, args[name])) for name in sorted(args)),
    )


def _arg_glob(where: str, name: str, pattern: str) -> Glob:
    try:
        return Glob.text(pattern)
    except GlobError as exc:
        raise RuleError(f"{where}.args.{name}", str(exc)) from None


@attrs.frozen
class Policy:
    """The compiled table: the default, the ordered rules and the floors."""

    default: Verdict = Verdict.ALLOW
    rules: tuple[Rule, ...] = ()
    floors: tuple[Rule, ...] = ()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Policy:
        """Compile a table the schema accepted; a malformed glob raises :class:`RuleError`."""
        rules = tuple(
            _compile(f"rules[{index}]", rule, VERDICTS[rule["decision"]])
            for index, rule in enumerate(config.get("rules", ()))
        )
        floors = tuple(
            _compile(f"floor[{index}]", floor, Verdict.DENY)
            for index, floor in enumerate(config.get("floor", ()))
        )
        return cls(VERDICTS[config.get("default", "allow")], rules, floors)

    @property
    def argument_names(self) -> tuple[str, ...]:
        """Every argument an `args` matcher names, in a stable order."""
        rules = (*self.rules, *self.floors)
        return tuple(sorted({name for rule in rules for name, _ in rule.args}))
