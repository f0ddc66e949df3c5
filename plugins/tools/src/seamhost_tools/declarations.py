"""The tools as a model and an operator see them: names, descriptions, schemas, effects.

Building a bundle (every ``seamhost`` command, ``seamhost profile check`` included) declares
the tools; only a call runs one. So each declared body is a thin coroutine that imports its
implementation (:mod:`.reading`, :mod:`.writing`, :mod:`.shell`) on its first call: declaring
the tools loads neither asyncio nor the path policy nor the subprocess runner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost import ToolSpec
from seamhost_tools.schemas import PATH

if TYPE_CHECKING:
    from seamhost import ToolContext, ToolOutput
    from seamhost_tools.settings import ToolSettings

# --------------------------------------------------------------------------------------------
# read_file
# --------------------------------------------------------------------------------------------

READ_FILE_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {**PATH, "description": "The file to read; relative to the workspace."},
        "offset": {
            "type": "integer",
            "minimum": 1,
            "description": "The first line to return, counting from 1 (default 1).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "description": "The most lines to return (default: up to the byte cap).",
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}

READ_FILE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "size": {"type": "integer", "description": "The file's size in bytes."},
        "offset": {"type": "integer", "description": "The line the content starts at."},
        "lines": {"type": "integer", "description": "How many lines the content holds."},
        "truncated": {"type": "boolean", "description": "The content stops before the end."},
        "next_offset": {
            "type": ["integer", "null"],
            "description": "The offset to continue from, or null at the end of the file.",
        },
        "binary": {"type": "boolean", "description": "The file holds NUL bytes; not shown."},
        "content": {"type": "string"},
    },
    "required": [
        "path",
        "size",
        "offset",
        "lines",
        "truncated",
        "next_offset",
        "binary",
        "content",
    ],
    "additionalProperties": False,
}


def make_read_file(settings: ToolSettings) -> ToolSpec:
    """The ``read_file`` tool."""

    async def read_file(ctx: ToolContext) -> ToolOutput:
        from seamhost_tools.reading import read_file as run  # first call: see module docstring

        return await run(ctx, settings)

    return ToolSpec(
        name="read_file",
        description=(
            "Read a text file, optionally `limit` lines from line `offset`; "
            "long files are cut with a marker saying where to continue."
        ),
        input_schema=READ_FILE_INPUT,
        output_schema=READ_FILE_OUTPUT,
        effect="read-only",
        concurrency_safe=True,
        idempotent=True,
        body=read_file,
    )


# --------------------------------------------------------------------------------------------
# list_dir
# --------------------------------------------------------------------------------------------

LIST_DIR_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {**PATH, "description": "The directory to list; default the workspace."},
    },
    "additionalProperties": False,
}

LIST_DIR_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "entries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "kind": {"enum": ["file", "dir", "symlink", "other"]},
                    "size": {"type": "integer", "description": "Files only: size in bytes."},
                    "target": {"type": "string", "description": "Symlinks only: the link."},
                },
                "required": ["name", "kind"],
                "additionalProperties": False,
            },
        },
        "total": {"type": "integer", "description": "How many entries the directory holds."},
        "truncated": {"type": "boolean", "description": "Fewer entries are listed than exist."},
    },
    "required": ["path", "entries", "total", "truncated"],
    "additionalProperties": False,
}


def make_list_dir(settings: ToolSettings) -> ToolSpec:
    """The ``list_dir`` tool."""

    async def list_dir(ctx: ToolContext) -> ToolOutput:
        from seamhost_tools.reading import list_dir as run  # first call: see module docstring

        return await run(ctx, settings)

    return ToolSpec(
        name="list_dir",
        description="List a directory's entries sorted by name, with their kind and size.",
        input_schema=LIST_DIR_INPUT,
        output_schema=LIST_DIR_OUTPUT,
        effect="read-only",
        concurrency_safe=True,
        idempotent=True,
        body=list_dir,
    )


# --------------------------------------------------------------------------------------------
# write_file
# --------------------------------------------------------------------------------------------

WRITE_FILE_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {**PATH, "description": "The file to write; relative to the workspace."},
        "content": {"type": "string", "description": "The whole new content, as text."},
        "create_dirs": {
            "type": "boolean",
            "description": "Make missing parent directories (default false).",
        },
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}

WRITE_FILE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "The real path written."},
        "bytes_written": {"type": "integer"},
        "created": {"type": "boolean", "description": "The file did not exist before."},
    },
    "required": ["path", "bytes_written", "created"],
    "additionalProperties": False,
}


def make_write_file(settings: ToolSettings) -> ToolSpec:
    """The ``write_file`` tool."""

    async def write_file(ctx: ToolContext) -> ToolOutput:
        from seamhost_tools.writing import write_file as run  # first call: see module docstring

        return await run(ctx)

    return ToolSpec(
        name="write_file",
        description="Write text to a file, creating or replacing it, where the sandbox allows.",
        input_schema=WRITE_FILE_INPUT,
        output_schema=WRITE_FILE_OUTPUT,
        effect="write",
        concurrency_safe=False,
        idempotent=True,  # the same call again leaves the file in the same state
        body=write_file,
    )


# --------------------------------------------------------------------------------------------
# edit_file
# --------------------------------------------------------------------------------------------

EDIT_FILE_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {**PATH, "description": "The file to edit; relative to the workspace."},
        "old": {
            "type": "string",
            "minLength": 1,
            "description": "The exact text to replace; it must occur exactly once.",
        },
        "new": {"type": "string", "description": "The text to put in its place."},
    },
    "required": ["path", "old", "new"],
    "additionalProperties": False,
}

EDIT_FILE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "The real path edited."},
        "line": {"type": "integer", "description": "The line where the replaced text began."},
        "bytes_written": {"type": "integer"},
    },
    "required": ["path", "line", "bytes_written"],
    "additionalProperties": False,
}


def make_edit_file(settings: ToolSettings) -> ToolSpec:
    """The ``edit_file`` tool."""

    async def edit_file(ctx: ToolContext) -> ToolOutput:
        from seamhost_tools.writing import edit_file as run  # first call: see module docstring

        return await run(ctx, settings)

    return ToolSpec(
        name="edit_file",
        description=(
            "Replace the exact text `old` with `new` in a file; fails unless `old` occurs "
            "exactly once."
        ),
        input_schema=EDIT_FILE_INPUT,
        output_schema=EDIT_FILE_OUTPUT,
        effect="write",
        concurrency_safe=False,
        body=edit_file,
    )


# --------------------------------------------------------------------------------------------
# shell
# --------------------------------------------------------------------------------------------


def shell_input(settings: ToolSettings) -> dict[str, Any]:
    """The input schema; the timeout's bounds come from the settings."""
    return {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "minLength": 1,
                "description": "A command line, run as `bash -c COMMAND`.",
            },
            "argv": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "A program and its arguments, run without a shell.",
            },
            "cwd": {
                "type": "string",
                "minLength": 1,
                "description": "Where to start, inside the workspace (default the workspace).",
            },
            "timeout_seconds": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": settings.shell_max_timeout_seconds,
                "description": (
                    "Kill the command after this many seconds "
                    f"(default {settings.shell_timeout_seconds:g})."
                ),
            },
        },
        "oneOf": [{"required": ["command"]}, {"required": ["argv"]}],
        "additionalProperties": False,
    }


SHELL_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "exit_code": {
            "type": ["integer", "null"],
            "description": "The exit status; negative: killed by that signal; null: timed out.",
        },
        "stdout": {"type": "string"},
        "stderr": {"type": "string"},
        "stdout_truncated": {"type": "boolean"},
        "stderr_truncated": {"type": "boolean"},
        "timed_out": {"type": "boolean"},
    },
    "required": [
        "exit_code",
        "stdout",
        "stderr",
        "stdout_truncated",
        "stderr_truncated",
        "timed_out",
    ],
    "additionalProperties": False,
}


def make_shell(settings: ToolSettings) -> ToolSpec:
    """The ``shell`` tool."""

    async def shell(ctx: ToolContext) -> ToolOutput:
        from seamhost_tools.shell import shell as run  # first call: see module docstring

        return await run(ctx, settings)

    return ToolSpec(
        name="shell",
        description=(
            "Run a command (a `bash -c` string or an argv) in the workspace under the sandbox; "
            "returns its exit code, stdout and stderr."
        ),
        input_schema=shell_input(settings),
        output_schema=SHELL_OUTPUT,
        effect="write",
        concurrency_safe=False,
        runs_subprocesses=True,
        body=shell,
    )
