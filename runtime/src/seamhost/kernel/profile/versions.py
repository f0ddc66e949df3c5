"""Version requirements of the ``[require] plugins`` table: ``">=0.1, <2"``.

A deliberately small subset of PEP 440, enough for requirements on plugin versions: release
numbers (``1.2.3``), with an optional pre-release (``a``, ``b``, ``rc``) or ``.devN`` suffix;
operators ``==``, ``!=``, ``>=``, ``<=``, ``>``, ``<`` and ``~=``, comma-separated (all must hold).
"""

from __future__ import annotations

import re

from seamhost.errors import SeamhostError

_VERSION = re.compile(
    r"^v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:(?P<pre>a|b|rc)(?P<pre_n>\d+))?"
    r"(?:\.post(?P<post>\d+))?"
    r"(?:\.dev(?P<dev>\d+))?$"
)
_CLAUSE = re.compile(r"^(?P<op>~=|==|!=|>=|<=|>|<)\s*(?P<version>\S+)$")
_PRE_RANK = {"a": 0, "b": 1, "rc": 2}

VersionKey = tuple[tuple[int, ...], tuple[int, int], int, int]


class InvalidRequirement(SeamhostError, ValueError):
    """A version or requirement string cannot be parsed."""

    problem: str

    def __str__(self) -> str:
        return self.problem


def version_key(text: str) -> VersionKey:
    """A sortable key: release, pre-release, post and dev parts."""
    match = _VERSION.match(text.strip())
    if match is None:
        raise InvalidRequirement(f"{text!r} is not a version like 1.2.3")
    release = tuple(int(p) for p in match["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    dev = int(match["dev"]) if match["dev"] is not None else 1 << 62
    if match["pre"]:
        pre = (_PRE_RANK[match["pre"]], int(match["pre_n"]))
    else:
        # a final release sorts after its pre-releases; a bare .devN sorts before them
        pre = (-1, 0) if match["dev"] is not None and not match["post"] else (3, 0)
    post = int(match["post"]) if match["post"] is not None else -1
    return (release, pre, post, dev)


def satisfies(version: str, requirement: str) -> bool:
    """True when `version` meets every clause of `requirement`."""
    have = version_key(version)
    for clause in parse_requirement(requirement):
        op, wanted = clause
        want = version_key(wanted)
        if op == "~=":
            parts = wanted.split(".")
            if len(parts) < 2:
                raise InvalidRequirement(f"~={wanted} needs at least two release numbers")
            prefix = version_key(".".join(parts[:-1]))[0]
            if not (have >= want and have[0][: len(prefix)] == prefix):
                return False
        elif not _OPS[op](have, want):
            return False
    return True


def parse_requirement(requirement: str) -> list[tuple[str, str]]:
    """Split ``">=1, <2"`` into ``[(">=", "1"), ("<", "2")]``, checking each part."""
    clauses = []
    for part in requirement.split(","):
        match = _CLAUSE.match(part.strip())
        if match is None:
            raise InvalidRequirement(
                f"{part.strip()!r} is not a clause like '>=0.1' (operators: ~= == != >= <= > <)"
            )
        version_key(match["version"])
        clauses.append((match["op"], match["version"]))
    return clauses


_OPS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
}
