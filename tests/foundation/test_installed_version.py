"""`seamhost.version.installed_version` answers as importlib.metadata does, without importing it."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seamhost.version import installed_version


def test_every_installed_distribution_has_the_version_importlib_metadata_gives() -> None:
    names = {d.metadata["Name"] for d in importlib.metadata.distributions()}
    assert len(names) > 20, "the environment under test lists too few distributions"
    for name in sorted(names):
        assert installed_version(name) == importlib.metadata.version(name), name
        # spelt as a user might: another case, dashes and dots for underscores
        assert installed_version(name.upper().replace("_", "-")) == importlib.metadata.version(name)


def test_a_distribution_not_installed_raises_what_importlib_metadata_raises() -> None:
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        installed_version("no-such-distribution-here")


def test_the_first_path_entry_holding_it_decides_and_an_egg_info_is_read_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    early, late, old = tmp_path / "early", tmp_path / "late", tmp_path / "old"
    for root, version in ((early, "2.0"), (late, "1.0")):
        info = root / f"demo_dist-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: demo-dist\nVersion: {version}\n"
        )
    egg = old / "demo_dist.egg-info"
    egg.mkdir(parents=True)
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: demo-dist\nVersion: 0.5\n")
    monkeypatch.setattr(sys, "path", [str(late), str(early)])
    assert installed_version("demo-dist") == "1.0" == importlib.metadata.version("demo-dist")
    # An egg-info before the dist-info: left to importlib.metadata, whatever it makes of it.
    monkeypatch.setattr(sys, "path", [str(old), str(early)])
    assert installed_version("Demo.Dist") == importlib.metadata.version("demo-dist")


def test_a_dist_info_version_is_found_without_importing_importlib_metadata() -> None:
    probe = (
        "import sys; from seamhost.version import installed_version; "
        "v = installed_version('seamhost-model-scripted'); "
        "print(v, 'importlib.metadata' in sys.modules)"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=environ
    ).stdout.split()
    assert out == [importlib.metadata.version("seamhost-model-scripted"), "False"]
