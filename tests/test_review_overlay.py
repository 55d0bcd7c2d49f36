"""The debug overlay as a collision engineer studies with it: every contact drawn as
method A judged it (A2-A4 judgement points and overlap box, A7 collision point) for
limbs, crates, projectiles and clashes; the rays the simulation cast this frame, each
up to its nearest hit; a colour key; and a picture that shows the simulation's own state.

Expectations are computed from the simulation's state (boxes, events, the rays it cast)
with plain per-axis references, and in pixels through the renderer's own matrices.
"""

from __future__ import annotations

import itertools
import math
import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import numpy as np
import pytest
from glhelp import edge_samples, fresh, game_env

from game.sim import CrateStruck, FrameInput, Hit, Match, ProjectileClash
from game.sim.debug import RecordingDraw

from simhelp import NEUTRAL, placed, to_fight

FIREBALL = FrameInput(lp=True, hp=True)
W, H = 640, 360


# ---------------------------------------------------------------- references
def _j(a, b):
    """A2, A3 per axis in Python floats: ``(j1, j2)`` of boxes ``a``, ``b`` (2, 3)."""
    a, b = np.asarray(a, float).tolist(), np.asarray(b, float).tolist()
    return ([max(a[0][i], b[0][i]) for i in range(3)], [min(a[1][i], b[1][i]) for i in range(3)])


def _centre(box):
    box = np.asarray(box, float).tolist()
    return [(box[0][i] + box[1][i]) / 2 for i in range(3)]


def _a7(a, b):
    """A7 by its definition: ``c1 + (c2 - c1) d1 / (d1 + d2)``, d the diagonal length."""
    c1, c2 = _centre(a), _centre(b)
    d1, d2 = (math.dist(np.asarray(x, float)[0].tolist(), np.asarray(x, float)[1].tolist()) for x in (a, b))
    t = d1 / (d1 + d2) if d1 + d2 > 0 else 0.5
    return [c1[i] + (c2[i] - c1[i]) * t for i in range(3)]


def _one_contact(rec: RecordingDraw, a, b, point) -> None:
    """``rec`` holds exactly one contact, of boxes ``a`` and ``b`` at the sim's ``point``:
    j1, j2, the overlap box [j1, j2], the centre segment and the collision point on it."""
    j1, j2 = _j(a, b)
    (ov,), = rec.of("box", "overlap")
    assert np.array_equal(ov, [j1, j2]), "the overlap box is [j1, j2] of the two judged boxes (A4)"
    assert [d[0].tolist() for d in rec.of("point", "j1")] == [j1]
    assert [d[0].tolist() for d in rec.of("point", "j2")] == [j2]
    (c1, c2), = rec.of("segment", "centres")
    assert np.allclose(c1, _centre(a), atol=1e-12) and np.allclose(c2, _centre(b), atol=1e-12)
    (p,), = rec.of("point", "collision")
    assert np.array_equal(p, point), "the collision point drawn is the simulation's own"
    assert np.allclose(p, _a7(a, b), atol=1e-9), "and it splits the centre segment by the diagonals (A7)"


def _place(m, p1, p2):
    for f, (x, z) in zip(m.fighters, (p1, p2)):
        f.x, f.z = float(x), float(z)
    m.step(NEUTRAL, NEUTRAL)


def _crate_strike() -> tuple[Match, CrateStruck]:
    """P1 punches crate_north from just far enough that the fist ends in its wall (not past
    it, where the strike is traced back to the wall); the match on the strike's frame."""
    m = Match.new(seed=0)
    to_fight(m)
    _place(m, (0.0, 3.6), (0.0, 8.0))
    m.step(FrameInput(hp=True), NEUTRAL)
    for _ in range(40):
        struck = [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, CrateStruck)]
        if struck:
            return m, struck[0]
    raise AssertionError("the scripted straight never reached the crate")


