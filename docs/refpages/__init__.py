"""The pages of the generated reference, one module each; ``docs/generate_reference.py`` runs them.

Every page is rendered from code (docstrings, trailing comments, schemas, signatures), never
written by hand: :mod:`.text` holds what the pages share.
"""
