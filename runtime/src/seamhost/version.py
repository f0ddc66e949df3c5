"""The version of the seamhost-runtime distribution, and of any installed distribution.

:func:`installed_version` answers what ``importlib.metadata.version`` answers, for a plugin that
records its own version (a model adapter's identity) at every run: importing
:mod:`importlib.metadata` (with the ``email``, ``zipfile`` and ``csv`` modules it loads) costs a
quickstart run a few percent of its start-up, while the version is in the name of the
distribution's ``NAME-VERSION.dist-info`` directory, which a listing of each ``sys.path`` entry
finds, as plugin discovery does (:mod:`seamhost.kernel.plugins`). Anything else (an ``.egg-info``,
a distribution inside a zip file, one not installed) is left to :mod:`importlib.metadata`.
"""

from __future__ import annotations

import os
import re
import sys

__version__ = "0.1.0"

_SEPARATORS = re.compile(r"[-_.]+")


def _normalised(name: str) -> str:
    return _SEPARATORS.sub("_", name).lower()


def installed_version(distribution: str) -> str:
    """The version of installed `distribution`, as ``importlib.metadata.version`` gives it.

    The first ``sys.path`` entry holding the distribution decides, as for imports. Raises
    ``importlib.metadata.PackageNotFoundError`` when it is not installed.
    """
    wanted = _normalised(distribution)
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for item in names:
            if not item.endswith(".dist-info"):
                continue
            name, _, version = item[: -len(".dist-info")].partition("-")
            if _normalised(name) == wanted and version:
                return version
        if any(
            item.endswith(".egg-info")
            and _normalised(item[: -len(".egg-info")].partition("-")[0]) == wanted
            for item in names
        ):
            break  # installed here, the old way: importlib.metadata reads it
    from importlib import metadata  # see the module docstring

    return metadata.version(distribution)


__all__ = ["__version__", "installed_version"]
