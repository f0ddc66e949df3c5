"""The bundle a profile command describes: built from a profile name, and as JSON."""

from __future__ import annotations

from typing import Any

from seamhost.cli import started
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile


def load_bundle(ref: str) -> Bundle:
    """The bundle of profile `ref`; start-up is over once it is built (:func:`started`)."""
    bundle = build_bundle(resolve_profile(ref))
    started()
    return bundle


def bundle_json(bundle: Bundle) -> dict[str, Any]:
    """The resolved profile, its tools, its durability and its digest, as ``show --json``."""
    snapshot = bundle.snapshot
    profile = bundle.profile.to_json()
    identities = {p.name: p for p in snapshot.plugins}
    for name, entry in profile["plugins"].items():
        entry["config_digest"] = identities[name].config_digest
    return {
        "profile": profile,
        "tools": [
            {**bundle.tools[t.name].spec.declaration(), "plugin": t.plugin, "digest": t.digest}
            for t in snapshot.tools
        ],
        "durability": {"store": bundle.store.name, "barriers": bundle.barriers},
        "bundle_digest": snapshot.digest,
    }
