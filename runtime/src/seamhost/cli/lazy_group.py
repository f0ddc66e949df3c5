"""A click group whose subcommands are imported on first use, so a quick command pays for none.

Each command module imports what its command needs at its top, so loading one is the command's
whole cost. The group therefore loads a command only to run it (or to show its own ``--help``):
the group's ``--help`` lists each command by the summary the group holds for it, the first
paragraph of the command's help, which tests/cli/test_lazy_groups.py holds equal to the real one.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple

import click


class Lazy(NamedTuple):
    """A subcommand not imported yet: where it is, and what the group's ``--help`` says of it."""

    target: str  # "module:attribute"
    summary: str  # the first paragraph of the command's help


class LazyGroup(click.Group):
    """A group with subcommands in `lazy`, each imported when invoked.

    Commands added the usual way (``@group.command()``) stand beside them.
    """

    def __init__(self, *args: Any, lazy: Mapping[str, Lazy] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.lazy, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = self.lazy.get(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = entry.target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Click's own layout, with each lazy command's line made from its summary, unimported.
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, self.summary_of(ctx, name, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def summary_of(self, ctx: click.Context, name: str, limit: int) -> str:
        """The line the group's ``--help`` shows for command `name`, at most `limit` wide."""
        entry = self.lazy.get(name)
        # A lazy command's line is what click would make of its summary, had it the command.
        command = (
            click.Command(name, help=entry.summary)
            if entry is not None
            else super().get_command(ctx, name)
        )
        return command.get_short_help_str(limit) if command is not None else ""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as exc:
            # Click suggests close names among the commands it holds, which the lazy ones are
            # not until invoked: suggest among all of them, without importing any.
            raise click.exceptions.NoSuchCommand(
                exc.command_name, possibilities=self.list_commands(ctx), ctx=ctx
            ) from None
