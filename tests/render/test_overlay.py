"""The debug overlay's content (game/render/overlay.py, no GL): every contact as method A judged it
(A2-A4 judgement points and overlap box, A7 point) for limbs, crates, projectiles and clashes,
the rays the simulation cast this frame, the crate's last strike (B2, B5), and a colour for
every kind, against what the match describes (``game.sim.debug.RecordingDraw``)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from game.sim import CrateStruck, FrameInput, Hit, Match, ProjectileClash
from game.sim.debug import RecordingDraw
from simhelp import FIREBALL, NEUTRAL, placed, to_fight


# ---------------------------------------------------------------- overlay
def test_render_overlay_implements_the_debug_draw_protocol_and_filters_by_prefix():
    from game.render.overlay import DEFAULT_COLOR, DebugOverlay, color_of
    from game.sim.debug import DebugDraw

    ov = DebugOverlay()
    for name in ("box", "point", "segment", "quad", "rect_xz", "text"):
        assert callable(getattr(ov, name)) and hasattr(DebugDraw, name)
    ov.box(np.array([[0, 0, 0], [1, 2, 3]]), "hurt")
    ov.box(np.array([[0, 0, 0], [1, 1, 1]]), "crate_slab")
    ov.point(np.zeros(3), "collision")
    ov.segment(np.zeros(3), np.ones(3), "ray_nearest")
    ov.quad(np.eye(4, 3), "crate_face")
    ov.rect_xz(np.array([[0, 0], [1, 1]]), 0.0, "quadtree")
    ov.text(np.zeros(3), "hello", "label")
    ov.box(np.array([[0, 0, 0], [1, 1, 1]]), "something_new")
    segs = ov.segments()
    assert len(segs) == 12 + 12 + 7 + 1 + 4 + 4 + 12 and len(ov.colors()) == len(segs)
    assert color_of("something_new") == DEFAULT_COLOR and color_of("crate_slab") == color_of("crate")
    hurt = segs[(ov.colors() == color_of("hurt")).all(axis=1)]     # drawn in layer order: found by colour
    assert (hurt.reshape(-1, 3).max(axis=0) == [1, 2, 3]).all()
    from game.render.overlay import box_edges
    assert np.allclose(hurt, box_edges(np.array([[0, 0, 0], [1, 2, 3]])))        # batched == per-box reference
    ov.clear()
    ov.show["crates"] = ov.show["rays"] = ov.show["quadtree"] = False
    ov.box(np.zeros((2, 3)), "crate_slab")
    ov.segment(np.zeros(3), np.ones(3), "ray_any")
    ov.rect_xz(np.zeros((2, 2)), 0.0, "quadtree")
    ov.box(np.zeros((2, 3)), "hit")
    assert len(ov.segments()) == 12


def test_render_A4_A7_overlay_draws_what_the_match_describes():
    from game.render.overlay import DebugOverlay
    from game.sim.debug import RecordingDraw

    m = Match.new(seed=2, p1_cpu="hard", p2_cpu="hard")
    for _ in range(900):
        m.step()
        if m.contacts:
            break
    rec, ov = RecordingDraw(), DebugOverlay()
    m.debug_draw(rec)
    m.debug_draw(ov)
    n_boxes = len(rec.of("box"))
    assert len(ov.segments()) >= 12 * n_boxes


def test_render_B2_B5_overlay_tells_the_last_strike_apart_from_the_crate_slabs():
    """F1/F2 show a crate's slabs with its last strike's target face, interaction region and
    fill faces (README).  All four kinds share the 'crate' prefix; in one colour the strike
    would vanish among the slab edges, so each has its own."""
    from game.render.overlay import DebugOverlay, color_of
    from game.sim import CrateStruck, FrameInput

    m = Match.new(seed=0)
    while m.phase != "fight":
        m.step(FrameInput(), FrameInput())
    f1, f2 = m.fighters
    f1.x, f1.z = 0.0, 3.72                # just south of crate_north, facing it
    f2.x, f2.z = 0.0, 8.0
    m.step(FrameInput(), FrameInput())
    struck = []
    m.step(FrameInput(hp=True), FrameInput())
    for _ in range(40):
        struck += [e for e in m.step(FrameInput(), FrameInput()) if isinstance(e, CrateStruck)]
    assert struck, "the scripted straight never reached the crate"
    ov = DebugOverlay()
    m.stage.debug_draw(ov)
    segs, cols = ov.segments(), ov.colors()
    kinds = ("crate_slab", "crate_target_face", "crate_region", "crate_fill_face")
    rgb = {k: tuple(color_of(k)[:3]) for k in kinds}
    assert len(set(rgb.values())) == 4, rgb
    for k in kinds:                       # each kind is in the drawn segments, in its colour
        n = int((np.abs(cols[:, :3] - rgb[k]).max(axis=1) < 1e-9).sum())
        assert n >= 4, (k, n)
    assert len(segs) == len(cols)


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
    of its reach apart ('ray_beyond'), not on under the floor in the ray's colour, where the
    line down to the screen's edge would read as part of the ray."""
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
    """No depth test for the lines: what comes last is on top, so the order is by layer, the
    A7 point last (the arena's grid must not cross the collision point), and the quadtree
    cells (first) are the part the line pass depth-tests."""
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
    for _ in range(3):
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
