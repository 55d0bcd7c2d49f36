"""Rendering choices against their references, alternated in one process (part of the
``render`` section, :mod:`game.bench.render`): the start-up heap frozen or not, the fighters
in one draw or one per limb, the view matrix on floats or by pyrr, the effects' noise
table or a generator per event, the fighters' rims, the floor's tiles and the shadow
pass's culling.  Each pair alternates in chunks (this VM's speed drifts within seconds),
and each reference is what the choice was measured against.
"""

from __future__ import annotations

import statistics
import time

from .common import median_ms, report


def _full_collection_ab(game, rounds: int, frames: int = 60) -> tuple[float, float]:
    """Median seconds of one full garbage collection (``gc.collect()``) with the heap as
    ``boot.settle_heap`` leaves it (start-up objects frozen, plus what ``frames`` frames of
    play left) and, as the reference, with everything unfrozen again; the two alternate
    ``rounds`` times.  Leaves the heap frozen."""
    import gc

    frozen, unfrozen = [], []
    for _ in range(rounds):
        for _ in range(frames):
            game.step()
            game.draw(1.0)
        t0 = time.perf_counter()
        gc.collect()
        frozen.append(time.perf_counter() - t0)
        gc.unfreeze()
        t0 = time.perf_counter()
        gc.collect()
        unfrozen.append(time.perf_counter() - t0)
        gc.freeze()
    return statistics.median(frozen), statistics.median(unfrozen)


def _fighter_pass(game, gl, n: int, per_limb: bool) -> list[float]:
    """CPU seconds of the lit fighter pass alone: the batched single draw (ours) or the
    reference, one uniform upload + one draw call per limb (22 draws)."""
    import ctypes

    import numpy as np

    from game.render.geometry import fighter_mesh
    from game.render.world import SUN_DIR, limb_matrices

    w = game.world
    data = game.match.data
    verts, idx = fighter_mesh(data.skeleton, list(data.fighters))
    slot_of_index = verts[idx, 9].astype(int)
    starts = np.flatnonzero(np.diff(slot_of_index, prepend=-1))
    runs = list(zip(slot_of_index[starts], starts, np.diff(np.append(starts, len(idx)))))
    rot, origin, _ = game.pose
    limbs = limb_matrices(rot, origin)
    view_proj = game.view_proj
    prog = w.lit_fighter
    times = []
    for _ in range(n):
        c0 = time.process_time()
        prog.use()
        prog.mat4("u_view_proj", view_proj)
        prog.vec("u_eye", (0.0, 1.5, 5.0))
        prog.vec("u_sun_dir", SUN_DIR)
        prog.vec("u_n_limbs", float(w.n_limbs))
        if per_limb:
            gl.glBindVertexArray(w.fighters.vao)
            for slot, first, count in runs:
                prog.mat4(f"u_limb[{slot}]", limbs[slot])
                gl.glDrawElements(gl.GL_TRIANGLES, int(count), gl.GL_UNSIGNED_INT, ctypes.c_void_p(int(first) * 4))
            gl.glBindVertexArray(0)
        else:
            prog.mat4("u_limb", limbs)
            w.fighters.draw()
        gl.glFinish()
        times.append(time.process_time() - c0)
    return times


def _draw_block(game, gl, frames: int = 8) -> list[float]:
    """Wall seconds of ``frames`` draws + ``glFinish``, a step before each, after one untimed
    draw (the set-up an A/B just switched to pays for the switch there)."""
    game.draw(1.0)
    gl.glFinish()
    out = []
    for _ in range(frames):
        game.step()
        t0 = time.perf_counter()
        game.draw(1.0)
        gl.glFinish()
        out.append(time.perf_counter() - t0)
    return out


def _fighter_lod_ab(game, gl, rounds: int) -> tuple[float, float]:
    """Median wall seconds of draw + glFinish with the fighters as drawn (the thin limbs' rims
    in one segment, ``geometry.FINE_RIM``) and with every limb's rims in two (the reference):
    the two meshes alternate every 8 frames in this process, each going first in every other
    round."""
    from game.render.geometry import fighter_mesh
    from game.render.glutil import VertexArray

    w = game.world
    data = game.match.data
    verts, idx = fighter_mesh(data.skeleton, list(data.fighters), fine_rim=0.0)
    full = VertexArray([(0, 3), (1, 3), (2, 3), (3, 1)], indexed=True)
    full.set_vertices(verts)
    full.set_indices(idx)
    ours = w.fighters
    times: dict[str, list[float]] = {"ours": [], "ref": []}
    try:
        for r in range(rounds):
            pair = (("ours", ours), ("ref", full))
            for name, mesh in pair if r % 2 == 0 else pair[::-1]:     # ABBA: neither always goes first
                w.fighters = mesh
                times[name] += _draw_block(game, gl)
    finally:
        w.fighters = ours
    return statistics.median(times["ours"]), statistics.median(times["ref"])


