"""The options several commands share, spelled once: ``--profile``, ``--resume``, directories.

Each is a decorator factory so that a command's help says what the option is for there, while
its name, type and metavar stay the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

PROFILE_HELP = "A shipped profile name (default, strict, ...) or a path to a .toml file."


def profile_option(role: str | None = None) -> Callable[[F], F]:
    """``--profile`` (default ``default``) as ``profile_ref``; `role` says what it is for."""
    return click.option(
        "--profile",
        "profile_ref",
        default="default",
        show_default=True,
        metavar="PROFILE",
        help=PROFILE_HELP if role is None else f"{PROFILE_HELP[:-1]}: {role}.",
    )


def resume_option(help: str) -> Callable[[F], F]:
    """``--resume ID`` as ``resume_id``: the stored session ``run``, ``chat``, ``exec`` go on."""
    return click.option("--resume", "resume_id", metavar="ID", help=help)


def accept_changes_option(command: F) -> F:
    """``--accept-changes``: continue although the installed bundle differs from the recorded."""
    return click.option(
        "--accept-changes",
        is_flag=True,
        help="With --resume: continue the session although the profile, plugins, tools, limits "
        "or model installed now differ from what it recorded (each difference is listed and "
        "recorded in its log); without it such a resume is refused (exit 2).",
    )(command)


def directory_option(name: str, help: str) -> Callable[[F], F]:
    """An option naming a directory (``--workspace``, ``--state-dir``), given to the command as a
    :class:`~pathlib.Path`; whether it must exist already is the command's to say."""
    return click.option(name, type=click.Path(file_okay=False, path_type=Path), help=help)


def keep_option(name: str, help: str) -> Callable[[F], F]:
    """A flag keeping what a command would remove when it ends (``--keep-workspace``...)."""
    return click.option(name, is_flag=True, help=help)
