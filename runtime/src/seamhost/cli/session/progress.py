"""A progress bar for the session commands that go through many sessions (verify, repair)."""

from __future__ import annotations

from collections.abc import Iterable

from seamhost.cli.output import console


def progress(items: list[str], label: str, *, enabled: bool) -> Iterable[str]:
    """`items`, with a progress bar on a terminal's stderr when `enabled`."""
    err = console(stderr=True)
    if not enabled or not err.is_terminal:
        yield from items
        return
    # Imported here, not at the top: rich's progress bar is the heaviest of its modules (live
    # display, threads), and only a terminal going through many sessions shows it.
    from rich.progress import track

    yield from track(items, description=label, console=err, transient=True)
