"""``python -m seamhost``: the same as the ``seamhost`` command."""

from seamhost.cli import main

main()
