"""The governed call's required work alone, written inline: a floor for bench_pipeline (a).

What design.md §5 asks of every governed call, with none of the kernel's structure: the
arguments parsed, checked lossless, validated against the tool's schema (by the same compiled
validator), frozen and digested; three records (intent, dispatch, result), each checked
lossless, stamped, serialised as its envelope and kept, with its ``session/event`` observer
called; the other five seams called once each, as plain function calls (the kernel's drivers
call implementations directly, never through pluggy); and the body awaited. No value objects
for the seams, no fail-closed handling, no decision trail, no ordering across a batch: what is
left is what any implementation of the contract would do in CPython. Measured against the same
8 bare pluggy hook calls as (a), it says how much of the target's room the work itself takes.
"""

from __future__ import annotations

import asyncio
import hashlib
import time

import orjson

from seamhost.jsonvalue import freeze, is_lossless
from seamhost.schema import compile_schema

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}
DESCRIPTOR = "sha256:" + "0" * 64


def floor_calls(calls: int) -> float:
    """Seconds per call of the required work, `calls` calls in one loop."""
    validator = compile_schema(SCHEMA)
    lines: list[bytes] = []
    clock = time.time_ns

    def observer(*args: object) -> None:  # each trivial seam implementation
        return None

    def commit(type_: str, data: dict[str, object]) -> None:
        if not is_lossless(data):
            raise ValueError(type_)
        envelope = {"seq": len(lines), "type": type_, "time": clock() // 1_000_000, "data": data}
        lines.append(b"%b" % orjson.dumps(envelope))
        observer(envelope)  # session/event

    async def body(arguments: object) -> str:
        return "ok"

    async def execute(arguments: object) -> str:  # tools/execute: one around-link, then the body
        return await body(arguments)

    async def drive() -> float:
        raw = '{"n": 1}'
        start = time.perf_counter()
        for step in range(calls):
            call_id = f"c{step}"
            commit(
                "tool/call",
                {
                    "turn": 1,
                    "step": step,
                    "call_id": call_id,
                    "name": "noop",
                    "arguments": raw,
                    "descriptor_digest": DESCRIPTOR,
                },
            )
            parsed = orjson.loads(raw)
            if type(parsed) is not dict or not is_lossless(parsed) or validator(parsed):
                raise ValueError(raw)
            arguments = freeze(parsed)
            canonical = orjson.dumps(parsed, option=orjson.OPT_SORT_KEYS)
            digest = "sha256:" + hashlib.sha256(canonical).hexdigest()
            observer(arguments)  # tools/pre-execute
            observer(arguments)  # tools/guard
            commit(
                "tool/dispatch",
                {
                    "call_id": call_id,
                    "attempt": 1,
                    "sandbox_mode": "read-only",
                    "args_digest": digest,
                    "effect": "read-only",
                    "idempotent": True,
                },
            )
            content = await execute(arguments)
            observer(arguments, content)  # tools/post-execute
            observer(arguments, content)  # tools/result
            commit(
                "tool/result",
                {
                    "turn": 1,
                    "step": step,
                    "call_id": call_id,
                    "is_error": False,
                    "content": content,
                    "meta": {"sandbox_mode": "read-only"},
                },
            )
        return (time.perf_counter() - start) / max(calls, 1)

    return asyncio.run(drive())
