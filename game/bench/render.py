"""Rendering: ms per frame at 1280x720 headless (llvmpipe), CPU vs CPU, with and
without the debug overlay; and the time from start to the first frame.

Crate strikes: P1 is placed in front of crate_north (as tests/sim/test_crate_strikes.py does) and
punches it, moving along the face between punches, until it breaks; every frame is
timed and the frames with a ``CrateStruck`` (the compound's strike in the sim, the
crate's mesh rebuilt from its faces, the chips or the break's chunks spawned) are
reported against the other frames of the same run, with each frame's parts (the step,
the draw, ``glFinish``, and the strike's own work inside them) by kind of frame.

A rasteriser gauge (clear + one full-window layer + ``glFinish``, a fixed workload) is
printed at the start and sampled around each round of the crate run: this VM's rasteriser
has fast and slow spells, and the gauge tells them from the game's own cost.

Each frame is one fixed simulation step plus one full draw (arena, fighters,
their shadows, sky, sparks, HUD; overlay when on) followed by ``glFinish`` so
the GPU (here: the CPU rasteriser) work is inside the measured time.  Wall
time is the figure against the target; CPU time over all threads is printed
too because llvmpipe's rasteriser threads compete with anything else running
on the 2 cores (wall time then varies by 2x between runs, CPU time much less).  Start-up is
the wall time of ``python3 main.py --screenshot ... --frames 1`` as a
subprocess: interpreter, imports, GL context, shaders, meshes, fonts, one
frame and the PNG write.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import report

ROOT = Path(__file__).resolve().parents[2]


def _frames(game, gl, n: int, overlay: bool) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (all threads of this process: llvmpipe rasterises on worker
    threads) of ``n`` frames."""
    game.overlay.enabled = overlay
    wall, cpu = [], []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        game.step()
        game.draw(1.0)
        gl.glFinish()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if game.match.over:
            game.new_match(game.seed + 1)
    return wall, cpu


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


class _GlyphUploads:
    """Counts uploads into pyglet's texture atlases (new glyphs) while active."""

    def __enter__(self):
        import pyglet.image

        self.count, self._cls = 0, pyglet.image.Texture
        self._orig = self._cls.blit_into

        def counting(tex, *a, **kw):
            self.count += 1
            return self._orig(tex, *a, **kw)

        self._cls.blit_into = counting
        return self

    def __exit__(self, *exc):
        self._cls.blit_into = self._orig


class _PartTimers:
    """Wall seconds spent in named methods, per frame: each ``(label, owner, name)`` method is
    wrapped while the block runs and restored after.  :meth:`take` returns the totals since
    the last call (nested parts, e.g. ``Compound.strike`` inside ``Stage.strike``, count in both)."""

    def __init__(self, parts: list[tuple[str, type, str]]):
        self.parts = parts
        self.acc = {label: 0.0 for label, _, _ in parts}

    def __enter__(self):
        self._saved = []
        for label, owner, name in self.parts:
            fn = owner.__dict__[name]

            def timed(*a, _fn=fn, _label=label, **kw):
                t0 = time.perf_counter()
                try:
                    return _fn(*a, **kw)
                finally:
                    self.acc[_label] += time.perf_counter() - t0

            self._saved.append((owner, name, fn))
            setattr(owner, name, timed)
        return self

    def take(self) -> dict[str, float]:
        out = dict(self.acc)
        for label in self.acc:
            self.acc[label] = 0.0
        return out

    def __exit__(self, *exc):
        for owner, name, fn in self._saved:
            setattr(owner, name, fn)


