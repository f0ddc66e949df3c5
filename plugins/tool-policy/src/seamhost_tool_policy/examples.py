"""Rule examples, checked when the profile loads (as Codex's execpolicy checks its examples).

A rule or floor may carry ``match = [...]`` and ``not_match = [...]``: each example is a command
line (a shell call, ``{"command": LINE}``) or a table of arguments, tried as a call to the rule's
tool (``shell`` when the rule's tool is a glob and the example a command line) in a workspace
of its own. The rule must match each ``match`` example (a *may* match counts, as it does for a
floor) and no ``not_match`` one; one that does not behave is a
:class:`~seamhost.errors.ConfigError` naming the rule and the example, and what it got.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seamhost.errors import ConfigError
from seamhost.globs import Glob
from seamhost_tool_policy.calls import CallView, _places, _shell
from seamhost_tool_policy.evaluation import floor_hit
from seamhost_tool_policy.policy import Policy, Rule

WORKSPACE = Path("/seamhost-example/workspace")
ENVIRON = {"HOME": "/seamhost-example/home"}
"""The environment the examples' shell starts with: ``~/../..`` is ``/`` there, as ``../..``."""


def _view(rule: Rule, table: Mapping[str, Any], example: Any) -> CallView | str:
    arguments = {"command": example} if isinstance(example, str) else dict(example)
    tool = table.get("tool", "*")
    if not Glob.of(tool).literal:
        if not isinstance(example, str):
            return "an example table needs a rule whose `tool` names one tool"
        tool = "shell"
    shell = _shell(arguments, WORKSPACE, ENVIRON)
    names = sorted({name for name, _ in rule.args})
    values = {n: (None if n not in arguments else str(arguments[n]),) for n in names}
    effect = rule.effect or "write"
    return CallView(tool, effect, shell, _places(WORKSPACE, arguments, shell), values)


def check_examples(policy: Policy, config: Mapping[str, Any], file: str) -> None:
    """Try every example of every rule and floor; one that misbehaves raises `ConfigError`."""
    for key, compiled in (("rules", policy.rules), ("floor", policy.floors)):
        for rule, table in zip(compiled, config.get(key, ()), strict=True):
            for wanted, examples in (
                (True, table.get("match", ())),
                (False, table.get("not_match", ())),
            ):
                for index, example in enumerate(examples):
                    view = _view(rule, table, example)
                    kind = "match" if wanted else "not_match"
                    where = f"plugins.tool-policy.{rule.where}.{kind}[{index}]"
                    if isinstance(view, str):
                        raise ConfigError(file, where, view)
                    hit = floor_hit(Policy(floors=(rule,)), view)
                    if (hit is not None) is wanted:
                        continue
                    commands = [c.display for c in (view.commands or ()) if not c.opaque]
                    got = f"it read {commands}" if commands else "it read no command"
                    if hit is not None:
                        got = f"it matched: {hit.reason}"
                    verb = "must match" if wanted else "must not match"
                    raise ConfigError(
                        file, where, f"the example {example!r} {verb} this rule; {got}"
                    )
