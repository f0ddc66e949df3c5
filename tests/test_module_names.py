"""Test modules outside a package share one namespace (pytest's default ``prepend`` import mode):
two ``test_x.py`` in two such directories stop the whole suite at collection. Fail here instead,
naming both, so a branch that adds one finds out before CI does."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).parent.parent
SKIP = {"node_modules", "__pycache__", ".venv", ".nox"}


def test_every_test_module_outside_a_package_has_its_own_name() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for top in ("tests", "examples"):
        for path in (ROOT / top).rglob("*.py"):
            if SKIP & set(path.parts) or not path.name.startswith(("test_", "conftest")):
                continue
            if path.name == "conftest.py" or (path.parent / "__init__.py").exists():
                continue
            seen[path.name].append(str(path.relative_to(ROOT)))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert clashes == {}, f"rename one of each: {clashes}"
    assert "test_module_names.py" in seen  # the walk found this very file
