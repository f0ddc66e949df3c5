"""acme-ledger: an example seamhost plugin whose tool's effect can be looked up afterwards.

It supplies one tool, ``ledger_charge {account, amount_cents}``, which charges an account on an
HTTP ledger service, and a status probe for it (seam ``tools/reconcile``, design.md §10):

* the body POSTs ``/charges`` with the header ``Idempotency-Key: <ctx.idempotency_key>`` (the
  call's key, the same for every attempt). The service records at most one charge per key: a
  repeated POST with the key answers the charge already made. So the tool is declared
  ``idempotent`` (a retry cannot charge twice) and ``status_query`` (what a key did can be
  asked);
* when a charge's outcome is unknown (the response was lost, the call timed out, the process
  died), ``tools_reconcile`` GETs ``/charges/<key>``, and never POSTs:

  - ``200`` with the charge: ``Resolved`` with the charge, validated like any result;
  - ``202`` (the service is still processing the key): ``Pending``, asked again later;
  - ``404``: ``Resolved`` with ``TOOL_ERROR`` "no charge was made". This is the service's
    authoritative answer, not a guess: the service *voids* a key it reports as unknown, so a
    POST with that key arriving later is refused (``410 Gone``) and can never charge;
  - anything else (an unreachable service, a 5xx, a charge under the key whose account or
    amount differ from the call's): the probe raises, which fails closed: nothing is recorded
    and the outcome stays unknown for a person to look at.

Its profile table::

    [plugins.ledger]
    base_url = "https://ledger.example.com"   # required
    timeout_s = 10                            # per request, seconds (default 10)

HTTP is spoken over asyncio streams (HTTP/1.0, one request per connection), so a call stopped
by its timeout or by cancellation lets go of its connection at once; there is no dependency
beyond the runtime. Importing this module has no effect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from seamhost import (
    ErrorCode,
    Pending,
    PluginDescriptor,
    Resolved,
    ToolFailed,
    ToolOutput,
    ToolSpec,
    hookimpl,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from seamhost import PluginContext, Probe, ToolContext, ToolRegistrar

TOOL = "ledger_charge"
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_RETRY_AFTER_S = 5.0
MAX_RESPONSE = 1 << 20  # bytes of a response the plugin reads at most

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "base_url": {
            "type": "string",
            "pattern": "^https?://[^/]+",
            "description": "The ledger service's address, e.g. https://ledger.example.com.",
        },
        "timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "default": DEFAULT_TIMEOUT_S,
            "description": "Seconds one request to the ledger may take.",
        },
    },
    "required": ["base_url"],
    "additionalProperties": False,
}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "account": {"type": "string", "minLength": 1, "maxLength": 64},
        "amount_cents": {"type": "integer", "minimum": 1, "maximum": 100_000_000},
    },
    "required": ["account", "amount_cents"],
    "additionalProperties": False,
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "charge_id": {"type": "string", "minLength": 1},
        "account": {"type": "string"},
        "amount_cents": {"type": "integer"},
    },
    "required": ["charge_id", "account", "amount_cents"],
    "additionalProperties": False,
}


class LedgerError(Exception):
    """The ledger answered something this plugin cannot take as an answer."""


class NotSent(LedgerError):
    """The request never left: the service could not be reached (so it cannot have acted)."""


class LedgerPlugin:
    """What the factory returns: the tool's body and its status probe share one client."""

    def __init__(self, ctx: PluginContext) -> None:
        # ctx.config was validated against CONFIG_SCHEMA; seamhost fills in no defaults.
        self.base_url: str = ctx.config["base_url"].rstrip("/")
        self.timeout: float = float(ctx.config.get("timeout_s", DEFAULT_TIMEOUT_S))

    @hookimpl
    def tools_register(self, register: ToolRegistrar) -> None:
        register(
            ToolSpec(
                name=TOOL,
                description="Charge an account on the ledger, in cents. Never charges twice.",
                input_schema=INPUT_SCHEMA,
                output_schema=OUTPUT_SCHEMA,
                effect="write",
                concurrency_safe=False,
                idempotent=True,
                status_query=True,
                body=self.charge,
            )
        )

    async def charge(self, ctx: ToolContext) -> ToolOutput:
        """The body: one POST, keyed by the call's idempotency key."""
        account, amount = ctx.arguments["account"], ctx.arguments["amount_cents"]
        payload = {"account": account, "amount_cents": amount}
        try:
            status, body = await self.request("POST", "/charges", ctx.idempotency_key, payload)
        except NotSent as exc:  # nothing reached the ledger: a retry is safe and cannot double
            raise ToolFailed(
                ErrorCode.TOOL_ERROR, f"{exc}; no charge was made", retryable=True
            ) from None
        except TimeoutError:  # sent, unanswered: the kernel reports the outcome unknown
            return ToolOutput(
                f"the ledger did not answer within {self.timeout:g}s",
                is_error=True,
                error_code=ErrorCode.TOOL_TIMEOUT,
            )
        except LedgerError as exc:  # sent, answer lost or garbled: it may have charged
            return unknown(f"{exc}; the charge may or may not have been made")
        if status in {200, 201}:
            try:
                charge = checked_charge(body, account, amount)
            except LedgerError as exc:  # a success we cannot read: a charge may exist
                return unknown(f"{exc}; the charge may or may not have been made")
            return ToolOutput(describe(charge), value=charge)
        if status >= 500 or status == 409:  # failed or busy after it was sent: not known
            return unknown(f"the ledger answered {status}: {error_text(body)}")
        refused = f"the ledger refused the charge ({status}): {error_text(body)}"
        raise ToolFailed(ErrorCode.TOOL_ERROR, refused)  # authoritative: nothing was charged

    @hookimpl
    async def tools_reconcile(self, probe: Probe) -> Resolved | Pending:
        """What did the charge under ``probe.idempotency_key`` do? A GET; never a POST."""
        if probe.tool != TOOL:  # the kernel asks only about this plugin's status-query tools
            raise LedgerError(f"no status query for {probe.tool}")
        if probe.cancelled.is_set():
            raise LedgerError("the probe was cancelled before it asked")
        timeout = min(self.timeout, probe.deadline)
        path = "/charges/" + quote(probe.idempotency_key, safe="")
        status, body = await self.request("GET", path, None, None, timeout=timeout)
        if status == 200:
            account, amount = probe.arguments["account"], probe.arguments["amount_cents"]
            charge = checked_charge(body, account, amount)
            return Resolved(describe(charge), value=charge)
        if status == 202:
            return Pending(retry_after(body), f"the ledger is still processing {probe.call_id}")
        if status == 404:  # authoritative: the ledger voids the key, no later POST can charge
            return Resolved(
                f"no charge was made: the ledger has no charge under key {probe.idempotency_key}",
                error_code=ErrorCode.TOOL_ERROR.value,
            )
        raise LedgerError(f"the ledger answered {status}: {error_text(body)}")

    async def request(
        self,
        method: str,
        path: str,
        key: str | None,
        payload: Mapping[str, Any] | None,
        *,
        timeout: float | None = None,
    ) -> tuple[int, Any]:
        """One HTTP/1.0 exchange; (status, decoded JSON body or None).

        Raises `NotSent` when the connection could not be made, `TimeoutError` when the answer
        did not come in time, `LedgerError` when the connection broke or the answer is garbled.
        """
        url = urlsplit(self.base_url + path)
        secure = url.scheme == "https"
        host, port = url.hostname or "", url.port or (443 if secure else 80)
        limit = self.timeout if timeout is None else timeout
        data = b"" if payload is None else json.dumps(dict(payload)).encode()
        head = [f"{method} {url.path} HTTP/1.0", f"Host: {url.netloc}", "Accept: application/json"]
        if key is not None:
            head.append(f"Idempotency-Key: {key}")
        if payload is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        try:
            async with asyncio.timeout(limit):
                reader, writer = await asyncio.open_connection(host, port, ssl=secure or None)
        except (OSError, TimeoutError) as exc:
            reason = str(exc) or "timed out"
            raise NotSent(f"cannot reach the ledger at {self.base_url}: {reason}") from None
        try:
            async with asyncio.timeout(limit):
                writer.write("\r\n".join(head).encode() + b"\r\n\r\n" + data)
                await writer.drain()
                raw = await read_all(reader)
        except OSError as exc:
            raise LedgerError(f"the connection to the ledger broke: {exc}") from exc
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
        return parse_response(raw)


