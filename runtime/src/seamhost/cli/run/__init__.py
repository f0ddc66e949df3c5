"""``seamhost run``: a scenario driven as an agent session, live and durable (:mod:`.command`)."""
