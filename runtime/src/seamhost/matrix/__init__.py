"""The profile matrix: every scenario under every profile, each cell a fresh session and store.

``seamhost matrix`` (:mod:`seamhost.cli.matrix`) and ``pytest --seamhost-matrix``
(:mod:`seamhost.testing.matrix_items`) are two faces of this package:

* :mod:`.plan` turns ``--profile``/``--scenario`` arguments (names, paths, globs) and the
  ``[tool.seamhost.matrix]`` defaults of a ``pyproject.toml`` into the cells to run, resolving each
  profile once and loading each scenario once, so that a bad one is reported (exit 2, naming the
  file and the key) before any cell runs;
* :mod:`.cells` runs one cell (:func:`~.cells.run_cell`) and reports it as a
  :class:`~.cells.CellResult`: the session's outcome, each call's decision and result, and the
  expectations it did not meet (:mod:`.expect`);
* :mod:`.running` runs the cells in this process or in worker processes;
* :mod:`.junit` writes the results as JUnit XML.
"""
