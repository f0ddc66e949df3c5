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
UNSHARE = Options(
    flags="muinpUCTfrc",
    valued="SGRw",
    long_flags=frozenset(
        {
            "--mount",
            "--uts",
            "--ipc",
            "--net",
            "--pid",
            "--user",
            "--cgroup",
            "--time",
            "--fork",
            "--kill-child",
            "--mount-proc",
            "--map-root-user",
            "--map-current-user",
            "--map-auto",
            "--keep-caps",
            "--mount-binfmt",
        }
    ),
    long_valued=frozenset(
        {
            "--setuid",
            "--setgid",
            "--root",
            "--wd",
            "--propagation",
            "--setgroups",
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
            "--monotonic",
            "--boottime",
        }
    ),
    moves=frozenset({"-w", "--wd"}),
    reroots=frozenset({"-R", "--root"}),
)
STRACE = Options(
    flags="cCdDfFhiqrtTvVwxyzZkn",
    valued="abeEIoOpPsSuUX",
    long_flags=frozenset(
        {
            "--follow-forks",
            "--output-separately",
            "--summary-only",
            "--summary",
            "--summary-wall-clock",
            "--seccomp-bpf",
            "--decode-fds",
            "--decode-pids",
            "--quiet",
            "--silent",
            "--timestamps",
            "--relative-timestamps",
            "--syscall-times",
            "--no-abbrev",
            "--verbose",
            "--instruction-pointer",
            "--stack-trace",
            "--daemonize",
            "--debug",
            "--kill-on-exit",
            "--absolute-timestamps",
            "--syscall-number",
            "--always-show-pid",
        }
    ),
    long_valued=frozenset(
        {
            "--output",
            "--trace",
            "--attach",
            "--user",
            "--env",
            "--string-limit",
            "--trace-path",
            "--signal",
            "--status",
            "--inject",
            "--fault",
            "--abbrev",
            "--raw",
            "--read",
            "--write",
            "--columns",
            "--summary-columns",
            "--summary-sort-by",
            "--const-print-style",
            "--decode-fds",
            "--detach-on",
            "--argv0",
        }
    ),
)
CHRT = Options(
    flags="abdefiormvpaR",
    valued="TPD",
    long_flags=frozenset(
        {
            "--all-tasks",
            "--batch",
            "--deadline",
            "--fifo",
            "--idle",
            "--other",
            "--rr",
            "--max",
            "--verbose",
            "--pid",
            "--reset-on-fork",
        }
    ),
    long_valued=frozenset({"--sched-runtime", "--sched-period", "--sched-deadline"}),
)
SETPRIV = Options(
    flags="d",
    long_flags=frozenset(
        {
            "--dump",
            "--nnp",
            "--no-new-privs",
            "--clear-groups",
            "--keep-groups",
            "--init-groups",
            "--reset-env",
            "--ptracer",
        }
    ),
    long_valued=frozenset(
        {
            "--ruid",
            "--euid",
            "--reuid",
            "--rgid",
            "--egid",
            "--regid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--selinux-label",
            "--apparmor-profile",
            "--landlock-access",
            "--landlock-rule",
            "--pdeathsig",
            "--rlimit",
            "--seccomp-filter",
        }
    ),
)
PRLIMIT = Options(
    flags="hV",
    valued="po",
    glued="cdefilmnqrstuvxy",
    long_flags=frozenset(
        {
            "--noheadings",
            "--raw",
            "--verbose",
            "--as",
            "--core",
            "--cpu",
            "--data",
            "--fsize",
            "--locks",
            "--memlock",
            "--msgqueue",
            "--nice",
            "--nofile",
            "--nproc",
            "--rss",
            "--rtprio",
            "--rttime",
            "--sigpending",
            "--stack",
        }
    ),
    long_valued=frozenset({"--pid", "--output"}),
)
FAKEROOT = Options(
    flags="uhv",
    valued="lisb",
    long_flags=frozenset({"--unknown-is-real", "--help", "--version"}),
    long_valued=frozenset({"--lib", "--faked"}),
)
NSENTER = Options(
    flags="aFZ",
    valued="tSGN",
    glued="muinpUCTrw",
    long_flags=frozenset(
        {
            "--all",
            "--mount",
            "--uts",
            "--ipc",
            "--net",
            "--pid",
            "--user",
            "--cgroup",
            "--time",
            "--root",
            "--wd",
            "--no-fork",
            "--preserve-credentials",
            "--follow-context",
            "--user-parent",
            "--keep-caps",
        }
    ),
    long_valued=frozenset({"--target", "--setuid", "--setgid", "--net-socket", "--env"}),
    moves=frozenset({"-w", "--wd"}),
    reroots=frozenset({"-m", "-a", "-r", "--mount", "--all", "--root"}),
)
SYSTEMD_RUN = Options(
    flags="rGPtqSdh",
    valued="upEMH",
    long_flags=frozenset(
        {
            "--user",
            "--system",
            "--scope",
            "--remain-after-exit",
            "--wait",
            "--collect",
            "--pipe",
            "--pty",
            "--quiet",
            "--no-block",
            "--no-ask-password",
            "--shell",
            "--same-dir",
            "--send-sighup",
            "--help",
            "--version",
            "--verbose",
        }
    ),
    long_valued=frozenset(
        {
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--setenv",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--machine",
            "--host",
            "--service-type",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--on-calendar",
            "--on-timezone-change",
            "--on-clock-change",
            "--timer-property",
            "--path-property",
            "--socket-property",
            "--slice-inherit",
            "--expand-environment",
            "--json",
        }
    ),
    moves=frozenset({"--working-directory", "--user", "--scope", "-d", "--same-dir"}),
    reroots=frozenset({"-M", "-H", "--machine", "--host"}),
)
PARALLEL = Options(
    flags="0kquvXmgeE",
    valued="jSdaIN",
    long_flags=frozenset(
        {
            "--null",
            "--keep-order",
            "--quote",
            "--ungroup",
            "--verbose",
            "--xargs",
            "--group",
            "--line-buffer",
            "--dry-run",
            "--halt-on-error",
            "--bar",
            "--eta",
            "--progress",
            "--tag",
            "--no-notice",
            "--will-cite",
            "--pipe",
            "--shuf",
        }
    ),
    long_valued=frozenset(
        {
            "--jobs",
            "--sshlogin",
            "--delimiter",
            "--arg-file",
            "--replace",
            "--max-args",
            "--joblog",
            "--results",
            "--timeout",
            "--retries",
            "--halt",
            "--colsep",
            "--tagstring",
            "--workdir",
            "--tmpdir",
            "--block",
            "--load",
            "--memfree",
        }
    ),
    moves=frozenset({"--workdir"}),
    reroots=frozenset({"-S", "--sshlogin"}),
)
