"""The kernel's layers: imports go one way, and there is no import cycle at all.

Every import statement of every module under ``runtime/src/seamhost`` counts: at module level,
inside functions, and under ``if TYPE_CHECKING:``. A cycle that only type checking sees is still a
cycle a reader has to untangle, and the next runtime import along it breaks start-up.

The layers, lowest first (docs/design.md §2): the foundation modules, then ``sandbox``,
``session``, ``tool``, ``approval`` and ``llm``, then ``kernel``, ``run``, the plugin authors' kit
``testing`` and on top ``cli``; the root package (the curated, lazily exported API) sits above
everything. A module may import its own package and any lower layer, never a higher one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SOURCE = Path(__file__).parent.parent / "runtime" / "src"
FOUNDATION = {
    "errors",
    "frozen",
    "globs",
    "input_limits",
    "jsonvalue",
    "redaction",
    "schema",
    "lazy",
    "version",
}
LAYERS = [
    FOUNDATION,
    {"sandbox"},
    {"session"},
    {"store"},
    {"tool"},
    {"approval"},
    {"llm"},
    {"kernel"},
    {"run"},
    {"gateway"},  # mcp serve: the SDK server over the run layer's pipeline; only the cli uses it
    {"testing"},
    {"cli"},
    {"__init__", "__main__"},
]


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SOURCE / "seamhost").rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, module) for every seamhost module `name` imports, wherever the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target not in known:
                continue
            submodules = [f"{target}.{alias.name}" for alias in node.names]
            named = [sub for sub in submodules if sub in known]
            yield from ((node.lineno, sub) for sub in named)
            if len(named) < len(submodules):  # names from the module itself
                yield node.lineno, target


def layer_of(name: str) -> int:
    parts = name.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    return next(index for index, layer in enumerate(LAYERS) if top in layer)


def graph() -> dict[str, dict[str, int]]:
    known = modules()
    edges: dict[str, dict[str, int]] = {name: {} for name in known}
    for name, path in known.items():
        for line, target in imports(name, path, known):
            if target != name:
                edges[name].setdefault(target, line)
    return edges


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_walk_sees_the_whole_package() -> None:
    edges = graph()
    assert {"seamhost.errors", "seamhost.kernel.seams", "seamhost.run.pipeline"} <= set(edges)
    # type-checking-only and function-level imports are edges too
    assert "seamhost.session.live" in edges["seamhost.tool.call"]
    assert "seamhost.kernel.bundle" in edges["seamhost.cli.run.command"]


def test_there_is_no_import_cycle() -> None:
    found = cycles(graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_imports_go_down_the_layers() -> None:
    edges = graph()
    wrong = [
        f"{name}:{line} imports {target}"
        for name, targets in edges.items()
        for target, line in targets.items()
        if layer_of(target) > layer_of(name)
    ]
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(edges) == [["a", "b", "c"]]
