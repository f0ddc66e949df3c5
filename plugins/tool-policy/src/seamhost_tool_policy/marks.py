"""The mark the shell analysis puts where a command holds text only the shell will know.

It lives apart from the lexer that writes it (:mod:`.shellwords`) because the globs that read
it (:mod:`.globs`) are compiled when the plugin is built, and the lexer, the splitter and the
unwrapper are only needed once a call is judged.
"""

from __future__ import annotations

UNKNOWN = "\ue000"
"""Marks a stretch of a word that only the shell will know (a Unicode private-use character)."""
