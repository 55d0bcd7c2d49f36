"""What the window shows for the simulation's events: sparks, chips, dust and camera kicks.

A8's "show the effect at the collision point": after each ``Match.step`` the game hands the
step's events to :func:`show_events`: a hit bursts sparks at its A7 collision point, a
struck crate throws chips (and its break, chunks) from where it was struck, a projectile
stopped by the scene bursts where a nearest-hit cast meets the scene (:func:`impact_point`,
C7-C9), a throw's grab or break and a fireball clash burst where they happened, and the
heavy ones kick the camera.  :func:`throw_landing` puffs dust where a thrown body meets the
floor.  These read the match and its events and change presentation state only (sparks,
debris, camera, the presentation rays kept for the overlay), never the match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from game.sim import CrateStruck, Hit, ProjectileClash, ProjectileImpact, ThrowBreak, ThrowGrab

from .geometry import ray_record

if TYPE_CHECKING:
    from collections.abc import Iterable

    from game.sim import Match
    from game.sim.debug import RayRecord

    from .camera import FightCamera
    from .crates import Debris
    from .sparks import Sparks


def show_events(events: Iterable[object], match: Match, sparks: Sparks, debris: Debris, camera: FightCamera,
                view_rays: list[RayRecord]) -> bool:
    """Start the effects of one step's ``events`` (in their order).  Returns True when the
    last crate strike left its crate standing: its new mesh is then built on the next frame
    (``WorldRenderer.sync_crates``' ``defer``), which already pays for the strike."""
    defer_crates = False
    for e in events:
        if isinstance(e, Hit):
            sparks.spawn(e)
            if e.heavy:
                camera.kick(0.02 if e.blocked else 0.055)
        elif isinstance(e, CrateStruck):
            stage = match.stage
            assert stage is not None, "a CrateStruck event comes only from a match on the arena"
            sparks.burst(e.point, e.frame, "crate", big=e.broke)
            debris.strike(e, stage.crates[e.crate], match.fighters[e.fighter].position)
            defer_crates = not e.broke
            if e.broke:
                camera.kick(0.03)
        elif isinstance(e, ProjectileImpact):
            sparks.burst(impact_point(match, e, view_rays), e.frame, "impact")
        elif isinstance(e, (ThrowGrab, ThrowBreak)):    # the hands take hold, or are knocked apart
            sparks.burst(e.point, e.frame, "impact")
        elif isinstance(e, ProjectileClash):            # both fireballs burst where they met
            sparks.burst(e.point, e.frame, "impact", big=True)
    return defer_crates


def impact_point(match: Match, e: ProjectileImpact, view_rays: list[RayRecord]) -> np.ndarray:
    """Where a projectile's blocked path meets the scene ``(3,)`` float: presentation asks the
    nearest hit (C7) along the segment the sim found blocked (C8 any-hit), at the
    projectile's logic level (C9) as the sim did; the cast is added to ``view_rays`` for the
    overlay.  A projectile stopped by its range box on a crate's small box (a hole smaller
    than it, B7) carries its A7 point: there."""
    if getattr(e, "point", None) is not None:
        return np.asarray(e.point, float)
    start, end = np.asarray(e.start, float), np.asarray(e.end, float)
    stage = getattr(match, "stage", None)
    d = end - start
    length = float(np.linalg.norm(d))
    if stage is not None and length > 1e-9:
        hit = stage.scene.cast_nearest(start, d / length, length, level=e.level)
        view_rays.append(ray_record(stage.scene, start, d / length, length,
                                    None if hit is None else hit.distance))
        if hit is not None:
            return np.asarray(hit.point, float)
    return end


def throw_landing(match: Match, sparks: Sparks, camera: FightCamera) -> None:
    """A thrown body hitting the floor (frame ``throw.lands`` of its animation, read from the
    match after the step): a puff of dust under its hips and a small camera kick."""
    t = match.data.throw
    if t is None:
        return
    for f in match.fighters:
        if f.state == "thrown" and t.frames - f.stun == t.lands:
            hips = f.limb_boxes()[0].mean(axis=0)           # limb 0: the skeleton's root (the hips)
            sparks.burst((hips[0], f.ground_y + 0.05, hips[2]), match.frame * 2 + f.index, "dust")
            camera.kick(0.03)
