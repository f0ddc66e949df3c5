"""Checking a shared evidence projection against the log it claims to project.

A projection is checked in two steps: its shape (:func:`malformation`: the shipped schema, so a
foreign or damaged file is named as such, not compared), then its content (:func:`differences`:
recomputed from the log, each difference named by session, call and field).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

import fastjsonschema

from seamhost.session.evidence import SCHEMA_ID, schema


@cache
def _validator() -> Any:
    return fastjsonschema.compile(schema())


def malformation(document: object) -> str | None:
    """What makes `document` no ``seamhost.evidence.v1`` projection, or ``None``."""
    if not isinstance(document, Mapping):
        return f"not a JSON object (a {type(document).__name__}): no {SCHEMA_ID} projection"
    if document.get("schema") != SCHEMA_ID:
        return f"its schema is {document.get('schema')!r}, not {SCHEMA_ID!r}"
    try:
        _validator()(document)
    except fastjsonschema.JsonSchemaValueException as exc:
        return f"it does not follow the {SCHEMA_ID} schema: {exc.message}"
    return None


def differences(recomputed: Mapping[str, Any], shared: Mapping[str, Any]) -> list[str]:
    """Each way `shared` differs from `recomputed`, one line each, naming where."""
    found: list[str] = []
    for mine, theirs in zip(recomputed["sessions"], shared["sessions"], strict=True):
        where = f"session {mine['session_id']}"
        for key in ("session_digest", "records", "bundle_digest"):
            _compare(found, f"{where}: {key}", mine[key], theirs[key])
        calls = _calls(mine)
        claimed = _calls(theirs)
        for call_id in sorted(calls.keys() - claimed.keys()):
            found.append(f"{where}: call {call_id} is in the log but not in the projection")
        for call_id in sorted(claimed.keys() - calls.keys()):
            found.append(f"{where}: call {call_id} is in the projection but not in the log")
        for call_id in [c for c in calls if c in claimed]:
            _compare(found, f"{where}: call {call_id}", calls[call_id], claimed[call_id])
        turns = [{**t, "calls": len(t["calls"])} for t in mine["turns"]]
        shared_turns = [{**t, "calls": len(t["calls"])} for t in theirs["turns"]]
        _compare(found, f"{where}: turns", turns, shared_turns)
    return found


def _calls(session: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each call of `session` by id, with its turn."""
    return {c["call_id"]: {**c, "turn": t["turn"]} for t in session["turns"] for c in t["calls"]}


def _compare(found: list[str], where: str, mine: object, theirs: object) -> None:
    """Name each leaf where `theirs` differs from `mine`."""
    if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
        for key in sorted(mine.keys() | theirs.keys()):
            _compare(found, f"{where}.{key}", mine.get(key), theirs.get(key))
    elif isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            _compare(found, f"{where}[{index}]", a, b)
    elif mine != theirs or type(mine) is not type(theirs):
        found.append(f"{where}: the projection says {_show(theirs)}, the log {_show(mine)}")


def _show(value: object) -> str:
    return json.dumps(value, sort_keys=True)
