"""Traps that tell whether a schema's references were followed: a listening socket, a FIFO.

* :class:`Listener`: an HTTP server on a loopback port that counts every connection it accepts
  and answers any request with a schema carrying a secret marker;
* :class:`WatchedFifo`: a FIFO whose opening for reading is seen by a writer polling it with
  ``O_NONBLOCK`` (which fails with ``ENXIO`` until a reader opens it); once a reader appears it
  is handed a schema carrying a secret marker, so it does not block forever.

Both are real: what follows a reference connects to the socket or opens the file.
"""

from __future__ import annotations

import errno
import http.server
import json
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

HTTP_SECRET = "SECRET-FROM-THE-HTTP-TRAP"
FILE_SECRET = "SECRET-FROM-THE-FILE-TRAP"


class _CountingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    connections = 0

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections += 1
        return True


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"type": "string", "description": HTTP_SECRET}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Listener:
    """An HTTP server on 127.0.0.1 counting the connections it accepts."""

    def __init__(self) -> None:
        self._server = _CountingServer(("127.0.0.1", 0), _Answer)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def connections(self) -> int:
        return self._server.connections

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


class WatchedFifo:
    """A FIFO at `path`; `opened` tells whether anything opened it for reading."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.url = path.as_uri()
        self.opened = threading.Event()
        self._stop = threading.Event()
        os.mkfifo(path)
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # no reader yet
                    raise
                time.sleep(0.005)
                continue
            self.opened.set()
            try:
                os.write(fd, json.dumps({"type": "integer", "description": FILE_SECRET}).encode())
            finally:
                os.close(fd)
            time.sleep(0.05)

    def __enter__(self) -> WatchedFifo:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(5)
