"""``seamhost policy explain``: the decision a call would get, and why, running nothing.

The profile's bundle is built; the call is made of the tool and the arguments given, and put to
every ``tools/pre-execute`` and ``tools/guard`` implementation through the kernel's own dispatch,
one plugin at a time (each plugin's vote) and all together (the decision, as a governed call
gets it: a deny of either is ``deny``, else an ``ask`` is ``ask``). No body runs, nobody is asked
and no session is written. A plugin object with a ``policy_explanation(call)`` method (as
tool-policy has) adds what it read: the rule or floor that matched and the shell analysis.
"""

from __future__ import annotations

import asyncio
import difflib
import json
from typing import Any

import click

from seamhost.cli.options import profile_option
from seamhost.cli.output import emit_json
from seamhost.cli.policy.votes import explain_call
from seamhost.cli.profile.bundle import load_bundle
from seamhost.cli.terminal import terminal_safe
from seamhost.errors import did_you_mean


@click.command()
@profile_option()
@click.option("--tool", required=True, help="The tool the call is to (shell, write_file ...).")
@click.option(
    "--args", "args_json", required=True, help='The arguments, as JSON: {"command": "ls"}.'
)
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
def explain(profile_ref: str, tool: str, args_json: str, as_json: bool) -> None:
    """The decision a call would get: allow, ask or deny, each plugin's vote and why."""
    try:
        arguments: Any = json.loads(args_json)
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="--args") from None
    if not isinstance(arguments, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--args")
    bundle = load_bundle(profile_ref)
    if tool not in bundle.tools:
        known = ", ".join(sorted(bundle.tools)) or "none"
        close = difflib.get_close_matches(tool, list(bundle.tools), n=3)
        raise click.BadParameter(
            f"no tool {tool!r} in this profile{did_you_mean(close)} (it has: {known})",
            param_hint="--tool",
        )
    report = asyncio.run(explain_call(bundle, tool, arguments))
    if as_json:
        emit_json(report)
        return
    # The reasons may quote the arguments as given: shown escaped, as every view shows them.
    click.echo(terminal_safe(f"decision: {report['decision']}  {report['reason']}".rstrip()))
    for vote in report["votes"]:
        line = f"  {vote['seam']} {vote['plugin']}: {vote['vote']}  {vote['reason']}"
        click.echo(terminal_safe(line.rstrip()))
    for plugin, detail in report["details"].items():
        click.echo(terminal_safe(f"  {plugin}: {json.dumps(detail, ensure_ascii=False)}"))
