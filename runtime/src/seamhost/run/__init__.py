"""A session driven through a bundle: opening sessions, the agent loop, the governed pipeline."""
