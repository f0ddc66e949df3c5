"""The gateway's pure parts, in process: the HTTP door, the elicitation vocabulary, the listing.

The child-process tests drive these through real clients; here each rule is checked case by
case, fast, including the cases no client would send.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from typing import Any

import click
import mcp_types as types
import pytest

from seamhost.approval.request import ApprovalOutcome
from seamhost.errors import ErrorCode
from seamhost.gateway.elicitation import outcome_of
from seamhost.gateway.http import Door, is_loopback, parse_bind
from seamhost.gateway.listing import mcp_tool, structured
from seamhost.gateway.logs import OncePerInterval, OneLine
from seamhost.gateway.results import call_result
from seamhost.session.events import ToolError
from seamhost.tool.declaration import Effect, ToolSpec
from seamhost.tool.result import ToolResult


async def _body(ctx: Any) -> Any:
    return None


def spec(output: dict[str, Any], *, effect: Effect = "write", idempotent: bool = False) -> ToolSpec:
    return ToolSpec(
        "t", "a tool", {"type": "object"}, output, effect, False, _body, idempotent=idempotent
    )


LOCAL = {"host": "127.0.0.1:8765"}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        (LOCAL, None),
        ({**LOCAL, "origin": "http://localhost:3000"}, None),
        ({**LOCAL, "origin": "http://127.0.0.1"}, None),
        ({**LOCAL, "origin": "https://[::1]:9"}, None),
        ({**LOCAL, "origin": "http://evil.example"}, 403),
        ({**LOCAL, "origin": "http://localhost.evil.example"}, 403),
        ({**LOCAL, "origin": "null"}, 403),
        ({**LOCAL, "origin": "file://localhost"}, 403),
        ({"host": "evil.example:8765"}, 403),
        ({"host": "[::1]:8765"}, None),
        ({"host": "localhost:8765"}, None),
        ({"host": "LocalHost"}, None),  # host names are case-insensitive
        ({**LOCAL, "origin": "HTTP://LOCALHOST:3000"}, None),
        # Parsed strictly: a loopback name must be the whole host, not a prefix or userinfo.
        ({**LOCAL, "origin": "http://127.0.0.1:1@evil.com"}, 403),
        ({**LOCAL, "origin": "http://localhost@evil.com"}, 403),
        ({**LOCAL, "origin": "http://127.0.0.1\\@evil.com"}, 403),
        ({**LOCAL, "origin": "http://[::1].evil.com"}, 403),
        ({**LOCAL, "origin": "http://[::1]x:80"}, 403),
        ({**LOCAL, "origin": "http://127.0.0.1.evil.com"}, 403),
        ({**LOCAL, "origin": "http://localhost./"}, 403),
        ({**LOCAL, "origin": "http://127.0.0.1/path"}, 403),
        ({**LOCAL, "origin": "http://127.0.0.1:99999"}, 403),
        ({**LOCAL, "origin": "http://127.1"}, 403),
        ({**LOCAL, "origin": "http://[::1%25eth0]"}, 403),
        ({**LOCAL, "origin": "http://evil.com#@127.0.0.1"}, 403),
        ({**LOCAL, "origin": " http://localhost"}, 403),
        ({"host": "[::1].evil.com"}, 403),
        ({"host": "[::1].evil.com:8765"}, 403),
        ({"host": "127.0.0.1:1@evil.com"}, 403),
        ({"host": "127.0.0.1.evil.com:8765"}, 403),
        ({"host": "localhost.evil.com"}, 403),
        ({"host": "127.0.0.1:"}, 403),
        ({"host": "127.0.0.1:99999"}, 403),
        ({"host": "[::1%25lo]:8765"}, 403),
        ({"host": ""}, 403),
        ({}, 403),
    ],
)
def test_a_loopback_door_checks_origin_and_host(
    headers: dict[str, str], status: int | None
) -> None:
    refused = Door("127.0.0.1", 8765, None).refusal(headers)
    assert (refused[0] if refused else None) == status


def test_allowed_origins_and_the_token() -> None:
    door = Door("0.0.0.0", 80, "tok", frozenset({"https://app.example"}))
    bearer = {"host": "h.example", "authorization": "Bearer tok"}
    assert door.refusal(bearer) is None
    assert door.refusal({**bearer, "origin": "https://app.example"}) is None
    assert door.refusal({**bearer, "origin": "https://other.example"}) is not None
    for wrong in ({}, {"authorization": "Bearer tok2"}, {"authorization": "tok"}):
        assert door.refusal({"host": "h.example", **wrong}) == (
            401,
            "a missing or wrong bearer token",
        )


def test_binds() -> None:
    assert parse_bind("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_bind("[::1]:8080") == ("::1", 8080)
    for bad in ("8080", "host:", ":80", "h:99999", "h:x"):
        with pytest.raises(click.UsageError):
            parse_bind(bad)
    assert is_loopback("127.0.0.2")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("localhost.evil.com")
    assert not is_loopback("[::1].evil.com")
    assert not is_loopback("::1%lo")
    assert not is_loopback("127.1")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("10.0.0.1")
    with pytest.raises(click.UsageError, match="--token-env"):
        Door("0.0.0.0", 1, None).check()
    Door("0.0.0.0", 1, "t").check()
    Door("localhost", 1, None).check()


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        ({"action": "accept", "content": {"allow_once": True}}, ApprovalOutcome.ALLOWED_ONCE),
        ({"action": "accept", "content": {"allow_once": False}}, ApprovalOutcome.REJECTED),
        ({"action": "decline"}, ApprovalOutcome.REJECTED),
        ({"action": "cancel"}, ApprovalOutcome.CANCELLED),
        ({"action": "accept"}, None),
        ({"action": "accept", "content": {}}, None),
        ({"action": "accept", "content": {"allow_once": 1}}, None),
        ({"action": "accept", "content": {"allow_once": "true"}}, None),
        ({"action": "accept", "content": {"allow_once": True, "also": "x"}}, None),
    ],
)
def test_only_the_forms_vocabulary_answers(reply: dict[str, Any], outcome: Any) -> None:
    assert outcome_of(types.ElicitResult.model_validate(reply)) is outcome


def test_annotations_and_schemas_come_from_the_declaration() -> None:
    read = mcp_tool(spec({"type": "object"}, effect="read-only"))
    assert read.annotations is not None
    assert (read.annotations.read_only_hint, read.annotations.idempotent_hint) == (True, True)
    write = mcp_tool(spec({"type": "string"}, idempotent=True))
    assert write.annotations is not None
    assert (write.annotations.destructive_hint, write.annotations.idempotent_hint) == (True, True)
    # An output that is not an object travels wrapped, its schema and its value alike.
    assert write.output_schema == {
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"],
    }
    assert structured(spec({"type": "string"}), "v") == {"value": "v"}
    assert structured(spec({"type": "object"}), {"a": 1}) == {"a": 1}


def test_an_error_result_leads_with_its_code() -> None:
    failed = ToolResult("c1", "went wrong", error=ToolError(ErrorCode.TOOL_ERROR, "x"))
    shown = call_result(failed, "s1", spec({"type": "object"}))
    assert shown.is_error
    item = shown.content[0]
    assert isinstance(item, types.TextContent)
    assert item.text == "TOOL_ERROR: went wrong"
    assert shown.structured_content is None
    assert shown.meta == {
        "seamhost/session": "s1",
        "seamhost/call": "c1",
        "seamhost/error": {"code": "TOOL_ERROR", "message": "x"},
    }


def test_mcp_help_loads_neither_the_gateway_nor_the_sdk() -> None:
    probe = (
        "import sys\nfrom seamhost.cli import main\n"
        "try:\n    main(['mcp', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('seamhost.gateway')))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert ran.stdout.strip().splitlines()[-1] == "[]"


def test_a_logged_exception_is_one_line_and_a_repeated_message_is_counted() -> None:
    formatter, throttle = OneLine(), OncePerInterval(interval=60)
    try:
        raise ConnectionResetError("peer reset\nthe connection")
    except ConnectionResetError:
        record = logging.LogRecord(
            "uvicorn.error",
            logging.ERROR,
            __file__,
            1,
            "Exception in %s",
            ("ASGI",),
            sys.exc_info(),
        )
    assert formatter.format(record) == (
        "seamhost mcp serve: Exception in ASGI: ConnectionResetError: peer reset the connection"
    )

    def repeat() -> logging.LogRecord:
        return logging.LogRecord("mcp", logging.WARNING, __file__, 1, "Refusing %d", (3,), None)

    assert throttle.filter(repeat())
    assert [throttle.filter(repeat()) for _ in range(5)] == [False] * 5
    throttle.interval = 0
    again = repeat()
    assert throttle.filter(again)
    assert again.getMessage() == "Refusing 3 (and 5 more like it since the last such line)"
