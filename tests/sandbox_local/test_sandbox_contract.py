"""sandbox-local passes the sandbox-provider contract with each of its backends."""

from __future__ import annotations

from pathlib import Path

import pytest
from seamhost_sandbox_local.landlock import LATER_RIGHTS, METADATA_GAP

from seamhost.testing.sandbox import SandboxContract, SandboxProvider
from tests.sandbox_local.conftest import make_plugin, working

# Which escapes of the contract each right a backend may report missing lets through.
ESCAPES_THROUGH = {
    METADATA_GAP: ("chmod", "times"),
    **{gap: ("truncate",) for _, _, gap in LATER_RIGHTS if "truncate" in gap},
}


class TestBubblewrap(SandboxContract):
    @pytest.fixture
    def sandbox_provider(self, scratch: Path) -> SandboxProvider:
        report = working("bwrap")
        assert all(entry.enforcement == "full" for entry in report.modes)
        return SandboxProvider("bwrap", make_plugin(backends=["bwrap"]), scratch=scratch)


class TestLandlock(SandboxContract):
    @pytest.fixture
    def sandbox_provider(self, scratch: Path) -> SandboxProvider:
        report = working("landlock")
        gaps = {
            f"{escape}@{entry.mode}": missing
            for entry in report.modes
            for missing in entry.missing
            for escape in ESCAPES_THROUGH.get(missing, ())
        }
        return SandboxProvider(
            "landlock", make_plugin(backends=["landlock"]), scratch=scratch, gaps=gaps
        )
