"""``--profile P``: the one spelling of the option every command that loads a profile takes."""

from __future__ import annotations

from collections.abc import Callable
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