def _fireball_hit(m: Match):
    """P1 throws at a standing P2; ``(hit, judged projectile box)`` on the hit's frame."""
    half = m.data.moves["fireball"].projectile.half
    for i in range(150):
        before = m.stage.projectiles
        hits = [e for e in m.step(FIREBALL if i == 5 else NEUTRAL, NEUTRAL) if isinstance(e, Hit)]
        if hits:
            (p,) = before
            c = np.array([p.x + p.vx, p.y, p.z + p.vz])
            return hits[0], np.array([c - half, c + half])
    raise AssertionError("the fireball never landed")


# ---------------------------------------------------------------- contacts (sim side)
def test_A2_A4_A7_B1_overlay_crate_strike_draws_the_overlap_not_the_struck_slab_as_overlap():
    """A limb striking a crate: the overlay called the whole struck small box the 'overlap'
    (a 84 x 134 cm yellow box for a fist's few centimetres) and drew no j1 / j2 and no centre
    segment.  Now: the struck box as judged ('crate_struck'; the strike has re-split it) and
    the contact as for limbs."""
    m, e = _crate_strike()
    (atk, k, _c, box, point), = m.crate_contacts
    limb = m.fighters[atk].limb_boxes()[k]
    rec = RecordingDraw()
    m.debug_draw(rec)
    assert [d[0].tolist() for d in rec.of("box", "crate_struck")] == [np.asarray(box).tolist()]
    assert not any(np.array_equal(d[0], box) for d in rec.of("box", "overlap"))
    _one_contact(rec, limb, box, point)
    assert np.array_equal(point, e.point)


def test_A2_A4_A7_overlay_projectile_hit_draws_the_projectile_box_as_judged_and_the_contact():
    """A fireball landing: it is gone from the stage by the end of the frame, so the overlay
    drew a lone collision point with neither of its boxes' overlap, j1, j2 or centre line."""
    m = placed(2.0)
    hit, pbox = _fireball_hit(m)
    assert hit.move == "fireball" and not m.stage.projectiles
    limb = m.fighters[1].limb_boxes()[m.fighters[1].limb_names.index(hit.struck_limb)]
    rec = RecordingDraw()
    m.debug_draw(rec)
    drawn = [d[0] for d in rec.of("box", "hit")]
    assert any(np.allclose(b, pbox, atol=1e-12) for b in drawn), "the projectile's box as judged"
    _one_contact(rec, pbox, limb, hit.point)


def test_A2_A4_A7_overlay_projectile_clash_draws_both_boxes_and_the_clash_point():
    """Two fireballs meeting cancel at the A7 point of their boxes (ProjectileClash): the
    overlay drew nothing of it (both are gone on that frame)."""
    m = placed(4.0)
    half = m.data.moves["fireball"].projectile.half
    for i in range(150):
        before = m.stage.projectiles
        clash = [e for e in m.step(FIREBALL if i == 5 else NEUTRAL, FIREBALL if i == 5 else NEUTRAL)
                 if isinstance(e, ProjectileClash)]
        if clash:
            break
    assert clash and len(before) == 2
    boxes = [np.array([[p.x + p.vx - half, p.y - half, p.z + p.vz - half],
                       [p.x + p.vx + half, p.y + half, p.z + p.vz + half]]) for p in before]
    rec = RecordingDraw()
    m.debug_draw(rec)
    drawn = [d[0] for d in rec.of("box", "hit")]
    for b in boxes:
        assert any(np.allclose(d, b, atol=1e-12) for d in drawn)
    _one_contact(rec, boxes[0], boxes[1], clash[0].point)
    m.step(NEUTRAL, NEUTRAL)                    # and only on its frame
    rec = RecordingDraw()
    m.debug_draw(rec)
    assert not rec.of("point", "collision")


