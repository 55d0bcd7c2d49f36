"""Sound effects: :mod:`game.audio.synth` makes them (pure numpy), :mod:`game.audio.player`
plays them through pyglet.media, driven by the match's events.

Nothing here is imported by the simulation, ``--headless`` or ``--screenshot``: importing
``game.audio`` itself imports neither numpy nor pyglet.
"""
