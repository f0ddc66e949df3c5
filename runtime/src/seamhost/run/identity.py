"""Whether the bundle installed now is the one a session recorded (design.md §6, §13).

A session is continued only by what wrote it: the profile (name, sandbox mode, limits, recovery
policy), its plugins (name, distribution, version, configuration digest), its tools (each
descriptor's digest) and the model that answered (the adapter's identity). Every difference is
listed as one line a person can act on (``sandbox mode: read-only -> workspace-write``); a
continuation refuses on any (``BUNDLE_CHANGED``) unless the operator accepts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from seamhost.errors import SeamhostError

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session


def model_identity(bundle: Bundle) -> dict[str, Any] | None:
    """The `llm/adapter` provider's identity (plugin, version, base URL, model), if it has one.

    A provider that cannot be made yet (a scripted model without its scenario) has none here;
    its first model request reports why.
    """
    if not bundle.seams.has("llm/adapter"):
        return None
    try:
        adapter = bundle.seams.llm_adapter()
    except SeamhostError:
        return None
    identity = getattr(adapter, "identity", None)
    return dict(identity) if identity else None  # the header freezes what it holds


def recorded_model(session: Session) -> Mapping[str, Any] | None:
    """The model identity the session's header recorded, if any."""
    model = session.header.bundle.get("model")
    return model if isinstance(model, Mapping) else None


def identity_changes(
    recorded: Mapping[str, Any], bundle: Bundle, model: Mapping[str, Any] | None = None
) -> list[str]:
    """Every difference between the `recorded` snapshot and `bundle`, one line each.

    The model is compared only when both sides know it: an adapter that cannot be made yet
    (the scripted model before its scenario is loaded) has no identity to compare. A model
    that replays a scenario (its identity names one) answers from the scenario the command
    line hands it, an input like the user's messages: its plugin, version and base URL are
    compared, not the scenario nor the name it takes from it.
    """
    now = bundle.snapshot.to_json()
    changes: list[str] = []
    for key, label in (("profile", "profile"), ("sandbox_mode", "sandbox mode")):
        if recorded.get(key) != now.get(key):
            changes.append(f"{label}: {recorded.get(key)} -> {now.get(key)}")
    for key in ("limits", "recovery"):
        then_table, now_table = recorded.get(key), now.get(key)
        if then_table is None:  # written before the header recorded it: nothing to compare
            continue
        for name in sorted(set(then_table) | set(now_table or {})):
            before, after = then_table.get(name), (now_table or {}).get(name)
            if before != after:
                changes.append(f"{key}.{name}: {before} -> {after}")
    changes += _by_name(
        "plugin",
        recorded.get("plugins", ()),
        now.get("plugins", ()),
        ("distribution", "version", "config_digest"),
    )
    changes += _by_name("tool", recorded.get("tools", ()), now.get("tools", ()), ("digest",))
    current = model_identity(bundle)
    then_model = model if model is not None else recorded.get("model")
    if then_model is not None and current is not None:
        keys = set(then_model) | set(current)
        if "scenario" in keys:
            keys -= {"scenario", "model"}
        for key in sorted(keys):
            if then_model.get(key) != current.get(key):
                changes.append(f"model {key}: {then_model.get(key)} -> {current.get(key)}")
    return changes


def _by_name(kind: str, then: Any, now: Any, keys: tuple[str, ...]) -> list[str]:
    before = {str(item["name"]): item for item in then}
    after = {str(item["name"]): item for item in now}
    changes = []
    for name in sorted(set(before) | set(after)):
        if name not in after:
            changes.append(f"{kind} {name}: removed")
        elif name not in before:
            changes.append(f"{kind} {name}: added")
        else:
            for key in keys:
                old, new = before[name].get(key), after[name].get(key)
                if old != new:
                    changes.append(f"{kind} {name} {key}: {_short(old)} -> {_short(new)}")
    return changes


def _short(value: Any) -> str:
    text = str(value)
    return text[:19] if text.startswith("sha256:") else text


__all__ = ["identity_changes", "model_identity", "recorded_model"]
