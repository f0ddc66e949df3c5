"""One error tree: every exception of the runtime and of the first-party plugins, in one style.

Each is a :class:`SeamhostError` and the builtin closest to it, declared with annotated fields
(no attrs class, no hand-written ``__init__``), with a one-line docstring saying what went wrong.
The one exception outside the tree is sandbox-local's launcher error: the launcher runs inside
the confined child and imports the standard library only, never seamhost.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
from pathlib import Path

import pytest

import seamhost
from seamhost.errors import ConfigError, SeamhostError
from seamhost.session.events import ToolError

ROOT = Path(__file__).parent.parent.parent
OUTSIDE_THE_TREE = {"seamhost_sandbox_local.launch.SetupError"}  # stdlib-only child process


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
    assert not hasattr(cls, "__attrs_attrs__"), f"{name} is an attrs class"
    if cls is not SeamhostError:  # the base binds the fields every other class declares
        assert "__init__" not in vars(cls), f"{name} writes its own __init__; declare fields"
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
    with pytest.raises(TypeError, match="missing argument 'problem'"):
        ConfigError("p.toml", "k")  # type: ignore[call-arg]  # the missing field is the test
    with pytest.raises(TypeError, match="unexpected"):
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
