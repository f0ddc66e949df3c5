"""``seamhost plugin new NAME --kind KIND [--dir DIR]``: write a plugin distribution.

The templates are package data beside this module (``templates/<kind>/`` and the files every
kind shares in ``templates/common/``), filled with :class:`string.Template`: ``$name`` (the
plugin and entry-point name profiles use), ``$distribution`` and ``$package``. A path segment
``__package__`` becomes the package. What is written works as generated: installed, ``seamhost
plugins`` lists it and its tests (the kind's conformance kit of :mod:`seamhost.testing`) pass.
"""

from __future__ import annotations

import string
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

import click

from seamhost.kernel.plugins import PLUGIN_NAME

KINDS = ("tool", "observer")  # each has a directory under templates/


def _walk(root: Traversable, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """Every template file under `root`: its relative path parts and its text."""
    found = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            if entry.name != "__pycache__":
                found += _walk(entry, (*prefix, entry.name))
        elif entry.name.endswith(".tmpl"):
            found.append(((*prefix, entry.name.removesuffix(".tmpl")), entry.read_text("utf-8")))
    return found


def render(name: str, kind: str) -> dict[Path, str]:
    """The files of a `kind` plugin called `name`: relative path → text."""
    package = "seamhost_" + name.replace("-", "_")
    values = {"name": name, "distribution": f"seamhost-{name}", "package": package}
    templates = files("seamhost.cli.plugin") / "templates"
    rendered = {}
    for folder in ("common", kind):
        for parts, text in _walk(templates / folder):
            path = Path(*(package if part == "__package__" else part for part in parts))
            rendered[path] = string.Template(text).substitute(values)
    return rendered


@click.command()
@click.argument("name")
@click.option(
    "--kind",
    required=True,
    type=click.Choice(KINDS),
    help="What the plugin provides: its hooks and the conformance kit its tests run.",
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write the distribution (default: ./NAME); it must be empty or absent.",
)
def new(name: str, kind: str, directory: Path | None) -> None:
    """Write a plugin distribution of one kind that installs, lists and passes its tests.

    NAME is the plugin's entry-point name, the one profiles use: [plugins.NAME].
    """
    if not PLUGIN_NAME.match(name):
        raise click.BadParameter(
            f"{name!r} cannot name a plugin: use lowercase letters, digits and dashes, starting "
            "with a letter (it is the entry-point name profiles use: [plugins.NAME])",
            param_hint="NAME",
        )
    target = directory if directory is not None else Path(name)
    if target.exists() and any(target.iterdir()):
        raise click.UsageError(
            f"{target} is not empty: choose a new directory with --dir, or empty this one"
        )
    for path, text in render(name, kind).items():
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        (target / path).write_text(text, encoding="utf-8")
    click.echo(f"Wrote the {kind} plugin {name!r} to {target}")
    click.echo(f"Next: pip install -e {target} && pytest {target}")
