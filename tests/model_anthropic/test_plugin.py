"""model-anthropic as an installed plugin: the shipped profile, a real bundle, the real CLI.

Streams go to the stand-in, THE ONE MOCK THIS PROJECT ALLOWS: a remote model API cannot run here.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seamhost import ModelDone, TextDelta
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from tests.conftest import run_cli
from tests.model_anthropic.driver import request
from tests.model_anthropic.standin import serve, stream
from tests.test_startup_imports import PROBE


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_shipped_profile_checks_with_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    result = run_cli("profile", "check", "anthropic")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("profile 'anthropic' is valid")


def test_the_shipped_profile_without_the_key_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = run_cli("profile", "check", "anthropic")
    assert result.returncode == 2
    assert result.stderr.startswith("seamhost: error: "), result.stderr
    assert "anthropic.toml: plugins.model-anthropic.api_key: environment variable " in result.stderr
    assert "'ANTHROPIC_API_KEY' is not set" in result.stderr
    assert "Traceback" not in result.stderr


def test_two_model_adapters_in_one_profile_are_refused(tmp_path: Path) -> None:
    profile = write(
        tmp_path / "both.toml",
        '[profile]\nname = "both"\nextends = ["default"]\n'
        '[plugins.model-anthropic]\nmodel = "claude-sonnet-4-5"\napi_key = "k"\n',
    )
    result = run_cli("profile", "check", profile)
    assert result.returncode == 2
    assert 'llm/adapter is claimed by both "model-scripted" and "model-anthropic"' in result.stderr


def test_a_table_without_a_model_is_refused_naming_the_key(tmp_path: Path) -> None:
    profile = write(
        tmp_path / "p.toml", '[profile]\nname = "p"\n[plugins.model-anthropic]\napi_key = "k"\n'
    )
    result = run_cli("profile", "check", profile)
    assert result.returncode == 2
    problem = "plugins.model-anthropic: must contain ['model'] properties"
    assert result.stderr == f"seamhost: error: {profile}: {problem}\n"


def test_building_the_bundle_imports_neither_the_sdk_nor_the_adapter(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.toml", '[profile]\nname = "empty"\n')
    profile = write(
        tmp_path / "p.toml",
        '[profile]\nname = "p"\n[plugins.model-anthropic]\nmodel = "m"\napi_key = "k"\n'
        'temperature = 0.5\nextra_headers = { a = "b" }\n',
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, empty, profile, "model-anthropic"],
        capture_output=True,
        text=True,
        check=False,
        env={**environ, "SEAMHOST_HOME": str(tmp_path / "home")},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["plugins"] == [True]
    loaded = set(report["loaded"])
    assert "seamhost_model_anthropic.config" in loaded, "the probe did not build the plugin"
    early = {"anthropic", "httpx2", "pydantic", "asyncio", "seamhost.llm.adapter"}
    early |= {"seamhost_model_anthropic.adapter", "seamhost_model_anthropic.events"}
    assert not loaded & early, sorted(loaded & early)


def test_the_bundles_adapter_streams_and_shows_its_identity_without_the_key(
    tmp_path: Path,
) -> None:
    with serve([stream("text")]) as api:
        profile = write(
            tmp_path / "p.toml",
            '[profile]\nname = "p"\n[plugins.model-anthropic]\nmodel = "claude-sonnet-4-5"\n'
            f'api_key = "sk-secret"\nbase_url = "{api.url}"\nmax_attempts = 5\n',
        )
        bundle = build_bundle(resolve_profile(profile))
        adapter = bundle.seams.llm_adapter()
        assert adapter is bundle.seams.llm_adapter()

        async def drain() -> list[object]:
            req = request()
            return [e async for e in bundle.seams.llm_stream(req, adapter.stream)]

        out = asyncio.run(drain())
    assert isinstance(out[0], TextDelta)
    assert isinstance(out[-1], ModelDone)
    assert adapter.name == "model-anthropic"
    assert adapter.max_attempts == 5  # type: ignore[attr-defined]
    assert adapter.identity == {  # type: ignore[attr-defined]
        "plugin": "model-anthropic",
        "version": "0.1.0",
        "base_url": api.url,
        "model": "claude-sonnet-4-5",
    }
    assert "sk-secret" not in repr(adapter.config)  # type: ignore[attr-defined]
