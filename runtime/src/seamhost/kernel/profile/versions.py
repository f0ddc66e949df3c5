"""Version requirements of the ``[require] plugins`` table: PEP 440 specifiers, ``">=0.1, <2"``.

Parsing and matching are :mod:`packaging`'s (epochs, local versions, ``==1.*``, ``~=``,
pre-releases), so a requirement means what it means to pip. This module is imported only by a
profile that pins plugin versions: packaging costs about 5 ms to import, which no other profile
pays. An installed pre-release counts as installed: ``>=1.0`` accepts an installed ``2.0rc1``, as
``pip check`` would, while ``<2.0`` still refuses it (PEP 440's rule for ``<``).
"""

from __future__ import annotations

from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from seamhost.errors import SeamhostError

OPERATORS = "~= == != <= >= < > ==="


class InvalidRequirement(SeamhostError, ValueError):
    """A version or requirement string cannot be parsed."""

    problem: str

    def __str__(self) -> str:
        return self.problem


def parse_requirement(requirement: str) -> SpecifierSet:
    """The specifier set ``">=1, <2"`` stands for; each bad clause is named."""
    if not requirement.strip():
        raise InvalidRequirement("an empty requirement; write one like '>=0.1' or '>=0.1, <2'")
    for clause in requirement.split(","):
        try:
            Specifier(clause.strip())
        except InvalidSpecifier:
            raise InvalidRequirement(
                f"{clause.strip()!r} is not a PEP 440 version clause like '>=0.1', '==1.*' or "
                f"'~=1.2' (operators: {OPERATORS})"
            ) from None
    return SpecifierSet(requirement)


def satisfies(version: str, requirement: str) -> bool:
    """True when the installed `version` meets every clause of `requirement`."""
    try:
        installed = Version(version)
    except InvalidVersion:
        raise InvalidRequirement(
            f"the installed version {version!r} is not a PEP 440 version, so no requirement "
            "can be checked against it; reinstall the plugin or remove the requirement"
        ) from None
    return parse_requirement(requirement).contains(installed, installed=True)
