"""``seamhost console``: serve the web console (:mod:`seamhost.console`) from the command line."""
