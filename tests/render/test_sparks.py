"""Impact sparks (game/render/sparks.py, no GL): they burst, fade and differ by kind, crawl during
hitstop, and their batched rows and steps equal their masked, per-column reference forms."""

from __future__ import annotations

import numpy as np
import pytest

# ---------------------------------------------------------------- debris logic (no GL)
from hypothesis import given, settings
from hypothesis import strategies as st

from distributions import same_distribution
from simhelp import make_hit


@pytest.mark.slow
def test_render_spark_bursts_batched_draw_has_the_per_column_distributions():
    """Sparks.spawn / Sparks.burst read their randoms from the effects' noise table; over many
    frames (each its own window) every particle column matches the per-column reference."""
    from game.render.sparks import CRATE_COLORS, HEAVY_COLORS, Sparks

    def spawn_ref(frame, point, stop):        # a heavy unblocked hit, as first written
        rng = np.random.default_rng(frame * 7919)
        n = 34
        d = rng.normal(size=(n, 3))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        d[:, 1] = np.abs(d[:, 1]) * 0.8 + 0.15
        speed = rng.uniform(0.05, 0.15, size=(n, 1)) * 1.5
        size = rng.uniform(0.010, 0.018, size=n) * 1.5
        col = HEAVY_COLORS[rng.integers(0, 3, size=n)] * rng.uniform(1.0, 1.6, size=(n, 1))
        life = rng.uniform(8, 14, size=n) * 1.2 + stop
        return np.column_stack([d * speed, size, col, life])

    def burst_ref(frame, big):
        rng = np.random.default_rng(frame * 104729 + 7)
        n = 40 if big else 16
        d = rng.normal(size=(n, 3))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        d[:, 1] = np.abs(d[:, 1]) * 0.9 + 0.1
        v = d * rng.uniform(0.04, 0.16 if big else 0.12, size=(n, 1))
        size = rng.uniform(0.012, 0.03, size=n)
        col = CRATE_COLORS[rng.integers(0, 3, size=n)] * 0.9
        return np.column_stack([v, size, col, rng.uniform(10, 18, size=n)])

    point = np.array([0.2, 1.1, -0.4])
    for big in (False, True):
        got, want = [], []
        for frame in range(1, 700):
            s = Sparks()
            s.burst(point, frame, "crate", big=big)
            sp = s.p[:-1]                                           # the last row is the flash
            assert np.all(sp[:, 0:3] == point)
            got.append(np.column_stack([sp[:, 3:6], sp[:, 6], sp[:, 7:10], sp[:, 10]]))
            want.append(burst_ref(frame + 5000, big))
        same_distribution(np.concatenate(got), np.concatenate(want), f"crate burst, big={big}")
    got, want = [], []
    for frame in range(1, 700):
        s = Sparks()
        s.spawn(make_hit(frame=frame, point=point, heavy=True, hitstop=10))
        sp = s.p[:-2]                                               # flash and ring last
        got.append(np.column_stack([sp[:, 3:6], sp[:, 6], sp[:, 7:10], sp[:, 10]]))
        want.append(spawn_ref(frame + 5000, point, 10))
    same_distribution(np.concatenate(got), np.concatenate(want), "heavy hit")


def _spark_instances_reference(s, alpha):
    """``Sparks.instances`` as first written, with masked passes for the flash and ring rows."""
    from game.render.sparks import KIND_FLASH, KIND_RING

    p = s.p
    out = np.zeros((len(p), 11), dtype=np.float32)
    if not len(p):
        return out
    pos = s.prev_pos + (p[:, 0:3] - s.prev_pos) * alpha
    age, life, delay, kind = p[:, 11] + alpha, p[:, 10], p[:, 12], p[:, 13]
    t = np.clip(1.0 - (life - age) / np.maximum(life - p[:, 14], 1.0), 0.0, 1.0)
    size, tail = p[:, 6].copy(), p[:, 3:6] * 2.6
    flash, ring = kind == KIND_FLASH, kind == KIND_RING
    size[flash] *= np.where(delay[flash] > 0, 1.0 + 0.08 * np.sin(age[flash] * 2.0), 1.0 - 0.5 * t[flash])
    tail[flash | ring] = 0.0
    size[ring] = -(size[ring] * (1.0 + 2.2 * np.clip(age / life, 0, 1)[ring]))
    out[:, 0:3], out[:, 3:6], out[:, 6], out[:, 7:10], out[:, 10] = pos, tail, size, p[:, 7:10], (1.0 - t) ** 1.5
    return out


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["hit", "heavy", "block", "crate", "impact", "wait"]),
                          st.integers(0, 12)), min_size=1, max_size=12),
       st.sampled_from([1.0, 0.5, 0.137]))
