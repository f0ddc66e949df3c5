"""The session log: records, typed events, codec, stores, the live session, repair, shape rules."""
