"""``--limit KEY=VALUE``: a profile's ``[limits]`` overridden for one command (run, exec, chat)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import click

from seamhost.kernel.profile.limits import with_overrides

if TYPE_CHECKING:
    from seamhost.kernel.profile.resolve import Profile

limit_option = click.option(
    "--limit",
    "limits",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override one of the profile's [limits] for this command (repeatable): "
    "--limit max_steps=8 --limit tool_timeout_s=30.",
)


def with_limits(profile: Profile, limits: tuple[str, ...]) -> Profile:
    """`profile` with its ``[limits]`` overridden by ``--limit KEY=VALUE`` options."""
    if not limits:
        return profile

    return attrs.evolve(profile, limits=with_overrides(profile.limits, limits))
