"""What the simulation can play: the bounds every fighter and move field is checked against.

The loaders (:mod:`game.sim.body`, :mod:`game.sim.moves`, :mod:`game.sim.data`) refuse a value
outside these with an :class:`~game.sim.fields.AssetError` naming the field; 60 frames = 1 s.
"""

#: A move's (and a projectile's) height: what a standing or crouching guard stops.
HEIGHTS = ("high", "mid", "low")

#: A move phase, a loop, a stun, a hitstop or a projectile's life: whole frames up to 10 s.
MAX_FRAMES = 600
#: ``max_health`` and a hit's ``damage``.
MAX_HEALTH = 100_000
#: Limbs of a skeleton.
MAX_LIMBS = 64
#: Pose angles, degrees either way.
MAX_ANGLE = 360.0
#: Limb joints, centres and half sizes (m): a body, not a building.
BODY_SIZE = 5.0
#: ``pushbox_radius`` (m): the two circles must fit between the arena walls.
MAX_PUSHBOX = 2.0
#: ``lunge`` and ``pushback`` (m of travel), a jump's height (m).
MAX_TRAVEL = 10.0
#: ``combo_scaling``: at most this many entries (the last one repeats).
MAX_SCALING = 16
#: A projectile's speed (m / frame) and half size (m).
MAX_PROJECTILE_SPEED = 2.0
MAX_PROJECTILE_HALF = 2.0

#: How a frame-count field is described in errors.
FRAMES = f"a whole number of frames from 0 to {MAX_FRAMES}"
