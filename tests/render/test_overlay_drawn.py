"""The debug overlay in pixels (headless EGL): range box edges and A7 points where they project,
method A's marks drawn last, the quadtree cells depth-tested, the colour key, and the state of
the last step (not an interpolated one)."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim import Hit
from glhelp import edge_samples, fresh, game_env, script_punch
from simhelp import FIREBALL, NEUTRAL

#: every test here draws in a headless GL window
pytestmark = pytest.mark.gl

W, H = 640, 360


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


def _project(game, pts):
    from game.render.projection import project

    return project(np.asarray(pts, dtype=float), game.view_proj, W, H)


@pytest.mark.slow
def test_render_A6_overlay_draws_along_a_limb_range_box_edge(env):
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game)
    for _ in range(20):
        game.step()
    off = frame_pixels(game).astype(int)
    game.overlay.enabled = True
    on = frame_pixels(game).astype(int)
    game.overlay.enabled = False
    diff = np.abs(on - off).sum(axis=-1) > 40
    f = game.match.fighters[0]
    box = f.limb_boxes()[f.limb_names.index("torso")]
    hits, total = edge_samples(diff, box, lambda p: _project(game, p), np.linspace(0.2, 0.8, 7))
    assert total > 40
    assert hits / total > 0.8, f"overlay changed only {hits}/{total} samples along the torso box edges"
    # and far from every fighter nothing changed (the overlay only draws what the sim described)
    assert not diff[: H // 6, : W // 8].any()


@pytest.mark.slow
def test_render_A7_overlay_marks_the_collision_point_of_a_contact(env):
    """On the contact frame the overlay draws the A7 collision point (white diamond) where it projects."""
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game, p2="human")
    hit = script_punch(game)
    assert game.match.contacts, "the Hit frame has its contact recorded for the overlay"
    sp = game.sparks
    sp.p, sp.prev_pos, sp.tags = sp.p[:0], sp.prev_pos[:0], sp.tags[:0]
    game.overlay.enabled = True
    on = frame_pixels(game).astype(int)
    game.overlay.enabled = False
    off = frame_pixels(game).astype(int)
    x, y = _project(game, hit.point).round().astype(int)
    patch_on, patch_off = on[y - 4:y + 5, x - 4:x + 5], off[y - 4:y + 5, x - 4:x + 5]
    white = (patch_on.min(axis=-1) > 200) & (np.abs(patch_on - patch_off).sum(axis=-1) > 60)
    assert white.sum() >= 3, f"no collision marker drawn at ({x}, {y})"


def _pixels(game, alpha=1.0):
    from game.render.offscreen import frame_pixels

    return frame_pixels(game, alpha).astype(int)


@pytest.mark.slow
def test_render_A8_overlay_frame_shows_the_simulated_state_not_an_interpolated_one(env):
    """The overlay draws the range boxes of the last step; the bodies under it were drawn
    interpolated between the last two steps (alpha), so in the window they lagged up to a
    frame behind their own boxes.  With the overlay on, the whole frame shows the last step."""
    _, _, game = env
    fresh(game, p1="cpu", p2="cpu", seed=1)
    for _ in range(121):            # both moving (the FIGHT phase has begun)
        game.step()
    assert not game._held
    assert not np.array_equal(_pixels(game, 0.2), _pixels(game, 1.0)), "overlay off: alpha interpolates"
    game.overlay.enabled = True
    try:
        assert np.array_equal(_pixels(game, 0.2), _pixels(game, 1.0))
    finally:
        game.overlay.enabled = False


@pytest.mark.slow
def test_render_overlay_draws_the_judged_projectile_box_on_its_hit_frame(env):
    """On a fireball's hit frame the projectile is gone from the stage: its range box, the one
    A2-A4 judged, is drawn along all its edges (not the A7 point alone)."""

    _, _, game = env
    fresh(game, p2="human")
    m = game.match
    script = {"i": 0}

    def inputs():
        script["i"] += 1
        return (FIREBALL if script["i"] == 3 else NEUTRAL), NEUTRAL

    while m.phase != "fight":
        game.step()
    a, b = m.fighters
    a.x, b.x, a.z, b.z = -1.0, 1.0, 0.0, 0.0
    game.input_source = inputs
    half = m.data.moves["fireball"].projectile.half
    for _ in range(150):
        before = m.stage.projectiles
        game.step()
        if any(isinstance(e, Hit) for e in game.last_events):
            break
    (p,) = before
    c = np.array([p.x + p.vx, p.y, p.z + p.vz])
    pbox = np.array([c - half, c + half])
    sp = game.sparks
    sp.p, sp.prev_pos, sp.tags = sp.p[:0], sp.prev_pos[:0], sp.tags[:0]
    off = _pixels(game)
    game.overlay.enabled = True
    on = _pixels(game)
    game.overlay.enabled = False
    diff = np.abs(on - off).sum(axis=-1) > 40
    hits, total = edge_samples(diff, pbox, lambda p: _project(game, p), np.linspace(0.15, 0.85, 6))
    assert total >= 40
    assert hits / total > 0.9, f"the projectile's box: {hits}/{total} edge samples drawn"


@pytest.mark.slow
def test_render_C1_quadtree_cells_are_hidden_behind_a_fighter_and_drawn_beside_it(env):
    """The overlay's lines have no depth test, so the arena's quadtree grid would cross the
    fighters.  The cells lie on the floor and are depth-tested: a cell edge on the
    floor behind a fighter's thigh is hidden there and still drawn beside the fighter."""
    _, _, game = env
    fresh(game, p2="human")
    for _ in range(100):
        game.step()
    m = game.match
    f = m.fighters[0]
    li = f.limb_names.index("thigh_l")
    box = f.limb_boxes()[li]
    thigh = box.mean(axis=0)
    eye = game.camera.matrices(W / H, 1.0)[2]
    y = 0.012
    hit = eye + (thigh - eye) * (eye[1] - y) / (eye[1] - thigh[1])      # the floor behind the thigh
    across = thigh - eye
    along = np.array([0.0, 0.0, 1.0]) if abs(across[0]) > abs(across[2]) else np.array([1.0, 0.0, 0.0])
    a = [2, 0] if along[2] else [0, 2]                                    # (along, across) x-z lanes
    rect = np.zeros((2, 2))                       # a thin x-z rect: one edge through ``hit``, 6 m long
    rect[:, 0 if a[0] == 0 else 1] = hit[a[0]] - 3.0, hit[a[0]] + 3.0
    rect[:, 0 if a[1] == 0 else 1] = hit[a[1]], hit[a[1]] + 0.02
    def only_the_cell(draw):
        draw.rect_xz(rect, y, "quadtree")

    off = _pixels(game)
    game.overlay.enabled = True
    game.match.debug_draw = only_the_cell
    try:
        on = _pixels(game)
    finally:
        del game.match.debug_draw
        game.overlay.enabled = False
    diff = np.abs(on - off).sum(axis=-1) > 40
    x, yy = _project(game, thigh).round().astype(int)
    assert 3 <= x < W - 3 and 3 <= yy < H - 3
    assert not diff[yy - 2:yy + 3, x - 2:x + 3].any(), "the cell edge shows through the thigh"
    beside = [_project(game, hit + along * d).round().astype(int) for d in (-2.0, -1.5, -1.0, 1.0, 1.5, 2.0)]
    shown = [bool(diff[v - 1:v + 2, u - 1:u + 2].any()) for u, v in beside if 2 <= u < W - 2 and 2 <= v < H - 2]
    assert len(shown) >= 3 and sum(shown) >= len(shown) - 1, f"the cell edge beside the fighter: {shown}"


