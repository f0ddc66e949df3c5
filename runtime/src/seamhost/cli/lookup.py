"""Which session an id names: every command that takes a session id accepts a unique prefix.

:func:`resolve_session` is the one resolver they share; its errors are usage errors (exit 2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost.errors import AmbiguousSessionId, UnknownSession

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore


def describe_store(store: SessionStore) -> str:
    """Where a store keeps its sessions, for messages: its directory, else its name."""
    return f"{store.location} ({store.name})" if store.location is not None else store.name


def resolve_session(store: SessionStore, given: str) -> str:
    """The id of the one stored session whose id is `given` or starts with it.

    An exact id always wins, even when it is also the prefix of longer ids. No match raises
    `UnknownSession`, several `AmbiguousSessionId` listing them: both are usage errors (exit 2).
    """
    ids = list(store.ids())
    if given in ids:
        return given
    matches = sorted(i for i in ids if given and i.startswith(given))
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UnknownSession(given, describe_store(store), close_ids(given, ids))
    raise AmbiguousSessionId(given, tuple(matches))


def close_ids(given: str, ids: list[str]) -> tuple[str, ...]:
    """Stored ids that `given` looks like a mistyping of: whole ids, or ids whose start is close.

    A prefix is compared with the starts of the ids as long as it, so that a mistyped short
    prefix finds the id it was meant to begin.
    """
    import difflib  # only when an id is not found

    close = difflib.get_close_matches(given, ids, n=3, cutoff=0.8)
    if close:
        return tuple(close)
    starts: dict[str, list[str]] = {}
    for i in ids:
        starts.setdefault(i[: len(given)], []).append(i)
    near = difflib.get_close_matches(given, list(starts), n=3, cutoff=0.8)
    return tuple(sorted(i for start in near for i in starts[start])[:3])


def resolve_sessions(store: SessionStore, given: list[str]) -> list[str]:
    """Each of `given` resolved (see :func:`resolve_session`), duplicates dropped, in order."""
    return list(dict.fromkeys(resolve_session(store, g) for g in given))