async def read_all(reader: asyncio.StreamReader) -> bytes:
    """The whole response: an HTTP/1.0 server ends it by closing the connection."""
    chunks, size = [], 0
    while chunk := await reader.read(65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_RESPONSE:
            raise LedgerError(f"the ledger's answer is over {MAX_RESPONSE} bytes")
    return b"".join(chunks)


def parse_response(raw: bytes) -> tuple[int, Any]:
    head, sep, body = raw.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].split()
    if not sep or len(status_line) < 2 or not status_line[1].isdigit():
        raise LedgerError("the ledger's answer is not HTTP (the connection may have dropped)")
    try:
        decoded = json.loads(body) if body.strip() else None
    except ValueError as exc:
        raise LedgerError(f"the ledger's answer is not JSON: {exc}") from None
    return int(status_line[1]), decoded


def checked_charge(body: Any, account: str, amount: int) -> dict[str, Any]:
    """The charge in `body`, refused unless it is a charge of `amount` cents to `account`."""
    if not isinstance(body, dict) or not isinstance(body.get("charge_id"), str):
        raise LedgerError(f"the ledger's answer is not a charge: {body!r:.200}")
    charge = {k: body.get(k) for k in ("charge_id", "account", "amount_cents")}
    if charge["account"] != account or charge["amount_cents"] != amount:
        raise LedgerError(
            f"the charge under this key ({charge['charge_id']}: {charge['amount_cents']!r} cents "
            f"to {charge['account']!r}) is not this call's: the key was reused; reconcile by hand"
        )
    return charge


def describe(charge: Mapping[str, Any]) -> str:
    return (
        f"charged {charge['amount_cents']} cents to {charge['account']} "
        f"(charge {charge['charge_id']})"
    )


def unknown(message: str) -> ToolOutput:
    return ToolOutput(message, is_error=True, error_code=ErrorCode.TOOL_OUTCOME_UNKNOWN)


def error_text(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return str(body["error"])
    return repr(body)[:200]


def retry_after(body: Any) -> float:
    value = body.get("retry_after") if isinstance(body, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return DEFAULT_RETRY_AFTER_S


descriptor = PluginDescriptor(
    name="ledger",
    factory=LedgerPlugin,
    config_schema=CONFIG_SCHEMA,
    provides=["tools/register", "tools/reconcile"],
    description="Charges on an HTTP ledger, keyed by idempotency key and looked up after a loss.",
)
