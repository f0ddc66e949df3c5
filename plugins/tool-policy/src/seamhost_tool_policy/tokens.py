"""Shell tokens: what the lexer (:mod:`.shellwords`) hands the parser (:mod:`.parser`).

They live apart from both because both read them: the lexer makes them, the parser decides
what they mean. The operator sets are here for the same reason: the lexer needs them to cut the
text into operators, the parser to tell separators, case ends and redirections apart.
"""

from __future__ import annotations

import attrs

SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&", "\n"})
CASE_ENDS = frozenset({";;", ";&", ";;&"})
REDIRECTIONS = frozenset({"<", ">", ">>", ">|", "<>", "<&", ">&", "&>", "&>>", "<<", "<<-", "<<<"})


@attrs.frozen
class Word:
    """A word after quote removal, :data:`~.marks.UNKNOWN` marking run-time text, and where."""

    text: str
    plain: bool  # written as is: no quote, escape or expansion (a reserved-word candidate)
    assignment: bool
    start: int
    end: int


@attrs.frozen
class Op:
    """An operator token: a separator, a parenthesis, a redirection or a newline."""

    op: str  # "" at the end of the text
    start: int
    end: int


Token = Word | Op
