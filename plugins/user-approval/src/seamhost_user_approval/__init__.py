"""user-approval: one-shot, audited, fail-closed approvals (design.md §5 step 6).

Provides ``approval/service`` (the kernel's service, configured from the profile table) and
``approval/request`` (the answerers below, asked in the profile's order; the first that answers
wins). The profile table::

    [plugins.user-approval]
    policy = "ask"                     # ask (default) | never; the session's last
                                       # approval/policy event overrides it
    answerers = ["rules", "tty"]       # asked in this order (default ["rules", "tty"])
    timeout_seconds = 600              # optional bound on the whole chain
    tty_timeout_seconds = 300          # the tty answerer's wait for a key
    callback_timeout_seconds = 30      # the callback answerer's wait for the function
    tty_path = "/dev/pts/7"            # optional: the terminal to ask on (default /dev/tty)

    [[plugins.user-approval.rules]]    # for the rules answerer; the first match decides
    tool = "write_file"
    args = { path = "release/notes/*.md" }
    decision = "allow"                 # allow | reject
    reason = "release-note drafts are reviewed in the pull request"

The answerers: ``rules`` (:mod:`.rules`), ``tty`` (:mod:`.terminal`), ``callback``
(:mod:`.callback`, registered with :func:`set_callback`). An answerer that answers ends the
chain; one that does not answer passes the request on; one that raises, answers outside the
vocabulary or exceeds its timeout makes the approval ``unavailable``, and so does nobody
answering, with a message naming the answerers tried and what to configure.

Outcomes and what the call ends with: ``allowed-once`` (the call proceeds, this call with these
arguments, once), ``rejected`` (``APPROVAL_REJECTED``), ``cancelled`` (``APPROVAL_CANCELLED``),
``unavailable`` (``APPROVAL_UNAVAILABLE``; also policy ``never``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginDescriptor
from seamhost.lazy import lazy_exports
from seamhost_user_approval.config import SCHEMA
from seamhost_user_approval.plugin import UserApproval, set_callback

if TYPE_CHECKING:
    from seamhost_user_approval.answers import Answerer, Reply
    from seamhost_user_approval.callback import Callback, CallbackAnswerer
    from seamhost_user_approval.config import Settings
    from seamhost_user_approval.errors import AnswererFailed, AnswererTimedOut, CallbackRefused
    from seamhost_user_approval.rules import Rule, RulesAnswerer
    from seamhost_user_approval.terminal import TerminalAnswerer

__all__ = [
    "Answerer",
    "AnswererFailed",
    "AnswererTimedOut",
    "Callback",
    "CallbackAnswerer",
    "CallbackRefused",
    "Reply",
    "Rule",
    "RulesAnswerer",
    "Settings",
    "TerminalAnswerer",
    "UserApproval",
    "descriptor",
    "set_callback",
]

descriptor = PluginDescriptor(
    name="user-approval",
    factory=UserApproval,
    config_schema=SCHEMA,
    provides=["approval/service", "approval/request"],
    requires=[],
    merge=frozenset({"rules"}),  # a child's rules come first; replace = ["rules"] drops the rest
    description="Audited, one-shot approvals answered by rules, a terminal or a callback.",
)

# The other public names are imported on first use, so that loading the plugin for a bundle
# does not import the answerers only asking needs.
_EXPORTS = {
    "Answerer": "seamhost_user_approval.answers",
    "Reply": "seamhost_user_approval.answers",
    "Callback": "seamhost_user_approval.callback",
    "CallbackAnswerer": "seamhost_user_approval.callback",
    "Settings": "seamhost_user_approval.config",
    "AnswererFailed": "seamhost_user_approval.errors",
    "AnswererTimedOut": "seamhost_user_approval.errors",
    "CallbackRefused": "seamhost_user_approval.errors",
    "Rule": "seamhost_user_approval.rules",
    "RulesAnswerer": "seamhost_user_approval.rules",
    "TerminalAnswerer": "seamhost_user_approval.terminal",
}


__getattr__ = lazy_exports(__name__, _EXPORTS)
