"""The plugin object registered with pluggy: the two seams tool-policy implements.

Building it parses every glob of the rules and floors (:mod:`.config`, :mod:`.globs`), so a
malformed one fails the bundle at startup. The compiled policy (:mod:`.policy`) and the
machinery that reads a call (the shell lexer, splitter and unwrapper behind :mod:`.calls`, and
:mod:`.evaluation`) are imported by the first call judged: ``seamhost profile check`` and every
bundle that never sees a call skip them.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from seamhost import hookimpl
from seamhost_tool_policy import examples_cache
from seamhost_tool_policy.config import RuleError, check, has_examples

if TYPE_CHECKING:
    from seamhost import Decision, PluginContext, ToolInvocation
    from seamhost_tool_policy.calls import CallView
    from seamhost_tool_policy.policy import Policy


class ToolPolicy:
    """The operator's rules (``tools/pre-execute``) and floors (``tools/guard``).

    Built from the validated profile table; every glob is parsed here, so a malformed one
    fails the bundle at startup naming the rule (:class:`~seamhost_tool_policy.config.RuleError`).
    """

    def __init__(self, ctx: PluginContext) -> None:
        self._config = ctx.config
        try:
            check(self._config)
        except RuleError as exc:
            raise RuleError(exc.key, exc.problem, str(ctx.profile_path)) from None
        if has_examples(self._config) and not examples_cache.passed(self._config):
            from seamhost_tool_policy.examples import check_examples  # loads the analysis

            check_examples(self.policy, self._config, str(ctx.profile_path))
            examples_cache.remember(self._config)

    @functools.cached_property
    def policy(self) -> Policy:
        """The policy compiled from the table, on first use (see the module docstring)."""
        from seamhost_tool_policy.policy import Policy

        return Policy.from_config(self._config)

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
        from seamhost import Decision  # see the module docstring
        from seamhost_tool_policy.evaluation import floor_reason

        reason = floor_reason(self.policy, self._view(call))
        return None if reason is None else Decision.deny(reason)

    def policy_explanation(self, call: ToolInvocation) -> dict[str, object]:
        """What ``seamhost policy explain`` shows of this plugin's reading of `call`."""
        from seamhost_tool_policy.explanation import explain

        return explain(self.policy, self._view(call))
