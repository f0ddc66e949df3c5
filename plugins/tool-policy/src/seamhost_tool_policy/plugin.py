"""The plugin object registered with pluggy: the two seams tool-policy implements.

Building it compiles the rules and floors (:mod:`.config`, :mod:`.globs`), so a malformed one
fails the bundle at startup. The machinery that reads a call (the shell lexer, splitter and
unwrapper behind :mod:`.calls`, and :mod:`.evaluation`) is imported by the first call judged:
``seamhost profile check`` and every bundle that never sees a call skip it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from seamhost.decisions import Decision
from seamhost.hookspecs import hookimpl
from seamhost_tool_policy.config import Policy, RuleError

if TYPE_CHECKING:
    from seamhost.descriptor import PluginContext
    from seamhost.tools import ToolInvocation
    from seamhost_tool_policy.calls import CallView


class ToolPolicy:
    """The operator's rules (``tools/pre-execute``) and floors (``tools/guard``).

    Built from the validated profile table; every glob is compiled here, so a malformed one
    fails the bundle at startup naming the rule (:class:`~seamhost_tool_policy.config.RuleError`).
    """

    def __init__(self, ctx: PluginContext) -> None:
        try:
            self.policy = Policy.from_config(ctx.config)
        except RuleError as exc:
            raise attrs.evolve(exc, profile=str(ctx.profile_path)) from None

    def _view(self, call: ToolInvocation) -> CallView:
        from seamhost_tool_policy.calls import CallView  # first call: see the module docstring

        return CallView.of(call, self.policy.argument_names)

    @hookimpl
    def tools_pre_execute(self, call: ToolInvocation) -> Decision:
        """The first matching rule per command; the most restrictive over the call."""
        from seamhost_tool_policy.evaluation import decide  # see the module docstring

        return decide(self.policy, self._view(call))

    @hookimpl
    def tools_guard(self, call: ToolInvocation) -> Decision | None:
        """Deny when a floor matches; otherwise abstain (a guard never allows)."""
        if not self.policy.floors:
            return None
        from seamhost_tool_policy.evaluation import floor_reason  # see the module docstring

        reason = floor_reason(self.policy, self._view(call))
        return None if reason is None else Decision.deny(reason)