@pytest.mark.slow
def test_render_overlay_key_shows_every_colour_and_dims_a_hidden_kind(env):
    """F1 shows a key of the overlay's colours in the HUD (there was none: 16 colours to
    guess); a kind hidden by F2-F4 is dimmed and marked off; F1 off hides the key."""
    from game.render.overlay import LEGEND, color_of

    _, _, game = env
    fresh(game)
    for _ in range(20):
        game.step()
    off = _pixels(game)
    assert all(lbl.label.text == "" for lbl in game.hud.ov_legend_lbl)
    game.overlay.enabled = True
    try:
        on = _pixels(game)
        labels = [lbl.label for lbl in game.hud.ov_legend_lbl]
        assert [lb.text for lb in labels] == [label for label, _k in LEGEND]
        s = game.hud.canvas((W, H))[2]

        def swatch(img, lb):
            x, y = (lb.x - 10) * s, H - (lb.y + 5) * s           # the swatch's centre, image rows
            return img[round(y), round(x)]

        there_before = 0
        for lb, (_label, kind) in zip(labels, LEGEND):
            want = np.array(color_of(kind)[:3]) * 255
            assert np.abs(swatch(on, lb) - want).max() <= 24, (kind, swatch(on, lb), want)
            there_before += np.abs(swatch(off, lb) - want).max() <= 24       # the scene's own colour by chance
        assert there_before <= 2
        game.overlay.show["crates"] = False
        dim = _pixels(game)
        for lb, (label, kind) in zip(labels, LEGEND):
            if kind.startswith("crate"):
                assert lb.text == label + " (off)"
                assert swatch(dim, lb).sum() < swatch(on, lb).sum() - 60
            else:
                assert lb.text == label and np.array_equal(swatch(dim, lb), swatch(on, lb))
    finally:
        game.overlay.enabled = False
        game.overlay.show["crates"] = True
    _pixels(game)
    assert all(lbl.label.text == "" for lbl in game.hud.ov_legend_lbl)


