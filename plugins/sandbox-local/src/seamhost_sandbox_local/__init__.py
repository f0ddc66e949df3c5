"""sandbox-local: confines the subprocesses of tools with bubblewrap or Landlock.

Provides ``sandbox/confine``. The kernel's runner asks it to wrap every subprocess a tool starts
in ``read-only`` or ``workspace-write``; ``danger-full-access`` never reaches it (the runner
runs the original argv and records it as unconfined). What it limits is the command's effect on
the files of the same host: it is not a container, and reading is not restricted.

The profile table::

    [plugins.sandbox-local]
    backends = ["bwrap", "landlock"]   # in order of preference; [] disables confinement
    network = false                    # may confined commands use the network at all
    bwrap_path = "/usr/bin/bwrap"      # default: bwrap on PATH

Backends (:mod:`.bubblewrap`, :mod:`.landlock`) are probed once per process by running a real
confined command (:mod:`.probing`); the first that works confines every request. When none
works, or ``backends`` is empty, the hook raises :class:`NoUsableBackend` and the kernel ends
the call ``SANDBOX_UNAVAILABLE`` before anything is dispatched: nothing ever runs unconfined in
place of a confined run.

* **What is writable** comes from the kernel's one path policy,
  :meth:`seamhost.sandbox.paths.PathPolicy.writable_roots_for`, the same the file tools apply:
  nothing in ``read-only``; the workspace and ``[sandbox] writable_roots`` in ``workspace-write``.
* **Network**: a command may use the network only when the profile's ``[sandbox] network`` (the
  request's ``network``) asks for it and this table's ``network`` allows it; a request can only
  narrow what the operator allowed here. Both default to off.
* **Enforcement** is reported per call (the result's ``meta``): ``full`` when the backend
  refuses everything the mode forbids, ``partial`` otherwise; ``seamhost doctor`` says which
  rights are missing (:func:`probe_backends`).
* **Verdicts** (:mod:`.verdicts`): each confined command carries a classifier telling an
  ordinary exit from a denial (the shell tool's ``SANDBOX_DENIED``) and from a runner failure.

Limits of path-based confinement, whatever the backend: a file hard-linked into a writable root
*before* the run is the same file as its other names, so writing it changes them; sockets of
daemons on the host (``/run/docker.sock``) stay reachable; reads are not confined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginDescriptor
from seamhost.lazy import lazy_exports
from seamhost_sandbox_local.config import SCHEMA
from seamhost_sandbox_local.plugin import SandboxLocal, probe_backends

if TYPE_CHECKING:
    from seamhost_sandbox_local.errors import ModeNotConfinable, NoUsableBackend
    from seamhost_sandbox_local.report import BackendReport, ModeEnforcement

# Imported on first use, so that building a bundle does not load them.
_LAZY = {
    "ModeNotConfinable": "seamhost_sandbox_local.errors",
    "NoUsableBackend": "seamhost_sandbox_local.errors",
    "BackendReport": "seamhost_sandbox_local.report",
    "ModeEnforcement": "seamhost_sandbox_local.report",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "BackendReport",
    "ModeEnforcement",
    "ModeNotConfinable",
    "NoUsableBackend",
    "SandboxLocal",
    "descriptor",
    "probe_backends",
]

descriptor = PluginDescriptor(
    name="sandbox-local",
    factory=SandboxLocal,
    config_schema=SCHEMA,
    provides=["sandbox/confine"],
    requires=[],
    description="Confines tool subprocesses with bubblewrap or Landlock (sandbox/confine).",
)
