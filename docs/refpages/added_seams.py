"""The seams plugins add, for ``seams.md``: capabilities and hook specs of their own.

A descriptor adds a seam in one of two ways. A name in ``provides`` that is not in the kernel's
catalogue is a **capability**: no hook is called, but a profile can require it
(``[require] seams``) and the kernel reads it (``session/checkpoint`` marks a bundle's sessions
as written with barriers). Its meaning is the paragraph of the providing plugin's module
docstring that names it, which must exist. A hook-spec module or class in ``hookspecs`` adds
real hooks, rendered like the kernel's, with their exact signatures.
"""

from __future__ import annotations

import importlib
import inspect
from typing import TYPE_CHECKING

import pluggy

from refpages.text import markdown
from seamhost.kernel import hookspecs
from seamhost.kernel.catalogue import SEAMS

if TYPE_CHECKING:
    from refpages.shipped import Shipped


def _paragraphs_naming(doc: str, seam: str) -> list[str]:
    return [p.strip() for p in doc.split("\n\n") if f"``{seam}``" in p or f"`{seam}`" in p]


def capability_section(seam: str, providers: list[Shipped]) -> list[str]:
    names = ", ".join(f"{s.descriptor.name} ({s.distribution})" for s in providers)
    lines = [
        "",
        f"### {seam}",
        "",
        "No hook: a capability. A plugin declares it in `provides` and a profile may require "
        "it in `[require] seams`; no hook is called.",
        "",
        f"- **added by:** {names}",
        "",
    ]
    for shipped in providers:
        doc = inspect.getdoc(importlib.import_module(shipped.module)) or ""
        found = _paragraphs_naming(doc, seam)
        if not found:
            raise LookupError(
                f"{shipped.module}: the module docstring never names ``{seam}``, which its "
                "descriptor provides; say there what providing it means"
            )
        lines += [markdown("\n\n".join(found))]
    return lines


def hook_sections(shipped: Shipped) -> list[str]:
    """A section for each hook spec `shipped`'s descriptor adds, with its exact signature."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    lines: list[str] = []
    for spec in shipped.descriptor.hookspecs:
        for name in sorted(dir(spec)):
            if pm.parse_hookspec_opts(spec, name) is None:
                continue
            function = getattr(spec, name)
            lines += [
                "",
                f"### {name}",
                "",
                f"`{name}{inspect.signature(function)}`",
                "",
                f"- **added by:** {shipped.descriptor.name} ({shipped.distribution})",
                "",
                markdown(inspect.getdoc(function) or ""),
            ]
    return lines


def render_added(plugins: list[Shipped]) -> list[str]:
    """The part of ``seams.md`` on the seams the shipped plugins add."""
    capabilities: dict[str, list[Shipped]] = {}
    for shipped in plugins:
        for seam in sorted(shipped.descriptor.provides - SEAMS.keys()):
            capabilities.setdefault(seam, []).append(shipped)
    lines = [
        "",
        "## Seams plugins add",
        "",
        "Seams that are not in the kernel's catalogue but that a first-party plugin adds: a "
        "capability it declares in `provides`, or hooks of its own (`PluginDescriptor.hookspecs`).",
    ]
    for seam, providers in sorted(capabilities.items()):
        lines += capability_section(seam, providers)
    for shipped in plugins:
        lines += hook_sections(shipped)
    return lines
