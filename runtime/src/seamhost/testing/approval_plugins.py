"""The plugins the answerer contract installs around the answerer under test.

``contract-probe`` (:func:`probe_source`) registers the tools the contract's requests are about:
``contract_probe``, and the tools of the driver's cases; its ``tools/pre-execute`` policy asks
about each of their calls; ``contract-fallback``
(:func:`fallback_answerer`) answers last and rejects, so a test can see whether a request was
passed on. Both are module sources, installed as distributions of their own through the
``plugin_site`` fixture.
"""

from __future__ import annotations

PROBE = "contract-probe"
FALLBACK = "contract-fallback"
PROBE_TOOL = "contract_probe"

_PROBE_SOURCE = '''
from seamhost import Decision, PluginDescriptor, ToolOutput, ToolSpec, hookimpl

SCHEMA = {
    "type": "object",
    "properties": {"want": {"type": "string"}, "detail": {}},
    "required": ["want"],
    "additionalProperties": False,
}
CASE_TOOLS = {case_tools!r}  # the tools the driver's cases call: any arguments


class Probe:
    """The contract's tool, and a policy that asks about every call of it."""

    def __init__(self, ctx):
        self.runs = []

    async def body(self, ctx):
        self.runs.append((ctx.call_id, str(ctx.sandbox_mode)))
        return ToolOutput("probed", value={"sandbox_mode": str(ctx.sandbox_mode)})

    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("contract_probe", "records that it ran", SCHEMA,
                          {}, "read-only", False, self.body))
        for name in CASE_TOOLS:
            register(ToolSpec(name, "records that it ran", {"type": "object"},
                              {}, "read-only", False, self.body))

    @hookimpl
    def tools_pre_execute(self, call):
        if call.name == "contract_probe" or call.name in CASE_TOOLS:
            return Decision.ask("the answerer contract asks about every probe call")
        return None


descriptor = PluginDescriptor(name="contract-probe", factory=Probe)
'''


def probe_source(case_tools: tuple[str, ...] = ()) -> str:
    """The source of ``contract-probe``, registering `case_tools` besides ``contract_probe``."""
    return _PROBE_SOURCE.replace("{case_tools!r}", repr(tuple(case_tools)))


PROBE_SOURCE = probe_source()

_FALLBACK_CLASS = '''
from seamhost import ApprovalOutcome, PluginDescriptor, hookimpl


class Fallback:
    """An answerer after the one under test: rejects whatever reaches it, and says so."""

    def __init__(self, ctx):
        self.asked = []

    @hookimpl
    def approval_request(self, request):
        self.asked.append(request.call_id)
        return ApprovalOutcome.REJECTED
'''


def fallback_answerer(name: str) -> str:
    """The source of a plugin named `name` answering ``approval/request`` last: it rejects
    whatever reaches it and keeps the call ids it was asked about in its ``asked`` list."""
    return (
        f"{_FALLBACK_CLASS}\n\n"
        f"descriptor = PluginDescriptor(\n"
        f"    name={name!r}, factory=Fallback, provides=['approval/request']\n)\n"
    )


__all__ = ["FALLBACK", "PROBE", "PROBE_SOURCE", "PROBE_TOOL", "fallback_answerer", "probe_source"]
