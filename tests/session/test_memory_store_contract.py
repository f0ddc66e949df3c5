"""The in-memory store passes the persistence contract (what memory can promise)."""

from __future__ import annotations

import pytest

from seamhost.session.memory import MemoryStore
from seamhost.testing.persistence import PersistenceContract, StoreBackend


class TestMemoryStore(PersistenceContract):
    @pytest.fixture
    def store_backend(self) -> StoreBackend:
        # Memory outlives no process, cannot be torn and holds nothing to damage: those tests
        # skip, saying so.
        return StoreBackend(lambda _directory: MemoryStore())
