"""The plugin object: the approval service and the one ``approval/request`` implementation.

The service is the kernel's (:class:`~seamhost.approval.service.ApprovalService`: the audit pair,
the policy, the chain), configured from the profile table. The ``approval/request`` implementation
asks the configured answerers in the profile's order; the first that answers wins. When none
answers it returns ``None``, so an answerer plugin listed after this one in the profile is
asked next; when one fails it raises, which ends the approval ``unavailable``.

What each answerer said is kept until the service asks for it (`explain`), so the audit record
says which rule or person decided, or which answerers were tried and what to configure.

Building the plugin reads the settings, from a table the schema has validated whole (rules
included), so a bad table fails the bundle at start-up. What only asking needs (the answerers,
the rules answerer's compiled rules among them, asyncio, the errors an answerer raises, the
kernel's service) is imported and built on first use: building a bundle that never asks
(``seamhost profile check``) does not pay for it.
"""

from __future__ import annotations

import collections
import functools
from typing import TYPE_CHECKING

from seamhost import hookimpl
from seamhost.errors import describe
from seamhost_user_approval.config import Settings, check_globs

if TYPE_CHECKING:
    from collections.abc import Callable

    from seamhost import ApprovalOutcome, ApprovalRequest, ApprovalService, Bundle, PluginContext
    from seamhost_user_approval.answers import Answerer
    from seamhost_user_approval.callback import Callback, CallbackAnswerer
    from seamhost_user_approval.deferral import DeferringAnswerer
    from seamhost_user_approval.rules import RulesAnswerer
    from seamhost_user_approval.terminal import TerminalAnswerer

PLUGIN_NAME = "user-approval"
# The answerers whose answers the operator wrote down beforehand: the only ones asked about a
# request that wants standing answers (`ApprovalRequest.standing_only`); the others ask a person.
STANDING = frozenset({"rules"})
# Accounts of requests whose service never collects them (a caller that brought its own
# service) are dropped oldest first past this many.
KEPT_ACCOUNTS = 256


