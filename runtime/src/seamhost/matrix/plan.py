"""Which cells a matrix runs: its profiles and scenarios, checked before any cell runs.

Profiles are names (``default``), paths (``ci/profiles/nightly.toml``) or globs of either
(``'*'``, ``'ci/profiles/*.toml'``); a name glob matches the profiles reachable by name
(``$SEAMHOST_PROFILE_PATH``, then the shipped ones). Scenarios are paths or globs of paths
(``.toml`` or ``.json``), a directory meaning every scenario file in it. Arguments not given on the
command line come from ``[tool.seamhost.matrix]`` in the ``pyproject.toml`` of the current
directory (:func:`read_defaults`), relative paths there being taken from that file's directory.

Everything is checked first (:func:`make_plan`): each profile resolves and builds its bundle and
can replay a scenario, each scenario loads; the first problem raises the runtime's error naming
the file and the key (a :class:`~seamhost.errors.ConfigError` and its kin, exit 2 at the CLI).
Each profile is resolved once, and :func:`resolved` keeps it for the process (and for worker
processes forked from it), so every cell of a profile reuses it.
"""

from __future__ import annotations

import fnmatch
import glob
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from seamhost.errors import ConfigError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.files import looks_like_path, shipped_profiles
from seamhost.kernel.profile.resolve import Profile, resolve_profile
from seamhost.matrix.cells import replay

COMMAND_LINE = "<command line>"
PYPROJECT = "pyproject.toml"
TABLE = "tool.seamhost.matrix"
SCENARIO_SUFFIXES = (".toml", ".json")
_GLOB = frozenset("*?[")
T = TypeVar("T")


class Ref(NamedTuple):
    """A profile or scenario as written, and where: the file and key that named it."""

    text: str
    file: str  # COMMAND_LINE or a pyproject.toml
    key: str  # --profile, tool.seamhost.matrix.profiles[0], ...
    base: Path  # relative paths are taken from here


class Defaults(NamedTuple):
    """``[tool.seamhost.matrix]`` of a pyproject.toml (empty when there is none)."""

    profiles: tuple[Ref, ...] = ()
    scenarios: tuple[Ref, ...] = ()
    junit: Path | None = None
    jobs: int | None = None


class Cell(NamedTuple):
    """One cell to run: a profile (by the reference that resolves it) and a scenario file."""

    profile: str  # the profile's name
    ref: str  # what resolve_profile is given for it
    scenario: Path

    @property
    def id(self) -> str:
        return f"{self.profile}::{self.scenario.stem}"


class Plan(NamedTuple):
    """The checked cells, profile by profile, each profile's scenarios in order."""

    profiles: tuple[Profile, ...]
    scenarios: tuple[Path, ...]
    cells: tuple[Cell, ...]


_RESOLVED: dict[str, Profile] = {}


def resolved(ref: str) -> Profile:
    """The profile `ref` resolves to, resolved once per process."""
    profile = _RESOLVED.get(ref)
    if profile is None:
        profile = _RESOLVED[ref] = resolve_profile(ref)
    return profile


