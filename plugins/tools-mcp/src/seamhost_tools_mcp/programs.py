"""What a stdio server must be able to read to start: its program and the Python it runs on.

A confinement may hide part of the host (bubblewrap mounts a private ``/tmp``), and a server
whose program or virtual environment lives there would not see itself. So each stdio server's
``ConfineRequest`` names, as ``readable_paths`` (read-only, never writable; design.md §5.7):

* the directory of its program, found as the server's own ``PATH`` finds it, and that of the
  file behind it when it is a link (the file alone when it lies right in a top-level
  directory: a program at ``/tmp/server`` does not uncover the rest of ``/tmp``);
* when the program is a script, the same for its ``#!`` interpreter (through ``/usr/bin/env``
  too), one level deep;
* for each of those in a virtual environment (a ``pyvenv.cfg`` beside its directory), the
  environment itself and the Python installation its ``home`` names; for each inside a
  ``node_modules`` tree, that whole tree (the package's dependencies);
* the first later argument that names an existing file is the script an interpreter runs
  (``node dist/index.js``, ``python server.py``): like a program, its directory (it imports its
  siblings: ``./lib.js``) or the file alone right in a top-level directory, and the outermost
  ``node_modules`` tree it lies in, else every ``node_modules`` beside its directory or one
  above it (where Node looks for its packages), top-level directories excepted;
* each other later argument that names an existing file (a configuration file): that file
  alone, not its directory (which may be ``/tmp`` itself);
* ``sys.prefix``, ``sys.base_prefix`` and ``sys.exec_prefix`` of the running interpreter when
  the program or its interpreter is that interpreter or lies in its ``sys.prefix`` or
  ``sys.exec_prefix`` (``sys.executable``, or a console script of the venv seamhost runs from);
* the table's ``read_paths``, for anything else (data files, a second environment).

Only the program's own environment is named, not always seamhost's: a server that does not run
on it has no reason to read it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

SHEBANG_LIMIT = 256  # the kernel reads at most this much of a #! line
ENV_PROGRAMS = ("env",)
TOP_LEVEL = 2  # parts of a directory such as /tmp: a program right in it is named alone


def readable_paths(
    argv: tuple[str, ...], env: Mapping[str, str], cwd: Path, extra: Iterable[Path] = ()
) -> tuple[Path, ...]:
    """The paths a server started as `argv` (with `env`, in `cwd`) must read; see the module."""
    found: list[Path] = []
    programs = [_locate(argv[0], env, cwd)] if argv else []
    interpreter = _interpreter(programs[0], env, cwd) if programs and programs[0] else None
    programs.append(interpreter)
    running = _running_prefixes()
    for program in programs:
        if program is None:
            continue
        for file in dict.fromkeys((program, program.resolve())):
            directory = file.parent
            if len(directory.parts) <= TOP_LEVEL:
                found.append(file)  # /tmp/server: the program, never all of /tmp
                continue
            found.append(directory)
            found += _venv(directory)
            found += _node_modules(directory)
        if _runs_here(program):
            found += running
    files = [cwd / arg for arg in argv[1:] if arg and (cwd / arg).is_file()]
    if files:
        for script in dict.fromkeys((files[0], files[0].resolve())):  # Node runs the target
            found += _script(script)
    found += files[1:]
    found += extra
    return tuple(dict.fromkeys(Path(os.path.abspath(path)) for path in found))


def _script(script: Path) -> list[Path]:
    """What running `script` reads: its directory (or itself) and its packages (module doc)."""
    directory = script.parent
    if len(directory.parts) <= TOP_LEVEL:
        return [script]
    tree = _node_modules(directory)
    if tree:
        return [directory, *tree]
    beside = [d / "node_modules" for d in (directory, *directory.parents)]
    return [directory, *(d for d in beside if len(d.parts) > TOP_LEVEL + 1 and d.is_dir())]


def _locate(program: str, env: Mapping[str, str], cwd: Path) -> Path | None:
    """`program` as ``exec`` finds it: a path (against `cwd`) when it has a slash, else on PATH."""
    if "/" in program:
        path = cwd / program
        return path if path.is_file() else None
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    return Path(found) if found is not None else None


def _interpreter(program: Path, env: Mapping[str, str], cwd: Path) -> Path | None:
    """The interpreter of a ``#!`` script (the program ``/usr/bin/env`` would run, through it)."""
    try:
        with program.open("rb") as file:
            head = file.read(SHEBANG_LIMIT)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        return None
    if Path(words[0]).name in ENV_PROGRAMS:
        named = [word for word in words[1:] if not word.startswith("-")]
        return _locate(named[0], env, cwd) if named else None
    return _locate(words[0], env, cwd)


def _venv(directory: Path) -> list[Path]:
    """The virtual environment `directory` is the ``bin`` of, and the Python it was made from."""
    config = directory.parent / "pyvenv.cfg"
    try:
        lines = config.read_text(errors="replace").splitlines()
    except OSError:
        return []
    found = [directory.parent]
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            home = Path(value.strip())
            found += [home, home.parent]
    return found


def _node_modules(directory: Path) -> list[Path]:
    """The outermost ``node_modules`` directory `directory` lies in, if any."""
    trees = [d for d in (directory, *directory.parents) if d.name == "node_modules"]
    return trees[-1:]


def _runs_here(program: Path) -> bool:
    """True when `program` is the running interpreter or lies in its (virtual) environment."""
    if program.resolve() == Path(sys.executable).resolve():
        return True
    return any(program.is_relative_to(prefix) for prefix in {sys.prefix, sys.exec_prefix})


def _running_prefixes() -> list[Path]:
    prefixes = (sys.prefix, sys.base_prefix, sys.exec_prefix)
    return [Path(prefix) for prefix in dict.fromkeys(prefixes)]
