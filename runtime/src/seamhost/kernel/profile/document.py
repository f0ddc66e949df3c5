"""A resolved profile as one merged document: the tables a profile file has, without ``extends``.

This is what ``seamhost profile show`` prints as TOML: ``[profile]`` (name, description), one
``[plugins.NAME]`` table per plugin of the bundle with its configuration as written (secret
markers, not values), the effective ``[sandbox]`` and ``[gateway]`` (defaults included) and
``[require]``. It parses as a profile of its own, with one caveat: a relative ``$file`` path or
``extends`` is relative to the file that wrote it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost.jsonvalue import thaw

if TYPE_CHECKING:
    from seamhost.kernel.profile.resolve import Profile


def config_document(profile: Profile) -> dict[str, Any]:
    """The merged configuration of `profile`, as plain dicts, lists and scalars."""
    head = {"name": profile.name}
    if profile.description:
        head["description"] = profile.description
    require: dict[str, Any] = {}
    if profile.require_seams:
        require["seams"] = list(profile.require_seams)
    if profile.require_plugins:
        require["plugins"] = thaw(profile.require_plugins)
    doc: dict[str, Any] = {
        "profile": head,
        "plugins": {p.name: thaw(p.declared) for p in profile.plugins},
        "sandbox": {
            "mode": str(profile.sandbox.mode),
            "writable_roots": [str(r) for r in profile.sandbox.writable_roots],
            "read_only_paths": [str(r) for r in profile.sandbox.read_only_paths],
            "network": profile.sandbox.network,
        },
        "gateway": profile.gateway.to_json(),
    }
    if require:
        doc["require"] = require
    return doc