class UserApproval:
    """user-approval: the service and the answerer chain of one bundle."""

    def __init__(self, ctx: PluginContext) -> None:
        self.name = ctx.name
        check_globs(ctx.config, str(ctx.profile_path))
        self.settings = Settings.from_config(ctx.config)
        self._accounts: collections.OrderedDict[tuple[str, str], list[str]] = (
            collections.OrderedDict()
        )

    # The answerers are made on first use (see the module docstring).

    @functools.cached_property
    def rules(self) -> RulesAnswerer:
        """The ``rules`` answerer."""
        from seamhost_user_approval.rules import RulesAnswerer

        return RulesAnswerer.from_config(self.settings.rules)

    @functools.cached_property
    def terminal(self) -> TerminalAnswerer:
        """The ``tty`` answerer."""
        from seamhost_user_approval.terminal import TerminalAnswerer

        return TerminalAnswerer(self.settings.tty_path, self.settings.tty_timeout)

    @functools.cached_property
    def callback(self) -> CallbackAnswerer:
        """The ``callback`` answerer."""
        from seamhost_user_approval.callback import CallbackAnswerer

        return CallbackAnswerer(self.settings.callback_timeout)

    @functools.cached_property
    def deferral(self) -> DeferringAnswerer:
        """The ``defer`` answerer."""
        from seamhost_user_approval.deferral import DeferringAnswerer

        return DeferringAnswerer()

    @functools.cached_property
    def answerers(self) -> tuple[Answerer, ...]:
        """The answerers the profile lists, in its order."""
        known: dict[str, Callable[[], Answerer]] = {
            "rules": lambda: self.rules,
            "tty": lambda: self.terminal,
            "callback": lambda: self.callback,
            "defer": lambda: self.deferral,
        }
        return tuple(known[name]() for name in self.settings.answerers)

    def set_callback(self, function: Callback | None) -> None:
        """Register the callback answerer's function (``None`` removes it)."""
        if "callback" not in self.settings.answerers:
            from seamhost_user_approval.errors import CallbackRefused

            raise CallbackRefused(
                "this profile's answerers are "
                f"{', '.join(self.settings.answerers)}, so a callback would never be asked; "
                'add "callback" to [plugins.user-approval] answerers'
            )
        self.callback.function = function

    # -- the seams ------------------------------------------------------------------------------

    @hookimpl
    def approval_service(self) -> ApprovalService:
        """The kernel's service with this profile's policy, overall timeout and accounts."""
        # Imported when a session asks for it: the service module loads every session event
        # type, which building the bundle (``seamhost profile check``) has no use for.
        from seamhost import ApprovalService

        return ApprovalService(
            default_policy=self.settings.policy,
            timeout=self.settings.timeout,
            defer_ttl=self.settings.defer_ttl,
            explain=self.explain,
        )

    @hookimpl
    async def approval_request(self, request: ApprovalRequest) -> ApprovalOutcome | None:
        """Ask the answerers in order; the first outcome wins, ``None`` when none answers."""
        import asyncio  # loaded by the running loop; see the module docstring

        from seamhost_user_approval.errors import AnswererFailed, AnswererTimedOut

        notes: list[str] = []
        try:
            for answerer in self.answerers:
                if request.standing_only and answerer.name not in STANDING:
                    continue  # a person is asked elsewhere first (mcp serve's client)
                try:
                    reply = await answerer.answer(request)
                except (AnswererFailed, AnswererTimedOut) as exc:
                    notes.append(str(exc))
                    raise
                except Exception as exc:  # a bug in an answerer fails closed all the same
                    notes.append(f"the {answerer.name} answerer failed: {describe(exc)}")
                    raise
                except asyncio.CancelledError:
                    notes.append(
                        f"{answerer.name}: still answering when the approval was abandoned "
                        "(timeout_seconds ran out, or the run was cancelled)"
                    )
                    raise
                notes.append(reply.note)
                if reply.outcome is not None:
                    return reply.outcome
            return None
        finally:
            self._keep(request, notes)

    # -- accounts -------------------------------------------------------------------------------

    def _keep(self, request: ApprovalRequest, notes: list[str]) -> None:
        self._accounts[(request.session_id, request.id)] = notes
        while len(self._accounts) > KEPT_ACCOUNTS:
            self._accounts.popitem(last=False)

    def explain(self, request: ApprovalRequest, answerer: str | None) -> str | None:
        """What this plugin's answerers said about `request` (the service's `explain`)."""
        notes = self._accounts.pop((request.session_id, request.id), None)
        if not notes or (answerer is not None and answerer != self.name):
            return None
        if answerer == self.name:
            return "; ".join(notes)
        return f"{self.name} tried {'; '.join(notes)}; {self.advice()}"

    def advice(self) -> str:
        """What an operator can configure so that such a request gets an answer."""
        chosen = self.settings.answerers

        def unless(name: str) -> str:
            return "" if name in chosen else f' (with "{name}" in answerers)'

        return (
            "to answer such a call, add a rule matching it to [plugins.user-approval] rules"
            f"{unless('rules')} for headless runs, run it in a terminal{unless('tty')}, or "
            f"register a callback with seamhost_user_approval.set_callback{unless('callback')}"
        )


def set_callback(bundle: Bundle, function: Callback | None) -> None:
    """Make `function` the callback answerer of `bundle`'s user-approval plugin.

    ``function(request)`` returns, or resolves to, an
    :class:`~seamhost.approval.request.ApprovalOutcome`, or ``None`` to leave the request to the
    next answerer; ``None`` as `function` removes it. Raises
    :class:`~seamhost_user_approval.errors.CallbackRefused` when the bundle has no user-approval
    plugin or its profile does not list ``"callback"`` among the answerers.
    """
    plugin = bundle.pm.get_plugin(PLUGIN_NAME)
    if not isinstance(plugin, UserApproval):
        from seamhost_user_approval.errors import CallbackRefused

        raise CallbackRefused(
            f"profile {bundle.profile.name!r} has no user-approval plugin; add "
            '[plugins.user-approval] with answerers = ["callback"] (or a list naming it)'
        )
    plugin.set_callback(function)
