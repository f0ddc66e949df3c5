"""Approvals: the request and its outcomes, and the audited approval service."""
