"""tool-policy: the operator's allow/ask/deny rules and non-negotiable floors for tool calls.

Implements ``tools/pre-execute`` (decision: the rules) and ``tools/guard`` (guard: the floors).
The profile table::

    [plugins.tool-policy]
    default = "allow"                # when no rule matches: allow | ask | deny (default allow)

    [[plugins.tool-policy.rules]]    # ordered; for each command the first matching rule decides
    tool = "shell"                   # glob on the tool name (default "*")
    effect = "write"                 # optional: read-only | write (the tool's declared effect)
    command = "git push*"            # optional: glob on each simple command of a shell call
    path = "**/.env"                 # optional: glob on the `path` argument and on the files a
                                     #   shell call redirects to or from (workspace-relative)
    location = "outside-workspace"   # optional: inside-workspace | outside-workspace, of any
                                     #   place the call acts on (see Matching)
    args = { branch = "main" }       # optional: globs on other named arguments
    decision = "ask"                 # allow | ask | deny
    reason = "pushing needs a human" # optional; shown with the decision

    [[plugins.tool-policy.floor]]    # tools/guard: any match denies; the same matchers
    tool = "shell"
    command = "rm -rf /*"
    reason = "never"                 # required

Matching. Every matcher a rule has must match. Globs (:mod:`.globs`): ``*`` ``?`` ``[...]``
``\\c``; in ``path`` globs ``*`` stays within a segment and ``**`` spans segments. ``path`` and
``location`` look at the *places* a call acts on, each judged on its own (the strictest outcome
wins):

* its ``path`` argument, else its ``cwd`` argument, else, for a shell call, the workspace;
* for a shell call, also the target of every file redirection of every command it runs
  (``>`` ``>>`` ``>|`` ``<`` ``<>`` ``&>`` ``&>>`` ``N>`` ``N<`` ``>&file`` ...), relative to
  its ``cwd`` argument, else to the workspace. Duplicating or closing a descriptor (``2>&1``
  ``>&2`` ``<&0`` ``>&-``), here-documents and here-strings open no file; ``/dev/null``,
  ``/dev/stdin``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/tty`` and ``/dev/fd/N`` are no file
  effect (:data:`.calls.STREAMS`).

A place is matched relative to the workspace inside it and absolute outside it; ``location``
says which. Each is looked at as written (``..`` resolved) and with symlinks followed; where
the two disagree each is judged and the stricter outcome wins. A ``path`` glob applies to the
``path`` argument and to redirection targets, never to ``cwd`` or the workspace.

Shell calls (a ``command`` string run as ``bash -c``, or an ``argv`` list): the line is split
into its simple commands (``;`` ``&&`` ``||`` ``|`` ``&``, newlines, subshells, groups, the
bodies of ``if``/``while``/``for``/``case``, functions), wrappers are unwrapped (``bash -c``,
``env``, ``sudo``, ``nohup``, ``timeout``, ``nice``, ``xargs``, ``exec``, ``command``,
``find -exec`` ...; see :mod:`.unwrap`), and ``command`` is matched against each of them, their
words joined by single spaces after quote removal, so chaining, quoting or wrapping cannot
slip past a rule. The redirections of those commands are collected through the same
splitting and unwrapping (a subshell, a group, a ``bash -c`` string, after ``sudo`` or
``env``...), so neither can they. Text only known at run time (``$x``, ``*.py``, ``~``) may be
anything: a rule that matches for some of its values still counts (a deny then asks, since only
a person can tell), so a variable cannot turn a deny into an allow. A redirection target with
such text (``> "$out"``, ``> ~/x``, ``> *.log``) may be anywhere: it may lie inside or outside
the workspace and may match any ``path`` glob. So may a relative target once the call may have
changed directory (a ``cd``, ``pushd`` or ``popd`` anywhere in it; inside ``env -C``,
``sudo -D``/``-i``, ``su -``, ``find -execdir``), and inside ``chroot`` an absolute one. A line
that cannot be split reliably (``eval``, ``source``, ``$(...)``, backquotes, process
substitution, here-documents and here-strings, unbalanced quotes ...) is at least ask, its
reason saying why.

Decisions. ``tools/pre-execute``: a matching floor denies at once; otherwise each combination
of a command, a place and an element of each list argument an ``args`` matcher names gets the
first matching rule's decision, or ``default``; the call gets the most restrictive (deny > ask
> allow). Places belong to the call, not to the command that names them: a rule with both
``command`` and ``path`` matches a call holding a matching command and a matching place.
``tools/guard``: a matching floor denies, otherwise the guard abstains; it never
allows. A floor denies what it cannot rule out: a command or a place that may match it, an
unsplittable line whose raw text matches it, a line nested too deeply to be read whole.

Floors accumulate across ``extends``: a profile's floors are added to its parents', a child
cannot remove them, and ``enabled = false`` on a tool-policy table that carries inherited
floors is a configuration error. Rules merge: a child's rules come before its parents' (so, the
first match deciding, they take precedence), unless its table says ``replace = ["rules"]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginDescriptor
from seamhost.lazy import lazy_exports
from seamhost_tool_policy.config import SCHEMA, RuleError
from seamhost_tool_policy.plugin import ToolPolicy

if TYPE_CHECKING:
    from seamhost_tool_policy.policy import Policy, Rule

__all__ = ["Policy", "Rule", "RuleError", "ToolPolicy", "descriptor"]


# The compiled policy's classes are imported on first use: building a bundle does not need them
# (see .plugin).
__getattr__ = lazy_exports(
    __name__, dict.fromkeys(("Policy", "Rule"), "seamhost_tool_policy.policy")
)


descriptor = PluginDescriptor(
    name="tool-policy",
    factory=ToolPolicy,
    config_schema=SCHEMA,
    provides=["tools/pre-execute", "tools/guard"],
    requires=[],
    accumulate=frozenset({"floor"}),
    merge=frozenset({"rules"}),
    description="The operator's allow/ask/deny rules (tools/pre-execute) and floors (tools/guard).",
)
