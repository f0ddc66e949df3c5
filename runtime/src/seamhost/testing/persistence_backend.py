"""How the persistence contract makes a backend's stores, in this process and in a new one.

:class:`StoreBackend` is what a backend's test class hands the contract; :data:`CHILD_SOURCE` is
the program a child process runs to make a store of the same backend with its ``factory`` and
act on it, so that the contract can check what outlives a process and what one process sees of
another's writes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.session.store import SessionStore


@attrs.frozen
class StoreBackend:
    """How the contract makes stores of one backend, and what that backend can do.

    * `make_store(directory)` returns a store keeping its sessions in `directory` (a backend
      without storage of its own may ignore it);
    * `factory` is ``"module:callable"``, importable in a new process, called as
      ``callable(directory, **options)``; it declares that sessions outlive the process;
    * `tear_tail(store, session_id)` cuts the session's last write short, as a crash in the
      middle of it would;
    * `corrupt(store, session_id)` damages a complete write that is not the last one, in a way
      the backend promises to detect.
    """

    make_store: Callable[[Path], SessionStore]
    factory: str | None = None
    options: FrozenDict = attrs.field(factory=FrozenDict, converter=freeze)
    tear_tail: Callable[[SessionStore, str], None] | None = None
    corrupt: Callable[[SessionStore, str], None] | None = None

    @classmethod
    def importable(
        cls,
        factory: str,
        options: Mapping[str, Any] | None = None,
        *,
        tear_tail: Callable[[SessionStore, str], None] | None = None,
        corrupt: Callable[[SessionStore, str], None] | None = None,
    ) -> StoreBackend:
        """A backend whose stores this process and a child process both make with `factory`."""
        kwargs = dict(options or {})

        def make_store(directory: Path) -> SessionStore:
            store: SessionStore = _import(factory)(str(directory), **kwargs)
            return store

        return cls(make_store, factory, kwargs, tear_tail, corrupt)


def _import(target: str) -> Callable[..., Any]:
    module, _, attribute = target.partition(":")
    made: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
    return made


# A child process: make the store with the factory, then do one thing. It reports on stdout,
# one JSON document per line, and writes records without closing anything (os._exit) so that
# only what a flush made durable can survive it.
CHILD_SOURCE = """
import asyncio, importlib, json, os, sys, time
from seamhost.session.live import Session
from seamhost.session.store import SessionHeader
spec = json.loads(sys.argv[1])
module, _, attribute = spec["factory"].partition(":")
store = getattr(importlib.import_module(module), attribute)(spec["directory"], **spec["options"])
def say(value):
    sys.stdout.write(json.dumps(value) + "\\n")
    sys.stdout.flush()
if spec["action"] == "write":
    session = Session(store.create(SessionHeader.from_json(spec["header"])))
    for type_, data, ignorable in spec["events"]:
        session.append_data(type_, data, ignorable=ignorable)
    asyncio.run(session.writer.flush())
    say([record.envelope().decode() for record in session.records])
    os._exit(0)
elif spec["action"] == "read":
    reader = store.read(spec["session_id"])
    say({"header": reader.header.to_json(),
         "records": [record.envelope().decode() for record in reader.records()]})
elif spec["action"] == "hold":
    writer = store.open(spec["session_id"])
    say({"pid": os.getpid()})
    while True:
        time.sleep(60)
"""


__all__ = ["CHILD_SOURCE", "StoreBackend"]
