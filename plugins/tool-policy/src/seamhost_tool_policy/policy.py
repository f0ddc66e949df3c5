"""The compiled policy: the default, the rules and the floors, as the evaluation reads them.

Compiled from a table :func:`~seamhost_tool_policy.config.check` accepted, on the first call the
plugin judges (see :mod:`.plugin`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from seamhost import Verdict
from seamhost.globs import Glob
from seamhost_tool_policy.config import LOCATIONS, rule_globs

VERDICTS = {"allow": Verdict.ALLOW, "ask": Verdict.ASK, "deny": Verdict.DENY}


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
    program: Glob | None = None
    subcommand: Glob | None = None
    flags: tuple[str, ...] = ()
    operand: Glob | None = None

    @property
    def structured(self) -> bool:
        """Whether the rule has a structured matcher (program, subcommand, flags, operand)."""
        return bool(self.program or self.subcommand or self.flags or self.operand)

    @property
    def looks_at_commands(self) -> bool:
        """Whether the rule looks at a shell call's commands at all."""
        return self.command is not None or self.structured

    @property
    def inside(self) -> bool | None:
        """What `location` asks: inside the workspace (True), outside (False), either (None)."""
        return None if self.location is None else self.location == LOCATIONS[0]


def _compile(where: str, table: Mapping[str, Any], verdict: Verdict) -> Rule:
    globs = rule_globs(where, table)
    return Rule(
        where=where,
        verdict=verdict,
        reason=table.get("reason", ""),
        tool=globs.tool,
        effect=table.get("effect"),
        command=globs.command,
        path=globs.path,
        location=table.get("location"),
        args=globs.args,
        program=globs.program,
        subcommand=globs.subcommand,
        flags=tuple(table.get("flags", ())),
        operand=globs.operand,
    )


@attrs.frozen
class Policy:
    """The compiled table: the default, the ordered rules and the floors."""

    default: Verdict = Verdict.ALLOW
    rules: tuple[Rule, ...] = ()
    floors: tuple[Rule, ...] = ()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Policy:
        """Compile a table the schema accepted; a malformed glob raises `RuleError`."""
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