def test_render_spark_rows_equal_the_masked_reference(script, alpha):
    """``Sparks.instances`` (every row as a spark, then the flash and ring rows on floats)
    gives the masked reference's rows, and ``Sparks.step`` (unmasked passes, the body flash on
    floats) the masked reference's state bit for bit, through bursts of every kind, hitstop
    and fading."""
    from game.render.sparks import Sparks

    s = Sparks()
    ref = {"p": s.p, "prev": s.prev_pos, "flash": s.flash.copy(), "left": np.zeros(2), "base": np.zeros(2)}
    point = np.array([0.1, 1.2, -0.3])
    for frame, (what, hitstop) in enumerate(script):
        n = len(s)
        if what in ("hit", "heavy", "block"):
            hit = make_hit(frame=frame, point=point, heavy=what == "heavy", blocked=what == "block", hitstop=hitstop)
            s.spawn(hit)
            ref["flash"][1] = s.flash[1]
            ref["left"][1], ref["base"][1] = 6, s.flash[1, 3]
        elif what in ("crate", "impact"):
            s.burst(point, frame, what, big=hitstop > 6)
        ref["p"] = np.vstack([ref["p"], s.p[n:]])
        ref["prev"] = np.vstack([ref["prev"], s.prev_pos[n:]])
        for _ in range(1 + hitstop % 4):
            assert np.array_equal(s.p, ref["p"]) and np.array_equal(s.prev_pos, ref["prev"])
            assert np.array_equal(s.flash, ref["flash"])
            got, want = s.instances(alpha), _spark_instances_reference(s, alpha)
            assert got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-7)
            assert np.array_equal(np.signbit(got[:, 6]), np.signbit(want[:, 6]))   # rings stay rings
            s.step()
            _spark_step_reference(ref)


def _spark_step_reference(r):
    """``Sparks.step`` as first written (masked passes, the flash on arrays), on a dict state."""
    from game.render.sparks import DRAG, FLASH_FRAMES, GRAVITY, HITSTOP_SPEED, KIND_SPARK

    r["left"] = np.maximum(r["left"] - 1, 0)
    r["flash"][:, 3] = r["base"] * (r["left"] / FLASH_FRAMES) ** 2
    p = r["p"].copy()
    if not len(p):
        return
    r["prev"] = p[:, 0:3].copy()
    frozen = p[:, 12] > 0
    k = np.where(frozen, HITSTOP_SPEED, 1.0)[:, None]
    spark = p[:, 13] == KIND_SPARK
    p[spark, 0:3] += p[spark, 3:6] * k[spark]
    p[spark & ~frozen, 4] += GRAVITY
    p[spark & ~frozen, 3:6] *= DRAG
    p[:, 12] = np.maximum(p[:, 12] - 1, 0)
    p[:, 11] += 1
    alive = p[:, 11] < p[:, 10]
    r["p"], r["prev"] = p[alive], r["prev"][alive]


# ---------------------------------------------------------------- sparks
_hit = make_hit


def test_render_sparks_burst_fade_and_differ_by_kind():
    from game.render.sparks import Sparks

    rows = {}
    for name, kw in (("light", {}), ("heavy", {"heavy": True, "hitstop": 10}), ("block", {"blocked": True})):
        s = Sparks()
        s.spawn(_hit(**kw))
        first = s.instances()
        rows[name] = first
        assert np.allclose(first[:, :3].mean(axis=0), [0, 1.3, 0], atol=0.05)
        frames = 0
        while len(s):
            s.step()
            frames += 1
        assert frames <= kw.get("hitstop", 6) + 20, "sparks outlive the hit"
        assert s.flash[1, 3] == 0.0
    assert len(rows["heavy"]) > len(rows["light"])
    assert np.abs(rows["heavy"][:, 6]).max() > np.abs(rows["light"][:, 6]).max()
    def blue(r):                        # blue minus red
        return (r[:, 9] - r[:, 7]).mean()

    assert blue(rows["block"]) > 0 > blue(rows["light"])
    assert (rows["block"][:, 6] < 0).any(), "a blocked hit draws a shield ring"


def test_render_sparks_crawl_during_hitstop_then_burst():
    from game.render.sparks import Sparks

    s = Sparks()
    s.spawn(_hit(hitstop=8))
    spark = s.p[:, 13] == 0
    start = s.p[spark, :3].copy()
    for _ in range(8):
        s.step()
    crawl = np.linalg.norm(s.p[spark, :3] - start, axis=1).mean()
    mid = s.p[spark, :3].copy()
    for _ in range(3):
        s.step()
    alive = s.p[:, 13] == 0
    burst = np.linalg.norm(s.p[alive, :3] - mid[: alive.sum()], axis=1).mean()
    assert burst / 3 > 2 * crawl / 8, "sparks should move much faster once hitstop ends"
