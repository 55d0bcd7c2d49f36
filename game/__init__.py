"""Rangebox: a 3D fighting-game demo built on three published collision methods."""

#: Changes whenever the simulation's results change (0.2.0: forward kinematics without BLAS, so
#: every state_hash changed; 0.3.0: a higher jump, a fireball judged on its launch frame, the
#: CPU's jump over fireballs and its read of heavy attacks; 0.4.0: combos, i.e. cancels, the
#: jab's 18-frame hitstun and 0.10 m pushback, combo damage scaling and the CPU's hit confirms;
#: 0.4.1: a fighter hit out of a jump falls, a limb-and-fireball trade freezes both alike, and
#: no cancel after the K.O.; 0.5.0: the sweep knocks down, heavies plus on hit, an attack read
#: as pressed, the CPU's meaty and no blind cancels, a crate struck on the wall a limb came
#: through; 0.6.0: throws, lp + lk, which before came out as the front kick, and the CPU's
#: throws and throw breaks; 0.7.0: a two-button command is two presses up to two frames apart
#: (a button held from longer ago is no half of one), whose first button's move turns into the
#: pair's, and ``Fighter.lone``/``presses`` in every state_hash; up held jumps, its direction
#: read until take-off, and the CPU holds the direction of its jump over a fireball);
#: a replay recorded with another version stops at its first mismatch with a message that names
#: both versions.
__version__ = "0.7.0"
