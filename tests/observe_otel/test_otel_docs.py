"""docs/observing.md documents every attribute, span, event and instrument name the plugin
writes: each ``gen_ai.*``, ``seamhost.*`` or ``error.*`` string in the plugin's sources appears
on the page in backticks."""

from __future__ import annotations

import ast
import re

from tests.observe_otel.conftest import ROOT

SOURCES = ROOT / "plugins" / "observe-otel" / "src" / "seamhost_observe_otel"
PAGE = ROOT / "docs" / "observing.md"
NAME = re.compile(r"(gen_ai|seamhost|error)\.[a-z_.]+")


def test_every_name_the_plugin_writes_is_on_the_page() -> None:
    written = {
        node.value
        for path in SOURCES.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and NAME.fullmatch(node.value)
    }
    assert len(written) > 50
    page = PAGE.read_text(encoding="utf-8")
    missing = sorted(name for name in written if f"`{name}`" not in page)
    assert not missing, f"docs/observing.md does not mention {missing}"


def test_the_index_links_the_page() -> None:
    assert "(observing.md)" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
