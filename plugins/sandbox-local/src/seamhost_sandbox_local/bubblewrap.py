"""The bubblewrap backend: the command runs in new namespaces over a read-only view of the host.

The command line, in bubblewrap's order of operations::

    bwrap --new-session --die-with-parent --unshare-all --as-pid-1 [--share-net] --cap-drop ALL
          --ro-bind / /                    # the whole host, read-only (sub-mounts included)
          --bind ROOT ROOT ...             # workspace-write: each writable root not under /tmp
          --dev /dev --proc /proc          # a minimal /dev; the sandbox's own /proc
          --tmpfs /tmp                     # a private /tmp
          --bind|--ro-bind ROOT ROOT ...   # the workspace and roots under /tmp, mounted again,
          --ro-bind PATH PATH ...          # with the readable paths under /tmp (parents first)
          --ro-bind PATH PATH ...          # each read-only path under a writable root
          -- PROGRAM ARG ...

* ``--unshare-all`` gives the command its own mount, PID, IPC, UTS, cgroup and network (and,
  when the kernel allows it, user) namespaces; ``--share-net`` keeps the host's network when it
  is on. With its own PID namespace, every process the command started dies when it ends;
  ``--as-pid-1`` makes the command that namespace's first process, so that bubblewrap ends only
  once the kernel has killed the rest (with bubblewrap's own init as pid 1, bubblewrap would end
  as soon as the command did, a moment before the rest is killed).
* ``--cap-drop ALL``: bubblewrap run by root otherwise hands the command every capability, and
  one of them (``CAP_SYS_ADMIN``) would let it remount the host read-write.
* ``--die-with-parent``: the command dies with bubblewrap, which the runner's timeout kills;
  ``--new-session`` takes the controlling terminal away (no keystroke injection).
* Writable roots come from the one shared path policy
  (:meth:`seamhost.sandbox.paths.PathPolicy.writable_roots_for`); a root that does not exist is
  skipped (bubblewrap needs its mount points to exist, and a missing root never widens anything). In
  ``read-only`` nothing is writable but the private /tmp and /dev; the workspace and roots that
  live under /tmp are mounted again, read-only, so the command still sees them.
* **Pinned roots.** When the request carries the session's pins (design.md §5.7), each root
  and read-only path is bound from its pinned descriptor (``--bind-fd FD PATH``, ``--ro-bind-fd``,
  the descriptor handed to bubblewrap, which closes it before the command starts), never from
  its path: a symlink planted where a root was, even between the check and the mount, cannot
  move what is mounted. A root whose path no longer leads to its pin is not mounted at all.
  The mount point is still a path; if it changed meanwhile the pinned directory is mounted
  elsewhere in the sandbox's own view, which widens nothing on the host.
* **Readable paths** (``ConfineRequest.readable_paths``: what the command must read though the
  private /tmp hides it, such as an MCP server's program or Python environment in a venv under
  /tmp) are bound read-only after the tmpfs, in one parents-before-children order with the roots
  under /tmp, so a root inside a readable path keeps its own mount. Only those under /tmp need a
  bind (the rest of the host is read-only already); one that does not exist, or that lies under
  the workspace or a root (already visible, perhaps writable), is left as it is. A readable path
  is bound by its path and never writable.
* Read-only paths (``[sandbox] read_only_paths``) under a writable root are bound read-only
  after the writable binds; a bind mount cannot be renamed or removed from inside either.
* The working directory is the runner's (bubblewrap keeps it when it exists inside).

Enforcement is ``full`` in both confining modes: writes, renames, links, truncation and
metadata changes outside the writable roots all meet a read-only mount (``EROFS``) or a mount
boundary (``EXDEV``). It is ``partial`` when a read-only path under a writable root does not
exist: there is nothing to bind, so a command could create it (the file tools still refuse).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import attrs

from seamhost import ConfinedCommand, ConfineRequest, PathPolicy
from seamhost_sandbox_local.binding import Binds
from seamhost_sandbox_local.probing import Inspection
from seamhost_sandbox_local.report import CONFINING_MODES, ModeEnforcement
from seamhost_sandbox_local.verdicts import bwrap_verdict

if TYPE_CHECKING:
    from collections.abc import Iterable

PRIVATE_TMP = Path("/tmp")
FIXED_OPTIONS = ("--new-session", "--die-with-parent", "--unshare-all", "--as-pid-1")
NOTES = (
    "a private /tmp: the host's /tmp is hidden but for the workspace, writable roots and the "
    "paths a request names as readable in it",
    "network off unless both [sandbox] network and the plugin's `network` allow it",
    "processes the command starts end with it (own PID namespace)",
)


@attrs.frozen
class Bubblewrap:
    """bubblewrap at `executable`; `missing` says why there is none when it is ``None``."""

    name: ClassVar[str] = "bwrap"
    executable: str | None
    missing: str = ""

    @classmethod
    def find(cls, configured: str | None) -> Bubblewrap:
        """The configured executable (``bwrap_path``), else ``bwrap`` on ``PATH``."""
        if configured is not None:
            if os.path.isfile(configured) and os.access(configured, os.X_OK):
                return cls(configured)
            return cls(None, f"bwrap_path {configured} is not an executable file")
        found = shutil.which("bwrap")
        if found is None:
            return cls(None, "bwrap is not installed (not found on PATH)")
        return cls(found)

    @property
    def key(self) -> tuple[str, ...]:
        return (self.name, self.executable or self.missing)

    def inspect(self) -> Inspection:
        if self.executable is None:
            return Inspection(detail="bubblewrap", problem=self.missing)
        try:
            done = subprocess.run(
                [self.executable, "--version"], capture_output=True, timeout=10, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Inspection(detail=self.executable, problem=f"cannot run it: {exc}")
        version = done.stdout.decode(errors="replace").strip() or "bubblewrap"
        return Inspection(
            detail=f"{version} at {self.executable}",
            modes=tuple(ModeEnforcement(mode) for mode in CONFINING_MODES),
            notes=NOTES,
        )

    def command(self, request: ConfineRequest, *, network: bool) -> ConfinedCommand:
        assert self.executable is not None, "command() on a bubblewrap that was not found"
        binds = self.plan(request, network=network)
        return ConfinedCommand(
            argv=(self.executable, *binds.options, "--", *request.argv),
            env=dict(request.env),
            backend=self.name,
            enforcement="partial" if binds.unbound else "full",
            classify=bwrap_verdict,
            pass_fds=tuple(binds.fds),
            hidden=(PRIVATE_TMP,),
        )

    @staticmethod
    def options(request: ConfineRequest, *, network: bool) -> list[str]:
        """bubblewrap's options for `request` (see the module docstring)."""
        return Bubblewrap.plan(request, network=network).options

    @staticmethod
    def plan(request: ConfineRequest, *, network: bool) -> Binds:
        """bubblewrap's options for `request`, the descriptors they name, what is unbound."""
        policy = PathPolicy.for_request(request)
        binds = Binds(policy)
        writable = set(policy.writable_roots_for())
        visible = _existing(
            sorted(
                {policy.workspace, *policy.writable_roots, *writable},
                key=lambda path: (len(path.parts), str(path)),  # parents before children
            )
        )
        options = binds.options
        options += FIXED_OPTIONS
        if network:
            options.append("--share-net")
        options += ["--cap-drop", "ALL", "--ro-bind", "/", "/"]
        for root in visible:
            if root in writable and not root.is_relative_to(PRIVATE_TMP):
                binds.bind(root, writable=True)
        options += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", str(PRIVATE_TMP)]
        hidden = [root for root in visible if root.is_relative_to(PRIVATE_TMP)]
        readable = _existing(
            path
            for path in dict.fromkeys(Path(os.path.normpath(p)) for p in request.readable_paths)
            if path.is_absolute()
            and path.is_relative_to(PRIVATE_TMP)
            and not any(path.is_relative_to(root) for root in visible)
        )
        for path in sorted({*hidden, *readable}, key=lambda path: (len(path.parts), str(path))):
            binds.bind(path, writable=path in writable and path in hidden)
        binds.protect(sorted(policy.read_only_paths), writable)
        return binds


def _existing(paths: Iterable[Path]) -> list[Path]:
    return [path for path in paths if path.exists()]
