"""``python -m provgraph``: the command-line interface."""

from .cli import main

main()
