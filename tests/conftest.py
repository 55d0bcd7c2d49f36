"""Render tests draw headless: switch pyglet to EGL before anything imports pyglet.window/gl.
The test process keeps freed memory as the game's process does (game/allocator.py): the
brute-force references' large temporaries then reuse pages instead of page-faulting new ones."""

import os
import tempfile

os.environ.setdefault("PYGLET_HEADLESS", "1")
# The game's settings file (game/settings.py) lives in $XDG_CONFIG_HOME: the tests and every
# child process they start read and write a private one, never the user's.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="rangebox-test-config-")

from game.allocator import keep_freed_memory  # noqa: E402  (after the environment is set)

keep_freed_memory()
