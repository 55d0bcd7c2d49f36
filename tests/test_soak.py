"""Soak: 100,000 random-input frames with every invariant checked on every frame.

The checks live in ``game.tools.soak`` (``python -m game.tools.soak`` runs the
same for 1M frames).  A violation's message names the seed and frame that
reproduce it.
"""

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
#: The last frames run under tracemalloc (tracing triples the cost of a frame, so
#: the whole 20k-100k span is measured by live allocation blocks instead).
TRACE_FROM = 90_000
#: Allowed growth of live blocks (Python objects, ndarray headers) from 20k to 90k,
#: and of traced bytes (Python + numpy data) over the traced window 90k-100k.
BLOCK_BOUND = 2_000
TRACE_BOUND = 256 * 1024


def test_soak_100k_frames_invariants_and_bounded_memory():
    """100k checked frames; memory: live blocks at 20k vs 90k, and a tracemalloc
    snapshot compare over the traced window 90k-100k (a per-frame leak shows as
    ~10k leftover allocations there)."""
    probes = {}

    def on_frame(g):
        if g == MEM_FROM:
            gc.collect()
            probes["blocks"] = sys.getallocatedblocks()
        elif g == TRACE_FROM:
            gc.collect()
            probes["blocks"] = sys.getallocatedblocks() - probes["blocks"]
            tracemalloc.start()
            probes["a"] = tracemalloc.take_snapshot()
        elif g == FRAMES:
            gc.collect()
            probes["b"] = tracemalloc.take_snapshot()
            tracemalloc.stop()

    out = soak(FRAMES, SEED, on_frame=on_frame)
    assert out["frames"] == FRAMES and out["matches"] > 1
    assert probes["blocks"] < BLOCK_BOUND, \
        f"soak seed {SEED}: {probes['blocks']} more live blocks at frame {TRACE_FROM} than at {MEM_FROM}"
    stats = probes["b"].compare_to(probes["a"], "lineno")
    grown = sum(s.size_diff for s in stats)
    top = "; ".join(str(s) for s in stats[:3])
    assert grown < TRACE_BOUND, f"soak seed {SEED}: memory grew {grown} B from frame {TRACE_FROM} to {FRAMES}: {top}"


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
    m.fighters[0].pose[3, 1] = np.inf
    assert "pose" in check_match(m)


def test_arena_check_is_called_when_present():
    m = Match.new(seed=0)

    class Arena:
        def validate(self):
            raise AssertionError("crate 3: box 2 outside its compound")
    m.arena = Arena()
    assert "crate 3" in check_match(m)


def test_same_seed_same_frames():
    """The soak's input stream is a pure function of its seed (reproducible reports)."""
    a = soakmod._inputs(np.random.default_rng(3), 500)
    b = soakmod._inputs(np.random.default_rng(3), 500)
    assert np.array_equal(a, b) and len(np.unique(a[:, 0])) > 20
