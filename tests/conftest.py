"""Render tests draw headless: switch pyglet to EGL before anything imports pyglet.window/gl.
The test process keeps freed memory as the game's process does (game/allocator.py): the
brute-force references' large temporaries then reuse pages instead of page-faulting new ones."""

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

from game.allocator import keep_freed_memory  # noqa: E402  (after the environment is set)

keep_freed_memory()
