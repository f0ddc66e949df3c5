"""The generated reference's rules: undocumented fields fail, plugin-added seams are listed.

The page modules (``docs/refpages``) are driven with classes and descriptors made for the test,
so each rule is seen to fail as well as to pass.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from seamhost import PluginContext, PluginDescriptor, hookspec

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS))

from refpages import added_seams, values  # noqa: E402
from refpages.shipped import Shipped, shipped_plugins  # noqa: E402


def module_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str
) -> ModuleType:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name)


def test_a_field_without_documentation_fails_naming_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = module_from(
        tmp_path,
        monkeypatch,
        "refpages_fields_sample",
        """
        import attrs

        @attrs.frozen
        class Sample:
            documented: int  # what it is
            described: str = "x"
            \"\"\"An attribute docstring documents it too.\"\"\"
            bare: bool = False
        """,
    )
    with pytest.raises(LookupError, match=r"refpages_fields_sample\.py:9: Sample\.bare"):
        values.field_docs(module.Sample)


def test_trailing_comments_and_attribute_docstrings_document_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = module_from(
        tmp_path,
        monkeypatch,
        "refpages_fields_documented",
        """
        import attrs

        @attrs.frozen
        class Sample:
            documented: int  # what it is
            described: str = "x"
            \"\"\"An attribute docstring documents it too.\"\"\"
        """,
    )
    assert values.field_docs(module.Sample) == [
        ("documented", "int", "what it is"),
        ("described", "str", "An attribute docstring documents it too."),
    ]


def test_every_exported_value_type_is_on_the_page() -> None:
    page = (DOCS / "reference" / "values.md").read_text(encoding="utf-8")
    for cls in values.public_types():
        assert f"\n## {cls.__name__}\n" in page
    for name in ("ApprovalRequest", "ApprovalOutcome", "ToolResult", "ToolContext", "ToolSpec"):
        assert f"\n## {name}\n" in page


def test_session_checkpoint_is_in_the_seam_reference() -> None:
    page = (DOCS / "reference" / "seams.md").read_text(encoding="utf-8")
    section = page.split("### session/checkpoint\n", 1)[1]
    assert "checkpoint-policy (seamhost-checkpoint-policy)" in section
    assert "written with barriers" in section
    assert "checkpoint-policy" in [s.descriptor.name for s in shipped_plugins()]


def no_plugin(ctx: PluginContext) -> object:
    return object()


class ExtraSpecs:
    @hookspec
    def audit_export(self, batch: list[str], *, final: bool) -> None:
        """Seam ``audit/export``: hand a batch of audit lines to an exporter."""


def test_a_hookspec_a_plugin_adds_is_listed_with_its_exact_signature() -> None:
    descriptor = PluginDescriptor(
        name="auditor", factory=no_plugin, provides=["audit/export"], hookspecs=(ExtraSpecs,)
    )
    lines = added_seams.hook_sections(Shipped("acme-auditor", __name__, descriptor))
    text = "\n".join(lines)
    assert "### audit_export" in text
    assert "`audit_export(self, batch: 'list[str]', *, final: 'bool') -> 'None'`" in text
    assert "auditor (acme-auditor)" in text


def test_a_capability_its_plugin_never_explains_fails() -> None:
    descriptor = PluginDescriptor(name="quiet", factory=no_plugin, provides=["audit/sealed"])
    with pytest.raises(LookupError, match="never names ``audit/sealed``"):
        added_seams.render_added([Shipped("acme-quiet", __name__, descriptor)])
