"""The public evidence projection of a session (schema ``seamhost.evidence.v1``).

A session's log carries prompts, arguments, outputs and the reasons people and plugins gave:
nothing an auditor or a less-trusted team may see. The projection keeps what lets them check
what ran, who decided and how each unknown outcome was settled: ids, digests, verdicts, codes
and times. It is a pure function of the stored header and records, so anyone holding the log
can recompute it and compare (:mod:`seamhost.session.evidence_check`).

What each call keeps, and where it comes from:

* ``args_digest``: the governed digest (``tool/dispatch`` or ``approval/asked``); a call refused
  before it was governed has none recorded, so it gets the digest of its proposed arguments
  text (``args_digest_of: "proposed"``);
* ``decisions``: each stage of the decision path its ``tool/result`` meta records (stage,
  verdict, plugin) and the rule the tool-policy reason names (``rules[2]``, ``floor[0]``);
  the reason's text is left out, as it may quote the call;
* ``approval``: its outcome, what kind of answerer gave it (a plugin ``answerer``, a
  ``person`` deciding a deferred question, or ``none``) and when;
* ``attempts``: each ``tool/dispatch`` with the code of its ``tool/attempt/failed``, if any;
* ``outcome``: the result's code (``OK`` or its error code) and the digest of what it carried;
* ``reconciliation``: the settled outcome, its source kind (``probe`` or ``operator``) and the
  evidence digest the log binds to the call.

The session digest is the sha256 of the canonical JSON of the header and of each record, one
per line: a projection names exactly the log it was made of, whichever store holds it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from seamhost.jsonvalue import canonical_json, digest, thaw
from seamhost.session.record import Record
from seamhost.session.store import SessionHeader

SCHEMA_ID = "seamhost.evidence.v1"
SCHEMA_FILE = "evidence.schema.json"
OK = "OK"  # the outcome code of a call whose result is not an error
# How tool-policy names the rule a verdict came from, at the end of its reason: "(rules[2])".
_RULE = re.compile(r"\(((?:rules|floor)\[\d+\])")


@cache
def schema_text() -> str:
    """The JSON Schema of a projection, as shipped with the runtime."""
    return resources.files("seamhost.session").joinpath(SCHEMA_FILE).read_text("utf-8")


def schema() -> dict[str, Any]:
    """The JSON Schema of a projection, parsed (a fresh copy each call)."""
    parsed: dict[str, Any] = json.loads(schema_text())
    return parsed


def project(sessions: Iterable[tuple[SessionHeader, Iterable[Record]]]) -> dict[str, Any]:
    """The projection document of `sessions`, each a header and its records in order."""
    return {"schema": SCHEMA_ID, "sessions": [project_session(h, r) for h, r in sessions]}


def project_session(header: SessionHeader, records: Iterable[Record]) -> dict[str, Any]:
    """The projection of one session."""
    log = hashlib.sha256(canonical_json(header.to_json()) + b"\n")
    calls: dict[str, dict[str, Any]] = {}
    approvals: dict[str, dict[str, Any]] = {}  # approval id -> its call's approval entry
    turns: dict[int, dict[str, Any]] = {}
    count = 0
    for record in records:
        log.update(canonical_json(record.to_json(), checked=True) + b"\n")
        count += 1
        _fold(record, turns, calls, approvals)
    bundle_digest = header.bundle.get("digest")
    return {
        "session_id": header.session_id,
        "session_digest": "sha256:" + log.hexdigest(),
        "records": count,
        "bundle_digest": bundle_digest if isinstance(bundle_digest, str) else None,
        "turns": [turns[number] for number in sorted(turns)],
    }


def _fold(
    record: Record,
    turns: dict[int, dict[str, Any]],
    calls: dict[str, dict[str, Any]],
    approvals: dict[str, dict[str, Any]],
) -> None:
    data = record.data
    kind = record.type
    if kind == "turn/start":
        turns[int(data["turn"])] = {"turn": int(data["turn"]), "end": None, "calls": []}
    elif kind == "turn/end":
        _turn(turns, int(data["turn"]))["end"] = str(data["reason"])
    elif kind == "tool/call":
        call = _new_call(data)
        calls[call["call_id"]] = call
        _turn(turns, int(data["turn"]))["calls"].append(call)
    elif kind == "approval/decided":
        approval = approvals.get(str(data["id"]))
        if approval is not None:
            approval.update(_decided(data, record.time))
    elif str(data.get("call_id")) in calls:
        _fold_call(kind, data, record.time, calls[str(data["call_id"])], approvals)


def _turn(turns: dict[int, dict[str, Any]], number: int) -> dict[str, Any]:
    """The turn `number`, made when the log holds no start of it (a repaired tail)."""
    return turns.setdefault(number, {"turn": number, "end": None, "calls": []})


def _new_call(data: Mapping[str, Any]) -> dict[str, Any]:
    descriptor = data.get("descriptor_digest")
    return {
        "call_id": str(data["call_id"]),
        "tool": str(data["name"]),
        "step": int(data["step"]),
        "descriptor_digest": str(descriptor) if descriptor is not None else None,
        "args_digest": digest(str(data["arguments"])),
        "args_digest_of": "proposed",
        "decisions": [],
        "approval": None,
        "attempts": [],
        "outcome": None,
        "reconciliation": None,
    }


def _fold_call(
    kind: str,
    data: Mapping[str, Any],
    time: int,
    call: dict[str, Any],
    approvals: dict[str, dict[str, Any]],
) -> None:
    if kind == "approval/asked":
        call["args_digest"], call["args_digest_of"] = str(data["args_digest"]), "governed"
        escalation = data.get("escalation")
        call["approval"] = approvals[str(data["id"])] = {
            "id": str(data["id"]),
            "escalation": str(escalation) if escalation is not None else None,
            "asked_at": time,
            "deferred": False,
            "outcome": None,
            "answerer_kind": None,
            "answerer": None,
            "decided_at": None,
        }
    elif kind == "approval/deferred" and call["approval"] is not None:
        call["approval"]["deferred"] = True
    elif kind == "tool/dispatch":
        call["args_digest"], call["args_digest_of"] = str(data["args_digest"]), "governed"
        effect, idempotent = data.get("effect"), data.get("idempotent")
        call["attempts"].append(
            {
                "attempt": int(data["attempt"]),
                "sandbox_mode": str(data["sandbox_mode"]),
                "effect": str(effect) if effect is not None else None,
                "idempotent": bool(idempotent) if idempotent is not None else None,
                "dispatched_at": time,
                "failed": None,
            }
        )
    elif kind == "tool/attempt/failed":
        for attempt in call["attempts"]:
            if attempt["attempt"] == int(data["attempt"]):
                attempt["failed"] = str(data["error"]["code"])
    elif kind == "tool/result":
        call["outcome"] = _outcome(data, time)
        meta = data.get("meta") or {}
        call["decisions"] = [_decision(step) for step in meta.get("decisions", ())]
    elif kind == "tool/reconciled":
        call["reconciliation"] = {
            "attempt": int(data["attempt"]),
            "outcome": str(data["outcome"]),
            "code": str(data["error"]["code"]) if data.get("error") else OK,
            "source_kind": "probe" if str(data["source"]).startswith("probe:") else "operator",
            "args_digest": str(data["args_digest"]),
            "evidence_digest": str(data["evidence_digest"]),
            "reconciled_at": time,
        }


def _decided(data: Mapping[str, Any], time: int) -> dict[str, Any]:
    """An approval's outcome and who gave it, without a person's name or their words."""
    answerer = data.get("answerer")
    if data.get("decider") is not None:
        kind = "person"
    elif answerer:
        kind = "answerer"
    else:
        kind = "none"
    return {
        "outcome": str(data["outcome"]),
        "answerer_kind": kind,
        "answerer": str(answerer) if answerer else None,
        "decided_at": time,
    }


def _decision(step: Mapping[str, Any]) -> dict[str, Any]:
    stage = str(step.get("stage", ""))
    rules = _RULE.findall(str(step.get("reason", "")))
    # The approval stage names who answered, which may be a person: `approval` says what kind.
    plugin = None if stage == "approval" else str(step.get("plugin", "")) or None
    return {
        "stage": stage,
        "verdict": str(step.get("verdict", "")),
        "plugin": plugin,
        "rule": rules[-1] if rules else None,
    }


def _outcome(data: Mapping[str, Any], time: int) -> dict[str, Any]:
    error = data.get("error")
    carried = {
        "is_error": bool(data["is_error"]),
        "content": str(data["content"]),
        "value": thaw(data.get("value")),
        "error": thaw(error),
    }
    return {
        "code": str(error["code"]) if error else OK,
        "result_digest": digest(carried),
        "settled_at": time,
    }
