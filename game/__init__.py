"""Rangebox: a 3D fighting-game demo built on three published collision methods."""

#: Changes whenever the simulation's results change (replays record it); see CHANGELOG.md.
__version__ = "0.10.0"