def test_C6_C8_overlay_shows_exactly_the_rays_cast_this_frame_each_up_to_its_nearest_hit():
    """The rays drawn are the simulation's casts of this very frame (ground probes as P2 walks,
    the fireball's any-hit path).  A nearest-hit ray (C7) is drawn up to its hit and the rest
    of its reach apart ('ray_beyond'): it used to run on 4 m under the floor in the ray's
    colour, and the line down to the screen's edge read as part of the ray."""
    m = placed(6.0)
    scene = m.stage.scene
    casts: list = []
    cast_any, cast_near = scene.cast_any, scene.cast_nearest_distance

    def any_(origin, direction, max_distance, level=None):
        casts.append(("ray_any", np.array(origin, float), np.array(direction, float), max_distance, None))
        return cast_any(origin, direction, max_distance, level=level)

    def near(origin, direction, max_distance, level=None):
        t = cast_near(origin, direction, max_distance, level=level)
        casts.append(("ray_nearest", np.array(origin, float), np.array(direction, float), max_distance, t))
        return t

    scene.cast_any, scene.cast_nearest_distance = any_, near
    seen = {"ray_any": 0, "ray_nearest": 0}
    for i in range(40):
        casts.clear()
        m.step(FIREBALL if i == 2 else NEUTRAL, FrameInput(back=i > 5))
        rec = RecordingDraw()
        m.debug_draw(rec)
        drawn = [(k, d) for _m, k, d in rec.calls if k in ("ray_any", "ray_nearest")]
        assert [k for k, _ in drawn] == [c[0] for c in casts], f"frame {m.frame}: drawn rays != cast rays"
        beyond = iter(rec.of("segment", "ray_beyond"))
        for (kind, (a, b)), (_k, o, d, reach, t) in zip(drawn, casts):
            u = d / np.linalg.norm(d)
            assert np.allclose(a, o)
            if kind == "ray_any":
                assert np.allclose(b, o + d)            # a projectile's step: direction = the step
            elif t is None:
                assert np.allclose(b, o + u * reach)
            else:
                assert np.allclose(b, o + u * t), "a nearest ray ends at its hit"
                rest = next(beyond)
                assert np.allclose(rest[0], b) and np.allclose(rest[1], o + u * reach)
            seen[kind] += 1
        assert next(beyond, None) is None
    assert seen["ray_any"] >= 3 and seen["ray_nearest"] >= 3


# ---------------------------------------------------------------- overlay (render side, no GL)
def test_render_overlay_draws_method_A_marks_last_and_only_the_floor_grid_depth_tested():
    """No depth test for the lines: what comes last is on top.  The quadtree cells and crate
    slabs came after the fighters' boxes and contact marks (the arena's grid crossed the
    collision point); now the order is by layer, the A7 point last, and the quadtree cells
    (first) are the part the line pass depth-tests."""
    from game.render.overlay import DebugOverlay, color_of

    m = placed(2.0)
    _fireball_hit(m)
    ov = DebugOverlay()
    m.debug_draw(ov)
    cols = ov.colors()[:, :3]

    def where(kind):
        return np.flatnonzero((np.abs(cols - color_of(kind)[:3]) < 1e-9).all(axis=1))

    quad, slab, hurt, ray = where("quadtree"), where("crate_slab"), where("hurt"), where("ray_any")
    marks = np.concatenate([where(k) for k in ("overlap", "j1", "j2", "collision")])
    assert len(quad) and len(slab) and len(hurt) and len(ray) and len(marks)
    assert quad.max() < slab.min() and slab.max() < hurt.min() and hurt.max() < ray.min() < marks.min()
    assert where("collision").min() == len(cols) - len(where("collision"))      # the A7 point last
    assert ov.in_scene() == len(quad) and quad.max() == len(quad) - 1


