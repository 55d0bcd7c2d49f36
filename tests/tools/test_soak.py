"""Soak: 100,000 random-input frames with every invariant checked on every frame.

The checks live in ``game.tools.soak`` (``python3 -m game.tools.soak`` runs the
same for 1M frames).  A violation's message names the seed and frame that
reproduce it."""

from __future__ import annotations

import gc
import math
import sys
import tracemalloc

import numpy as np
import pytest

from game.sim import Match
from game.tools import soak as soakmod
from game.tools.soak import SoakViolation, check_match, soak

SEED = 20261129


FRAMES = 100_000


MEM_FROM = 20_000


TRACE_FROM = 90_000


#: Allowed growth of live allocation blocks (Python objects, ndarray headers) between the
#: end of the first match after frame 20k and the end of the last match before 90k.
BLOCK_BOUND = 2_000


#: Allowed growth of traced bytes (Python + numpy data) over one whole match after 90k.
TRACE_BOUND = 256 * 1024


@pytest.mark.slow
def test_soak_100k_frames_invariants_and_bounded_memory():
    """100k checked frames, and memory that does not keep growing.

    Memory is compared at equivalent moments, so a match's own footprint (its
    stage is a deep copy of the arena scene, ~2 MB) never counts as growth:
    live blocks (``sys.getallocatedblocks``, cheap) at the end of each match
    from 20k to 90k; and a tracemalloc snapshot compare over the first whole
    match that starts after 90k (from just after it is built to its end or
    frame 100k; tracing costs ~3x, so it does not run over the whole span)."""
    blocks = []
    probes = {}

    def on_match(g, m, phase):
        if phase == "end" and MEM_FROM <= g < TRACE_FROM:
            gc.collect()
            blocks.append((g, sys.getallocatedblocks()))
        elif phase == "end" and "a" in probes and "b" not in probes:
            finish(g)
        elif phase == "start" and g >= TRACE_FROM and "a" not in probes:
            gc.collect()
            tracemalloc.start()
            probes["a"], probes["from"] = tracemalloc.take_snapshot(), g

    def finish(g):
        gc.collect()
        probes["b"], probes["to"] = tracemalloc.take_snapshot(), g
        tracemalloc.stop()

    def on_frame(g):
        if g == FRAMES and "a" in probes and "b" not in probes:
            finish(g)

    try:
        out = soak(FRAMES, SEED, on_frame=on_frame, on_match=on_match)
    finally:
        tracemalloc.stop()
    assert out["frames"] == FRAMES and out["matches"] > 2
    assert len(blocks) >= 2, f"soak seed {SEED}: too few match ends between {MEM_FROM} and {TRACE_FROM}"
    (g0, b0), (g1, b1) = blocks[0], blocks[-1]
    assert b1 - b0 < BLOCK_BOUND, f"soak seed {SEED}: {b1 - b0} more live blocks at frame {g1} than at {g0}"
    assert "b" in probes and probes["to"] - probes["from"] > 500
    stats = probes["b"].compare_to(probes["a"], "lineno")
    grown = sum(st.size_diff for st in stats)
    top = "; ".join(str(st) for st in stats[:3])
    assert grown < TRACE_BOUND, \
        f"soak seed {SEED}: memory grew {grown} B from frame {probes['from']} to {probes['to']}: {top}"


@pytest.mark.slow
def test_leak_detectors_see_a_leak():
    """The two memory probes of the soak test do notice a small per-frame leak."""
    keep = []
    gc.collect()
    blocks = sys.getallocatedblocks()
    tracemalloc.start()
    a = tracemalloc.take_snapshot()
    m = Match.new(seed=1)
    for _ in range(2000):
        m.step()
        keep.append((m.fighters[0].limb_boxes(), [m.frame]))
    b = tracemalloc.take_snapshot()
    tracemalloc.stop()
    assert sys.getallocatedblocks() - blocks > BLOCK_BOUND
    assert sum(s.size_diff for s in b.compare_to(a, "lineno")) > TRACE_BOUND


def _broken_match(attr, value):
    def make(seed):
        m = Match.new(seed=seed)
        orig = m.step

        def step(p1, p2):
            ev = orig(p1, p2)
            if m.frame == 150:
                setattr(m.fighters[1], attr, value)
            return ev
        m.step = step
        return m
    return make


@pytest.mark.parametrize("attr, value, words", [
    ("health", -1, "health -1"),
    ("x", math.nan, "x is nan"),
    ("z", 1e6, "outside the arena bounds"),
])
def test_a_violation_names_seed_and_frame(attr, value, words):
    with pytest.raises(SoakViolation) as ei:
        soak(1000, 7, make_match=_broken_match(attr, value))
    msg = str(ei.value)
    assert words in msg and "soak seed 7, frame 149" in msg and "--seed 7 --frames 150" in msg


def test_interpenetration_is_caught():
    m = Match.new(seed=0)
    a, b = m.fighters
    b.x, b.z = a.x + m.data.pushbox_radius, a.z
    assert "interpenetrate" in check_match(m)


def test_pose_nan_is_caught():
    m = Match.new(seed=0)
    pose = m.fighters[0].pose.copy()        # read-only: a tool sets a pose by assignment
    pose[3, 1] = np.inf
    m.fighters[0].pose = pose
    assert "pose" in check_match(m)


def test_arena_check_is_called_when_present():
    class Arena:
        def validate(self):
            raise AssertionError("crate 3: box 2 outside its compound")

    class WithArena(Match):
        arena = property(lambda self: Arena())       # a data descriptor: wins over any instance attribute
    m = Match.new(seed=0)
    m.__class__ = WithArena
    assert "crate 3" in check_match(m)


def test_same_seed_same_frames():
    """The soak's input stream is a pure function of its seed (reproducible reports)."""
    a = soakmod._inputs(np.random.default_rng(3), 500)
    b = soakmod._inputs(np.random.default_rng(3), 500)
    assert np.array_equal(a, b) and len(np.unique(a[:, 0])) > 20


def test_crate_compounds_are_validated_after_a_change():
    """Each crate's compound is validated when its boxes change (and only then)."""
    calls = []

    class Comp:
        def __init__(self):
            self.boxes = np.zeros((1, 2, 3))

        def validate(self):
            calls.append(1)
            if self.boxes[0, 1, 0] < 0:
                raise RuntimeError("B9: box 0 has min > max")

    class Crate:
        def __init__(self):
            self.compound, self.obj = Comp(), type("O", (), {"name": "crate_ne"})()

    m = Match.new(seed=0)
    crate = Crate()
    m.__dict__["stage"] = type("S", (), {"crates": [crate]})()
    seen = {}
    assert check_match(m, seen) is None and check_match(m, seen) is None
    assert len(calls) == 1
    crate.compound.boxes = crate.compound.boxes - 1.0
    assert "crate 0 (crate_ne) compound invalid: RuntimeError: B9" in check_match(m, seen)


def test_projectile_nan_is_caught():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Proj:
        x: float
        y: float

    m = Match.new(seed=0)
    m.__dict__["stage"] = type("S", (), {"projectiles": (Proj(0.0, math.nan),), "crates": []})()
    assert "projectile 0 y is nan" in check_match(m)


def test_fighter_inside_a_pillar_is_caught():
    m = Match.new(seed=0)
    pillar = next(o for o in m.arena.objects if o.kind == "pillar")
    f = m.fighters[0]
    f.x, f.z = float(pillar.aabb[:, 0].mean()), float(pillar.aabb[:, 2].mean())
    assert "P1" in check_match(m) and "inside an obstacle" in check_match(m)
