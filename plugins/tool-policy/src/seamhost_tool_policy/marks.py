"""The mark the shell analysis puts where a command holds text only the shell will know.

It is the glob dialect's own mark (:data:`seamhost.globs.UNKNOWN`), so the globs of the rules
read the commands the lexer (:mod:`.shellwords`) writes.
"""

from __future__ import annotations

from seamhost.globs import UNKNOWN

__all__ = ["UNKNOWN"]
