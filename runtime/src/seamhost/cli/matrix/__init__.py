"""``seamhost matrix``: every scenario under every profile, with JUnit for CI (:mod:`.command`)."""
