"""Rangebox: a 3D fighting-game demo built on three published collision methods."""

__version__ = "0.1.0"
