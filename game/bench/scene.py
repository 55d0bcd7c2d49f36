"""Benchmark section ``scene`` (method C): ``python3 -m game.bench scene [--quick]``.

A generated scene of ~200 models / ~50k triangles over a 100 x 100 m floor
(ground tiles, pillars, crates, rocks), 10,000 random rays of max distance 50.
Prints rays/s of ``cast_nearest_many`` / ``cast_any_many`` against a
brute-force numpy reference (every ray against every triangle, chunked; timed
on a subset of the rays because it is orders of magnitude slower), microseconds per single
``cast_nearest`` / ``cast_any``, the scene build time and the load time of the
baked arena.  The fast answers are checked against the reference on the subset.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from pyrr import matrix44

from game.collision import CollisionModel, Scene, load_scene
from game.reference.scene import brute_nearest

from .common import interleaved_medians, median_seconds, report

MAX_DISTANCE = 50.0
N_RAYS = 10_000


def _translate(x, y, z) -> np.ndarray:
    return matrix44.create_from_translation(np.array([x, y, z], dtype=float), dtype=float)


def _grid(nx, nz, size, rng, bump=0.0):
    xs = np.linspace(0, size, nx + 1)
    zs = np.linspace(0, size, nz + 1)
    gx, gz = np.meshgrid(xs, zs, indexing="ij")
    gy = bump * rng.random(gx.shape)
    p = np.stack([gx, gy, gz], axis=-1)
    a, b, c, d = p[:-1, :-1], p[1:, :-1], p[1:, 1:], p[:-1, 1:]
    return np.concatenate([np.stack([a, b, c], -2).reshape(-1, 3, 3), np.stack([a, c, d], -2).reshape(-1, 3, 3)])


def _prism(sides, radius, height, rings):
    ang = np.linspace(0, 2 * np.pi, sides + 1)
    ys = np.linspace(0, height, rings + 1)
    x, z = radius * np.cos(ang), radius * np.sin(ang)
    tris = []
    for k in range(rings):
        for s in range(sides):
            p00, p10 = (x[s], ys[k], z[s]), (x[s + 1], ys[k], z[s + 1])
            p01, p11 = (x[s], ys[k + 1], z[s]), (x[s + 1], ys[k + 1], z[s + 1])
            tris += [(p00, p10, p11), (p00, p11, p01)]
    for s in range(sides):
        tris += [((0, height, 0), (x[s], height, z[s]), (x[s + 1], height, z[s + 1]))]
    return np.array(tris, dtype=float)


def _box(half, sub):
    tris = []
    g = np.linspace(-1, 1, sub + 1)
    for axis in range(3):
        for sign in (-1, 1):
            for i in range(sub):
                for j in range(sub):
                    q = []
                    for a, b in ((g[i], g[j]), (g[i + 1], g[j]), (g[i + 1], g[j + 1]), (g[i], g[j + 1])):
                        p = [0.0, 0.0, 0.0]
                        p[axis] = sign
                        p[(axis + 1) % 3] = a
                        p[(axis + 2) % 3] = b
                        q.append(p)
                    tris += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return np.array(tris, dtype=float) * np.asarray(half)


def _rock(rng, radius, rings=10, sides=16):
    th = np.linspace(0, np.pi, rings + 1)
    ph = np.linspace(0, 2 * np.pi, sides + 1)
    r = radius * (1 + 0.2 * rng.random((rings + 1, sides + 1)))
    r[:, -1] = r[:, 0]
    r[0, :] = r[0, 0]
    r[-1, :] = r[-1, 0]
    p = np.stack([r * np.sin(th)[:, None] * np.cos(ph), r * np.cos(th)[:, None],
                  r * np.sin(th)[:, None] * np.sin(ph)], -1)
    a, b, c, d = p[:-1, :-1], p[1:, :-1], p[1:, 1:], p[:-1, 1:]
    tris = np.concatenate([np.stack([a, b, c], -2).reshape(-1, 3, 3), np.stack([a, c, d], -2).reshape(-1, 3, 3)])
    area = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1)
    return tris[area > 1e-9]


def make_bench_models(seed: int = 2026) -> list[CollisionModel]:
    """~200 models / ~50k triangles over x, z in [-50, 50] (y up)."""
    rng = np.random.default_rng(seed)
    models = []
    for i in range(10):  # ground: 10 x 10 tiles of 10 m, 10 x 10 cells each
        for j in range(10):
            models.append(CollisionModel(_grid(10, 10, 10.0, rng, 0.05), 2, _translate(-50 + 10 * i, 0, -50 + 10 * j)))
    def spot():
        return rng.uniform(-48, 48), rng.uniform(-48, 48)
    for _ in range(30):  # pillars
        x, z = spot()
        models.append(CollisionModel(_prism(16, rng.uniform(0.4, 1.0), rng.uniform(3, 8), 10), 2, _translate(x, 0, z)))
    for _ in range(40):  # crates
        x, z = spot()
        h = rng.uniform(0.3, 0.8)
        models.append(CollisionModel(_box((h, h, h), 4), 1, _translate(x, h, z)))
    for _ in range(30):  # rocks
        x, z = spot()
        models.append(CollisionModel(_rock(rng, rng.uniform(0.3, 1.5)), int(rng.integers(0, 3)), _translate(x, 0.2, z)))
    return models


def make_rays(n: int, seed: int = 7):
    rng = np.random.default_rng(seed)
    o = np.column_stack([rng.uniform(-50, 50, n), rng.uniform(0.2, 3.0, n), rng.uniform(-50, 50, n)])
    d = rng.normal(size=(n, 3))
    return o, d


def cold_casts(rep: int, scene=None, o=None, d=None) -> tuple[float, float]:
    """Median seconds of ``cast_nearest_many`` and ``cast_any_many`` over the benchmark's rays
    (``rep`` rounds), the first casts of the process on a scene (built here if None)."""
    if scene is None:
        scene = Scene.build(make_bench_models())
        o, d = make_rays(N_RAYS)
    return (median_seconds(lambda: scene.cast_nearest_many(o, d, MAX_DISTANCE), number=1, repeat=rep),
            median_seconds(lambda: scene.cast_any_many(o, d, MAX_DISTANCE), number=1, repeat=rep))


def _cold_casts_default_allocator(rep: int) -> tuple[float, float] | None:
    """:func:`cold_casts` in a child process that leaves glibc's allocator at its defaults
    (None if the child fails: the figure is then left out, with a line saying why)."""
    code = f"import json; from game.bench.scene import cold_casts; print(json.dumps(cold_casts({int(rep)})))"
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                             timeout=300, check=True).stdout
        return tuple(json.loads(out.strip().splitlines()[-1]))
    except (subprocess.SubprocessError, OSError, ValueError, IndexError) as exc:
        print(f"  (the default-allocator child process failed: {exc}; its figures are left out)")
        return None


def _single_ray_figures(scene, o: np.ndarray, d: np.ndarray, k: int, rep: int, ref_rate: float) -> None:
    """``cast_nearest`` and ``cast_any`` one ray at a time, over the first ``k`` rays, against
    the brute-force reference's rate ``ref_rate`` (rays/s)."""
    idx = np.arange(k)

    def singles_nearest():
        for i in idx:
            scene.cast_nearest(o[i], d[i], MAX_DISTANCE)

    def singles_any():
        for i in idx:
            scene.cast_any(o[i], d[i], MAX_DISTANCE)

    report("cast_nearest single ray, mean over rays", median_seconds(singles_nearest, number=1, repeat=rep) / k * 1e6,
           "us", ref=1e6 / ref_rate, target="<= 30")
    report("cast_any single ray, mean over rays", median_seconds(singles_any, number=1, repeat=rep) / k * 1e6,
           "us", ref=1e6 / ref_rate, target="<= 30")


