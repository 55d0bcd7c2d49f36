"""What the CPU knows of the fighter data: attack reaches, the projectile's lanes, a jump's heights.

Each is measured once per data set by posing a fighter at the origin facing +x (the same
skeleton the match poses), so the CPU's spacing follows the move tables instead of numbers
written by hand.  The results are cached per :class:`~game.sim.data.GameData` (hashed by
identity): the rules call them every frame.
"""

from __future__ import annotations

import functools

import numpy as np

from ..data import GameData, Move

#: The match's walking and stepping speeds (m / frame), which the CPU plans with.
WALK_FWD = 0.045
WALK_BACK = 0.034
#: A sidestep frame (the match's SIDESTEP) and a forward jump's travel (its JUMP_DRIFT).
SIDESTEP = 0.040
JUMP_DRIFT = 0.035
#: A jump over a projectile is timed this many frames inside the window that clears it, each end.
JUMP_MARGIN = 1


@functools.lru_cache(maxsize=4)
def move_reach(data: GameData) -> dict[str, tuple[float, float]]:
    """For each attack: (reach, lowest hit height) of its hitting limbs over the
    active frames, measured by posing a fighter at the origin facing +x."""
    sk = data.skeleton
    out = {}
    for name, mv in data.moves.items():
        if not mv.hit_limbs or not mv.active:
            continue
        frames = range(mv.startup, mv.startup + mv.active)
        local = np.stack([mv.rot[f] for f in frames])
        n = len(local)
        _, _, boxes = sk.pose(np.zeros((n, 3)), np.tile([1.0, 0.0], (n, 1)), local, np.zeros(n))
        hit = boxes[:, list(mv.hit_limbs)]
        out[name] = (float(hit[:, :, 1, 0].max() + mv.advance.sum()), float(hit[:, :, 0, 1].min()))
    return out


@functools.lru_cache(maxsize=4)
def longest_reach(data: GameData) -> float:
    """The reach of the longest attack (m), from :func:`move_reach`."""
    return max(r for r, _ in move_reach(data).values())


@functools.lru_cache(maxsize=4)
def body_front(data: GameData) -> float:
    """How far ahead of a standing fighter's centre its frontmost limb reaches (m): an attack
    whose reach (:func:`move_reach`) is this much short of the distance between the two
    centres strikes nothing."""
    _, _, boxes = data.skeleton.pose(np.zeros((1, 3)), np.array([[1.0, 0.0]]), data.pose_rot["stance"][None],
                                     np.zeros(1))
    return float(boxes[0, :, 1, 0].max())


@functools.lru_cache(maxsize=4)
def projectile_move(data: GameData) -> Move | None:
    """The move that launches a projectile (the fireball), or None."""
    return next((m for m in data.moves.values() if m.projectile is not None), None)


@functools.lru_cache(maxsize=4)
def projectile_lanes(data: GameData) -> tuple[float, float, float]:
    """``(ahead, front, clear)``: :func:`projectile_geometry` without the flying height."""
    return projectile_geometry(data)[:3]


@functools.lru_cache(maxsize=4)
def projectile_geometry(data: GameData) -> tuple[float, float, float, float]:
    """``(ahead, front, clear, y)`` (m) for the projectile move, measured like :func:`move_reach`:
    how far ahead of its thrower a projectile starts (its limb's box centre at launch, 0.2 m
    on, after the lunge); how far ahead of a standing fighter's centre it strikes (the
    frontmost of the stance's limbs at its flying height, plus the projectile's half size);
    how far to the side of its path a fighter's centre must be for it to fly past (the
    widest of those limbs plus the half size); and how high above its thrower's ground it
    flies (its launch height).  ValueError when the data has no projectile move."""
    sk = data.skeleton
    mv = projectile_move(data)
    if mv is None or mv.projectile is None:
        raise ValueError("projectile_geometry: the move table has no projectile move")
    spec = mv.projectile
    local = np.stack([mv.rot[mv.startup], data.pose_rot["stance"]])
    _, _, boxes = sk.pose(np.zeros((2, 3)), np.tile([1.0, 0.0], (2, 1)), local, np.zeros(2))
    ahead = float(boxes[0, spec.limb, :, 0].mean() + 0.2 + mv.advance[:mv.startup].sum())
    y = float(boxes[0, spec.limb, :, 1].mean())                 # it flies level, at its launch height
    body = boxes[1][(boxes[1, :, 0, 1] <= y + spec.half) & (boxes[1, :, 1, 1] >= y - spec.half)]
    front = float(body[:, 1, 0].max() + spec.half)
    clear = float(np.abs(body[:, :, 2]).max() + spec.half)
    return ahead, front, clear, y


@functools.lru_cache(maxsize=4)
def jump_heights(data: GameData) -> tuple[float, ...]:
    """The lowest limb's height above the ground on each frame of a jump (the move's ``air``:
    the match sets the body's lowest corner there), counted from the frame it is pressed (0)."""
    return tuple(float(h) for h in data.moves["jump"].air)


@functools.lru_cache(maxsize=64)
def clear_frames(data: GameData, top: float) -> tuple[int, int]:
    """``(first, last)`` frames of a jump whose lowest limb is above ``top`` (m), each
    :data:`JUMP_MARGIN` frames further in; ``first > last`` when there is no such frame."""
    over = [j for j, h in enumerate(jump_heights(data)) if h > top]
    if not over:
        return 1, 0
    return over[0] + JUMP_MARGIN, over[-1] - JUMP_MARGIN
