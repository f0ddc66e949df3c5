"""A streamable HTTP server: the tests' own SDK server, served on 127.0.0.1 by a child process."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.tools_mcp.conftest import LOOPBACK, Area, one_call, run_turn

READY_S = 60.0  # how long the server may take to listen


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def http_server(area: Area) -> Iterator[str]:
    port = free_port()
    log = (area.root / "http-server.log").open("wb")
    child = subprocess.Popen(
        [*LOOPBACK, "--http", str(port)],
        env={**os.environ, "LOOPBACK_STATE": str(area.state)},
        stdout=log,
        stderr=log,
    )
    try:
        # Until it listens. The child imports the SDK first; the old wait (about 10 s, then the
        # test went on regardless) once ended on a loaded CI machine before it listened, and
        # the test met a refused connection. Never yield a server that is not there: say why.
        deadline = time.monotonic() + READY_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if child.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    output = (area.root / "http-server.log").read_text(errors="replace")
                    state = f"exited {child.returncode}" if child.poll() is not None else "silent"
                    pytest.fail(
                        f"the HTTP server on port {port} never listened ({state}):\n{output}"
                    )
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        child.kill()
        child.wait()
        log.close()


def table(url: str, extra: str = "") -> str:
    return (
        "[plugins.tools-mcp.servers.web]\n"
        f'url = "{url}"\n'
        'headers = { Authorization = { "$env" = "LOOPBACK_TOKEN" } }\n' + extra
    )


def test_a_call_over_http_carries_the_headers_and_the_meta(
    area: Area, http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPBACK_TOKEN", "Bearer sesame")
    profile = area.profile(table(http_server), scenario=one_call("web__echo", {"text": "hi"}))
    run = run_turn(profile, area)
    assert run.codes == {"c1": "ok"}
    assert run.values["c1"]["authorization"] == "Bearer sesame"
    assert run.values["c1"]["meta"]["seamhost/idempotency_key"] == f"{run.session.id}:c1"
    origin = run.bundle.tools["web__echo"].spec.origin
    assert origin is not None
    assert origin["transport"] == "http"
    assert "Bearer sesame" not in str(run.session.header.bundle)  # the secret is not recorded


def test_a_server_that_dies_mid_call_over_http_is_unknown(
    area: Area, http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPBACK_TOKEN", "Bearer sesame")
    profile = area.profile(
        table(http_server, "timeout_s = 10\n"), scenario=one_call("web__crash", {})
    )
    run = run_turn(profile, area)
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}
