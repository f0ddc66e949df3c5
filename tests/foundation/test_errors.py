"""One error tree: every exception of the runtime and of the first-party plugins, in one style.

Each is a :class:`SeamhostError` and the builtin closest to it, declared with annotated fields
that attrs turns into its ``__init__``, ``__match_args__``, ``args`` and ``repr`` (no hand-written
``__init__``), with a one-line docstring saying what went wrong. Each pickles whole, its message
included. The one exception outside the tree is sandbox-local's launcher error: the launcher runs
inside the confined child and imports the standard library only, never seamhost.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import attrs
import pytest

import seamhost
from seamhost.errors import ConfigError, SeamhostError
from seamhost.session.events import ToolError

ROOT = Path(__file__).parent.parent.parent
OUTSIDE_THE_TREE = {
    "seamhost_sandbox_local.launch.SetupError",  # stdlib-only child process
    # Ctrl-C carrying the matrix's finished cells: a KeyboardInterrupt, so `except Exception`
    # (a crashed cell is a failed cell) never swallows it.
    "seamhost.matrix.running.Interrupted",
}


def all_modules() -> list[str]:
    names = [info.name for info in pkgutil.walk_packages(seamhost.__path__, "seamhost.")]
    for src in sorted((ROOT / "plugins").glob("*/src")):
        for package in sorted(p for p in src.iterdir() if (p / "__init__.py").exists()):
            module = importlib.import_module(package.name)
            names.append(package.name)
            names += [i.name for i in pkgutil.walk_packages(module.__path__, f"{package.name}.")]
    return ["seamhost", *names]


def defined_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in all_modules():
        if name.endswith("__main__"):  # running it is the command line, not a definition
            continue
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found[f"{name}.{value.__qualname__}"] = value
    return [found[key] for key in sorted(found)]


EXCEPTIONS = defined_exceptions()


def test_the_walk_finds_the_runtime_and_the_plugins() -> None:
    modules = {cls.__module__.partition(".")[0] for cls in EXCEPTIONS}
    assert {"seamhost", "seamhost_persistence_jsonl", "seamhost_tool_policy"} <= modules
    assert len(EXCEPTIONS) > 40


@pytest.mark.parametrize("cls", EXCEPTIONS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_exception_is_in_the_tree_in_one_style(cls: type[BaseException]) -> None:
    name = f"{cls.__module__}.{cls.__qualname__}"
    if name in OUTSIDE_THE_TREE:
        return
    assert issubclass(cls, SeamhostError), f"{name} is not a SeamhostError"
    assert attrs.has(cls), f"{name} is not an attrs class"
    if cls is not SeamhostError:  # the root declares no fields; attrs binds every other's
        made_by = cls.__init__.__code__.co_filename
        assert made_by.startswith("<attrs generated"), f"{name} writes its own __init__"
    doc = inspect.getdoc(cls) or ""
    assert doc, f"{name} needs a docstring"
    assert "\n" not in doc, f"{name}'s docstring is more than one line"
    builtins = [b for b in cls.__mro__ if b.__module__ == "builtins"]
    assert builtins[0] is not Exception or cls.__subclasses__(), (
        f"{name} derives from no builtin closer than Exception"
    )


def test_fields_bind_like_a_dataclass() -> None:
    error = ConfigError("p.toml", key="plugins.x", problem="bad")
    assert (error.file, error.key, error.problem) == ("p.toml", "plugins.x", "bad")
    assert error.args == ("p.toml", "plugins.x", "bad")
    assert ConfigError.__match_args__ == ("file", "key", "problem")
    assert repr(error) == "ConfigError(file='p.toml', key='plugins.x', problem='bad')"
    match error:
        case ConfigError(file, key, _):
            assert (file, key) == ("p.toml", "plugins.x")
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.args, str(again)) == (ConfigError, error.args, str(error))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'problem'"):
        ConfigError("p.toml", "k")  # type: ignore[call-arg]  # the missing field is the test
    with pytest.raises(TypeError, match="unexpected keyword argument 'extra'"):
        ConfigError("p.toml", "k", "p", extra=1)  # type: ignore[call-arg]  # likewise


def test_a_class_attribute_is_a_field_default_and_subclasses_extend_fields() -> None:
    class Base(SeamhostError, ValueError):
        """A test error."""

        what: str
        count: int = 0

    class Child(Base):
        """A test error with one more field."""

        where: str = "here"

    assert Child.__match_args__ == ("what", "count", "where")
    child = Child("x", where="there")
    assert (child.what, child.count, child.where) == ("x", 0, "there")
    assert isinstance(child, ValueError)


def test_the_error_of_a_result_and_of_its_record_is_one_value() -> None:
    from seamhost.session.events import ToolResultEvent
    from seamhost.tool.result import ToolResult

    result = ToolResult.failure("c1", seamhost.ErrorCode.TOOL_ERROR, "boom")
    assert type(result.error) is ToolError
    assert type(result.error.code) is str  # plain JSON in the log, equal to the enum member
    assert result.error.code == seamhost.ErrorCode.TOOL_ERROR
    field = {f.name: f for f in ToolResultEvent.__attrs_attrs__}["error"]
    assert "ToolError" in str(field.type)


# A value of each field type the error classes declare, to make one of each.
SAMPLES: dict[str, Any] = {
    "str": "x",
    "str | None": "x",
    "int": 7,
    "int | None": 7,
    "float": 1.5,
    "float | None": 1.5,
    "bool": True,
    "Any": {"k": [1, "v"]},
    "ErrorCode": seamhost.ErrorCode.TOOL_ERROR,
    "tuple[str, ...]": ("a", "b"),
    "tuple[tuple[str, str], ...]": (("a", "b"), ("c", "d")),
    "list[SchemaValueError]": [],
}


@pytest.mark.parametrize(
    "cls",
    [c for c in EXCEPTIONS if issubclass(c, SeamhostError) and c is not SeamhostError],
    ids=lambda c: f"{c.__module__}.{c.__qualname__}",
)
def test_every_error_pickles_whole(cls: type[SeamhostError]) -> None:
    # A worker hands errors across processes; the log's summaries quote their messages.
    unknown = [f.type for f in attrs.fields(cls) if f.type not in SAMPLES]
    assert not unknown, f"add a sample of {unknown} to SAMPLES"
    error = cls(*(SAMPLES[str(f.type)] for f in attrs.fields(cls)))
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls
    assert again.args == error.args == tuple(SAMPLES[str(f.type)] for f in attrs.fields(cls))
    assert vars(again) == vars(error)
    assert (str(again), repr(again)) == (str(error), repr(error))


def test_an_error_that_is_an_os_error_takes_its_fields_not_an_errno() -> None:
    from seamhost.errors import ProfileNotFound

    error = ProfileNotFound("dev", referenced_from="", searched=("/p",))
    assert (error.errno, error.strerror, error.filename) == (None, None, None)
    assert error.args == ("dev", "", ("/p",), ())
    assert isinstance(error, FileNotFoundError)
    assert str(error).startswith("profile 'dev' not found (looked in /p)")


# attrs writes each class's methods when the class is first needed, not when it is defined: the
# CLI defines some thirty error classes at start-up and raises almost none (see seamhost.errors).
LAZY_PROBE = """
import sys
import attrs
from seamhost.errors import ConfigError, SeamhostError

