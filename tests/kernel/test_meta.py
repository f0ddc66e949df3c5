"""Meta-tests: the seams, their hook specs, their tests and their documentation agree.

In the manner of datasette's ``test_docs.py``: a seam added to the catalogue without a hook spec,
a test or a reference entry carrying its exact signature fails here, and so does a reference page
that was not regenerated after the code changed (``python docs/generate_reference.py``).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pluggy
import pytest

from seamhost.cli import main
from seamhost.cli.exitcodes import ExitCode
from seamhost.errors import ErrorCode
from seamhost.kernel import hookspecs
from seamhost.kernel.bundle import TRACE_ENV
from seamhost.kernel.catalogue import SEAMS, hook_name
from seamhost.kernel.modes import Mode, Seam
from seamhost.kernel.plugins import DISABLE_ENV
from seamhost.kernel.profile.files import PROFILE_PATH_ENV

if TYPE_CHECKING:
    from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
DOCS = REPO / "docs"
REFERENCE = DOCS / "reference"

seams = pytest.mark.parametrize("seam", list(SEAMS.values()), ids=list(SEAMS))


def signature_line(seam: Seam) -> str:
    """The rendering rule the reference uses: the hook name and ``inspect.signature``, quoted."""
    return f"`{seam.hook}{inspect.signature(seam.spec)}`"


@cache
def generator() -> ModuleType:
    """``docs/generate_reference.py``, imported from its path (docs/ is not a package)."""
    path = DOCS / "generate_reference.py"
    spec = importlib.util.spec_from_file_location("seamhost_docs_generate_reference", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def defined_function_names() -> frozenset[str]:
    """Every function name defined in a test file, read with ``ast`` (nothing is imported)."""
    names: set[str] = set()
    for path in TESTS.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names.update(
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        )
    return frozenset(names)


def sections(markdown: str) -> dict[str, list[str]]:
    """The lines under each ``## `` heading of a Markdown page, by heading."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = out.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return out


# --------------------------------------------------------------------------------------------
# the catalogue and the hook specs
# --------------------------------------------------------------------------------------------


def test_every_hookspec_is_a_seam_and_every_seam_has_a_hookspec() -> None:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    specs = {name for name in dir(hookspecs) if pm.parse_hookspec_opts(hookspecs, name)}
    hooks = [seam.hook for seam in SEAMS.values()]
    assert len(set(hooks)) == len(hooks), "two seams map to the same hook name"
    assert specs == set(hooks), "a hook spec without @seam, or a seam without a hook spec"
    assert all(name == seam.name for name, seam in SEAMS.items())
    assert all(seam.spec is getattr(hookspecs, seam.hook) for seam in SEAMS.values())


def test_a_misnamed_declaration_fails_when_the_catalogue_is_collected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from seamhost.kernel import catalogue

    @hookspecs.seam("tools/pre-check", Mode.GUARD, missing="allow")
    def tools_precheck(call: object) -> None:
        """Seam ``tools/pre-check`` (guard): misnamed on purpose."""

    monkeypatch.setattr(hookspecs, "tools_precheck", tools_precheck, raising=False)
    with pytest.raises(ValueError, match="declares tools/pre-check: name it tools_pre_check"):
        catalogue._collect()
    assert hook_name("tools/pre-check") == "tools_pre_check"


@seams
def test_hookspec_docstring_states_its_contract(seam: Seam) -> None:
    doc = inspect.getdoc(seam.spec) or ""
    first = doc.splitlines()[0] if doc else ""
    assert first.startswith(f"Seam ``{seam.name}`` ({seam.mode}): ")
    assert "Missing" in doc
    assert "Raising" in doc


@seams
def test_every_seam_has_a_test(seam: Seam) -> None:
    name = f"test_seam_{seam.hook}"
    assert name in defined_function_names(), f"no test function {name} under tests/"


# --------------------------------------------------------------------------------------------
# the generated reference
# --------------------------------------------------------------------------------------------


@seams
def test_reference_has_each_seam_heading_and_exact_signature(seam: Seam) -> None:
    page = sections((REFERENCE / "seams.md").read_text(encoding="utf-8"))
    assert seam.name in page, f"docs/reference/seams.md has no heading '## {seam.name}'"
    assert signature_line(seam) in page[seam.name]


def test_the_seam_reference_lists_seams_in_catalogue_order() -> None:
    page = sections((REFERENCE / "seams.md").read_text(encoding="utf-8"))
    assert [heading for heading in page if heading in SEAMS] == list(SEAMS)


def test_the_reference_uses_the_same_signature_rule() -> None:
    render = generator().signature_line
    assert [render(seam) for seam in SEAMS.values()] == [
        signature_line(seam) for seam in SEAMS.values()
    ]


def test_generated_reference_is_up_to_date() -> None:
    stale = [str(path.relative_to(REPO)) for path in generator().stale_pages(REFERENCE)]
    assert stale == [], "stale reference pages; run `python docs/generate_reference.py`"


@pytest.mark.parametrize("code", list(ErrorCode), ids=str)
def test_every_error_code_is_documented(code: ErrorCode) -> None:
    page = (REFERENCE / "errors.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| `{code.name}` \| (?P<meaning>[^|]+) \|$", page, re.MULTILINE)
    assert row is not None, f"docs/reference/errors.md has no row for {code.name}"
    assert row["meaning"].strip()


@pytest.mark.parametrize("code", list(ExitCode), ids=lambda code: code.name)
def test_every_exit_code_is_documented(code: ExitCode) -> None:
    page = (REFERENCE / "exit-codes.md").read_text(encoding="utf-8")
    assert re.search(rf"^\| {int(code)} \| `{code.name}` \| [^|]+ \|$", page, re.MULTILINE)


# --------------------------------------------------------------------------------------------
# the user guide
# --------------------------------------------------------------------------------------------


def cli_commands(group: click.Group, prefix: str = "seamhost") -> list[str]:
    """``seamhost plugins``, ``seamhost profile show``...: every leaf command of the CLI."""
    ctx = click.Context(group)
    out: list[str] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            out += cli_commands(command, f"{prefix} {name}")
        elif command is not None:
            out.append(f"{prefix} {name}")
    return out


@pytest.mark.parametrize("command", cli_commands(main))
def test_every_cli_command_is_in_the_user_guide(command: str) -> None:
    guide = (DOCS / "user-guide.md").read_text(encoding="utf-8")
    assert f"`{command}" in guide, f"docs/user-guide.md does not document `{command}`"


@pytest.mark.parametrize("variable", [DISABLE_ENV, TRACE_ENV, PROFILE_PATH_ENV])
def test_every_environment_variable_is_in_the_user_guide(variable: str) -> None:
    assert f"`{variable}" in (DOCS / "user-guide.md").read_text(encoding="utf-8")
