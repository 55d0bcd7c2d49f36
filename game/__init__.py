"""Rangebox: a 3D fighting-game demo built on three published collision methods."""

#: Changes whenever the simulation's results change (0.2.0: forward kinematics without BLAS, so
#: every state_hash changed); a replay recorded with another version stops at its first
#: mismatch with a message that names both versions.
__version__ = "0.2.0"
