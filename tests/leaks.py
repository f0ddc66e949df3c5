"""Where a secret could end up after a command: its outputs and every file it left behind.

A session log compressed with zstd would hide a secret from a plain byte search, so each file
is searched as stored and, when it decompresses, as decompressed (frame by frame, skipping the
log's skippable frame headers, as ``zstd -d`` does).
"""

from __future__ import annotations

import io
from pathlib import Path

import zstandard


def _decompressed(data: bytes) -> bytes:
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(data), read_across_frames=True
        )
        return reader.read()
    except zstandard.ZstdError:
        return b""


def places_holding(secret: str, root: Path, **outputs: str) -> list[str]:
    """The names of the `outputs` and the files under `root` in which `secret` appears."""
    needle = secret.encode()
    found = [name for name, text in outputs.items() if secret in text]
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if needle in data or needle in _decompressed(data):
            found.append(str(path.relative_to(root)))
    return found
