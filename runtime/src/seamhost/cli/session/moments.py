"""``--since`` and ``--older-than``: a moment given as an age (``2h``, ``3d``) or an ISO date.

An age is one or more numbers with a unit, ``s``, ``m``, ``h``, ``d`` or ``w``, added up
(``1d12h``): that long before now. An ISO date or date-time (``2026-12-01``, ``2026-12-01T08:15``,
with or without an offset) is taken in local time when it has no offset, as listings print times.
"""

from __future__ import annotations

import datetime
import re
import time
from typing import Any

import click

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_AGE = re.compile(r"(?:[0-9]+[smhdw])+")
_PART = re.compile(r"([0-9]+)([smhdw])")


class Moment(click.ParamType[int]):
    """A point in time as Unix ms: now minus an age, or an ISO date (see the module)."""

    name = "AGE|DATE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if _AGE.fullmatch(text):
            seconds = sum(int(n) * UNITS[unit] for n, unit in _PART.findall(text))
            return int(time.time() * 1000) - seconds * 1000

        try:
            moment = datetime.datetime.fromisoformat(text)
        except ValueError:
            self.fail(
                f"{value!r} is neither an age (such as 30m, 2h, 3d, 1w, 1d12h) nor an ISO date "
                "(such as 2026-12-01 or 2026-12-01T08:15)",
                param,
                ctx,
            )
        return int(moment.timestamp() * 1000)  # a naive moment is local time
