"""The embedding API: run seamhost sessions from an application's own code (docs/embedding.md).

:func:`open_host` (or :func:`open_host_async`) opens a :class:`Host` on a profile; ``host.run``
runs a turn from a prompt or a scenario and returns a :class:`RunReport` read from the session's
log; ``host.approve``/``reject`` answer deferred approvals as ``seamhost approve`` does, and
``host.resume`` continues a session after an answer or a crash. An approval callback answers
what the profile's rules leave to a person (:mod:`seamhost.embed.approving`). The root package
exports these names; this package's modules are the implementation.
"""

from __future__ import annotations

from seamhost.embed.approving import ApprovalAnswer
from seamhost.embed.host import AsyncHost, Host, open_host, open_host_async
from seamhost.embed.reports import CallReport, RunReport
from seamhost.embed.runner import HostClosed

__all__ = [
    "ApprovalAnswer",
    "AsyncHost",
    "CallReport",
    "Host",
    "HostClosed",
    "RunReport",
    "open_host",
    "open_host_async",
]
