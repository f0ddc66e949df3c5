"""Hosts the suite must also pass on, made from this one (``nox -s tests_no_bwrap``)."""
