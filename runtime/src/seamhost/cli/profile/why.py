"""``seamhost profile show PROFILE --why KEY``: which file set KEY, and what it overrode.

The answer comes from :mod:`seamhost.kernel.profile.why`; this module only words it.
"""

from __future__ import annotations

from typing import Any

import click

from seamhost.cli import fail, started
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.output import emit_json
from seamhost.cli.profile import toml_writer
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.kernel.profile.why import Explanation, UnknownKey, explain

WIDTH = 120  # a --why value longer than this is cut (--json has it whole)


def show_why(profile_ref: str, key: str, as_json: bool) -> None:
    """Say which file set `key` of profile `profile_ref`, and what it overrode."""
    profile = resolve_profile(profile_ref)
    started()
    try:
        answer = explain(profile, key)
    except UnknownKey as exc:
        fail(exc, ExitCode.USAGE)
    if as_json:
        emit_json(answer.to_json())
        return
    click.echo(render_why(answer))


def _cut(text: str) -> str:
    return text if len(text) <= WIDTH else text[: WIDTH - 4] + " ..."


def _shown(value: Any) -> str:
    return "(not set)" if value is None else _cut(toml_writer.value(value))


def render_why(answer: Explanation) -> str:
    files = [f"{s.file} (profile {s.profile})" for s in answer.setters]
    head = answer.key if answer.value is None else f"{answer.key} = {_shown(answer.value)}"
    if answer.kind == "default":
        what = "its default" if answer.value is not None else "the plugin's own default"
        return f"{head}\n  set by no file: {what} applies"
    if answer.kind == "accumulate":
        lines = [head, "  accumulates: each file adds entries, and no file can remove them"]
        for setter, where in zip(answer.setters, files, strict=True):
            lines.append(f"  {len(setter.value)} added by {where}")
        return "\n".join(lines)
    if answer.kind == "merge":
        lines = [
            head,
            "  merges: each file's entries come before its parents' (the first match decides);",
            '  a file whose table says replace = ["KEY"] drops what it inherited',
        ]
        for setter, where in zip(answer.setters, files, strict=True):
            lines.append(f"  {len(setter.value)} from {where}")
        if answer.replaced_by:
            lines.append(f"  replaced what it inherited: {answer.replaced_by}")
        return "\n".join(lines)
    if answer.kind == "table":
        lines = [f"{answer.key} is a table; its keys merge one by one, later files winning"]
        lines += [f"  named by {where}" for where in files]
        width = max((len(k) for k in answer.keys), default=0)
        lines += [f"  {k:<{width}}  set by {f}" for k, f in answer.keys.items()]
        return "\n".join(lines)
    lines = [head, f"  set by   {files[-1]}"]
    for setter, where in zip(answer.setters[:-1], files[:-1], strict=True):
        lines.append(f"  overrode {where}: {_shown(setter.value)}")
    return "\n".join(lines)