def _raster_gauge(game, gl, frames: int = 20) -> list[float]:
    """Wall seconds of ``frames`` repetitions of a fixed rasteriser workload at the window's
    size: clear colour and depth, one full-window flat rectangle, ``glFinish``.  This VM's
    rasteriser has fast and slow spells (frame times change 1.5x within minutes); printed
    beside the frame figures, the gauge tells such a spell from the game's own cost."""
    import numpy as np

    w, h = game.window.get_framebuffer_size()
    row = np.array([[0, 0, w, h, 0.3, 0.3, 0.3, 1.0, 0.5, 0.5, 0.5, 1.0]], dtype=np.float32)
    gl.glViewport(0, 0, w, h)
    out = []
    for _ in range(frames):
        t0 = time.perf_counter()
        gl.glClear(gl.GL_COLOR_BUFFER_BIT | gl.GL_DEPTH_BUFFER_BIT)
        game.rects.draw((w, h), row)
        gl.glFinish()
        out.append(time.perf_counter() - t0)
    return out


def _strike_frames(game, gl, rounds: int, overlay: bool = False):
    """Overlay off unless ``overlay`` (the study view: every layer drawn).  Wall seconds of
    frames (step + draw + glFinish) with a ``CrateStruck``, of the other frames, and of the
    frames just after a strike (where the struck crate's mesh is built),
    while P1 punches crate_north until it breaks, ``rounds`` times; and the numbers of
    strikes and breaks seen.  Also each frame's parts (:func:`_strike_parts`, and the step,
    the draw and ``glFinish``) by kind of frame, and :func:`_raster_gauge` samples taken at
    the start and after each round."""
    from game.sim import CrateStruck, FrameInput

    neutral = FrameInput()
    script = [neutral]
    game.p1 = game.p2 = "human"
    game.overlay.enabled = overlay
    game.input_source = lambda: (script[0], neutral)
    struck_t, other_t, after_t, strikes, breaks = [], [], [], 0, 0
    seq: list[tuple[float, str]] = []   # every frame in order: (wall seconds, strike / after / other)
    last = [False]
    cpu = [[], [], [], []]        # scratch, then CPU seconds: strike frames, frames after, other frames
    parts: dict[str, list[dict]] = {"strike": [], "after": [], "other": []}
    gauge = _raster_gauge(game, gl, 10)

    def frame(press=None) -> bool:
        script[0] = press or neutral
        timers.take()
        t0, c0 = time.perf_counter(), time.process_time()
        game.step()
        t1 = time.perf_counter()
        game.draw(1.0)
        t2 = time.perf_counter()
        gl.glFinish()
        t3 = time.perf_counter()
        dt = t3 - t0
        cpu[0].append(time.process_time() - c0)
        hit = [e for e in game.last_events if isinstance(e, CrateStruck)]
        (struck_t if hit else other_t).append(dt)
        cpu[1 if hit else (2 if last[0] else 3)].append(cpu[0].pop())
        if last[0] and not hit:
            after_t.append(dt)
        kind = "strike" if hit else ("after" if last[0] else "other")
        seq.append((dt, kind))
        parts[kind].append({"game.step": t1 - t0, "game.draw": t2 - t1, "glFinish": t3 - t2, **timers.take()})
        last[0] = bool(hit)
        return any(e.broke for e in hit), len(hit)

    with _PartTimers(_strike_parts(game)) as timers:
        for r in range(rounds):
            game.new_match(100 + r)
            m = game.match
            while m.phase != "fight":
                game.step()
            m.fighters[1].x, m.fighters[1].z = 0.0, 8.0
            crate = next(c for c in m.stage.crates if c.obj.name == "crate_north")
            for k in range(60):
                m.fighters[0].x, m.fighters[0].z = 0.2 * ((k % 7) - 3), 3.72
                frame()
                for j in range(45):
                    broke, n = frame(FrameInput(**{("hp", "lk", "lp")[k % 3]: True}) if j == 0 else None)
                    strikes += n
                    breaks += broke
                if crate.broken:
                    for _ in range(100):          # the chunks fall and fade
                        frame()
                    break
            gauge += _raster_gauge(game, gl, 10)
    game.input_source = None
    game.p1 = game.p2 = "cpu"
    game.overlay.enabled = False
    return struck_t, other_t, after_t, strikes, breaks, cpu[1:], seq, parts, gauge


