"""The browser the console tests use is the operating system's, and a machine without one skips
them, saying why, except where ``SEAMHOST_REQUIRE_BROWSER=1`` demands they run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright

from tests.console_browser.conftest import find_chromium, launch_chromium

HERE = Path(__file__).parent
REPO = HERE.parents[1]
REQUIRED = "SEAMHOST_REQUIRE_BROWSER=1 says the browser tests must run"


def test_the_launched_browser_is_the_found_chromium(browser: Browser) -> None:
    executable, _ = find_chromium()
    assert executable is not None
    printed = subprocess.run(
        [executable, "--version"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    # "Chromium 131.0.6778.85 built on Debian ..." / "Google Chrome 131.0.6778.85"
    assert browser.version in printed.split(), (browser.version, printed)


def test_seamhost_chromium_names_the_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEAMHOST_CHROMIUM", sys.executable)
    assert find_chromium() == (sys.executable, "")
    monkeypatch.setenv("SEAMHOST_CHROMIUM", "seamhost-no-such-browser")
    assert find_chromium() == (
        None,
        "$SEAMHOST_CHROMIUM=seamhost-no-such-browser is not an executable",
    )


@pytest.mark.parametrize(
    ("named", "why"),
    [
        ("seamhost-no-such-browser", "$SEAMHOST_CHROMIUM=seamhost-no-such-browser is not an exec"),
        (sys.executable, f"Playwright could not launch {sys.executable}: "),
    ],
    ids=["missing", "not-a-browser"],
)
def test_no_browser_skips_with_the_reason_unless_required(
    playwright: Playwright, monkeypatch: pytest.MonkeyPatch, named: str, why: str
) -> None:
    monkeypatch.setenv("SEAMHOST_CHROMIUM", named)
    monkeypatch.delenv("SEAMHOST_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        launch_chromium(playwright)
    assert why in str(skipped.value)
    monkeypatch.setenv("SEAMHOST_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception) as failed:
        launch_chromium(playwright)
    assert why in str(failed.value)
    assert REQUIRED in str(failed.value)


def test_a_required_browser_that_is_missing_fails_the_run(tmp_path: Path) -> None:
    """The whole way, as CI meets it: a real pytest run reports an error, not a skip."""
    probe = tmp_path / "test_probe.py"
    fixture_only = ["-p", "tests.console_browser.conftest", "--rootdir", str(tmp_path)]
    probe.write_text("def test_probe(browser):\n    assert browser.version\n")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    environ |= {
        "SEAMHOST_CHROMIUM": "seamhost-no-such-browser",
        "SEAMHOST_REQUIRE_BROWSER": "1",
        "PYTHONPATH": str(REPO),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # the fixture alone: a quicker start
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *fixture_only, str(probe)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environ,
        timeout=300,
        check=False,
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert "1 error" in done.stdout, done.stdout
    assert REQUIRED in done.stdout, done.stdout
