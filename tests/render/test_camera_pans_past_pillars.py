"""The fight camera panning past a pillar (no GL): a view turning toward a clear goal view,
whose way passes behind pillar_en, looks through the pillar for those frames rather than
cutting in front of it and out again."""

from __future__ import annotations

import numpy as np

from game.collision import Compound
from game.render.camera import FightCamera
from game.render.geometry import camera_obstacles, camera_ray, load_scene_arena
from game.sim import FrameInput, Match
from game.sim.arena import CRATE_WALL
from simhelp import NEUTRAL, to_fight


def test_render_C7_camera_panning_behind_a_pillar_toward_a_clear_view_makes_no_cut():
    """P1 sidesteps round P2 (1 - 1.5 m apart, beside the barrel, pillar_en 2 m off) for 200
    frames; the view lags behind the fighters' turning line, and its way to the (clear) goal
    view passes behind pillar_en.  The eye moves at most 0.5 m and the view turns at most
    5 degrees in a frame, and the eye is never inside the pillar."""
    m = Match.new(seed=0)
    to_fight(m)
    st = m.stage
    for c in st.crates:                    # the barrel as the game builds it: its own box (B6)
        if c.obj.kind == "barrel" and not np.array_equal(c.compound.bounds, c.obj.aabb):
            c.compound = Compound.from_box(c.obj.aabb, CRATE_WALL)
            st._rebuild_group()
            st._refresh_obstacles()
    for f, (x, z) in zip(m.fighters, ((3.5, 7.0), (5.0, 7.0))):
        f.x, f.z = x, z
    m.step(NEUTRAL, NEUTRAL)
    f1, f2 = m.fighters
    arena = load_scene_arena()
    cam = FightCamera(f1.position, f2.position, obstacles=camera_obstacles(arena), ray=camera_ray(st.scene))
    cam.aspect = 16 / 9
    pillar = next(o for o in arena.objects if o.name == "pillar_en").aabb
    inset = np.array([0.2, 0.0, 0.2])          # the octagon inside its box
    eyes, fwd = [], []
    for _ in range(200):
        m.step(FrameInput(side_l=True), NEUTRAL)
        cam.update(f1.position, f2.position, m.frame, None)
        eye, tgt = cam.eye_target()
        eyes.append(eye)
        fwd.append((tgt - eye) / np.linalg.norm(tgt - eye))
        assert not ((pillar[0] + inset < eye) & (eye < pillar[1] - inset)).all(), "the eye in the pillar"
    move = np.linalg.norm(np.diff(eyes, axis=0), axis=1)
    turn = np.degrees(np.arccos(np.clip((np.array(fwd[1:]) * np.array(fwd[:-1])).sum(axis=1), -1.0, 1.0)))
    assert move.max() < 0.5, f"the eye jumped {move.max():.2f} m on frame {int(move.argmax()) + 1}"
    assert turn.max() < 5.0, f"the view turned {turn.max():.1f} degrees on frame {int(turn.argmax()) + 1}"
