"""Profiles: TOML files composing a bundle, their resolution, JSON Schema and version rules."""