def family(cls):
    return [cls] + [sub for child in cls.__subclasses__() for sub in family(child)]

def built():
    return sorted({c.__name__ for c in family(SeamhostError)[1:] if "__attrs_attrs__" in vars(c)})

assert built() == [], built()
"""


def _probe(source: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", LAZY_PROBE + textwrap.dedent(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_importing_the_error_tree_builds_no_class_and_imports_no_attrs() -> None:
    probe = "import sys, seamhost.errors\nassert 'attrs' not in sys.modules\n"
    result = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True)
    assert result.returncode == 0, result.stderr
    _probe("")


def test_building_the_default_bundle_builds_one_error_class(tmp_path: Path) -> None:
    # Generated validators try the branches of an anyOf by raising SchemaValueError.
    _probe(
        f"""
        import os
        os.environ["SEAMHOST_HOME"] = {str(tmp_path / "home")!r}
        from seamhost.kernel.bundle import build_bundle
        from seamhost.kernel.profile.resolve import resolve_profile
        build_bundle(resolve_profile("default"))
        assert built() == ["SchemaValueError"], built()
        """
    )


def test_a_class_is_built_with_its_bases_and_subclasses_when_first_needed() -> None:
    _probe(
        """
        from seamhost.errors import LeaseLost, SessionDamaged

        class Store(SeamhostError):
            '''A store's base.'''

        class Damaged(Store, SessionDamaged):
            '''A store's corruption error.'''

            offset: int = 0

        assert Damaged("s1").offset == 0  # the first instance builds it, its bases first
        assert built() == ["Damaged", "SessionDamaged", "Store"], built()
        ConfigError("f", "k", "p")  # and a class under a built one is built with it
        assert "ConfigError" in built() and "NoRunQueue" not in built(), built()
        assert LeaseLost.__match_args__ == ("session_id",)  # reading what attrs makes builds
        assert "session_id" in attrs.fields_dict(SessionDamaged)

        class Later(Damaged):
            '''Defined under a built class.'''

            more: str = ""

        assert "__attrs_attrs__" in vars(Later) and Later.__match_args__[-1] == "more"
        """
    )


def test_the_root_declares_no_fields() -> None:
    assert (SeamhostError().args, SeamhostError.__match_args__) == ((), ())
    with pytest.raises(TypeError, match="raise one of its subclasses"):
        SeamhostError("a message")


def test_a_quickstart_run_builds_no_storage_error(tmp_path: Path) -> None:
    # A writer that closes with nobody waiting makes no WriterClosed: making one would build the
    # whole storage error tree (fifteen classes) on every run.
    quickstart = ROOT / "examples" / "quickstart.toml"
    _probe(
        f"""
        import os
        from pathlib import Path
        os.environ["SEAMHOST_HOME"] = {str(tmp_path / "home")!r}
        from seamhost import open_host
        from seamhost.store.errors import StorageError
        with open_host("default", workspace=Path({str(tmp_path)!r})) as host:
            report = host.run(scenario=Path({str(quickstart)!r}))
        assert report.outcome == "completed", report
        storage = {{c.__name__ for c in family(StorageError)}}
        assert not storage & set(built()), sorted(storage & set(built()))
        """
    )
