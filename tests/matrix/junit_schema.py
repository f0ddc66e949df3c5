"""A checker for the subset of XML Schema that data/junit.xsd uses (xmlschema is not a
dependency of this project): the document is read with ElementTree and held to the schema's
element declarations, their content models and their attributes.

What it implements: global ``xs:element`` declarations and ``ref``\\s to them; ``xs:sequence`` and
``xs:choice`` with ``minOccurs``/``maxOccurs`` (matched greedily, which suffices for a schema whose
choices start with distinct elements, as this one's do); ``xs:attribute`` with ``use="required"``
and the types ``xs:string``, ``xs:decimal``, ``xs:nonNegativeInteger`` and ``xs:dateTime``; text
content only where the type is ``mixed``. Anything else in the schema is refused, so the checker
never silently ignores a rule it does not know.
"""

from __future__ import annotations

import datetime
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

XS = "{http://www.w3.org/2001/XMLSchema}"
TYPES: dict[str, Callable[[str], bool]] = {
    "xs:string": lambda v: True,
    "xs:decimal": lambda v: re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", v) is not None,
    "xs:nonNegativeInteger": lambda v: re.fullmatch(r"\+?\d+", v) is not None,
    "xs:dateTime": lambda v: "T" in v and _is_datetime(v),
}
PARTICLES = {f"{XS}element", f"{XS}sequence", f"{XS}choice"}


def _is_datetime(value: str) -> bool:
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


class Schema:
    """The declarations of one .xsd file."""

    def __init__(self, path: Path) -> None:
        root = ET.parse(path).getroot()
        self.elements = {e.get("name"): e for e in root.findall(f"{XS}element")}
        for child in root:
            if child.tag != f"{XS}element":
                raise ValueError(f"{path}: unsupported top-level {child.tag}")

    def problems(self, document: bytes) -> list[str]:
        """What in `document` breaks the schema (nothing: it is valid)."""
        root = ET.fromstring(document)
        found: list[str] = []
        if root.tag not in self.elements:
            return [f"root element <{root.tag}> is not declared"]
        self._check(root, root.tag, found)
        return found

    def _check(self, node: ET.Element, where: str, found: list[str]) -> None:
        ctype = self.elements[node.tag].find(f"{XS}complexType")
        if ctype is None:
            raise ValueError(f"<{node.tag}>: only complex types are supported")
        declared = {a.get("name", ""): a for a in ctype.findall(f"{XS}attribute")}
        for name in node.attrib:
            if name not in declared:
                found.append(f"{where}: attribute {name!r} is not allowed")
        for name, attribute in declared.items():
            present = node.get(name)
            if present is None:
                if attribute.get("use") == "required":
                    found.append(f"{where}: attribute {name!r} is required")
                continue
            kind = attribute.get("type", "xs:string")
            if not TYPES[kind](present):
                found.append(f"{where}: attribute {name}={present!r} is not an {kind}")
        texts = [node.text, *(child.tail for child in node)]
        if ctype.get("mixed") != "true" and any((t or "").strip() for t in texts):
            found.append(f"{where}: text is not allowed in <{node.tag}>")
        models = [p for p in ctype if p.tag in PARTICLES]
        children = list(node)
        end = self._match(models[0], children, 0) if models else 0
        if end is None or end < len(children):
            at = children[end].tag if end is not None and end < len(children) else "its children"
            found.append(f"{where}: <{at}> is not allowed here by <{node.tag}>'s content model")
            return
        for index, child in enumerate(children):
            if child.tag not in self.elements:
                found.append(f"{where}: <{child.tag}> is not declared")
            else:
                self._check(child, f"{where}/{child.tag}[{index}]", found)

    def _match(self, particle: ET.Element, children: list[ET.Element], pos: int) -> int | None:
        """Where matching `particle` (repeated as its occurrences allow) from `pos` ends."""
        least = int(particle.get("minOccurs", "1"))
        most = particle.get("maxOccurs", "1")
        limit = float("inf") if most == "unbounded" else int(most)
        count = 0
        while count < limit:
            after = self._once(particle, children, pos)
            if after is None:
                break
            if after == pos:  # matched nothing, which any number of repetitions may do
                count = max(count, least)
                break
            pos, count = after, count + 1
        return pos if count >= least else None

    def _once(self, particle: ET.Element, children: list[ET.Element], pos: int) -> int | None:
        if particle.tag == f"{XS}element":
            name = particle.get("ref") or particle.get("name")
            return pos + 1 if pos < len(children) and children[pos].tag == name else None
        if particle.tag == f"{XS}sequence":
            for item in particle:
                matched = self._match(item, children, pos)
                if matched is None:
                    return None
                pos = matched
            return pos
        if particle.tag == f"{XS}choice":
            for item in particle:
                matched = self._match(item, children, pos)
                if matched is not None and matched > pos:
                    return matched
            return None
        raise ValueError(f"unsupported particle {particle.tag}")
