"""The pyglet/GL side: renderer, shaders, sparks, HUD, debug overlay, training mode.

Everything here *reads* the simulation (``game.sim``) and its events and never
changes them (except training mode, whose dummy rewinds the match and refills
health and timer).  Modules that import pyglet are only imported once
:func:`game.render.boot.load_pyglet` has set the headless switches; the pure
numpy parts (camera, geometry, particles, input mapping, training logic) can
be imported anywhere.
"""
