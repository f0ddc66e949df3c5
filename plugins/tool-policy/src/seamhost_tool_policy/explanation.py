"""What ``seamhost policy explain`` shows of tool-policy's reading of a call.

The floor that denies it (its index, and whether it denies because a part could not be
analysed), the rule that decides it (its index and reason, or the default), and for a shell call
the analysis: each command with its program, subcommand, normalised flags and operands (as
read, and resolved: where each leads once ``~``, ``$HOME``, ``$PWD`` and ``..`` are), the
commands nobody can know, the redirection targets and why the analysis is unsure.
"""

from __future__ import annotations

from typing import Any

from seamhost_tool_policy.calls import CallView
from seamhost_tool_policy.evaluation import floor_hit, judge
from seamhost_tool_policy.policy import Policy, Rule


def _rule(rule: Rule | None) -> dict[str, Any] | None:
    if rule is None:
        return None
    kind, _, index = rule.where.rstrip("]").partition("[")
    return {"key": rule.where, "kind": kind, "index": int(index), "reason": rule.reason}


def explain(policy: Policy, view: CallView) -> dict[str, Any]:
    """The floor and rule behind the decision, and the shell analysis (JSON-able)."""
    hit = floor_hit(policy, view)
    outcome = judge(policy, view)
    out: dict[str, Any] = {
        "floor": None
        if hit is None
        else {**(_rule(hit.floor) or {}), "denies": hit.reason, "unanalysable": hit.unanalysable},
        "rule": _rule(outcome.rule),
        "rules_decision": str(outcome.verdict),
        "rules_reason": outcome.reason,
    }
    shell = view.shell
    if shell is not None:
        out["shell"] = {
            "commands": [
                {
                    "text": c.display,
                    "program": c.program and c.program.replace("\ue000", "…"),
                    "subcommand": c.subcommand and c.subcommand.replace("\ue000", "…"),
                    "flags": sorted(c.flags),
                    "operands": [[f.replace("\ue000", "…") for f in forms] for forms in c.operands],
                    "resolved": [[f.replace("\ue000", "…") for f in names] for names in c.resolved],
                }
                for c in shell.commands
                if not c.opaque
            ],
            "unknown": [c.opaque for c in shell.commands if c.opaque],
            "redirects": [r.replace("\ue000", "…") for r in shell.redirects],
            "unsure": list(shell.unsure),
        }
    return out
