"""Fixtures of the console's browser tests: the operating system's Chromium, driven by Playwright.

No browser is ever downloaded (`playwright install` is never needed): Playwright launches the
Chromium the machine has, ``$SEAMHOST_CHROMIUM`` if set, else the first of ``chromium``,
``chromium-browser`` and ``google-chrome`` on ``PATH``. Without one, or when Playwright cannot
launch it, the tests skip saying why, unless ``SEAMHOST_REQUIRE_BROWSER=1`` (set by ``.ci/run``)
turns the skip into a failure.

One browser per test module (a launch costs about a second); each test gets a fresh context, so
cookies and storage never leak from one test to the next.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported when a fixture runs, so collection works without playwright
    from playwright.sync_api import Browser, Page, Playwright

REQUIRE_ENV = "SEAMHOST_REQUIRE_BROWSER"
CHROMIUM_ENV = "SEAMHOST_CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
WIDTH, HEIGHT = 1100, 640  # the viewport, and so the size of the screenshots in docs/images


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}, and {REQUIRE_ENV}=1 says the browser tests must run")
    pytest.skip(reason)


def find_chromium() -> tuple[str | None, str]:
    """The Chromium executable to launch, or None and what was looked for."""
    named = os.environ.get(CHROMIUM_ENV)
    if named:
        found = shutil.which(named)
        if found is None:
            return None, f"${CHROMIUM_ENV}={named} is not an executable"
        return found, ""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found is not None:
            return found, ""
    return None, f"no Chromium found (${CHROMIUM_ENV} unset; none of {', '.join(CHROMIUM_NAMES)})"


def launch_chromium(driver: Playwright) -> Browser:
    """Launch the found Chromium headless; skip (or fail, when required) when that cannot be."""
    from playwright.sync_api import Error

    executable, why = find_chromium()
    if executable is None:
        _unavailable(why)
    # As root Chromium refuses its own sandbox; the tests only load loopback pages they serve.
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    try:
        return driver.chromium.launch(executable_path=executable, headless=True, args=args)
    except Error as exc:
        _unavailable(f"Playwright could not launch {executable}: {exc.message.splitlines()[0]}")
        raise  # unreachable: _unavailable raises


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    """Playwright's driver, for the whole module (started only when there is a browser to drive)."""
    executable, why = find_chromium()
    if executable is None:
        _unavailable(why)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # the `test` dependency group was not installed
        _unavailable(f"playwright is not importable: {exc}")
        raise  # unreachable: _unavailable raises
    driver = sync_playwright().start()
    try:
        yield driver
    finally:
        driver.stop()


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """A headless Chromium of the operating system's, for the whole module."""
    launched = launch_chromium(playwright)
    try:
        yield launched
    finally:
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page in a context of its own (no cookie from another test), closed afterwards."""
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    try:
        yield context.new_page()
    finally:
        context.close()
