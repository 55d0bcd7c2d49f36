"""Render tests draw headless: switch pyglet to EGL before anything imports pyglet.window/gl."""

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")
