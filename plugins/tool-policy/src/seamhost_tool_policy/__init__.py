"""tool-policy: the operator's allow/ask/deny rules and non-negotiable floors for tool calls.

Implements ``tools/pre-execute`` (decision: the rules) and ``tools/guard`` (guard: the floors).
The profile table::

    [plugins.tool-policy]
    default = "allow"                # when no rule matches: allow | ask | deny (default allow)

    [[plugins.tool-policy.rules]]    # ordered; for each command the first matching rule decides
    tool = "shell"                   # glob on the tool name (default "*")
    effect = "write"                 # optional: read-only | write (the tool's declared effect)
    command = "git push*"            # optional: glob on each simple command of a shell call
    path = "**/.env"                 # optional: glob on the `path` argument (workspace-relative)
    location = "outside-workspace"   # optional: inside-workspace | outside-workspace
    args = { branch = "main" }       # optional: globs on other named arguments
    decision = "ask"                 # allow | ask | deny
    reason = "pushing needs a human" # optional; shown with the decision

    [[plugins.tool-policy.floor]]    # tools/guard: any match denies; the same matchers
    tool = "shell"
    command = "rm -rf /*"
    reason = "never"                 # required

Matching. Every matcher a rule has must match. Globs (:mod:`.globs`): ``*`` ``?`` ``[...]``
``\\c``; in ``path`` globs ``*`` stays within a segment and ``**`` spans segments. ``path`` is
matched relative to the workspace inside it and absolute outside it; ``location`` says which.
Both look at the path as written (``..`` resolved) and with symlinks followed; where the two
disagree each is judged and the stricter outcome wins. ``location`` without a ``path`` argument
looks at ``cwd``, and a shell call with neither runs in the workspace.

Shell calls (a ``command`` string run as ``bash -c``, or an ``argv`` list): the line is split
into its simple commands (``;`` ``&&`` ``||`` ``|`` ``&``, newlines, subshells, groups, the
bodies of ``if``/``while``/``for``/``case``, functions), wrappers are unwrapped (``bash -c``,
``env``, ``sudo``, ``nohup``, ``timeout``, ``nice``, ``xargs``, ``exec``, ``command``,
``find -exec`` ...; see :mod:`.unwrap`), and ``command`` is matched against each of them, their
words joined by single spaces after quote removal, so chaining, quoting or wrapping cannot
slip past a rule. Text only known at run time (``$x``, ``*.py``, ``~``) may be anything: a rule
that matches for some of its values still counts (a deny then asks, since only a person can
tell), so a variable cannot turn a deny into an allow. A line that cannot be split reliably
(``eval``, ``source``, ``$(...)``, backquotes, process substitution, here-documents and
here-strings, unbalanced quotes ...) is at least ask, its reason saying why.

Decisions. ``tools/pre-execute``: a matching floor denies at once; otherwise each command (and
each element of a list argument an ``args`` matcher names) gets the first matching rule's
decision, or ``default``; the call gets the most restrictive (deny > ask > allow).
``tools/guard``: a matching floor denies, otherwise the guard abstains; it never allows. A
floor denies what it cannot rule out: a command that may match it, an unsplittable line whose
raw text matches it, a line nested too deeply to be read whole.

Floors accumulate across ``extends``: a profile's floors are added to its parents', a child
cannot remove them, and ``enabled = false`` on a tool-policy table that carries inherited
floors is a configuration error.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from seamhost.descriptor import PluginDescriptor
from seamhost_tool_policy.config import SCHEMA, RuleError
from seamhost_tool_policy.plugin import ToolPolicy

if TYPE_CHECKING:
    from seamhost_tool_policy.policy import Policy, Rule

__all__ = ["Policy", "Rule", "RuleError", "ToolPolicy", "descriptor"]


def __getattr__(name: str) -> Any:
    # The compiled policy's classes are imported on first use: building a bundle does not
    # need them (see .plugin).
    if name not in ("Policy", "Rule"):
        raise AttributeError(f"module 'seamhost_tool_policy' has no attribute {name!r}")
    return getattr(importlib.import_module("seamhost_tool_policy.policy"), name)


descriptor = PluginDescriptor(
    name="tool-policy",
    factory=ToolPolicy,
    config_schema=SCHEMA,
    provides=["tools/pre-execute", "tools/guard"],
    requires=[],
    accumulate=frozenset({"floor"}),
    description="The operator's allow/ask/deny rules (tools/pre-execute) and floors (tools/guard).",
)
