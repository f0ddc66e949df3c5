"""The votes behind ``seamhost policy explain`` (:mod:`seamhost.cli.policy`), through the seams."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seamhost.jsonvalue import digest, freeze
from seamhost.kernel import dispatch
from seamhost.kernel.catalogue import hook_name
from seamhost.tool.call import ToolInvocation

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle


def _call(bundle: Bundle, tool: str, arguments: Mapping[str, Any]) -> ToolInvocation:
    return ToolInvocation(
        session_id="policy-explain",
        turn=1,
        step=1,
        call_id="explain",
        tool=bundle.tools[tool],
        arguments=freeze(dict(arguments)),
        args_digest=digest(dict(arguments)),
        workspace=Path.cwd(),
        sandbox_mode=bundle.profile.sandbox.mode,
    )


async def explain_call(bundle: Bundle, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The decision, each plugin's vote and each plugin's own account of `arguments`."""
    call = _call(bundle, tool, arguments)
    votes: list[dict[str, Any]] = []
    names = {bundle.pm.get_name(p): p for p in bundle.pm.get_plugins()}
    for seam, guard in (("tools/pre-execute", False), ("tools/guard", True)):
        caller = getattr(bundle.pm.hook, hook_name(seam))
        spec = tuple(caller.spec.argnames) if caller.spec is not None else ()
        for impl in reversed(caller.get_hookimpls()):
            one = dispatch.Impl.of(impl.plugin_name, impl.function, impl.argnames, spec)
            vote = await dispatch.decide(
                seam, (one,), (call,), trace=dispatch.Tracer(), guard=guard
            )
            voted = vote.plugin != ""
            votes.append(
                {
                    "seam": seam,
                    "plugin": impl.plugin_name.partition("#")[0],
                    "vote": str(vote.verdict) if voted else "abstain",
                    "reason": vote.reason,
                }
            )
    decided = await bundle.seams.tools_pre_execute(call)
    guarded = await bundle.seams.tools_guard(call)
    final = guarded if guarded.verdict > decided.verdict else decided
    details = {}
    for name, plugin in names.items():
        explain = getattr(plugin, "policy_explanation", None)
        if callable(explain) and name is not None:
            details[name] = explain(call)
    return {
        "tool": tool,
        "arguments": dict(arguments),
        "decision": str(final.verdict),
        "reason": final.reason,
        "plugin": final.plugin,
        "votes": votes,
        "details": details,
    }
