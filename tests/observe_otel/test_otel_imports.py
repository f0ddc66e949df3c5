"""The SDK loads only with the plugin: a bundle without observe-otel imports no OpenTelemetry
module (tests/test_startup_imports.py's approach: a fresh interpreter builds the bundles)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.observe_otel.conftest import OBSERVED

PROBE = """
import json, sys
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile

loaded = {}
for profile in sys.argv[1:]:
    build_bundle(resolve_profile(profile))
    loaded[profile] = sorted(m for m in sys.modules if m.startswith("opentelemetry"))
print(json.dumps(loaded))
"""


def test_only_a_profile_naming_the_plugin_loads_opentelemetry(tmp_path: Path) -> None:
    observed = tmp_path / "observed.toml"
    observed.write_text(OBSERVED)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMHOST_", "OTEL_"))}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "default", "strict", str(observed)],
        capture_output=True,
        text=True,
        check=False,
        env={**environ, "SEAMHOST_HOME": str(tmp_path / "home")},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert loaded["default"] == loaded["strict"] == []
    assert "opentelemetry.sdk.trace" in loaded[str(observed)]
