"""The ``[plugins.tool-policy]`` table: its JSON Schema and the globs of its rules.

The schema refuses what it can (unknown keys, a decision outside allow/ask/deny, a floor without
a reason) so the profile error names the file and key; :func:`check` parses every glob and
refuses a malformed one with the rule's index (:class:`RuleError`). Both run when the bundle is
built. The policy the calls are judged by (:mod:`.policy`) is compiled from the checked table
on the first call, so building a bundle loads neither it nor the kernel's decision values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from seamhost.errors import SeamhostError
from seamhost.globs import Glob, GlobError

VERDICTS = ("allow", "ask", "deny")
LOCATIONS = ("inside-workspace", "outside-workspace")
# Arguments with a matcher of their own, which `args` may not name.
DEDICATED_ARGUMENTS = ("command", "argv", "path")

_GLOB_SYNTAX = (
    "Glob syntax (seamhost.globs, shared by every shipped plugin): * any run of characters but "
    "/, ** any run / included, ? one character but /, [abc] [a-z] [!abc] one character of (or "
    "not of) a set, \\c the character c itself."
)
_EXAMPLES = {
    "type": "array",
    "items": {"anyOf": [{"type": "string"}, {"type": "object"}]},
}


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
        "program": {
            "type": "string",
            "minLength": 1,
            "description": "Glob on the program of each simple command of a shell call, its "
            "basename, through every wrapper (sudo, env, timeout, unshare, strace, nsenter, "
            "systemd-run, xargs, bash -c ...): `rm` matches `sudo /bin/rm -rf /`.",
        },
        "subcommand": {
            "type": "string",
            "minLength": 1,
            "description": "Glob on the subcommand: the first operand after the program's "
            "global options (git -C . -c k=v --no-pager push is a git push).",
        },
        "flags": {
            "type": "array",
            "items": {"type": "string", "pattern": "^-"},
            "minItems": 1,
            "description": "Options the command must all have, normalised: clusters split "
            "and spellings mapped per program (-fr = -r -f = -Rf = --recursive --force for rm).",
        },
        "operand": {
            "type": "string",
            "minLength": 1,
            "description": "Glob on any one operand (non-option word) of the command, after a "
            "literal cd earlier in the line (cd / && rm -rf . removes /).",
        },
        "match": {
            **_EXAMPLES,
            "description": f"Examples {what} must match, checked when the profile loads: a "
            "command line (a shell call) or a table of arguments.",
        },
        "not_match": {
            **_EXAMPLES,
            "description": f"Examples {what} must not match, checked when the profile loads.",
        },
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "Glob on the `path` argument and, for a shell call, on the file of "
            "each redirection its commands make (`> f`, `>> f`, `< f`, `&> f` ..., also inside "
            "subshells, groups and `bash -c` strings; relative to the `cwd` argument), resolved "
            "against the workspace: matched relative to the workspace when the path is inside "
            "it, as an absolute path otherwise, both as written (with `..` resolved) and with "
            'symlinks followed. A target known only at run time (`> "$f"`, `> ~/x`, or a '
            "relative one after `cd`) may match any glob: a deny then asks. Here * and ? stay "
            "within one path segment and ** as a whole segment spans any number of them: "
            "`**/.env`, `secrets/**`, `/etc/**`.",
        },
        "location": {
            "enum": list(LOCATIONS),
            "description": "Where the call acts: inside the workspace or outside it. Its "
            "places are the `path` argument, else the `cwd` argument, else (a shell call) the "
            "workspace, and, for a shell call, the file of each redirection its commands make "
            "(2>&1 and /dev/null, /dev/stdout ... are none); each is judged as written and with "
            "symlinks followed, and a target known only at run time may be either.",
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
            "description": "Ordered rules for tools/pre-execute: for each command (and place) "
            "of a call the first matching rule decides, and the call gets the most restrictive "
            "decision of its commands (deny > ask > allow). A command glob meeting text known "
            "only at run time ($x, *.py) counts when it may match, a deny then asking. A shell "
            "command that cannot be split reliably (eval, $(...), backquotes, here-documents "
            "...) is at least ask.",
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


class RuleGlobs(NamedTuple):
    """The globs of one rule or floor: `tool` (``*`` when absent) and the optional others."""

    tool: Glob
    command: Glob | None
    path: Glob | None
    args: tuple[tuple[str, Glob], ...]  # sorted by argument name
    program: Glob | None = None
    subcommand: Glob | None = None
    operand: Glob | None = None


def rule_globs(where: str, table: Mapping[str, Any]) -> RuleGlobs:
    """Parse the globs of the rule or floor `where` (``rules[2]``); raise :class:`RuleError`."""

    def glob(key: str, build: Any, pattern: Any) -> Any:
        try:
            return build(pattern)
        except GlobError as exc:
            raise RuleError(f"{where}.{key}", str(exc)) from None

    args = table.get("args", {})
    return RuleGlobs(
        tool=glob("tool", Glob.of, table.get("tool", "*")),
        command=glob("command", Glob.command, table["command"]) if "command" in table else None,
        path=glob("path", Glob.of, table["path"]) if "path" in table else None,
        args=tuple((name, glob(f"args.{name}", Glob.of, args[name])) for name in sorted(args)),
        **{
            key: glob(key, Glob.of, table[key])
            for key in ("program", "subcommand", "operand")
            if key in table
        },
    )


def check(config: Mapping[str, Any]) -> None:
    """Parse every glob of a table the schema accepted; a malformed one raises `RuleError`."""
    for key in ("rules", "floor"):
        for index, table in enumerate(config.get(key, ())):
            rule_globs(f"{key}[{index}]", table)


def has_examples(config: Mapping[str, Any]) -> bool:
    """Whether any rule or floor carries examples (``match``, ``not_match``)."""
    tables = (*config.get("rules", ()), *config.get("floor", ()))
    return any("match" in table or "not_match" in table for table in tables)
