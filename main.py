#!/usr/bin/env python3
"""Rangebox's entry point in a checkout: ``python3 main.py`` plays the game.

The command line itself is the package ``game.cli`` (its docstring lists the flags);
``pip install -e .`` installs the same as the ``rangebox`` command."""

import sys

from game.cli import main

if __name__ == "__main__":
    sys.exit(main())
