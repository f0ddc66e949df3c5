"""First-party plugins reach the kernel only through its public modules.

The public surface (docs/design.md §2) is the root package ``seamhost`` (the curated, lazily
exported API), the foundation modules and the plugin-author kit ``seamhost.testing``. A plugin
that imports ``seamhost.run.pipeline`` or ``seamhost.kernel.seams`` directly would break with
the next internal move, and a third party copying it would too. This test lists, for every
first-party plugin and the example third-party plugin, each seamhost module and name it imports
(at module level, in functions and under ``TYPE_CHECKING``), and fails on a private path or on a
name the public module does not export.

It also keeps the root package's one list of names, ``seamhost._EXPORTS``, and the stub type
checkers read for it, ``seamhost/__init__.pyi``, in step: the stub is generated from the table
(``python tests/test_public_imports.py --write``), and every name resolves, lazily, to the object
its module defines.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

import seamhost

ROOT = Path(__file__).parent.parent
STUB = ROOT / "runtime" / "src" / "seamhost" / "__init__.pyi"
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


def _import_order(name: str) -> tuple[int, str, str]:
    """How ruff's isort orders the names of one module: constants, classes, then the rest."""
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name.lower(), name


def stub_text() -> str:
    """``seamhost/__init__.pyi`` as the table ``seamhost._EXPORTS`` makes it."""
    by_module: dict[str, list[str]] = {}
    for name, module in seamhost._EXPORTS.items():
        by_module.setdefault(module, []).append(name)
    imports = [
        f"from {module} import {name} as {name}\n"
        for module in sorted(by_module)
        for name in sorted(by_module[module], key=_import_order)
    ]
    return (
        '"""The names of ``seamhost`` for type checkers and IDEs, generated from ``_EXPORTS``.\n\n'
        "Do not edit: change the table in ``__init__.py``, then run\n"
        "``python tests/test_public_imports.py --write``.\n"
        '"""\n\n'
        f"{''.join(imports)}\n"
        "_EXPORTS: dict[str, str]\n"
        "__all__: list[str]\n\n"
        "def __dir__() -> list[str]: ...\n"
    )


def test_the_stub_is_generated_from_the_table() -> None:
    assert STUB.read_text(encoding="utf-8") == stub_text(), (
        "seamhost/__init__.pyi is stale: run python tests/test_public_imports.py --write"
    )


def test_every_exported_name_resolves_to_what_its_module_defines() -> None:
    assert seamhost.__all__ == list(seamhost._EXPORTS)
    assert dir(seamhost) == sorted(seamhost.__all__)
    for name, module in seamhost._EXPORTS.items():
        assert getattr(seamhost, name) is getattr(importlib.import_module(module), name), name


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_public_imports.py --write")
    STUB.write_text(stub_text(), encoding="utf-8")
