"""The seam catalogue: every seam the kernel drives, collected from its one declaration.

Each seam is declared once, by ``@seam`` on its hook spec in :mod:`seamhost.kernel.hookspecs`
(name, dispatch mode, what its absence means, whether it is called synchronously); this module
only collects those declarations, in the order they are written there. A seam is named
``area/verb`` (``tools/pre-execute``); its pluggy hook is the same name with ``/`` and ``-``
turned into ``_`` (``tools_pre_execute``), which is checked here when the kernel is imported. The
kernel drives each seam in its mode through the typed façade (:mod:`seamhost.kernel.seams`);
nothing else calls ``pm.hook``.
"""

from __future__ import annotations

from seamhost.kernel import hookspecs
from seamhost.kernel.modes import SEAM_ATTRIBUTE, Mode, Seam


def hook_name(seam: str) -> str:
    """``tools/pre-execute`` -> ``tools_pre_execute``."""
    return seam.replace("/", "_").replace("-", "_")


def _collect() -> dict[str, Seam]:
    """The seams declared in :mod:`~seamhost.kernel.hookspecs`, by name, in declaration order."""
    seams: dict[str, Seam] = {}
    for value in vars(hookspecs).values():
        seam = getattr(value, SEAM_ATTRIBUTE, None)
        if not isinstance(seam, Seam):
            continue
        if seam.hook != hook_name(seam.name):
            raise ValueError(
                f"hook spec {seam.hook} declares {seam.name}: name it {hook_name(seam.name)}"
            )
        seams[seam.name] = seam
    return seams


SEAMS: dict[str, Seam] = _collect()

# Seams at most one plugin may provide: two claimants are a startup error naming both.
SINGLE_PROVIDER = frozenset(name for name, seam in SEAMS.items() if seam.mode is Mode.PROVIDER)
