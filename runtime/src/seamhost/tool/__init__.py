"""What crosses the ``tools/*`` seams: declarations, the governed call, its result, decisions."""
