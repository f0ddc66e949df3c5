"""``seamhost matrix`` in a terminal: a progress bar on it, and nobody asked anything.

The approvals scenario's version bump needs a person under the default profile; on a terminal,
``seamhost run`` would ask at it. A matrix cell is headless, so the bump ends
APPROVAL_UNAVAILABLE, as the scenario expects, and the matrix passes without waiting for a key.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.pty_kit import Terminal
from tests.matrix.kit import places

ROOT = Path(__file__).parents[2]


def test_in_a_terminal_a_progress_bar_shows_and_no_cell_asks(tmp_path: Path) -> None:
    terminal = Terminal(
        "matrix", "-p", "default", "-s", str(ROOT / "examples" / "approvals.toml"),
        env=places(tmp_path), cwd=tmp_path,
    )  # fmt: skip
    try:
        status = terminal.wait(120)
    finally:
        terminal.kill()
    shown = terminal.shown
    assert status == 0, shown
    assert "default::approvals passed" in shown  # the bar's last word on the cell
    assert "allow this call once?" not in shown  # the tty answerer never asked
    assert "1 of 1 cells passed" in shown
