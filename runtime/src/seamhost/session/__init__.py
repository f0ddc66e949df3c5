"""The session log: records, typed events, the session and its stores (DESIGN §4)."""
