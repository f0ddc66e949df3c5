"""The layers of the runtime and the plugins: imports go one way, and there is no import cycle.

Every import statement of every module counts: at module level, inside functions, and under
``if TYPE_CHECKING:``. A cycle that only type checking sees is still a cycle a reader has to
untangle, and the next runtime import along it breaks start-up.

The runtime (``runtime/src/seamhost``) is layered, lowest first (docs/design.md §2): the
foundation modules, then ``sandbox``, ``session``, ``store``, ``tool``, ``approval`` and ``llm``,
then ``kernel``, ``run``, ``gateway``, ``a2a``, the embedding API ``embed``, ``matrix``, the
plugin authors' kit ``testing`` and on top ``cli`` beside ``console``; the root package (the
curated, lazily exported API) sits above everything. A module may import its own package and any
lower layer, never a higher one. The runtime imports no plugin.

Each plugin distribution (``plugins/*/src/<package>``) sits above the runtime: within its package
there is no cycle either, and outside it a plugin imports only the runtime's public surface (the
root ``seamhost``, the public foundation modules and ``seamhost.testing``, design.md §2 "The public
import surface", as ``tests/test_public_imports.py`` lists it), never another plugin's package:
plugins meet through the seams, not through each other's code.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_public_imports import is_public

ROOT = Path(__file__).parent.parent
RUNTIME = ROOT / "runtime" / "src" / "seamhost"
PLUGINS = {
    package.parents[1].name: package
    for package in sorted(ROOT.glob("plugins/*/src/*"))
    if (package / "__init__.py").is_file()
}
DISTRIBUTIONS = {"runtime": RUNTIME, **PLUGINS}
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
    {"a2a"},  # a2a serve: the A2A SDK server over the agent loop and the gateway's door; cli only
    {"embed"},  # the embedding API: hosts that run sessions from an application's own code
    {"matrix"},  # scenarios × profiles over the run layer; the cli and the pytest plugin use it
    {"testing"},
    # the two doors people use, side by side: the web console shows what the CLI's timeline
    # renders, and the CLI's `console` command starts it
    {"cli", "console"},
    {"__init__", "__main__"},
]


def modules(package: Path) -> dict[str, Path]:
    """Each module of the package at `package` by its dotted name."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts.pop()
        found[".".join(parts)] = path
    return found


@functools.cache
def tree() -> dict[str, Path]:
    """Every module of the runtime and of every plugin."""
    return {
        name: path for package in DISTRIBUTIONS.values() for name, path in modules(package).items()
    }


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, module) for every module of `known` that `name` imports, wherever the import stands.

    A module named in a ``lazy_exports`` table is imported too, only later.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    module = ast.parse(path.read_text(encoding="utf-8"))
    yield from lazy_imports(module, known)
    for node in ast.walk(module):
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


def lazy_imports(module: ast.Module, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, module) for each module of `known` a ``lazy_exports(__name__, table)`` call names."""
    tables = {
        target.id: node.value
        for node in module.body
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
            for argument in node.args[1:]:
                name = argument.id if isinstance(argument, ast.Name) else ""
                for value in ast.walk(tables.get(name, argument)):
                    if isinstance(value, ast.Constant) and value.value in known:
                        yield value.lineno, value.value


@functools.cache
def graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: line of its first import} across the whole tree."""
    known = tree()
    edges: dict[str, dict[str, int]] = {name: {} for name in known}
    for name, path in known.items():
        for line, target in imports(name, path, known):
            if target != name:
                edges[name][target] = min(line, edges[name].get(target, line))
    return edges


def package_of(name: str) -> str:
    return name.partition(".")[0]


def layer_of(name: str) -> int:
    parts = name.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    return next(index for index, layer in enumerate(LAYERS) if top in layer)


def where(name: str, line: int) -> str:
    return f"{tree()[name].relative_to(ROOT)}:{line}"


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


def report(cycle: list[str], edges: dict[str, dict[str, int]]) -> str:
    """The cycle's modules, then each of its imports by file and line."""
    inside = [
        f"  {where(name, line)} imports {target}"
        for name in cycle
        for target, line in edges[name].items()
        if target in cycle
    ]
    return "\n".join([" <-> ".join(cycle), *inside])


@functools.cache
def all_cycles() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(cycle) for cycle in cycles(graph()))


def test_the_walk_sees_the_runtime_and_every_plugin() -> None:
    edges = graph()
    assert {"seamhost.errors", "seamhost.kernel.seams", "seamhost.run.pipeline"} <= set(edges)
    assert len(PLUGINS) >= 11, sorted(PLUGINS)
    assert {package_of(name) for name in edges} == {p.name for p in DISTRIBUTIONS.values()}
    # type-checking-only and function-level imports are edges too
    assert "seamhost.session.live" in edges["seamhost.tool.call"]
    assert "seamhost.kernel.bundle" in edges["seamhost.cli.run.command"]
    assert "seamhost_tools_mcp.pool" in edges["seamhost_tools_mcp.calling"]
    # imports of the runtime from a plugin, a submodule named in `from seamhost import ...` too
    assert "seamhost.jsonvalue" in edges["seamhost_model_scripted.scenario"]


@pytest.mark.parametrize("distribution", sorted(DISTRIBUTIONS))
def test_no_import_cycle_within(distribution: str) -> None:
    package = DISTRIBUTIONS[distribution].name
    found = [c for c in all_cycles() if any(package_of(name) == package for name in c)]
    edges = graph()
    assert not found, f"{len(found)} import cycles:\n" + "\n".join(
        report(list(c), edges) for c in found
    )


@pytest.mark.parametrize(
    "found", [all_cycles()], ids=lambda found: f"{len(found)} cycles across runtime and plugins"
)
def test_no_import_cycle_across_runtime_and_plugins(found: tuple[tuple[str, ...], ...]) -> None:
    assert not found, "\n".join(report(list(c), graph()) for c in found)


def test_runtime_imports_go_down_the_layers() -> None:
    wrong = [
        f"{where(name, line)} imports {target}"
        for name, targets in graph().items()
        if package_of(name) == "seamhost"
        for target, line in targets.items()
        if package_of(target) != "seamhost" or layer_of(target) > layer_of(name)
    ]
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


@pytest.mark.parametrize("plugin", sorted(PLUGINS))
def test_a_plugin_imports_its_package_and_the_runtime_surface(plugin: str) -> None:
    package = PLUGINS[plugin].name
    wrong = [
        f"{where(name, line)} imports {target}"
        for name, targets in graph().items()
        if package_of(name) == package
        for target, line in targets.items()
        if package_of(target) != package and not is_public(target)
    ]
    assert not wrong, "imports of another plugin or of the runtime's internals:\n" + "\n".join(
        wrong
    )


def test_a_lazy_export_is_an_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from seamhost.lazy import lazy_exports\n"
        "\n"
        '_EXPORTS = {"Thing": "pkg.thing"}\n'
        "__getattr__ = lazy_exports(__name__, _EXPORTS)\n"
    )
    (package / "thing.py").write_text(
        "from seamhost.lazy import lazy_exports\n"
        '__getattr__ = lazy_exports(__name__, dict.fromkeys(("Other",), "pkg"))\n'
    )
    known = modules(package)
    assert list(imports("pkg", package / "__init__.py", known)) == [(3, "pkg.thing")]
    assert list(imports("pkg.thing", package / "thing.py", known)) == [(2, "pkg")]


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(edges) == [["a", "b", "c"]]
