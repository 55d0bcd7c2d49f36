"""A struck crate's hole as the player sees it: the real fight camera, ``Game.draw``, headless GL.

The pixels where the struck face is open (no small box of the compound there, B4/B7) are
compared with the pixels of the face around them (the compound's boxes), both projected with
the matrices the frame was drawn with: a hole seen edge-on, or dithered away by the fade of
an obstacle in front of a fighter, has no clear contrast with its face.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import numpy as np
import pytest

from game.sim import CrateStruck, FrameInput

W, H = 960, 540
NEUTRAL = FrameInput()
STEP = 0.02                  # m between samples on the struck face
EDGE = 0.04                  # m a sample keeps from the hole's rim, either side


@pytest.fixture(scope="module")
def env():
    from glhelp import game_env

    yield from game_env(W, H, p1="human", p2="human")


def in_fight(g, p1_xz, p2_xz):
    """A fresh match in its FIGHT phase, P1 and P2 at the given x-z points, inputs scripted
    through ``g.script`` (P1's, P2 stands)."""
    from glhelp import fresh

    fresh(g, p1="human", p2="human")
    g.script = [NEUTRAL]
    g.input_source = lambda: (g.script[0], NEUTRAL)
    while g.match.phase != "fight":
        g.step()
    for f, (x, z) in zip(g.match.fighters, (p1_xz, p2_xz)):
        f.x, f.z = float(x), float(z)
    for _ in range(100):                    # the camera settles on the new places, FIGHT! gone
        g.step()


def blow(g, button: str, hold: int = 40) -> list:
    """P1 presses ``button`` (``down+hk``: the sweep) and the move plays out: its CrateStruck events."""
    press = FrameInput(down=True, hk=True) if button == "down+hk" else FrameInput(**{button: True})
    g.script[0] = press
    g.step()
    events = list(g.last_events)
    g.script[0] = NEUTRAL
    for _ in range(hold):
        g.step()
        events += g.last_events
    return [e for e in events if isinstance(e, CrateStruck)]


def face_samples(crate, eye, limb_boxes):
    """World points on the crate's south face (its outer plane), split into ``open`` (no small
    box behind them, at least ``EDGE`` from any box) and ``solid`` (inside a box, at least
    ``EDGE`` from the hole), without those a fighter's limb stands in front of."""
    from game.render.occluders import occluding

    comp = crate.compound
    (x0, y0, z0), (x1, y1, _z1) = comp.bounds.tolist()
    z = z0 + 0.5 * comp.thickness
    boxes = np.asarray(comp.boxes)
    xs = np.arange(x0 + STEP / 2, x1, STEP)
    ys = np.arange(y0 + STEP / 2, y1, STEP)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], axis=1)

    def covered(p):
        return ((boxes[None, :, 0] <= p[:, None]) & (p[:, None] <= boxes[None, :, 1])).all(axis=2).any(axis=1)

    shifts = [np.array([dx, dy, 0.0]) for dx in (-EDGE, 0.0, EDGE) for dy in (-EDGE, 0.0, EDGE)]
    cov = np.stack([covered(pts + s) for s in shifts])
    open_, solid = ~cov.any(axis=0), cov.all(axis=0)
    pts[:, 2] = z0
    seen = np.array([not occluding(eye, p[None], limb_boxes).any() for p in pts])
    return pts[open_ & seen], pts[solid & seen]


def pixel_colours(img, g, pts) -> tuple[np.ndarray, int]:
    """The colours ``(n, 3)`` at the pixels of world points ``pts`` (those inside the frame)
    and how many distinct pixels they are."""
    from game.render.projection import project

    xy = np.round(project(pts, g.view_proj, W, H)).astype(int)
    inside = (xy[:, 0] >= 0) & (xy[:, 0] < W) & (xy[:, 1] >= 0) & (xy[:, 1] < H)
    xy = xy[inside]
    return img[xy[:, 1], xy[:, 0]].astype(float), len({(int(x), int(y)) for x, y in xy})


@pytest.mark.gl
@pytest.mark.slow
@pytest.mark.parametrize("p2_z, hidden", [(6.9, False), (6.3, True)])
def test_render_B4_B5_a_crate_struck_three_times_shows_its_hole_to_the_fight_camera(env, p2_z, hidden):
    """P1 walks up to crate_north (P2 waits behind it, as a player strikes a crate toward the
    opponent) and strikes it three times, a jab, a front kick and a straight; then a frame is
    drawn as the window draws it.  The struck face is seen at an angle, not edge-on; the open
    part of it covers enough distinct pixels to be seen, and reads clearly darker than the
    planks around it.  With P2 close behind the crate, the crate fades (it hides part of P2)
    only over P2: the hole beside P2 stays as dark as ever."""
    from game.render.offscreen import frame_pixels

    _, _, g = env
    in_fight(g, (0.0, 3.0), (0.0, p2_z))
    g.script[0] = FrameInput(forward=True)
    for _ in range(45):                     # into the crate: the pushbox stops P1 at its face
        g.step()
    g.script[0] = NEUTRAL
    struck = []
    for button in ("lp", "lk", "hp"):
        struck += blow(g, button)
    i = next(i for i, c in enumerate(g.match.stage.crates) if c.obj.name == "crate_north")
    crate = g.match.stage.crates[i]
    assert len([e for e in struck if e.crate == i]) == 3 and not crate.broken, struck
    for _ in range(90):                     # chips settled and gone, the camera settled
        g.step()
    fading = g.occluders.amount[g._fade_names.index("crate_north")]
    assert fading == (1.0 if hidden else 0.0), f"crate_north's fade: {fading}"
    img = frame_pixels(g)
    eye = g.camera.current[0]
    # the face looks toward the eye (its outward normal is -z), not edge-on: at least 20 degrees
    centre = np.array([0.0, 0.75, crate.compound.bounds[0, 2]])
    to_eye = (eye - centre) / np.linalg.norm(eye - centre)
    assert -to_eye[2] > np.sin(np.radians(20)), f"the struck face is seen edge-on or from behind: eye {eye}"
    limbs = np.concatenate([f.limb_boxes() for f in g.match.fighters])
    holes, face = face_samples(crate, eye, limbs)
    hole_rgb, hole_px = pixel_colours(img, g, holes)
    face_rgb, face_px = pixel_colours(img, g, face)
    assert hole_px >= 150, f"the hole covers only {hole_px} pixels: seen edge-on, or hidden"
    assert face_px >= 150
    hole_mean, face_mean = hole_rgb.mean(axis=0), face_rgb.mean(axis=0)
    # the struck (south) face is in shade from the fight camera: the contrast is a ratio, the
    # face at least three times as bright as the hole, and a clear step in brightness too
    clear = face_mean.sum() >= 3 * hole_mean.sum() and face_mean.sum() - hole_mean.sum() > 90
    assert clear, f"no clear contrast: hole {hole_mean}, face {face_mean}"
    # the open part is open throughout, not a dither of the face: its pixels are dark, each one
    assert np.percentile(hole_rgb.sum(axis=1), 90) < np.percentile(face_rgb.sum(axis=1), 10)
