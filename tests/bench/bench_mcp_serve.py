"""``seamhost mcp serve`` round trips (issue "MCP gateway"), against baselines in the same run.

One ``tools/call`` of a tool whose body does nothing, sent by the official Python SDK's client
over stdio and answered, measured three ways:

(a) through ``seamhost mcp serve`` with a memory-only store: the gateway and the whole
    governed pipeline (parse, validate, policy, guard, dispatch record, execute chain,
    post-execute, result, the turn's records), each seam with one trivial implementation;
(b) the same through a bare server of the ``mcp`` SDK (its low-level ``Server``) whose tool does
    nothing, listed with the same schemas and answering the same shape of result (text and
    ``structuredContent``, which the client validates): the protocol's own round trip.
    Target: (a) ≤ 1.5 × (b);
(c) the same governed call through ``ToolPipeline.run_step`` directly, in process: what the
    pipeline itself costs of (a);
(d) for scale, (a) with a durable session (persistence-jsonl with checkpoint-policy: the turn's
    start and each dispatch are fsynced before the body runs, §6); not held to the target,
    whose subject is governance, not the disk.

Each server is one child process started once; round trips are the median of sequential calls
after a warm-up, and the servers are measured in turn, best of three, so that noise hits all
alike. Prints the table and exits 0; ``--strict`` exits 1 when the target is missed.

Run: ``python tests/bench/bench_mcp_serve.py [--quick] [--strict]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import anyio
from _measure import Row, report
from bench_pipeline import PLUGIN
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from seamhost.approval.service import ApprovalService
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.pipeline import ToolPipeline
from seamhost.run.sessions import create_session
from seamhost.session.events import TurnStart
from seamhost.testing.sites import PluginSite

TARGET = 1.5  # (a) at most this many times (b)
ROUNDS = 3

BARE_SERVER = """
import anyio, mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

# The same tool as seamhost lists it (schemas included), answered with the same shape of
# result, so that both clients do the same work (the client validates structuredContent).
TOOL = types.Tool(
    name="noop",
    input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    output_schema={"type": "object", "properties": {"value": {}}, "required": ["value"]},
)

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[TOOL])

async def call_tool(ctx, params):
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="ok")], structured_content={"value": None}
    )

server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


async def round_trips(params: StdioServerParameters, calls: int, rounds: int) -> list[float]:
    """Per round, the median seconds of one ``tools/call`` over stdio (one server for all)."""
    medians = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        await client.list_tools()
        for _ in range(max(20, calls // 10)):  # warm up: imports, schemas, first flushes
            await client.call_tool("noop", {"n": 1})
        for _ in range(rounds):
            samples = []
            for _ in range(calls):
                start = time.perf_counter()
                result = await client.call_tool("noop", {"n": 1})
                samples.append(time.perf_counter() - start)
                assert not result.is_error, result
            medians.append(statistics.median(samples))
    return medians


def pipeline_direct(root: Path, calls: int) -> float:
    """Median seconds of one governed call through ``ToolPipeline.run_step``, in process."""
    site = PluginSite(root / "direct-site")
    site.add("bench", PLUGIN)
    sys.path.insert(0, str(site.root))
    bundle = build_bundle(resolve_profile(str(site.profile("direct.toml", "[plugins.bench]\n"))))
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    pipeline = ToolPipeline(bundle, session, Path.cwd(), ApprovalService())

    async def drive() -> float:
        cancelled = asyncio.Event()
        samples = []
        for step in range(calls + 50):
            proposal = [ToolCallProposal(f"c{step}", "noop", '{"n": 1}')]
            start = time.perf_counter()
            await pipeline.run_step(1, step, proposal, cancelled)
            samples.append(time.perf_counter() - start)
        return statistics.median(samples[50:])

    try:
        return asyncio.run(drive())
    finally:
        session.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args()
    calls = 100 if args.quick else 500
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        site = PluginSite(root / "site")
        site.add("bench", PLUGIN)
        memory = site.profile("memory.toml", '[profile]\nname = "bench"\n[plugins.bench]\n')
        durable = site.profile(
            "durable.toml",
            '[profile]\nname = "bench-durable"\n[plugins.bench]\n'
            f'[plugins.persistence-jsonl]\nroot = "{root / "sessions"}"\n'
            "[plugins.checkpoint-policy]\n",
        )
        bare = root / "bare_server.py"
        bare.write_text(BARE_SERVER)
        environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
        environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(site.root), environ.get("PYTHONPATH")])
        )

        def serve(profile: Path) -> StdioServerParameters:
            argv = ["-m", "seamhost", "mcp", "serve", "--profile", str(profile), "--workspace", tmp]
            return StdioServerParameters(command=sys.executable, args=argv, env=environ)

        servers = {
            "serve": serve(memory),
            "bare": StdioServerParameters(command=sys.executable, args=[str(bare)], env=environ),
            "durable": serve(durable),
        }
        samples: dict[str, list[float]] = {name: [] for name in servers}
        for _ in range(ROUNDS):  # in turn, each server freshly started
            for name, params in servers.items():
                samples[name] += anyio.run(round_trips, params, calls, 1)
        best = {name: min(values) for name, values in samples.items()}
        direct = min(pipeline_direct(root, calls) for _ in range(ROUNDS))
    rows = [
        Row(
            "(a) mcp serve round trip vs (b) bare SDK",
            best["serve"] * 1e3,
            best["bare"] * 1e3,
            "ms",
            f"<= {TARGET}x",
            best["serve"] <= TARGET * best["bare"],
        ),
        Row(
            "(c) ToolPipeline.run_step vs (a)",
            direct * 1e3,
            best["serve"] * 1e3,
            "ms",
            "(share of (a))",
            True,
        ),
        Row(
            "(d) durable mcp serve vs (b) bare SDK",
            best["durable"] * 1e3,
            best["bare"] * 1e3,
            "ms",
            "(for scale: 2 fsyncs)",
            True,
        ),
    ]
    ok = report("mcp serve (stdio, one call of a no-op tool)", rows) == 0
    added = (best["serve"] - best["bare"]) * 1e3
    print(
        f"\ngovernance adds {added:.3f} ms per call to the bare SDK round trip "
        f"({best['serve'] / best['bare']:.2f}x, target <= {TARGET}x); the pipeline itself is "
        f"{direct * 1e3:.3f} ms of it"
    )
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
