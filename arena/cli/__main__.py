"""`python -m arena.cli` runs the `arena` command."""

from arena.cli.main import main

main()