def read_defaults(directory: Path) -> Defaults:
    """The ``[tool.seamhost.matrix]`` table of `directory`/pyproject.toml, checked."""
    path = directory / PYPROJECT
    if not path.is_file():
        return Defaults()
    label = str(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(label, "", f"not valid TOML: {exc}") from exc
    table: Any = doc.get("tool", {}).get("seamhost", {}).get("matrix", {})
    if not isinstance(table, dict):
        raise ConfigError(label, TABLE, "expected a table")
    known = ("profiles", "scenarios", "junit", "jobs")
    for key in table:
        if key not in known:
            raise ConfigError(label, f"{TABLE}.{key}", f"unknown key; expected one of {known}")
    junit = table.get("junit")
    if junit is not None and (type(junit) is not str or not junit):
        raise ConfigError(label, f"{TABLE}.junit", "expected the JUnit file's path as a string")
    jobs = table.get("jobs")
    if jobs is not None and (type(jobs) is not int or jobs < 1):
        raise ConfigError(
            label, f"{TABLE}.jobs", f"expected a number of workers >= 1, got {jobs!r}"
        )
    return Defaults(
        profiles=_refs(table, "profiles", label, directory),
        scenarios=_refs(table, "scenarios", label, directory),
        junit=directory / junit if junit else None,
        jobs=jobs,
    )


def _refs(table: Mapping[str, Any], key: str, label: str, base: Path) -> tuple[Ref, ...]:
    values = table.get(key, [])
    if not isinstance(values, list) or not all(type(v) is str and v for v in values):
        raise ConfigError(label, f"{TABLE}.{key}", "expected a list of non-empty strings")
    return tuple(Ref(v, label, f"{TABLE}.{key}[{i}]", base) for i, v in enumerate(values))


def command_line(option: str, values: Iterable[str], base: Path) -> tuple[Ref, ...]:
    """The values of a repeated command-line option as references."""
    return tuple(Ref(value, COMMAND_LINE, option, base) for value in values)


def make_plan(profiles: Sequence[Ref], scenarios: Sequence[Ref]) -> Plan:
    """Every profile × every scenario, all of them checked; see the module docstring."""
    if not profiles:
        raise ConfigError(
            COMMAND_LINE, "--profile", f"no profile to run: give --profile, or {TABLE}.profiles"
        )
    if not scenarios:
        raise ConfigError(
            COMMAND_LINE, "--scenario", f"no scenario to run: give --scenario, or {TABLE}.scenarios"
        )
    refs = _unique(ref for given in profiles for ref in _profile_refs(given))
    scenario_paths = _unique(
        path.resolve() for given in scenarios for path in _scenario_paths(given)
    )
    _refuse_duplicates([(p.stem, p) for p in scenario_paths], "scenario")
    chosen: list[tuple[str, Profile]] = []
    for index, ref in enumerate(refs):
        profile = resolved(ref)
        bundle = build_bundle(profile)  # its plugin tables checked, llm/replay looked for
        # Every scenario is loaded once, by the first profile; the others load one.
        for path in scenario_paths if index == 0 else scenario_paths[:1]:
            replay(bundle, path)
        chosen.append((ref, profile))
    _refuse_duplicates([(p.name, ref) for ref, p in chosen], "profile")
    cells = tuple(Cell(p.name, ref, path) for ref, p in chosen for path in scenario_paths)
    return Plan(tuple(p for _, p in chosen), tuple(scenario_paths), cells)


def _profile_refs(given: Ref) -> list[str]:
    """What `given` names, as references resolve_profile takes (paths made absolute)."""
    if looks_like_path(given.text):
        pattern = given.base / Path(given.text).expanduser()
        if _GLOB & set(given.text):
            found = sorted(glob.glob(str(pattern), recursive=True))
            if not found:
                raise ConfigError(given.file, given.key, f"no profile file matches {given.text!r}")
            return found
        if not pattern.is_file():
            raise ConfigError(given.file, given.key, f"no profile file {str(pattern)!r}")
        return [str(pattern)]
    if _GLOB & set(given.text):
        names = sorted(n for n in shipped_profiles() if fnmatch.fnmatchcase(n, given.text))
        if not names:
            known = ", ".join(sorted(shipped_profiles()))
            raise ConfigError(
                given.file, given.key, f"no profile name matches {given.text!r} (known: {known})"
            )
        return names
    return [given.text]  # a name: resolving it reports a missing one with close names


def _scenario_paths(given: Ref) -> list[Path]:
    """The scenario files `given` names: a file, a directory's scenarios, or a glob's."""
    pattern = given.base / Path(given.text).expanduser()
    if _GLOB & set(given.text):
        found = [Path(p) for p in sorted(glob.glob(str(pattern), recursive=True))]
        found = [p for p in found if p.suffix.lower() in SCENARIO_SUFFIXES and p.is_file()]
        if not found:
            raise ConfigError(given.file, given.key, f"no scenario file matches {given.text!r}")
        return found
    if pattern.is_dir():
        found = sorted(p for p in pattern.iterdir() if p.suffix.lower() in SCENARIO_SUFFIXES)
        if not found:
            raise ConfigError(given.file, given.key, f"no .toml or .json scenario in {pattern}")
        return found
    if not pattern.is_file():
        raise ConfigError(given.file, given.key, f"no scenario file {str(pattern)!r}")
    return [pattern]


def _unique(items: Iterable[T]) -> list[T]:
    return list(dict.fromkeys(items))


def _refuse_duplicates(named: Sequence[tuple[str, object]], what: str) -> None:
    """Two cells would have the same id: refuse, naming both."""
    seen: dict[str, object] = {}
    for name, source in named:
        if name in seen and seen[name] != source:
            raise ConfigError(
                str(source),
                "",
                f"two {what}s are named {name!r} (the other is {seen[name]}); the cells of a "
                f"matrix are named profile::scenario, so rename one",
            )
        seen[name] = source


__all__ = [
    "Cell",
    "Defaults",
    "Plan",
    "Ref",
    "command_line",
    "make_plan",
    "read_defaults",
    "resolved",
]