def _strike_parts(game) -> list[tuple[str, type, str]]:
    """The strike's own work, timed per frame by the crate run: ``(label, class, method)``.
    Nested: ``Stage.strike`` holds ``Compound.strike`` and the scene model, ``match.step``
    holds both ``Stage`` parts, ``game.step`` holds ``match.step`` and the effects."""
    from game.collision.compound import Compound
    from game.render.world import CrateMeshes
    from game.sim.match import Match
    from game.sim.stage import Stage

    return [("match.step", Match, "step"), ("Stage.touch", Stage, "touch"), ("Stage.strike", Stage, "strike"),
            ("Compound.strike", Compound, "strike"), ("scene model (Stage._sync_model)", Stage, "_sync_model"),
            ("Sparks.burst", type(game.sparks), "burst"), ("Debris.strike", type(game.debris), "strike"),
            ("crate meshes (CrateMeshes.sync)", CrateMeshes, "sync")]


def _excess(seq: list[tuple[float, str]], kind: str, window: int = 15) -> list[float]:
    """Wall seconds of each ``kind`` frame above the median of the ordinary frames among the
    ``window`` frames on either side: a paired figure that this VM's drifting speed cancels out."""
    out = []
    for i, (dt, k) in enumerate(seq):
        if k != kind:
            continue
        near = [d for d, kk in seq[max(0, i - window):i + window + 1] if kk == "other"]
        if near:
            out.append(dt - statistics.median(near))
    return out


def _over_budget(parts: dict[str, list[dict]], budget: float = 0.0167, spell: float = 1.6) -> dict[str, tuple]:
    """Per kind of frame (``parts`` as :func:`_strike_frames` returns them): ``(frames, over,
    over in a rasteriser spell)``, where a frame is over if its step + draw + ``glFinish``
    exceeds ``budget`` seconds, and in a rasteriser spell if its ``glFinish`` alone took at
    least ``spell`` times the ordinary frames' median ``glFinish`` (the same scene: this VM's
    rasteriser slows down for seconds at a time, whatever the frame holds)."""
    base = statistics.median(p["glFinish"] for p in parts["other"])
    out = {}
    for kind, ps in parts.items():
        over = [p for p in ps if p["game.step"] + p["game.draw"] + p["glFinish"] > budget]
        out[kind] = (len(ps), len(over), sum(p["glFinish"] >= spell * base for p in over))
    return out


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
    rot, origin, _ = game._cur
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
    in one segment, ``geometry.FINE_RIM``) and with every limb's rims in two (the reference,
    as before 2026-12-02): the two meshes alternate every 8 frames in this process, each
    going first in every other round."""
    from game.render.geometry import fighter_mesh
    from game.render.glutil import VertexArray

    w = game.world
    data = game.match.data
    verts, idx = fighter_mesh(data.skeleton, list(data.fighters), fine_rim=0.0)
    full = VertexArray([(0, 3), (1, 3), (2, 3), (3, 1)], indexed=True)
    full.set_vertices(verts)
    full.set_indices(idx)
    ours = w.fighters
    times = {"ours": [], "ref": []}
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
    (1,800 triangles, as before 2026-12-01) or as 3 m squares, and with or without the shadow
    pass's back-face culling: the four set-ups alternate every 8 frames in this process
    (overlay off)."""
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
              ("3 m squares, every shadow triangle", coarse, False), ("3 m squares, shadows culled (now)", coarse, True)]
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
    """µs of one view matrix by ``camera.look_at`` (every frame) and by pyrr's
    ``matrix44.create_look_at`` transposed (its reference), measured round-robin."""
    import numpy as np
    from pyrr import matrix44

    from game.render.camera import look_at

    from .common import interleaved_medians

    eye, target, up = np.array([1.0, 1.55, 6.0]), np.array([0.3, 0.95, 0.0]), np.array([0.0, 1.0, 0.0])
    ours, ref = interleaved_medians(
        [lambda: look_at(eye, target, up),
         lambda: np.ascontiguousarray(matrix44.create_look_at(eye, target, up, dtype=float).T)],
        numbers=[2000, 2000])
    return ours * 1e6, ref * 1e6


