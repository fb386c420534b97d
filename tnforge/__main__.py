"""`python -m tnforge` runs the command line."""

from tnforge.cli import main

main()