@pytest.mark.slow
def test_render_overlay_key_names_the_frame_while_training_is_frozen(env):
    """Frame by frame (training's P / .), the key names the match frame the overlay shows."""
    from game.render.training import TrainingMode

    _, _, game = env
    fresh(game)
    game.training = TrainingMode()
    game.new_match(0)
    game.overlay.enabled = True
    try:
        game.step()
        _pixels(game)
        assert game.hud.ov_head_lbl.label.text == "F1 debug overlay"       # running: no number to chase
        game.training.toggle_freeze()
        game.step()
        _pixels(game)
        assert game.hud.ov_head_lbl.label.text.endswith(f"frame {game.match.frame}")
        game.training.request_step()
        game.step()
        _pixels(game)
        assert game.hud.ov_head_lbl.label.text.endswith(f"frame {game.match.frame}")
    finally:
        game.overlay.enabled = False
        game.training = None


def test_render_overlay_label_behind_the_eye_is_not_drawn_mirrored(env):
    """A text anchor behind the camera projects through w < 0 onto a mirrored spot on screen;
    it gets no label (a ray's visit counts would float at the wrong place)."""
    _, _, game = env
    fresh(game)
    for _ in range(5):
        game.step()
    _pixels(game)
    view, _proj, eye = game.camera.matrices(W / H, 1.0)
    back = eye + view[2, :3] * 3.0                 # the camera looks along -z of its own frame
    front = eye - view[2, :3] * 3.0
    Wc, Hc, _s = game.hud.canvas((W, H))
    col = (1.0, 1.0, 1.0, 1.0)
    assert game.hud._overlay_texts(Wc, Hc, [(front, "front", col)], game.view_proj) == 1
    assert game.hud._overlay_texts(Wc, Hc, [(back, "back", col)], game.view_proj) == 0
    assert game.hud._overlay_texts(Wc, Hc, [(back, "back", col), (front, "front", col)], game.view_proj) == 1
    assert game.hud.texts[0].label.text == "front"


