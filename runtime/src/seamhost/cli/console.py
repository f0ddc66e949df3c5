"""The rich console of every human-facing view: no control character reaches the terminal.

Rich renders every string it prints, markup or not, through :meth:`Console.render_str`, so the
console escapes control characters there (:func:`~seamhost.cli.terminal.terminal_safe`), before
markup is parsed: the escapes it writes (``\\x1b``) end in a hex digit, never in a backslash,
so they cannot turn an escaped ``\\[`` of the text into markup. Rich's own styles are added
after, so colours still work. (Rich strips BEL and a few others itself, silently; ESC and the
C1 controls it passes on, which is why this exists.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console

from seamhost.cli.terminal import terminal_safe

if TYPE_CHECKING:
    from rich.text import Text


class SafeConsole(Console):
    """A rich console that shows control characters in the strings it renders as escapes."""

    def render_str(self, text: str, **options: Any) -> Text:
        return super().render_str(terminal_safe(text), **options)
