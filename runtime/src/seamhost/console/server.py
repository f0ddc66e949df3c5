"""Where the console listens, the URL it prints, and Uvicorn serving it.

The socket is bound and listening before the URL is printed, so a port in use is known (and
reported) before anything is promised, ``--port 0`` prints the port the system chose, and a
browser opening the URL at once is queued rather than refused. Uvicorn is handed that socket.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp

BACKLOG = 64
GRACE_S = 1  # an open event stream never ends by itself: how long a shutdown waits for it


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name other than localhost: it may resolve anywhere
        return False


def is_wildcard(host: str) -> bool:
    """Whether `host` is the any-address (``0.0.0.0``, ``::``), which no browser can name."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return host == ""


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port` (0: any free port); `OSError` when it cannot be
    had (in use, an address not on this machine, a port below 1024 for a user)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # Binding over a past listener's TIME_WAIT, never over a live listener (Linux refuses).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def origin(host: str, port: int, *, tls: bool) -> str:
    """The origin the console is served at, as a browser sends it in ``Origin``."""
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}"


def serve(
    app: ASGIApp, sock: socket.socket, *, tls_cert: Path | None, tls_key: Path | None
) -> None:
    """Serve `app` on `sock` until interrupted (Ctrl-C or SIGTERM)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
        timeout_graceful_shutdown=GRACE_S,
        ssl_certfile=str(tls_cert) if tls_cert is not None else None,
        ssl_keyfile=str(tls_key) if tls_key is not None else None,
    )
    uvicorn.Server(config).run(sockets=[sock])
