"""``seamhost console`` as people start it: a real process, real HTTP on loopback.

The console is started with ``--port 0`` and read for the one line it prints; a browser's
requests are made with httpx2 (cookies kept, ``Origin`` sent as a browser sends it): the token
exchange, the sessions list, an approval answered and the session resumed by ``run --resume``
in another process, and the event stream announcing a session that appears while it is open.
Then every refusal at start: a non-loopback host without ``--allow-remote`` or without TLS, a
wildcard host, a port in use, half a TLS pair. And TLS itself, with a certificate made by
``openssl`` for the test.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from seamhost.cli.exitcodes import ExitCode
from tests.console.console_kit import COUNT, SECRET, Rig, csrf_of, digest_of

LINE = re.compile(r"^seamhost console: (https?://[^/]+)/login\?token=([\w-]+)$")
START_S = 60.0  # how long the console may take to print its line on a loaded machine


class Served:
    """A `seamhost console` process and the URL it printed."""

    def __init__(self, rig: Rig, *args: str) -> None:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
        environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(rig.site.root), environ.get("PYTHONPATH", "")])
        )
        environ.update(rig.env)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "seamhost", "console", "--profile", str(rig.profile), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environ,
            cwd=rig.root,
        )
        line = self.first_line()
        found = LINE.match(line)
        assert found is not None, line + self.stop()
        self.base, self.token = found.group(1), found.group(2)
        self.url = line.split(": ", 1)[1]

    def first_line(self) -> str:
        got: list[str] = []
        reader = threading.Thread(
            target=lambda: got.append(self.process.stdout.readline()),  # type: ignore[union-attr]
            daemon=True,
        )
        reader.start()
        reader.join(START_S)
        assert got, "the console printed nothing: " + self.stop()
        return got[0].rstrip("\n")

    def stop(self) -> str:
        """Stop the console (SIGTERM, as a service manager would); its stderr."""
        self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err


@pytest.fixture
def served(rig: Rig) -> Iterator[Served]:
    rig.park("s1")
    console = Served(rig, "--port", "0")
    yield console
    err = console.stop()
    assert "Traceback" not in err, err


def browser(served: Served, **options: object) -> httpx.Client:
    return httpx.Client(base_url=served.base, headers={"origin": served.base}, **options)  # type: ignore[arg-type]


def test_over_real_http_log_in_list_approve_and_resume(rig: Rig, served: Served) -> None:
    assert served.base.startswith("http://127.0.0.1:")
    assert not served.base.endswith(":0")
    with browser(served) as web:
        landed = web.get(served.url, follow_redirects=True)
        assert landed.status_code == 200
        assert landed.url.path == "/"
        assert 'data-session="s1"' in landed.text
        assert "awaits-approval" in landed.text
        page = web.get("/approvals").text
        [approval] = re.findall(r'action="/approvals/s1/([^"]+)"', page)
        answered = web.post(
            f"/approvals/s1/{approval}",
            data={"csrf": csrf_of(page), "digest": digest_of(page), "decision": "approve"},
        )
        assert answered.status_code == 200, answered.text
        for path in ("/", "/sessions/s1", "/approvals", "/unknowns", "/runs"):
            assert SECRET not in web.get(path).text
    with httpx.Client(base_url=served.base) as stranger:
        assert stranger.get(served.url).status_code == 403  # the token was spent
        assert stranger.get("/approvals").status_code == 401
    [listed] = rig.pending()
    assert listed["decision"] == "allowed-once"
    resumed = rig.resume("s1")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.counted() == [f"{COUNT} 1"]
    assert rig.pending() == []


def test_the_event_stream_announces_a_new_session(rig: Rig, served: Served) -> None:
    with browser(served, timeout=httpx.Timeout(START_S)) as web:
        web.get(served.url)
        with web.stream("GET", "/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            first = next_event(lines)
            assert '"id":"s1"' in first
            assert '"state":"awaits-approval"' in first
            runner = threading.Thread(target=rig.park, args=("s2",))
            runner.start()
            try:
                while '"id":"s2"' not in (event := next_event(lines)):
                    pass
            finally:
                runner.join()
            assert '"id":"s1"' in event


def next_event(lines: Iterator[str]) -> str:
    """The data of the next ``sessions`` event (comments and other events skipped)."""
    kind = None
    for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: ") and kind == "sessions":
            return line.removeprefix("data: ")
    raise AssertionError("the event stream ended")


def refused_start(rig: Rig, *args: str) -> subprocess.CompletedProcess[str]:
    started = rig.cli("console", "--profile", str(rig.profile), *args)
    assert started.returncode == ExitCode.USAGE, started.stdout + started.stderr
    assert started.stdout == ""  # no URL: nothing was served
    assert "Traceback" not in started.stderr
    return started


def outside_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


def test_a_non_loopback_host_needs_allow_remote(rig: Rig) -> None:
    address = outside_address() or "192.0.2.1"
    started = refused_start(rig, "--host", address, "--port", "0")
    assert "--host" in started.stderr
    assert "--allow-remote" in started.stderr


def test_allow_remote_needs_tls(rig: Rig) -> None:
    address = outside_address() or "192.0.2.1"
    started = refused_start(rig, "--host", address, "--port", "0", "--allow-remote")
    assert "needs TLS" in started.stderr
    assert "--tls-cert" in started.stderr


def test_a_wildcard_host_is_refused(rig: Rig) -> None:
    started = refused_start(rig, "--host", "0.0.0.0", "--port", "0", "--allow-remote")
    assert "--host" in started.stderr
    assert "every address" in started.stderr


def test_a_port_in_use_is_refused_naming_it(rig: Rig) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        started = refused_start(rig, "--port", str(port))
    assert "--port" in started.stderr
    assert f"port {port}" in started.stderr
    assert "in use" in started.stderr


def certificate(root: Path, address: str) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate can be made for the TLS test")
    cert, key = root / "cert.pem", root / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", f"/CN={address}"),
            *("-addext", f"subjectAltName=IP:{address}"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_half_a_tls_pair_is_refused(rig: Rig, tmp_path: Path) -> None:
    cert, _ = certificate(tmp_path, "127.0.0.1")
    started = refused_start(rig, "--port", "0", "--tls-cert", str(cert))
    assert "--tls-cert and --tls-key together" in started.stderr


def test_remote_use_is_served_over_tls_with_a_secure_cookie(rig: Rig, tmp_path: Path) -> None:
    address = outside_address()
    if address is None:
        pytest.skip("this machine has no address but loopback to serve a remote console on")
    cert, key = certificate(tmp_path, address)
    console = Served(
        rig,
        "--host", address, "--port", "0", "--allow-remote",
        "--tls-cert", str(cert), "--tls-key", str(key),
    )  # fmt: skip
    try:
        assert console.base.startswith(f"https://{address}:")
        trusted = ssl.create_default_context(cafile=str(cert))
        with httpx.Client(base_url=console.base, verify=trusted) as web:
            login = web.get(console.url)
            assert login.status_code == 303
            cookie = login.headers["set-cookie"]
            assert "Secure" in cookie
            assert "HttpOnly" in cookie
            assert web.get("/").status_code == 200
        with (
            httpx.Client(base_url=console.base.replace("https", "http")) as plain,
            pytest.raises(httpx.HTTPError),
        ):
            plain.get("/")
    finally:
        console.stop()