def test_render_overlay_legend_names_every_colour_drawn_and_its_colours_differ():
    """The HUD key (F1) covers every kind a frame draws (limb, crate, projectile contacts,
    rays, quadtree), and no two of its colours are alike: j2 was a crate slab's orange, the
    centre line the interaction region's pale yellow, the any-hit mark j1's magenta."""
    from game.render.overlay import LEGEND, DebugOverlay, color_of

    key = {tuple(color_of(k)[:3]) for _label, k in LEGEND}
    assert len(key) == len(LEGEND)
    for a, b in itertools.combinations(key, 2):
        assert np.abs(np.subtract(a, b)).max() >= 0.2, (a, b)
    kinds = set()
    m, _ = _crate_strike()
    for frame in range(3):
        rec = RecordingDraw()
        m.debug_draw(rec)
        kinds |= {k for meth, k, _d in rec.calls if meth != "text"}
        m.step(NEUTRAL, NEUTRAL)
    m = placed(2.0)
    for _ in range(4):                           # P2 steps back: ground probes (nearest hits)
        m.step(NEUTRAL, FrameInput(back=True))
        rec = RecordingDraw()
        m.debug_draw(rec)
        kinds |= {k for meth, k, _d in rec.calls if meth != "text"}
    _fireball_hit(m)
    rec = RecordingDraw()
    m.debug_draw(rec)
    kinds |= {k for meth, k, _d in rec.calls if meth != "text"}
    assert {"hurt", "hit", "overlap", "j1", "j2", "collision", "crate_slab", "crate_struck", "quadtree",
            "ray_any", "ray_nearest"} <= kinds
    for k in kinds:
        assert tuple(color_of(k)[:3]) in key, f"{k!r} has no row in the overlay's key"
    ov = DebugOverlay()
    ov.show["crates"] = False
    rows = ov.legend()
    assert [r[0] for r in rows] == [label for label, _k in LEGEND]
    assert [r[2] for r in rows] == [not k.startswith("crate") for _label, k in LEGEND]


# ---------------------------------------------------------------- in pixels (headless GL)
@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


def _pixels(game, alpha=1.0):
    from game.render.offscreen import frame_pixels

    return frame_pixels(game, alpha).astype(int)


def _project(game, pts):
    from game.render.projection import project

    return project(np.asarray(pts, dtype=float), game.view_proj, W, H)


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


def test_render_overlay_draws_the_judged_projectile_box_on_its_hit_frame(env):
    """On a fireball's hit frame the projectile is gone from the stage: its range box, the one
    A2-A4 judged, is drawn along all its edges (it was missing, the A7 point drawn alone)."""

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
    game.sparks.p, game.sparks.prev_pos = game.sparks.p[:0], game.sparks.prev_pos[:0]
    off = _pixels(game)
    game.overlay.enabled = True
    on = _pixels(game)
    game.overlay.enabled = False
    diff = np.abs(on - off).sum(axis=-1) > 40
    hits, total = edge_samples(diff, pbox, lambda p: _project(game, p), np.linspace(0.15, 0.85, 6))
    assert total >= 40
    assert hits / total > 0.9, f"the projectile's box: {hits}/{total} edge samples drawn"


def test_render_C1_quadtree_cells_are_hidden_behind_a_fighter_and_drawn_beside_it(env):
    """The overlay's lines have no depth test, so the whole arena's quadtree grid crossed
    the fighters.  The cells lie on the floor and are now depth-tested: a cell edge on the
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
    it gets no label (a ray's visit counts used to float at the wrong place)."""
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


def test_C6_C8_render_overlay_draws_every_ray_cast_in_a_tick_the_cameras_and_sparks_too(env):
    """Every cast on the scene in a tick is drawn, the simulation's (ground probes, fireball
    paths, the CPU's line of sight) and presentation's: the camera's nearest-hit casts
    (clear view, obstacles either side) and the impact spark's cast where a fireball met a
    wall.  Before, only the simulation's rays were drawn.  Counted by wrapping the scene's
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
        for _ in range(200):                        # CPU against CPU: sim and camera rays
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
