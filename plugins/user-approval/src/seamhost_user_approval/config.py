"""The ``[plugins.user-approval]`` table: its JSON Schema and the settings read from it.

The schema refuses everything it can (unknown keys, an answerer or decision outside the
vocabulary, a timeout that is not positive), so a mistake is reported at start-up naming the
profile file and key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

# The kernel's approval policies (seamhost.approval.service.POLICIES, which a test holds this equal
# to), spelled out because importing that module loads every session event type, which building the
# bundle (``seamhost profile check``) has no use for.
POLICIES = ("ask", "never")
ANSWERERS = ("rules", "tty", "callback", "defer")
DEFAULT_ANSWERERS = ("rules", "tty")
DEFAULT_TTY_TIMEOUT = 300.0
DEFAULT_CALLBACK_TIMEOUT = 30.0
# What a rule may decide (the rules answerer maps each to its outcome) and which escalation it
# may match; spelled here because the rules answerer is only built once a request is asked.
DECISIONS = ("allow", "reject")
ESCALATIONS = ("none", "any", "workspace-write", "danger-full-access")


def _seconds(description: str, default: float | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": description,
    }
    if default is not None:
        schema["default"] = default
    return schema


_RULE: dict[str, Any] = {
    "type": "object",
    "description": "One rule; rules are tried in order and the first that matches decides.",
    "properties": {
        "tool": {
            "type": "string",
            "minLength": 1,
            "description": 'Glob on the tool name ("*": any tool). Globs match the whole text, '
            "case-sensitively: * any run of characters but /, ** any run / included, ? one "
            "character but /, [abc] [a-z] [!abc] one character of (or not of) a set; write [*] "
            "[?] [[] or \\* \\? \\[ for the character itself.",
        },
        "args": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Globs on named arguments (the tool glob's dialect: "
            "release/notes/*.md stays in release/notes), all of which must match; a missing "
            "argument never matches. A string is matched as it is, any other value as its "
            'canonical JSON text (3, true, ["a","b"], {"k":1}). A string with a `..` path '
            "segment is matched only by a glob without wildcards.",
        },
        "escalation": {
            "enum": list(ESCALATIONS),
            "default": "none",
            "description": "The sandbox escalation the call asks for: none (default: only "
            "calls that ask for none, so the rule never approves a wider sandbox), a mode "
            "(calls asking for exactly it), or any.",
        },
        "decision": {
            "enum": list(DECISIONS),
            "description": "allow (the call is allowed once) or reject.",
        },
        "reason": {
            "type": "string",
            "description": "Why; recorded in the approval's audit record.",
        },
    },
    "required": ["tool", "decision"],
    "additionalProperties": False,
}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "One-shot, audited, fail-closed approvals of the calls tool policy asks "
    "about, answered by rules, a person at a terminal, or the embedding application.",
    "properties": {
        "policy": {
            "enum": list(POLICIES),
            "default": "ask",
            "description": "ask: approval requests go to the answerers; never: refused "
            "before any answerer runs. The session's last approval/policy event (the API "
            "seamhost.approval.service.set_policy, or seamhost run --approval-policy) "
            "overrides it.",
        },
        "answerers": {
            "type": "array",
            "items": {"enum": list(ANSWERERS)},
            "uniqueItems": True,
            "minItems": 1,
            "default": list(DEFAULT_ANSWERERS),
            "description": "The answerers asked, in this order; the first that answers wins. "
            "rules: the rules below (headless); tty: a person at the terminal; callback: a "
            "function the embedding application registers (seamhost_user_approval."
            "set_callback); defer: park the question until someone runs `seamhost approve` "
            "or `reject` (list it last: it answers everything it is asked).",
        },
        "rules": {
            "type": "array",
            "items": _RULE,
            "description": "Allow and reject rules for the rules answerer; a call no rule "
            "matches is left to the next answerer.",
        },
        "timeout_seconds": _seconds(
            "Bound on the whole answerer chain of one approval (default: none); past it the "
            "approval is unavailable."
        ),
        "tty_timeout_seconds": _seconds(
            "How long the tty answerer waits for a key (default 300); past it the approval "
            "is unavailable.",
            DEFAULT_TTY_TIMEOUT,
        ),
        "callback_timeout_seconds": _seconds(
            "How long the callback answerer waits for the function (default 30); past it the "
            "approval is unavailable.",
            DEFAULT_CALLBACK_TIMEOUT,
        ),
        "defer_expires_seconds": _seconds(
            "How long a deferred approval stays answerable (default: no expiry); an "
            "unanswered one is refused (APPROVAL_DEFERRED) when the session resumes after it."
        ),
        "tty_path": {
            "type": "string",
            "minLength": 1,
            "description": "The terminal device the tty answerer asks on (default: the "
            "controlling terminal /dev/tty, and only when standard input is a terminal).",
        },
    },
    "additionalProperties": False,
}


class Settings(NamedTuple):
    """The validated table, with its defaults filled in.

    A named tuple rather than an attrs class: every bundle with this plugin builds one, and
    creating an attrs class costs start-up a fraction of a millisecond.
    """

    policy: str = "ask"
    answerers: tuple[str, ...] = DEFAULT_ANSWERERS
    rules: tuple[Mapping[str, Any], ...] = ()
    timeout: float | None = None
    tty_timeout: float = DEFAULT_TTY_TIMEOUT
    callback_timeout: float = DEFAULT_CALLBACK_TIMEOUT
    tty_path: str | None = None
    defer_ttl: float | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """Settings from a table :data:`SCHEMA` accepted."""
        return cls(
            policy=config.get("policy", "ask"),
            answerers=tuple(config.get("answerers", DEFAULT_ANSWERERS)),
            rules=tuple(config.get("rules", ())),
            timeout=config.get("timeout_seconds"),
            tty_timeout=config.get("tty_timeout_seconds", DEFAULT_TTY_TIMEOUT),
            callback_timeout=config.get("callback_timeout_seconds", DEFAULT_CALLBACK_TIMEOUT),
            tty_path=config.get("tty_path"),
            defer_ttl=config.get("defer_expires_seconds"),
        )


def check_globs(config: Mapping[str, Any], file: str) -> None:
    """Parse every glob of the rules; a malformed one is a `ConfigError` naming its key."""
    from seamhost.errors import ConfigError
    from seamhost.globs import Glob, GlobError

    for index, rule in enumerate(config.get("rules", ())):
        named = [("tool", rule["tool"])]
        named += [(f"args.{name}", glob) for name, glob in rule.get("args", {}).items()]
        for key, pattern in named:
            try:
                Glob.of(pattern)
            except GlobError as exc:
                where = f"plugins.user-approval.rules[{index}].{key}"
                raise ConfigError(file, where, str(exc)) from None
