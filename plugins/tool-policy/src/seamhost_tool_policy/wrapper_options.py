"""A table of data: the options of each wrapper the analysis unwraps (:class:`.options.Options`).

Each entry says which short letters and long names a wrapper takes, with a value or without,
and which of them run the command in another directory (``moves``) or under another root
(``reroots``). Nothing here is code: the handlers that read words with these tables are in
:mod:`.wrappers`, the dispatch by program name in :mod:`.handlers`. An option missing here is
no error: it makes the call unsure and every command that may follow it is checked, so the
tables must be right but need not be complete.
"""

from __future__ import annotations

from seamhost_tool_policy.options import Options

NO_OPTIONS = Options()
"""``nohup``, ``builtin`` and ``busybox``: the command follows the name."""

ENV = Options(
    flags="i0v",
    valued="uCS",
    long_flags=frozenset(
        {
            "--ignore-environment",
            "--null",
            "--debug",
            "--block-signal",
            "--default-signal",
            "--ignore-signal",
            "--list-signal-handling",
        }
    ),
    long_valued=frozenset({"--unset", "--chdir", "--split-string"}),
    moves=frozenset({"-C", "--chdir"}),
)
SUDO = Options(
    flags="AbEeHhiKklnPSsVv",
    valued="CDgpRrTtUu",
    long_flags=frozenset(
        {
            "--askpass",
            "--background",
            "--preserve-env",
            "--edit",
            "--set-home",
            "--login",
            "--remove-timestamp",
            "--reset-timestamp",
            "--list",
            "--non-interactive",
            "--preserve-groups",
            "--stdin",
            "--shell",
            "--validate",
            "--bell",
        }
    ),
    long_valued=frozenset(
        {
            "--close-from",
            "--chdir",
            "--group",
            "--host",
            "--prompt",
            "--chroot",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--user",
        }
    ),
    moves=frozenset({"-D", "--chdir", "-i", "--login"}),
    reroots=frozenset({"-R", "--chroot"}),
)
XARGS = Options(
    flags="0oprtx",
    valued="adEILnPs",
    glued="eil",
    long_flags=frozenset(
        {
            "--null",
            "--open-tty",
            "--interactive",
            "--no-run-if-empty",
            "--verbose",
            "--exit",
            "--show-limits",
            "--max-lines",
            "--replace",
            "--eof",
        }
    ),
    long_valued=frozenset(
        {
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        }
    ),
)
FLOCK = Options(
    flags="sxunoF",
    valued="wEc",
    long_flags=frozenset(
        {
            "--shared",
            "--exclusive",
            "--unlock",
            "--nonblock",
            "--nb",
            "--close",
            "--no-fork",
            "--verbose",
        }
    ),
    long_valued=frozenset({"--timeout", "--wait", "--conflict-exit-code", "--command"}),
)
RUNUSER = Options(
    flags="flmp",
    valued="gGsuw",
    long_flags=frozenset({"--login", "--preserve-environment", "--pty"}),
    long_valued=frozenset(
        {"--group", "--supp-group", "--shell", "--user", "--whitelist-environment"}
    ),
    moves=frozenset({"-l", "--login"}),
)
DOAS = Options(flags="nsL", valued="uC")
SETSID = Options(flags="cfw", long_flags=frozenset({"--ctty", "--fork", "--wait"}))
TIMEOUT = Options(
    flags="v",
    valued="ks",
    long_flags=frozenset({"--preserve-status", "--foreground", "--verbose"}),
    long_valued=frozenset({"--kill-after", "--signal"}),
)
NICE = Options(valued="n", long_valued=frozenset({"--adjustment"}), numeric=True)
IONICE = Options(
    flags="t",
    valued="cnpPu",
    long_flags=frozenset({"--ignore"}),
    long_valued=frozenset({"--class", "--classdata", "--pid", "--pgid", "--uid"}),
)
STDBUF = Options(valued="ioe", long_valued=frozenset({"--input", "--output", "--error"}))
CHROOT = Options(
    long_flags=frozenset({"--skip-chdir"}),
    long_valued=frozenset({"--userspec", "--groups"}),
)
TASKSET = Options(flags="acp", long_flags=frozenset({"--all-tasks", "--cpu-list", "--pid"}))
EXEC = Options(flags="cl", valued="a")
COMMAND = Options(flags="pvV")
TIME = Options(
    flags="apqv",
    valued="fo",
    long_flags=frozenset({"--append", "--portability", "--quiet", "--verbose"}),
    long_valued=frozenset({"--format", "--output"}),
)
WATCH = Options(
    flags="bcdegtxpr",
    valued="nq",
    long_flags=frozenset(
        {
            "--beep",
            "--color",
            "--no-color",
            "--differences",
            "--errexit",
            "--chgexit",
            "--no-title",
            "--exec",
            "--precise",
            "--no-linewrap",
            "--no-rerun",
        }
    ),
    long_valued=frozenset({"--interval", "--equexit"}),
)
