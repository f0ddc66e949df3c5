"""The file tools' ``tools/guard``: a write the sandbox will refuse is denied before anyone asks.

``write_file`` and ``edit_file`` write through :class:`seamhost.sandbox.paths.PathPolicy`, which
refuses a path outside the writable roots, under ``[sandbox] read_only_paths``, or anywhere in
``read-only``. Without this guard such a call went through policy and approval first: the
default profile asked a person to approve a write under ``release/``, and then its own
``read_only_paths`` refused it (``SANDBOX_DENIED`` after the person said yes). The guard asks the
same path policy, for the mode the call would run in (an escalation included, so a write that
``danger-full-access`` would allow still reaches the person who approves the escalation), and
denies with the sandbox's own reason and remedy.

Only a refusal is final here: a path the check cannot resolve yet (a directory ``create_dirs``
will make) is left to the body, which checks again, pinned and race-free, when it writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import Decision, PathDenied, PathPolicy, SandboxMode

if TYPE_CHECKING:
    from seamhost import SandboxPolicy, ToolInvocation


def sandbox_refusal(call: ToolInvocation, sandbox: SandboxPolicy) -> Decision | None:
    """A deny when the sandbox will refuse `call`'s write, else None (abstain)."""
    if call.sandbox_mode is SandboxMode.DANGER_FULL_ACCESS:
        return None
    path = call.arguments.get("path")
    if not isinstance(path, str):
        return None
    policy = PathPolicy(
        call.sandbox_mode, call.workspace, sandbox.writable_roots, sandbox.read_only_paths
    )
    try:
        policy.check_write(path)
    except PathDenied as refused:
        return Decision.deny(f"the sandbox will refuse this write: {refused}")
    except (OSError, ValueError):  # unresolvable now: the body checks again when it writes
        return None
    return None
