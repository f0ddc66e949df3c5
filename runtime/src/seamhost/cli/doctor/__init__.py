"""``seamhost doctor`` and ``seamhost plugins``: what is installed here, and what works."""
