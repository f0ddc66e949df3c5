"""A runaway response is cut off at ``[limits] max_response_bytes`` (issue 33, point 10).

Against the OpenAI stand-in, THE ONE MOCK THIS PROJECT ALLOWS (a remote model API cannot run
here). Before the cap, a 200 MB response took 1.5 GB of memory: the adapter and the runtime kept
every byte. Now the adapter counts what it buffers (a call's argument fragments) and the runtime
what it is given, and the attempt fails ``response-too-large`` as soon as the total passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from seamhost import ModelRequest, ToolCallProposal
from tests.model_openai.conftest import AdapterMaker, attempt
from tests.model_openai.standin import Reply, StandIn


def chunk(delta: dict[str, Any] | None, finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-cap",
        "object": "chat.completion.chunk",
        "created": 1733000000,
        "model": "gpt-4o-mini",
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def huge_call(fragments: int, size: int) -> Reply:
    """One tool call whose arguments come in `fragments` pieces of `size` characters."""
    opened = {"index": 0, "id": "call_big", "type": "function", "function": {"name": "write"}}
    piece = chunk({"tool_calls": [{"index": 0, "function": {"arguments": "x" * size}}]})
    body = chunk({"role": "assistant", "tool_calls": [opened]}) + piece * fragments
    return Reply.sse(body + chunk({}, "tool_calls") + b"data: [DONE]\n\n")


def huge_text(events: int, size: int) -> Reply:
    piece = chunk({"content": "y" * size})
    return Reply.sse(chunk({"role": "assistant"}) + piece * events + chunk({}, "stop"))


def test_buffered_arguments_past_the_cap_fail_the_attempt_in_the_adapter(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(huge_call(fragments=4096, size=1024))  # 4 MiB of arguments
    capped = ModelRequest(
        "s-1", 1, 1, ({"role": "user", "content": "hi"},), (), max_response_bytes=65536
    )
    events, failed = attempt(make_adapter(), capped)
    assert failed is not None
    assert (failed.kind, failed.retryable) == ("response-too-large", False)
    assert "65536 bytes" in failed.message
    assert not [e for e in events if isinstance(e, ToolCallProposal)]


def test_under_the_cap_the_same_call_is_proposed(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(huge_call(fragments=64, size=1024))
    events, failed = attempt(make_adapter())  # no cap on the request: the adapter counts only
    assert failed is None
    [call] = [e for e in events if isinstance(e, ToolCallProposal)]
    assert len(call.arguments) == 64 * 1024


# Runs the CLI and, as it exits, writes its peak resident size (VmHWM, KiB) where argv[1] says.
# Read from /proc, not from rusage: a forked child's ru_maxrss counts the parent's pages too.
PEAK_PROBE = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def peak():
    with open("/proc/self/status") as status, open(out, "w") as written:
        written.write(next(l for l in status if l.startswith("VmHWM:")).split()[1])
atexit.register(peak)
sys.argv[0] = "seamhost"
runpy.run_module("seamhost", run_name="__main__")
"""


def exec_peak_rss(tmp_path: Path, standin: StandIn, reply: Reply, *limit: str) -> tuple[int, Any]:
    """Run ``seamhost exec`` against `reply`; its peak RSS in KiB and its last JSON line."""
    (tmp_path / "ws").mkdir(parents=True)
    profile = tmp_path / "real.toml"
    profile.write_text(
        '[profile]\nname = "real"\nextends = ["openai"]\n'
        f'[plugins.model-openai]\nbase_url = "{standin.base_url}"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    env |= {"SEAMHOST_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-test-cap"}
    standin.reply(reply)
    peak = tmp_path / "peak"
    done = subprocess.run(
        [sys.executable, "-c", PEAK_PROBE, str(peak), "exec", "--profile", str(profile),
         "--workspace", str(tmp_path / "ws"), "--json", *limit, "go"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    return int(peak.read_text()), json.loads(lines[-1]) if lines else None


def test_exec_cuts_a_runaway_response_off_with_bounded_memory(
    tmp_path: Path, standin: StandIn
) -> None:
    base, _ = exec_peak_rss(tmp_path / "a", standin, huge_text(events=4, size=1024))
    peak, final = exec_peak_rss(
        tmp_path / "b",
        standin,
        huge_text(events=4096, size=16384),  # 64 MiB of text
        "--limit",
        "max_response_bytes=1048576",
    )
    assert final is not None
    assert "response-too-large" in json.dumps(final), final
    # Kept in memory, 64 MiB of text alone would add 64 MiB; the cut keeps it near 1 MiB.
    assert peak - base < 32 * 1024, (base, peak)
