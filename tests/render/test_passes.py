"""The line pass's frustum cull (game/render/passes.py) against a per-segment reference."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.gl  # game.render.passes loads pyglet.gl
def test_render_overlay_culling_keeps_every_visible_segment():
    """The line pass's frustum cull against a per-segment reference (sampled points on screen)."""
    from game.render.camera import FightCamera
    from game.render.passes import cull_segments

    rng = np.random.default_rng(4)
    segs = rng.uniform([-15, 0, -15], [15, 4, 15], size=(400, 2, 3))
    cols = rng.random((400, 4))
    cam = FightCamera()
    view, proj, _ = cam.matrices(16 / 9)
    vp = proj @ view
    kept, kcols = cull_segments(segs, cols, vp)
    kept_set = {s.tobytes() for s in kept}
    for s in segs:          # reference: a segment with any sampled point inside the view must be kept
        pts = s[0] + (s[1] - s[0]) * np.linspace(0, 1, 200)[:, None]
        h = np.concatenate([pts, np.ones((200, 1))], axis=1) @ vp.T
        inside = (h[:, 3] > 0.05) & (np.abs(h[:, 0]) <= h[:, 3]) & (np.abs(h[:, 1]) <= h[:, 3])
        if inside.any():
            assert s.tobytes() in kept_set
    assert len(kept) < len(segs) and len(kcols) == len(kept)
