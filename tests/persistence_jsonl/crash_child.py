"""A writer to be SIGKILLed: appends and flushes at random, reporting each flushed seq.

Usage: ``python crash_child.py ROOT SESSION_ID create|open SEED``. Prints ``{"ready": n}`` once
the session is open (n records stored), then ``{"flushed": seq}`` after every flush *returns*:
the parent holds every reported seq to be durable whatever moment it kills this process at.
Before flushing a burst of megabytes it prints ``{"burst": seq}``, so that the parent can aim a
kill at a long write and cut it in the middle.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys

from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.live import Session
from seamhost.testing.persistence import make_header


def say(value: object) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


async def write_forever(session: Session, rng: random.Random) -> None:
    step = session.next_seq
    while True:
        # Now and then a burst of megabytes, whose write a kill can cut in the middle.
        burst = rng.random() < 0.1
        for _ in range(rng.randint(100, 300) if burst else rng.randint(1, 30)):
            step += 1
            size = rng.randint(10_000, 40_000) if burst else rng.randint(0, 3000)
            session.append_data(
                "user/message",
                {
                    "turn": 1,
                    "step": step,
                    "content": rng.randbytes(size // 2).hex(),
                    "source": "crash",
                },
            )
        if burst:
            say({"burst": session.next_seq - 1})  # the parent may aim its kill at this write
        if burst or rng.random() < 0.7:
            await session.writer.flush()
            say({"flushed": session.next_seq - 1})
        else:
            await asyncio.sleep(rng.random() * 0.005)  # the window writes some on its own


def main() -> None:
    root, session_id, mode, seed = sys.argv[1:5]
    rng = random.Random(int(seed))
    store = JsonlStore(root, batch_window_ms=rng.choice([0, 1, 5, 20]))
    writer = store.create(make_header(session_id)) if mode == "create" else store.open(session_id)
    session = Session(writer)
    say({"ready": session.next_seq})
    asyncio.run(write_forever(session, rng))


if __name__ == "__main__":
    main()