def _floor_and_shadow_ab(game, gl, rounds: int) -> dict[str, float]:
    """Median wall seconds of draw + glFinish with the floor drawn as the scene's 1 m tiles
    (the reference) or as 3 m squares (the game's), and with or without the shadow pass's
    back-face culling: the four set-ups alternate every 8 frames in this process (overlay
    off)."""
    from game.render import geometry
    from game.render.glutil import VertexArray
    from game.render.world import CRATE_KINDS

    game.overlay.enabled = False
    w = game.world
    coarse = (w.world, w.ranges)
    keep = geometry.coarse_floor
    geometry.coarse_floor = lambda tris, cell=geometry.FLOOR_CELL: tris
    try:
        verts = geometry.world_mesh([p for p in geometry.arena_parts(game.arena) if p[1] not in CRATE_KINDS])
    finally:
        geometry.coarse_floor = keep
    tiles = VertexArray([(0, 3), (1, 3), (2, 3), (3, 1)])
    tiles.set_vertices(verts)
    fine = (tiles, geometry.material_ranges(verts))
    setups = [("1 m tiles, every shadow triangle", fine, False), ("1 m tiles, shadows culled", fine, True),
              ("3 m squares, every shadow triangle", coarse, False),
              ("3 m squares, shadows culled (the game's)", coarse, True)]
    times: dict[str, list[float]] = {name: [] for name, _, _ in setups}
    try:
        for k in range(4 * rounds):
            name, (vao, ranges), cull = setups[k % 4]
            w.world, w.ranges, w.cull_shadow_back_faces = vao, ranges, cull
            times[name] += _draw_block(game, gl)
    finally:
        (w.world, w.ranges), w.cull_shadow_back_faces = coarse, True
    return {name: statistics.median(t) for name, t in times.items()}


def _look_at_ab() -> tuple[float, float]:
    """µs of one view matrix by ``projection.look_at`` (every frame) and by pyrr's
    ``matrix44.create_look_at`` transposed (its reference), measured round-robin."""
    import numpy as np
    from pyrr import matrix44

    from game.render.projection import look_at

    from .common import interleaved_medians

    eye, target, up = np.array([1.0, 1.55, 6.0]), np.array([0.3, 0.95, 0.0]), np.array([0.0, 1.0, 0.0])
    ours, ref = interleaved_medians(
        [lambda: look_at(eye, target, up),
         lambda: np.ascontiguousarray(matrix44.create_look_at(eye, target, up, dtype=float).T)],
        numbers=[2000, 2000])
    return ours * 1e6, ref * 1e6


def _effect_randoms_ab(repeat: int) -> tuple[float, float]:
    """µs of a crate strike's effect randoms (22 chips, a 16-spark burst), each call after a
    wait like a frame's (:func:`~game.bench.common.cold_medians`): windows of the effects'
    noise table (ours) vs a generator seeded per event and drawn from (ref)."""
    import itertools

    import numpy as np

    from game.render.noise import EFFECTS

    from .common import cold_medians

    keys = itertools.count(1000)

    def table():
        k = next(keys)
        EFFECTS.window(3 * k, 22)
        EFFECTS.window(3 * k + 1, 16)

    def generators():
        k = next(keys)
        a = np.random.default_rng(3 * k)
        a.standard_normal((22, 8)), a.random((22, 11))
        b = np.random.default_rng(3 * k + 1)
        b.standard_normal((16, 3)), b.random((16, 4))

    ours, ref = cold_medians([table, generators], repeat=repeat)
    return ours * 1e6, ref * 1e6


def ab_figures(game, gl, n: int, quick: bool) -> None:
    """The A/B figures: each choice the renderer made against its reference, alternated in
    this process (heap frozen, one fighter draw, view matrix, effect randoms, fighter rims,
    floor tiles and shadow culling)."""
    t_frozen, t_unfrozen = _full_collection_ab(game, 5 if quick else 9)
    report("full garbage collection after 60 frames: start-up heap frozen vs not (ref)", t_frozen * 1e3, "ms",
           ref=t_unfrozen * 1e3)
    one_draw: list[float] = []
    per_limb: list[float] = []
    for _ in range(6):      # alternating chunks: this VM's speed drifts within seconds
        one_draw += _fighter_pass(game, gl, n // 12, per_limb=False)
        per_limb += _fighter_pass(game, gl, n // 12, per_limb=True)
    report("fighters pass, CPU ms: 1 draw vs 1 draw per limb (ref)", median_ms(one_draw), "ms", ref=median_ms(per_limb))
    ours, ref = _look_at_ab()
    report("camera view matrix: look_at on floats vs pyrr's create_look_at (ref)", ours, "us", ref=ref)
    ours, ref = _effect_randoms_ab(30 if quick else 80)
    report("a strike's effect randoms after a frame's wait: noise table vs a generator per event (ref)", ours,
           "us", ref=ref)
    ours, ref = _fighter_lod_ab(game, gl, 10 if quick else 30)
    report("draw + glFinish, fighters' thin limbs with 1 rim segment vs every limb 2 (ref)", ours * 1e3, "ms",
           ref=ref * 1e3)
    ab = _floor_and_shadow_ab(game, gl, 5 if quick else 15)
    ref = ab["1 m tiles, every shadow triangle"]
    for name, t in ab.items():
        report(f"draw + glFinish, {name}", t * 1e3, "ms", ref=ref * 1e3)