def _update_model_figures(scene, models: list, rep: int) -> None:
    """``update_model`` on a crate (12 <-> 192 triangles, as a strike changes it), and with the
    AABB tree the first ray to reach the new model builds (C5, on first use)."""
    crate = next(i for i, m in enumerate(models) if m.level == 1 and m.triangle_count == 192)
    small = models[crate].triangles[:12].copy()
    full = models[crate].triangles.copy()
    flip = [small, full]
    state = {"k": 0}

    def update():
        state["k"] ^= 1
        scene.update_model(crate, triangles=flip[state["k"]])

    report("update_model (crate, 12 <-> 192 triangles)", median_seconds(update, number=20, repeat=rep) * 1e6, "us")
    report("  + its AABB tree, built by the first ray to reach it", median_seconds(
        lambda: (update(), scene.models[crate].tree), number=20, repeat=rep) * 1e6, "us")


def run(args) -> None:
    quick = bool(getattr(args, "quick", False))
    rep = 3 if quick else 7
    models = make_bench_models()
    worlds = [(m.triangles, m.level, m.transform) for m in models]
    t_models = median_seconds(lambda: [CollisionModel(*w).tree for w in worlds], number=1, repeat=3)
    n_tris = sum(m.triangle_count for m in models)
    print(f"  scene: {len(models)} models, {n_tris} triangles; {N_RAYS} rays, max distance {MAX_DISTANCE:g}")
    build = median_seconds(lambda: Scene.build(models), number=1, repeat=rep)
    report("CollisionModel x200: AABB trees build (C5)", t_models * 1e3, "ms")
    report("Scene.build: quadtree (C1), median", build * 1e3, "ms")
    scene = Scene.build(models)
    o, d = make_rays(N_RAYS)
    # Batched casts are timed twice: in the fresh process and after the brute-force reference,
    # whose large temporaries raise glibc's dynamic mmap threshold.  The harness has set the
    # allocator as main.py does (game/allocator.py: freed pages are kept for the next
    # temporary); a child process with glibc's defaults gives the fresh figures without it,
    # where numpy's big temporaries are fresh, page-faulted mmaps.
    near_cold, any_cold = cold_casts(rep, scene, o, d)
    plain = _cold_casts_default_allocator(rep)
    n_ref = 50 if quick else 200
    ref = brute_nearest(models, o[:n_ref], d[:n_ref], MAX_DISTANCE).distance
    got = scene.cast_nearest_many(o[:n_ref], d[:n_ref], MAX_DISTANCE)
    assert np.array_equal(got.distance, ref), "cast_nearest_many disagrees with the brute-force reference"
    assert np.array_equal(scene.cast_any_many(o[:n_ref], d[:n_ref], MAX_DISTANCE), np.isfinite(ref))
    # the reference (slow: every triangle per ray) is timed on fewer rays, in the same rounds as the casts
    n_time = 20 if quick else 50
    near, anyh, t_ref = interleaved_medians(
        [lambda: scene.cast_nearest_many(o, d, MAX_DISTANCE), lambda: scene.cast_any_many(o, d, MAX_DISTANCE),
         lambda: brute_nearest(models, o[:n_time], d[:n_time], MAX_DISTANCE)],
        numbers=[1, 1, 1], repeat=rep)
    ref_rate = n_time / t_ref
    hits = np.isfinite(scene.cast_nearest_many(o, d, MAX_DISTANCE).distance).mean()
    print(f"  hit rate {hits:.1%}; brute-force reference checked on {n_ref} rays, timed on {n_time} "
          f"(median of {rep} rounds, round-robin with the 'after reference' casts)")
    report("cast_nearest_many (C7), fresh process", N_RAYS / near_cold, "rays/s", ref=ref_rate, target=">= 200000")
    report("cast_any_many (C8), fresh process", N_RAYS / any_cold, "rays/s", ref=ref_rate, target=">= 300000")
    report("cast_nearest_many (C7), after reference", N_RAYS / near, "rays/s", ref=ref_rate, target=">= 200000")
    report("cast_any_many (C8), after reference", N_RAYS / anyh, "rays/s", ref=ref_rate, target=">= 300000")
    if plain is not None:
        for name, fast, slow in (("nearest", near_cold, plain[0]), ("any", any_cold, plain[1])):
            report(f"  cast_{name}_many fresh: this process vs a child with glibc's default allocator (ref)",
                   N_RAYS / fast, "rays/s", ref=N_RAYS / slow)
    k = 300 if quick else 2000
    idx = np.arange(k)
    _single_ray_figures(scene, o, d, k, rep, ref_rate)
    _update_model_figures(scene, models, rep)
    assets = Path(__file__).resolve().parents[2] / "assets"
    mp, qp = assets / "arena.models.bin", assets / "arena.quadtree.bin"
    if mp.exists() and qp.exists():
        arena_load = median_seconds(lambda: load_scene(mp, qp), number=1, repeat=rep)
        arena = load_scene(mp, qp)
        report(f"load_scene baked arena ({len(arena)} models)", arena_load * 1e3, "ms")
        rng = np.random.default_rng(11)
        ao = np.column_stack([rng.uniform(-14, 14, k), rng.uniform(0.1, 2.0, k), rng.uniform(-14, 14, k)])
        ad = rng.normal(size=(k, 3))
        def arena_nearest():
            for i in idx:
                arena.cast_nearest(ao[i], ad[i], 20.0)
        def arena_any():
            for i in idx:
                arena.cast_any(ao[i], ad[i], 20.0)
        report("arena cast_nearest single ray (max 20 m)",
               median_seconds(arena_nearest, number=1, repeat=rep) / k * 1e6, "us", target="<= 30")
        report("arena cast_any single ray (max 20 m)", median_seconds(arena_any, number=1, repeat=rep) / k * 1e6,
               "us", target="<= 30")
    else:
        print("  baked arena not found (run python3 -m game.tools.bake)")
