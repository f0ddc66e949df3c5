"""First-party plugins reach the kernel only through its public modules.

The public surface (docs/design.md §2) is the root package ``seamhost`` (the curated, lazily
exported API), the foundation modules and the plugin-author kit ``seamhost.testing``. A plugin
that imports ``seamhost.run.pipeline`` or ``seamhost.kernel.seams`` directly would break with
the next internal move, and a third party copying it would too. This test lists, for every
first-party plugin and the example third-party plugin, each seamhost module and name it imports
(at module level, in functions and under ``TYPE_CHECKING``), and fails on a private path or on a
name the public module does not export.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PUBLIC = {
    "seamhost",
    "seamhost.errors",
    "seamhost.input_limits",
    "seamhost.jsonvalue",
    "seamhost.schema",
    "seamhost.store",
    "seamhost.lazy",
    "seamhost.version",
    "seamhost.globs",
    "seamhost.redaction",
}
PLUGINS = sorted(p for p in (ROOT / "plugins").iterdir() if (p / "src").is_dir())
PLUGINS.append(ROOT / "examples" / "plugin-hello")
PLUGINS.append(ROOT / "examples" / "plugin-ledger")


def is_public(module: str) -> bool:
    return (
        module in PUBLIC or module == "seamhost.testing" or module.startswith("seamhost.testing.")
    )


def kernel_imports(plugin: Path) -> list[tuple[str, int, str, str]]:
    """(file, line, module, name) for every import of a seamhost module in `plugin`'s sources."""
    found = []
    for path in sorted((plugin / "src").rglob("*.py")):
        shown = str(path.relative_to(plugin.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if node.module == "seamhost" or node.module.startswith("seamhost."):
                    found += [(shown, node.lineno, node.module, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                found += [
                    (shown, node.lineno, a.name, "")
                    for a in node.names
                    if a.name == "seamhost" or a.name.startswith("seamhost.")
                ]
    return found


@pytest.mark.parametrize("plugin", PLUGINS, ids=lambda p: p.name)
def test_plugin_imports_only_public_modules(plugin: Path) -> None:
    imports = kernel_imports(plugin)
    assert imports, f"{plugin.name} imports nothing from seamhost: is the walk broken?"
    private = [f"{f}:{line}: {module}" for f, line, module, _ in imports if not is_public(module)]
    assert not private, "private kernel paths:\n" + "\n".join(private)
    unexported = []
    for f, line, module, name in imports:
        if name and not hasattr(importlib.import_module(module), name):
            unexported.append(f"{f}:{line}: {module} has no {name}")
    assert not unexported, "\n".join(unexported)


def test_every_exported_name_resolves() -> None:
    import seamhost

    missing = [name for name in seamhost.__all__ if not hasattr(seamhost, name)]
    assert not missing


def test_the_check_catches_a_private_path(tmp_path: Path) -> None:
    source = tmp_path / "src" / "bad"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text(
        "from seamhost.run.pipeline import ToolPipeline\nfrom seamhost import hookimpl\n"
    )
    modules = [module for _, _, module, _ in kernel_imports(tmp_path)]
    assert [m for m in modules if not is_public(m)] == ["seamhost.run.pipeline"]
