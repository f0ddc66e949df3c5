"""The matrix as JUnit XML: one ``testcase`` per cell, the format CI systems read.

The shape is the one Maven Surefire and Jenkins define (tests/matrix/data/junit.xsd holds the
schema the tests check it against)::

    <testsuites name="seamhost matrix" tests="6" failures="1" errors="0" time="1.234">
      <testsuite name="seamhost matrix" tests="6" failures="1" errors="0" skipped="0"
                 time="1.234" timestamp="2026-01-01T00:00:00" hostname="ci-7">
        <testcase classname="default" name="quickstart" time="0.210"/>
        <testcase classname="strict" name="quickstart" time="0.190">
          <failure type="expectation" message="call-1-2-1 (write_file): expected ok, got
            DENIED_BY_GUARD (session 20260101-...)">...every unmet expectation...</failure>
        </testcase>
        <testcase classname="ci" name="broken" time="0.010">
          <error type="crash" message="...">...</error>
        </testcase>
      </testsuite>
    </testsuites>

``classname`` is the profile, ``name`` the scenario. A cell that did not meet its expectations
has a ``failure``, one that crashed an ``error``; either message names the session to look at.
An interrupted matrix writes the cells that finished.
"""

from __future__ import annotations

import datetime
import os
import socket
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from seamhost.matrix.cells import CellResult

SUITE = "seamhost matrix"


def junit_xml(results: Sequence[CellResult]) -> bytes:
    """The JUnit XML document of `results`."""
    failures = sum(r.error is None and not r.ok for r in results)
    errors = sum(r.error is not None for r in results)
    total = f"{sum(r.seconds for r in results):.3f}"
    counts = {"tests": str(len(results)), "failures": str(failures), "errors": str(errors)}
    root = ET.Element("testsuites", {"name": SUITE, **counts, "time": total})
    stamp = datetime.datetime.now().replace(microsecond=0).isoformat()
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": SUITE,
            **counts,
            "skipped": "0",
            "time": total,
            "timestamp": stamp,
            "hostname": socket.gethostname() or "localhost",
        },
    )
    for result in results:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": result.profile, "name": result.scenario, "time": f"{result.seconds:.3f}"},
        )
        if not result.ok:
            tag, kind = (
                ("error", "crash") if result.error is not None else ("failure", "expectation")
            )
            problem = ET.SubElement(case, tag, {"type": kind, "message": result.reason})
            problem.text = "\n".join([*(result.unmet or [result.error or ""]), _session(result)])
        if result.session_id is not None:
            ET.SubElement(case, "system-out").text = _session(result)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _session(result: CellResult) -> str:
    return f"session {result.session_id}" if result.session_id else "no session was created"


def write_junit(path: Path, results: Sequence[CellResult]) -> None:
    """Write the JUnit XML of `results` to `path` whole: a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_bytes(junit_xml(results))
    os.replace(partial, path)


__all__ = ["junit_xml", "write_junit"]
