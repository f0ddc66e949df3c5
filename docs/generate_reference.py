"""Generate the reference pages under ``docs/reference/`` from the code.

Usage::

    python docs/generate_reference.py          # rewrite the pages that changed
    python docs/generate_reference.py --check  # exit 1, naming them, if any page is stale

Where each page comes from:

* ``seams.md``: :data:`seamhost.kernel.catalogue.SEAMS`, in catalogue order (the order the seams
  are declared in :mod:`seamhost.kernel.hookspecs`). For each seam, a heading ``## <seam name>``;
  then its signature as :func:`signature_line` renders it (the hook name followed by
  ``inspect.signature`` of its hook spec, in backticks); its mode, what its absence means and
  whether it is called synchronously, as its declaration says; then the hook spec's docstring.
  The dispatch modes come from the trailing comments of :class:`seamhost.kernel.modes.Mode`.
* ``errors.md``: every :class:`seamhost.errors.ErrorCode` member with the trailing comment that
  documents it in ``errors.py``, then every exception class derived from
  :class:`seamhost.errors.SeamhostError` that the kernel defines.
* ``exit-codes.md``: every :class:`seamhost.cli.exitcodes.ExitCode` member with its trailing
  comment.
* ``values.md``: the fields of every value type ``seamhost`` exports (:mod:`refpages.values`).
* ``scenario.md``: the scenario format, from model-scripted (:mod:`refpages.scenario`).
* ``plugins.md``: each first-party plugin's table, with tool-policy's matcher language and
  user-approval's rules (:mod:`refpages.plugin_config`).

``seams.md`` ends with the seams the first-party plugins add (:mod:`refpages.added_seams`).
The pages other than the first three are built by the modules of ``docs/refpages``.

A member or a field without a trailing comment (or, for a field, an attribute docstring) is an
error: document it where it is defined.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the page modules, docs/refpages

from refpages import added_seams, plugin_config, scenario, shipped, values
from refpages.text import GENERATOR, cell, header, markdown, member_comments

from seamhost import errors
from seamhost.cli import exitcodes
from seamhost.kernel import modes
from seamhost.kernel.catalogue import SEAMS
from seamhost.kernel.modes import Seam

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

REFERENCE = Path(__file__).resolve().parent / "reference"


# --------------------------------------------------------------------------------------------
# reading the code
# --------------------------------------------------------------------------------------------


def signature_line(seam: Seam) -> str:
    """The exact signature line of a seam: ``tools_pre_execute(call: 'ToolInvocation') -> ...``.

    The rendering rule is the hook name followed by ``str(inspect.signature(spec))``; hookspecs
    postpones annotations, so they render as the quoted strings written in the source.
    """
    return f"`{seam.hook}{inspect.signature(seam.spec)}`"


# --------------------------------------------------------------------------------------------
# the pages
# --------------------------------------------------------------------------------------------


def render_seams() -> str:
    lines = header("Seam reference", "seamhost.kernel.catalogue and seamhost.kernel.hookspecs")
    lines += [
        "Every extension point of the kernel, in catalogue order. A plugin implements a seam "
        "with a method named like its hook and decorated with `@seamhost.hookimpl`, whose "
        "parameters are the spec's (the kernel passes them by keyword). The "
        "[plugin guide](../plugin-guide.md) says how to write one, and which seams accept "
        "coroutine functions.",
        "",
        "| seam | hook | mode | when no plugin implements it |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{seam.name}` | `{seam.hook}` | {seam.mode} | {cell(seam.missing)} |"
        for seam in SEAMS.values()
    ]
    lines += ["", "## Dispatch modes", "", "| mode | what the kernel does |", "|---|---|"]
    lines += [
        f"| {mode} | {cell(meaning)} |"
        for mode, meaning in zip(
            modes.Mode, member_comments(modes, modes.Mode).values(), strict=True
        )
    ]
    for seam in SEAMS.values():
        lines += [
            "",
            f"## {seam.name}",
            "",
            signature_line(seam),
            "",
            f"- **mode:** {seam.mode}",
            f"- **when missing:** {seam.missing}",
            *(
                ["- **synchronous:** called without awaiting; a coroutine function is refused"]
                if seam.synchronous
                else []
            ),
            "",
            markdown(inspect.getdoc(seam.spec) or ""),
        ]
    lines += added_seams.render_added(shipped.shipped_plugins())
    return "\n".join(lines) + "\n"


def render_errors() -> str:
    lines = header("Error codes", "seamhost/errors.py and the SeamhostError classes")
    lines += [
        "A governed call that does not succeed ends with a result whose `error` is "
        "`{code, message}`. The codes are stable: programs, policies and audits may rely on "
        "them. The message is for people and models and may change.",
        "",
        "| code | when |",
        "|---|---|",
    ]
    lines += [
        f"| `{name}` | {cell(comment)} |"
        for name, comment in member_comments(errors, errors.ErrorCode).items()
    ]
    lines += [
        "",
        "## Exceptions",
        "",
        "Every error seamhost raises on purpose derives from `SeamhostError` and from the "
        "builtin exception it is closest to, so `except ValueError` keeps working. Each carries "
        "structured fields; its message says what went wrong and what to do.",
        "",
        "| exception | module | builtin | fields | meaning |",
        "|---|---|---|---|---|",
    ]
    for cls in _error_classes():
        builtin = ", ".join(
            f"`{base.__name__}`" for base in cls.__bases__ if base.__module__ == "builtins"
        )
        fields = ", ".join(f"`{name}`" for name in getattr(cls, "__match_args__", ()))
        summary = (inspect.getdoc(cls) or "").splitlines()[0]
        lines.append(
            f"| `{cls.__name__}` | `{cls.__module__}` | {builtin or '-'} | {fields or '-'} "
            f"| {cell(summary)} |"
        )
    return "\n".join(lines) + "\n"


def _error_classes() -> list[type[BaseException]]:
    """Every `SeamhostError` class the kernel defines: :mod:`seamhost.errors` first, in source
    order, then those defined next to the code that raises them, by module.

    The pytest plugin (:mod:`seamhost.testing`) is left out: the runtime never imports it.
    """
    import seamhost

    modules = [errors.__name__]
    for info in pkgutil.walk_packages(seamhost.__path__, "seamhost."):
        # Importing a __main__ module would run the CLI.
        skipped = info.name.endswith(".__main__") or info.name.startswith("seamhost.testing")
        if not skipped and info.name != errors.__name__:
            modules.append(info.name)
    classes: list[type[BaseException]] = []
    for name in modules:
        module = importlib.import_module(name)
        defined = [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, errors.SeamhostError)
            and value.__module__ == name
        ]
        classes += sorted(defined, key=lambda cls: inspect.getsourcelines(cls)[1])
    return classes


def render_exit_codes() -> str:
    lines = header("Exit codes", "seamhost/cli/exitcodes.py")
    lines += [
        "What the exit status of a `seamhost` command means. Every status but 0 comes with one "
        "line on stderr, `seamhost: error: ...`, without a traceback; with `--json`, stdout also "
        'ends with one `{"error": {...}}` object. The [user guide](../user-guide.md#exit-codes) '
        "says when each status happens.",
        "",
        "| status | name | meaning |",
        "|---|---|---|",
    ]
    lines += [
        f"| {int(exitcodes.ExitCode[name])} | `{name}` | {cell(comment)} |"
        for name, comment in member_comments(exitcodes, exitcodes.ExitCode).items()
    ]
    return "\n".join(lines) + "\n"


PAGES: dict[str, Callable[[], str]] = {
    "seams.md": render_seams,
    "errors.md": render_errors,
    "exit-codes.md": render_exit_codes,
    "values.md": values.render,
    "scenario.md": scenario.render,
    "plugins.md": plugin_config.render,
}


# --------------------------------------------------------------------------------------------
# writing and checking
# --------------------------------------------------------------------------------------------


def stale_pages(reference: Path = REFERENCE) -> list[Path]:
    """The pages under `reference` whose content is not what the code renders now."""
    stale = []
    for name, render in PAGES.items():
        path = reference / name
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != render():
            stale.append(path)
    return stale


def write_pages(reference: Path = REFERENCE) -> list[Path]:
    """Rewrite the stale pages under `reference`; returns them."""
    reference.mkdir(parents=True, exist_ok=True)
    written = []
    for path in stale_pages(reference):
        path.write_text(PAGES[path.name](), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a page is stale; write nothing"
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            stale = stale_pages()
            for path in stale:
                print(f"{path}: stale; run `python {GENERATOR}`", file=sys.stderr)
            return 1 if stale else 0
        for path in write_pages():
            print(f"wrote {path}")
    except LookupError as exc:
        print(f"{GENERATOR}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