def _effect_randoms_ab(repeat: int) -> tuple[float, float]:
    """µs of a crate strike's effect randoms (22 chips, a 16-spark burst), each call after an
    8 ms wait (:func:`~game.bench.common.cold_medians`): windows of the effects' noise table
    (ours) vs a generator seeded per event and drawn from, as before (ref)."""
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


def run(args) -> None:
    os.environ["PYGLET_HEADLESS"] = "1"
    from game.render.offscreen import open_game

    pyglet, window, game = open_game(1280, 720, p1="cpu", p2="cpu", level="hard", seed=7)
    from pyglet import gl

    n = 120 if args.quick else 360
    for _ in range(100):                       # into the fight, caches warm
        game.step()
    _frames(game, gl, 30, False)
    t0 = time.perf_counter()
    game.prepare_for_play()                    # as main.py's game loop does
    t_prepare = time.perf_counter() - t0
    med = lambda xs: statistics.median(xs) * 1e3  # noqa: E731
    print(f"  {n} frames per figure, 1280x720, {gl.gl_info.get_renderer()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    report("rasteriser gauge: clear + 1 full-window layer, 1280x720", med(_raster_gauge(game, gl, 30)), "ms")
    report("Game.prepare_for_play (glyphs, every draw state drawn once, heap frozen), once", t_prepare * 1e3, "ms")
    with _GlyphUploads() as uploads:
        for label, overlay in (("overlay off", False), ("overlay on", True)):
            wall, cpu = _frames(game, gl, n, overlay)
            report(f"ms per frame (step + draw + glFinish), {label}", med(wall), "ms", target="<= 16.7 ms")
            report(f"  90th percentile, {label}", statistics.quantiles(wall, n=10)[-1] * 1e3, "ms")
            report(f"  slowest frame, {label}", max(wall) * 1e3, "ms")
            report(f"  CPU ms per frame, all threads, {label}", med(cpu), "ms")
    print(f"  glyph uploads during those {2 * n} frames: {uploads.count} (each one stalls llvmpipe 10-35 ms)")
    t_frozen, t_unfrozen = _full_collection_ab(game, 5 if args.quick else 9)
    report("full garbage collection after 60 frames: start-up heap frozen vs not (ref)", t_frozen * 1e3, "ms",
           ref=t_unfrozen * 1e3)
    ours, ref = [], []
    for _ in range(6):      # alternating chunks: this VM's speed drifts within seconds
        ours += _fighter_pass(game, gl, n // 12, per_limb=False)
        ref += _fighter_pass(game, gl, n // 12, per_limb=True)
    report("fighters pass, CPU ms: 1 draw vs 1 draw per limb (ref)", med(ours), "ms", ref=med(ref))
    ours, ref = _look_at_ab()
    report("camera view matrix: look_at on floats vs pyrr's create_look_at (ref)", ours, "us", ref=ref)
    ours, ref = _effect_randoms_ab(30 if args.quick else 80)
    report("a strike's effect randoms after an 8 ms wait: noise table vs a generator per event (ref)", ours, "us",
           ref=ref)
    ours, ref = _fighter_lod_ab(game, gl, 10 if args.quick else 30)
    report("draw + glFinish, fighters' thin limbs with 1 rim segment vs every limb 2 (ref)", ours * 1e3, "ms",
           ref=ref * 1e3)
    ab = _floor_and_shadow_ab(game, gl, 5 if args.quick else 15)
    ref = ab["1 m tiles, every shadow triangle"]
    for name, t in ab.items():
        report(f"draw + glFinish, {name}", t * 1e3, "ms", ref=ref * 1e3)
    struck, other, after, strikes, breaks, cpu_s, seq, parts, gauge = _strike_frames(game, gl, 1 if args.quick else 3)
    print(f"  crate strikes: {strikes} strikes, {breaks} breaks, {len(struck)} frames with a CrateStruck "
          f"among {len(struck) + len(other)}")
    report("  rasteriser gauge, before and after each round", med(gauge), "ms")
    report("frames with a crate strike, max wall ms", max(struck) * 1e3, "ms", target="<= 16.7 ms")
    report("frames with a crate strike, median wall ms", med(struck), "ms", ref=med(other))
    report("  frame after a strike (mesh built), max wall ms", max(after) * 1e3, "ms", target="<= 16.7 ms")
    report("  frame after a strike, median wall ms", med(after), "ms", ref=med(other))
    report("  other frames of that run, max wall ms", max(other) * 1e3, "ms")
    # how often each kind of frame runs over budget: on a shared VM ordinary frames do too
    spells = _over_budget(parts)
    for label, kind, xs in (("strike frames", "strike", struck), ("frames after a strike", "after", after),
                            ("other frames", "other", other)):
        over = sum(x > 0.0167 for x in xs)
        print(f"    {label} over 16.7 ms: {over} of {len(xs)} ({100 * over / max(len(xs), 1):.1f} %); "
              f"of those, with glFinish at >= 1.6x the other frames' median: {spells[kind][2]}")
    # a strike frame is an ordinary frame plus the strike's work: even a free strike would pass
    # every strike frame only as often as that many ordinary frames all pass
    p_over = sum(x > 0.0167 for x in other) / max(len(other), 1)
    print(f"    chance that {len(struck)} ordinary frames all finish within 16.7 ms at this run's rate: "
          f"{100 * (1 - p_over) ** len(struck):.1f} %")
    report("  CPU ms, all threads: strike frame vs other frames", med(cpu_s[0]), "ms", ref=med(cpu_s[2]))
    report("  CPU ms, all threads: frame after vs other frames", med(cpu_s[1]), "ms", ref=med(cpu_s[2]))
    for kind, label in (("strike", "strike frame"), ("after", "frame after")):
        ex = _excess(seq, kind)
        report(f"  {label} minus nearby ordinary frames, median", med(ex), "ms")
        report(f"  {label} minus nearby ordinary frames, max", max(ex) * 1e3, "ms",
               target=f"<= {16.7 - med(other):.1f} ms (16.7 - median frame)")
    print(f"    {'parts of a frame, median ms':<40} {'other':>8} {'strike':>8} {'after':>8}")
    for label in parts["other"][0]:
        cols = [med([d[label] for d in parts[kind]]) for kind in ("other", "strike", "after")]
        print(f"      {label:<38} " + " ".join(f"{c:>8.3f}" for c in cols))
    # the same with the overlay on (the study view: every box, slab, cell and ray drawn as well)
    struck, other, after, strikes, _, _, _, parts, _ = _strike_frames(game, gl, 1, overlay=True)
    spells = _over_budget(parts)
    report("overlay on: frames with a crate strike, max wall ms", max(struck) * 1e3, "ms", target="<= 16.7 ms")
    report("  overlay on: frame after a strike, max wall ms", max(after) * 1e3, "ms", target="<= 16.7 ms")
    print("    overlay on, over 16.7 ms: " + ", ".join(
        f"{label} {spells[kind][1]} of {spells[kind][0]} ({spells[kind][2]} in a rasteriser spell)"
        for label, kind in (("strike frames", "strike"), ("frames after", "after"), ("other frames", "other"))))
    game.new_match(game.seed)
    for _ in range(100):
        game.step()
    half, full = [], []
    for _ in range(6):          # alternating chunks: this VM's speed drifts within seconds
        for scale, out in ((0.5, half), (1.0, full)):
            game.render_scale = scale
            out += _frames(game, gl, n // 6, True)[0]
    game.render_scale = 1.0
    report("ms per frame, overlay on, 3D at half resolution vs full (ref)", med(half), "ms", ref=med(full),
           target="(dynamic fallback: kept only if >= 10 % faster)")
    window.close()

    runs = 1 if args.quick else 3
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            env = dict(os.environ, PYGLET_HEADLESS="1")
            t0 = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "main.py"), "--screenshot", str(Path(tmp) / f"s{i}.png"),
                            "--frames", "1"], check=True, env=env, cwd=ROOT, capture_output=True)
            walls.append(time.perf_counter() - t0)
    report(f"start to first frame (main.py --screenshot, median of {runs})", statistics.median(walls), "s",
           target="<= 2 s")
