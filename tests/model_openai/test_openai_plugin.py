"""The plugin in a bundle: the shipped `openai` profile, its table's checks, and what building
costs (nothing of the SDK until a session streams)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from seamhost_model_openai.adapter import OpenAIAdapter

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.kernel.seams import Seams
from tests.conftest import run_cli
from tests.test_startup_imports import PROBE, RUN_TIME_ONLY_EVERYWHERE, sub_packages


def test_the_shipped_openai_profile_checks_with_the_key_set(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-test", "SEAMHOST_HOME": str(tmp_path)}
    result = run_cli("profile", "check", "openai", "--json", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert "model-openai" in report["plugins"]
    assert "model-scripted" not in report["plugins"]  # one llm/adapter per bundle


def test_the_shipped_openai_profile_names_the_missing_variable(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    result = subprocess.run(
        [sys.executable, "-m", "seamhost", "profile", "check", "openai"],
        capture_output=True,
        text=True,
        check=False,
        env=env | {"SEAMHOST_HOME": str(tmp_path)},
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("seamhost: error: ")
    assert "openai.toml: plugins.model-openai.api_key: environment variable 'OPENAI_API_KEY'" in (
        result.stderr
    )


def test_a_table_without_a_model_is_refused_naming_the_key(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text('[profile]\nname = "p"\n[plugins.model-openai]\ntimeout_s = 5\n')
    result = run_cli("profile", "check", str(profile), env={"SEAMHOST_HOME": str(tmp_path)})
    assert result.returncode == 2
    assert "plugins.model-openai" in result.stderr
    assert "model" in result.stderr


def test_the_bundle_gives_an_adapter_with_the_tables_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-bundle")
    monkeypatch.setenv("SEAMHOST_HOME", str(tmp_path))
    bundle = build_bundle(resolve_profile("openai"))
    adapter = Seams(bundle.pm).llm_adapter()
    assert isinstance(adapter, OpenAIAdapter)
    assert adapter.identity["model"] == "gpt-4o-mini"
    assert adapter.identity["base_url"] == "https://api.openai.com/v1"
    assert adapter.max_attempts == 3
    assert adapter.settings.api_key == "sk-test-bundle"
    assert "sk-test-bundle" not in json.dumps(adapter.identity)


def test_building_a_bundle_with_model_openai_imports_neither_the_sdk_nor_the_adapter(
    tmp_path: Path,
) -> None:
    empty, profile = tmp_path / "empty.toml", tmp_path / "openai.toml"
    empty.write_text('[profile]\nname = "empty"\n')
    profile.write_text(
        '[profile]\nname = "o"\n[plugins.model-openai]\nmodel = "m"\napi_key = "k"\n'
        'base_url = "http://127.0.0.1:1/v1"\nextra_body = { top_k = 2 }\n'
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(empty), str(profile), "model-openai"],
        capture_output=True,
        text=True,
        check=False,
        env=environ | {"SEAMHOST_HOME": str(tmp_path / "home")},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["plugins"] == [True]
    loaded = set(report["loaded"])
    assert "seamhost_model_openai.settings" in loaded, "the probe did not build the plugin"
    early = {m for m in loaded if m.split(".")[0] in ("openai", "httpx2", "pydantic", "anyio")}
    early |= loaded & {*RUN_TIME_ONLY_EVERYWHERE, "seamhost_model_openai.adapter"}
    early |= sub_packages(loaded) & set(RUN_TIME_ONLY_EVERYWHERE)
    assert not early, sorted(early)
