"""What the browser tests share: the real console in a child process, a second web site on
another origin, and the screenshots the docs show.

:class:`Console` starts ``python -m seamhost console --port 0`` exactly as a person would, with
its own ``SEAMHOST_HOME``, and reads the one line it prints (``seamhost console: URL``) to learn
the port and the one-time login token (waiting for it only when first asked, so that a test can
fill the store while the console starts). :class:`OtherSite` serves one page from a second loopback
port: a different origin that is still the same site, so Chromium sends the console's
``SameSite=Strict`` cookie along with what that page posts, and only the console's Origin check
and CSRF token stand in the way.
"""

from __future__ import annotations

import http.server
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from seamhost.testing.sites import PluginSite

if TYPE_CHECKING:
    from playwright.sync_api import Page

SCREENSHOTS_ENV = "SEAMHOST_SCREENSHOTS"
STARTED = re.compile(r"^seamhost console: (http://127\.0\.0\.1:(\d+)/login\?token=(\S+))$")
START_TIMEOUT = 60.0  # seconds for the console to print its URL (a loaded machine is slow)


def child_environ(home: Path, site: PluginSite | None) -> dict[str, str]:
    """The environment of a ``seamhost`` child: none of this process's ``SEAMHOST_*`` variables,
    `home` as ``SEAMHOST_HOME``, and `site`'s plugins importable (as ``tests.conftest.run_cli``)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    environ["SEAMHOST_HOME"] = str(home)
    if site is not None:
        environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(site.root), environ.get("PYTHONPATH", "")])
        )
    return environ


class Console:
    """``seamhost console --port 0`` running in a child process; a context manager."""

    def __init__(
        self,
        *,
        home: Path,
        log: Path,
        profile: Path | None = None,
        site: PluginSite | None = None,
        cwd: Path | None = None,
    ) -> None:
        environ = child_environ(home, site)
        argv = [sys.executable, "-m", "seamhost", "console", "--port", "0"]
        if profile is not None:
            argv += ["--profile", str(profile)]
        self.log = log
        self._stderr = open(log, "wb")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            stdin=subprocess.DEVNULL,
            env=environ,
            cwd=cwd,
            text=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._started: tuple[str, int, str] | None = None

    @property
    def login_url(self) -> str:
        """The URL the console printed, once it has (the first use waits for the line)."""
        return self.wait_started()[0]

    @property
    def port(self) -> int:
        return self.wait_started()[1]

    @property
    def token(self) -> str:
        return self.wait_started()[2]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def wait_started(self) -> tuple[str, int, str]:
        """The printed URL, its port and its token, waiting for the line the first time; a test
        fills the store meanwhile, as the console starts."""
        if self._started is not None:
            return self._started
        seen: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=START_TIMEOUT)
            except queue.Empty:
                self.stop()
                raise AssertionError(
                    f"the console printed no URL in {START_TIMEOUT}s: {seen}"
                ) from None
            if line is None:
                self.stop()
                raise AssertionError(
                    f"the console exited ({self.process.returncode}) before printing its URL; "
                    f"stdout {seen}, stderr: {self.log.read_text(errors='replace')[-2000:]}"
                )
            seen.append(line)
            found = STARTED.match(line)
            if found:
                self._started = found.group(1), int(found.group(2)), found.group(3)
                return self._started

    def url(self, path: str) -> str:
        return self.origin + path

    def stop(self) -> int:
        """Stop the console as a service manager would (SIGTERM; SIGINT may be ignored, as in a
        shell's background job), killing it if that does not do; its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=15)
        assert self.process.stdout is not None
        self.process.stdout.close()
        self._stderr.close()
        return self.process.returncode

    def __enter__(self) -> Console:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class OtherSite:
    """One HTML page served from another loopback port: a foreign origin; a context manager."""

    def __init__(self, html: str) -> None:
        body = html.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass  # the test output is for the test

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def __enter__(self) -> OtherSite:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()


def login(page: Page, console: Console) -> None:
    """Open the printed URL: the token is exchanged for the cookie, and the sessions page shows."""
    response = page.goto(console.login_url)
    assert response is not None
    assert response.ok, f"{response.status} for the printed URL"
    assert urlsplit(page.url).path == "/", page.url


def screenshot(page: Page, name: str) -> Path | None:
    """Save the page as ``$SEAMHOST_SCREENSHOTS/<name>.png`` when that variable names a folder."""
    folder = os.environ.get(SCREENSHOTS_ENV)
    if not folder:
        return None
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=False)
    return path
