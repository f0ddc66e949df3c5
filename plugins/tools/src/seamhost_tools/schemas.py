"""JSON Schema fragments the tools' input schemas share."""

from __future__ import annotations

from typing import Any

# A path argument: any string the operating system could take (NUL bytes never can).
PATH: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": "^[^\\x00]*$"}
