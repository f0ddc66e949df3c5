"""``seamhost exec``: one turn, without anyone at the terminal (:mod:`.command`)."""
