"""A ledger service on loopback for the acme-ledger example's tests: real HTTP, in a thread.

It speaks the API ``examples/plugin-ledger`` expects: ``POST /charges`` with an
``Idempotency-Key`` header records at most one charge per key (a repeat with the same key and
body answers the same charge, 200; with another body, 422), and ``GET /charges/<key>`` answers
the charge (200), or 404 and *voids* the key so that a later POST with it is refused (410): that
is what makes a 404 authoritative. It counts the POSTs and GETs of every key, so a test can tell
whether a tool body ran again, and its switches (settable at any time) simulate what goes wrong:

* ``hang_after_commit``: a POST records the charge, then never answers (the response is lost);
  ``hang_first = N`` does that to the next N POSTs only;
* ``drop_before_commit``: a POST never answers and records nothing (the request is lost);
* ``processing``: a GET answers 202 with ``retry_after`` (the ledger does not know yet);
* ``broken``: a GET answers 500 (a probe must fail closed).

Hung requests are let go when the server closes.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import unquote

HANG_LIMIT = 120.0  # seconds a hung request waits at most for the server to close


class LedgerServer:
    """The service: start it, point ``[plugins.ledger] base_url`` at `url`, close it."""

    def __init__(self, *, retry_after: float = 30.0) -> None:
        self.lock = threading.Lock()
        self.charges: dict[str, dict[str, Any]] = {}
        self.voided: set[str] = set()
        self.posts: Counter[str] = Counter()
        self.gets: Counter[str] = Counter()
        self.hang_after_commit = False
        self.hang_first = 0
        self.drop_before_commit = False
        self.processing = False
        self.broken = False
        self.retry_after = retry_after
        self._release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> LedgerServer:
        self._thread.start()
        return self

    def close(self) -> None:
        if self._release.is_set():
            return
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> LedgerServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def snapshot(self) -> dict[str, Any]:
        """Everything the ledger holds (not the request counters): what a probe must not change
        beyond voiding an unknown key."""
        with self.lock:
            return {"charges": dict(self.charges), "voided": sorted(self.voided)}

    def charge(self, key: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Record (or find) the charge under `key`; the status and body a POST answers."""
        with self.lock:
            if key in self.voided:
                return 410, {"error": f"key {key} was voided by a status query; no charge"}
            found = self.charges.get(key)
            if found is not None:
                same = {k: found[k] for k in ("account", "amount_cents")} == body
                return (200, found) if same else (422, {"error": "key reused with another body"})
            charge = {"charge_id": f"ch_{len(self.charges) + 1:04d}", **body}
            self.charges[key] = charge
            return 201, charge

    def look_up(self, key: str) -> tuple[int, dict[str, Any]]:
        """The status and body a GET of `key` answers (a 404 voids the key)."""
        with self.lock:
            self.gets[key] += 1
            if self.broken:
                return 500, {"error": "the ledger is broken"}
            if self.processing:
                return 202, {"status": "processing", "retry_after": self.retry_after}
            if key in self.charges:
                return 200, self.charges[key]
            self.voided.add(key)
            return 404, {"error": f"no charge under key {key}"}

    def hang(self) -> None:
        self._release.wait(HANG_LIMIT)


def _handler(ledger: LedgerServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # a test's output is its report, not an access log

        def answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            if self.path != "/charges":
                self.answer(404, {"error": f"no such resource {self.path}"})
                return
            key = self.headers.get("Idempotency-Key")
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not key:
                self.answer(400, {"error": "an Idempotency-Key header is required"})
                return
            with ledger.lock:
                ledger.posts[key] += 1
                drop, hang = ledger.drop_before_commit, ledger.hang_after_commit
                if ledger.hang_first > 0:
                    ledger.hang_first -= 1
                    hang = True
            if drop:
                ledger.hang()
                return
            try:
                body = json.loads(raw)
                fields = {"account": body["account"], "amount_cents": body["amount_cents"]}
            except (ValueError, KeyError, TypeError):
                self.answer(400, {"error": "expected {account, amount_cents}"})
                return
            status, answer = ledger.charge(key, fields)
            if hang:
                ledger.hang()
                return
            self.answer(status, answer)

        def do_GET(self) -> None:
            prefix = "/charges/"
            if not self.path.startswith(prefix):
                self.answer(404, {"error": f"no such resource {self.path}"})
                return
            self.answer(*ledger.look_up(unquote(self.path[len(prefix) :])))

    return Handler
