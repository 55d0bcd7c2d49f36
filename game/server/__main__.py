"""``python3 -m game.server``: see :mod:`game.server.cli`."""

import sys

from game.server.cli import main

sys.exit(main())
