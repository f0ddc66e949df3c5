"""``seamhost chat``: a conversation with the profile's model, at a terminal (:mod:`.command`)."""
