"""The attribute names spans carry, and how the log's values map onto them.

The ``gen_ai.*`` names are the OpenTelemetry GenAI semantic conventions' (spans ``invoke_agent``,
``chat`` and ``execute_tool``); the ``seamhost.*`` names say what only seamhost knows: how a call
was governed, approved, sandboxed, attempted and settled. docs/observing.md tables them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

# -- the GenAI semantic conventions -----------------------------------------------------------

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"  # the older name of the provider, still read by many backends
CONVERSATION = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHED_TOKENS = "gen_ai.usage.cache_read.input_tokens"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"

INVOKE_AGENT = "invoke_agent"
CHAT = "chat"
EXECUTE_TOOL = "execute_tool"
RECONCILE = "seamhost.reconcile"  # no GenAI operation covers settling an unknown outcome
REPAIR = "seamhost.repair"

# -- seamhost's own ---------------------------------------------------------------------------

SESSION = "seamhost.session.id"
PROFILE = "seamhost.profile"
TURN = "seamhost.turn"
STEP = "seamhost.step"
ATTEMPT = "seamhost.attempt"
INCOMPLETE = "seamhost.incomplete"  # the log ended (or the process did) with the span open
RESUMED = "seamhost.resumed"  # this process took the span up where another left it


def provider_name(model_plugin: str | None) -> str:
    """``gen_ai.provider.name`` from the model plugin's name: ``model-openai`` is ``openai``."""
    if not model_plugin:
        return "seamhost"
    return model_plugin.removeprefix("model-")


def message_json(role: str, text: str, calls: Sequence[Mapping[str, Any]] = ()) -> str:
    """One message as ``gen_ai.input.messages``/``gen_ai.output.messages`` hold it (JSON)."""
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    parts += [
        {
            "type": "tool_call",
            "id": call.get("call_id"),
            "name": call.get("name"),
            "arguments": call.get("arguments"),
        }
        for call in calls
    ]
    message: dict[str, Any] = {"role": role, "parts": parts}
    if role == "assistant":
        message["finish_reason"] = finish_reason(calls)
    return orjson.dumps([message]).decode()


def finish_reason(calls: Sequence[object]) -> str:
    """Why the model stopped, as the log shows it: it proposed calls, or it answered.

    The log does not keep the provider's own stop reason; a message with calls ended for them.
    """
    return "tool_calls" if calls else "stop"


# Most restrictive first: the verdict a call's governance came to is the strongest one voted.
_RESTRICTION = {"deny": 2, "ask": 1, "allow": 0}


def decision_attributes(trail: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the decision trail of a ``tool/result`` says, as attributes.

    `trail` is the result's ``meta.decisions``: ``{stage, verdict, plugin, reason}`` for the
    policy vote, each guard and the approval. ``seamhost.decision`` is the strongest verdict of
    policy and guards, and ``.stage``/``.plugin``/``.reason`` say which stage and rule made it;
    an approval's answer is ``seamhost.approval.outcome`` and ``.answerer``.
    """
    out: dict[str, Any] = {}
    if not trail:
        return out
    out["seamhost.decisions"] = tuple(
        f"{d.get('stage')} {d.get('verdict')}" + (f" ({d['plugin']})" if d.get("plugin") else "")
        for d in trail
    )
    votes = [d for d in trail if d.get("stage") in ("policy", "guard")]
    if votes:
        strongest = max(votes, key=lambda d: _RESTRICTION.get(str(d.get("verdict")), 2))
        out["seamhost.decision"] = str(strongest.get("verdict"))
        out["seamhost.decision.stage"] = str(strongest.get("stage"))
        if strongest.get("plugin"):
            out["seamhost.decision.plugin"] = str(strongest["plugin"])
        if strongest.get("reason"):
            out["seamhost.decision.reason"] = str(strongest["reason"])
    for d in trail:
        if d.get("stage") == "approval":
            out["seamhost.approval.outcome"] = str(d.get("verdict"))
            if d.get("plugin"):
                out["seamhost.approval.answerer"] = str(d["plugin"])
    return out
