"""The plugin object: confines each request with the first backend that works here.

Building a bundle only reads the settings: the backends (ctypes, subprocess, asyncio) are
imported when a command is first confined or probed, so ``seamhost profile check`` does not pay
for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import hookimpl
from seamhost_sandbox_local.config import BACKEND_NAMES, Settings

if TYPE_CHECKING:
    from seamhost import ConfinedCommand, ConfineRequest, PluginContext
    from seamhost_sandbox_local.probing import Backend
    from seamhost_sandbox_local.report import BackendReport


def find_backend(name: str, settings: Settings) -> Backend:
    """The backend called `name` as installed here (not probed)."""
    from seamhost_sandbox_local.bubblewrap import Bubblewrap
    from seamhost_sandbox_local.landlock import Landlock

    if name == "bwrap":
        return Bubblewrap.find(settings.bwrap_path)
    if name == "landlock":
        return Landlock.find()
    raise ValueError(f"unknown sandbox backend {name!r}; expected one of {BACKEND_NAMES}")


def probe_backends(bwrap_path: str | None = None) -> list[BackendReport]:
    """Every backend this plugin knows, probed (once per process), in default preference order.

    This is what ``seamhost doctor`` shows; `bwrap_path` is the ``bwrap_path`` setting.
    """
    from seamhost_sandbox_local.probing import report_of

    settings = Settings(bwrap_path=bwrap_path)
    return [report_of(find_backend(name, settings)) for name in BACKEND_NAMES]


class SandboxLocal:
    """Provides ``sandbox/confine`` with the configured backends, in order of preference."""

    def __init__(self, ctx: PluginContext) -> None:
        self.settings = Settings.from_config(ctx.config)

    @hookimpl
    async def sandbox_confine(self, request: ConfineRequest) -> ConfinedCommand:
        """The request wrapped by the first available backend; raises when none is.

        The network is on only when the request asks for it (the profile's ``[sandbox]
        network``) and this plugin's ``network`` allows it: a request can only narrow.
        """
        import asyncio

        from seamhost_sandbox_local.errors import ModeNotConfinable, NoUsableBackend
        from seamhost_sandbox_local.probing import cached_report, report_of

        if not request.mode.confining:
            raise ModeNotConfinable(str(request.mode))
        network = self.settings.network and request.network
        reasons = []
        for name in self.settings.backends:
            backend = find_backend(name, self.settings)
            report = cached_report(backend)
            if report is None:
                # The first call of a process probes (a real confined command): off the loop.
                report = await asyncio.to_thread(report_of, backend)
            if report.available:
                return backend.command(request, network=network)
            reasons.append(f"{name}: {report.reason}")
        raise NoUsableBackend(str(request.mode), tuple(reasons))