def _logging_casts(scene, log: list):
    """Patch ``scene``'s three casts to append ``(kind, origin, unit dir, reach, t | hit)`` for
    every outermost call (a cast that calls another counts once)."""
    depth = [0]

    def wrap(name, kind):
        inner = getattr(scene, name)

        def cast(origin, direction, max_distance, level=None):
            depth[0] += 1
            try:
                res = inner(origin, direction, max_distance, level=level)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                d = np.asarray(direction, float)
                if kind == "ray_any":       # the sim passes a projectile's step as the direction
                    log.append((kind, np.array(origin, float), d, 1.0, res))
                else:
                    t = getattr(res, "distance", res)
                    log.append((kind, np.array(origin, float), d / np.linalg.norm(d), max_distance, t))
            return res
        setattr(scene, name, cast)

    wrap("cast_any", "ray_any")
    wrap("cast_nearest_distance", "ray_nearest")
    wrap("cast_nearest", "ray_nearest")


def _drawn_rays(game) -> tuple[set, list]:
    """The ray segments the overlay holds (rounded endpoints) and its ray labels."""
    from game.render.overlay import color_of

    ray_colors = (color_of("ray_nearest"), color_of("ray_any"))
    segs = {tuple(np.round(seg, 6).ravel()) for group, c in zip(game.overlay._segs, game.overlay._cols)
            if c in ray_colors for seg in group}
    return segs, [t for _p, t, _c in game.overlay.texts if "rays" in t or "nodes" in t]


@pytest.mark.slow
def test_C6_C8_render_overlay_draws_every_ray_cast_in_a_tick_the_cameras_and_sparks_too(env):
    """Every cast on the scene in a tick is drawn, the simulation's (ground probes, fireball
    paths, the CPU's line of sight) and presentation's: the camera's nearest-hit casts
    (clear view, obstacles either side) and the impact spark's cast where a fireball met a
    wall.  Counted by wrapping the scene's
    casts: a ray cast anywhere and not drawn fails this."""
    _, _, game = env
    fresh(game, p1="cpu", p2="cpu", seed=3)
    log: list = []
    _logging_casts(game.match.stage.scene, log)
    game.overlay.enabled = True
    kinds = {"sim": 0, "camera": 0, "impact": 0}

    def check():
        segs, labels = _drawn_rays(game)
        n_view = len(game.view_rays)
        for kind, o, d, reach, t in log:
            end = o + d * reach if (kind == "ray_any" or t is None) else o + d * t
            assert tuple(np.round(np.stack([o, end]), 6).ravel()) in segs, \
                f"frame {game.match.frame}: a {kind} ray from {o.round(2)} is cast but not drawn"
        assert len(log) == len(game.match.stage.rays) + n_view
        assert (f"presentation: {n_view} rays" in " ".join(labels)) == (n_view > 0)
        kinds["sim"] += len(game.match.stage.rays)
        return n_view

    try:
        for _ in range(400):                        # CPU against CPU: sim and camera rays
            log.clear()
            game.step()
            game.draw(1.0)
            kinds["camera"] += check()
        # a fireball into the east wall, nobody in its way: the spark's cast finds the wall
        fresh(game, p2="human", seed=3)
        log.clear()
        _logging_casts(game.match.stage.scene, log)
        game.overlay.enabled = True
        m = game.match
        while m.phase != "fight":
            game.step()
        a, b = m.fighters
        a.x, a.z, b.x, b.z = 9.0, 0.0, 11.0, 0.0
        script = {"i": 0}

        def inputs():
            script["i"] += 1
            if script["i"] == 8:
                b.x, b.z = 9.0, 6.0                 # out of the fireball's way, once it flies
            return (FIREBALL if script["i"] == 2 else NEUTRAL), NEUTRAL

        game.input_source = inputs
        from game.sim import ProjectileImpact
        for _ in range(120):
            log.clear()
            game.step()
            game.draw(1.0)
            check()
            impacts = [e for e in game.last_events if isinstance(e, ProjectileImpact)]
            if impacts:
                hits = [r for r in game.view_rays if r.point is not None and abs(r.point[0] - 15.0) < 1e-6]
                assert hits, "the impact spark's cast is not among the drawn rays"
                kinds["impact"] += 1
                break
    finally:
        game.overlay.enabled = False
    assert kinds["sim"] > 100 and kinds["camera"] > 100 and kinds["impact"] == 1, kinds
