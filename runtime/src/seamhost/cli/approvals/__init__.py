"""``seamhost approvals``, ``approve`` and ``reject``: deferred approvals (design.md §11)."""
