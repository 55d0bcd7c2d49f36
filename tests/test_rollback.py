"""Rollback-style determinism: snapshot, run ahead, restore, re-simulate -> identical frames.

A rollback netcode restores a snapshot and re-simulates up to 8 frames when a
late input arrives; every re-simulated frame must give the same state hash and
the same events as the first time, and a restored match must forget every
frame it ran ahead (other inputs in between included).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from game.sim import FrameInput, Match
from simhelp import run_frames as run

ROOT = Path(__file__).resolve().parents[1]
_DECODE = [FrameInput.from_bits(n) for n in range(1 << FrameInput.BITS)]


def held_inputs(rng, n):
    bits = rng.integers(0, 1 << FrameInput.BITS, size=(n, 2)) & rng.integers(0, 1 << FrameInput.BITS, size=(n, 2))
    keep = rng.random((n, 2)) < 0.75
    for i in range(1, n):
        bits[i] = np.where(keep[i], bits[i - 1], bits[i])
    return [(_DECODE[a], _DECODE[b]) for a, b in bits.tolist()]


@pytest.mark.parametrize("cpu", [(None, None), (None, "hard"), ("normal", "easy")])
@pytest.mark.parametrize("seed", [1, 2])
def test_restore_and_resimulate_gives_identical_frames(seed, cpu):
    rng = np.random.default_rng(seed)
    m = Match.new(seed=seed, p1_cpu=cpu[0], p2_cpu=cpu[1])
    stream = held_inputs(rng, 3000)
    checks = 0
    i = 0
    while i < len(stream) - 8 and not m.over:
        if rng.random() < 0.08:                          # a rollback point
            k = int(rng.integers(1, 9))                  # 1-8 frames ahead
            snap = m.snapshot()
            h0 = m.state_hash()
            first = run(m, stream[i:i + k])
            # a mispredicted run with other inputs, thrown away
            m.restore(snap)
            assert m.state_hash() == h0
            run(m, held_inputs(rng, k))
            m.restore(snap)
            assert m.state_hash() == h0
            again = run(m, stream[i:i + k])
            assert again == first, f"seed {seed} cpu {cpu}: frame {first[0][0] - 1} +{k} differs after restore"
            checks += 1
            i += k
        else:
            m.step(*stream[i])
            i += 1
    assert checks > 20


def test_rollback_matches_a_straight_run():
    """A run with rollbacks (and mispredictions) ends where a straight run with the final inputs ends."""
    rng = np.random.default_rng(7)
    stream = held_inputs(rng, 1500)
    straight = Match.new(seed=7, p2_cpu="hard")
    expect = run(straight, stream)

    m = Match.new(seed=7, p2_cpu="hard")
    got = []
    i = 0
    while i < len(stream):
        k = min(int(rng.integers(1, 9)), len(stream) - i)
        snap = m.snapshot()
        run(m, held_inputs(rng, k))                      # predicted wrong
        m.restore(snap)
        got += run(m, stream[i:i + k])                   # corrected
        i += k
    assert got == expect


def test_snapshot_is_independent_of_later_play():
    m = Match.new(seed=3)
    rng = np.random.default_rng(3)
    run(m, held_inputs(rng, 300))
    snap = m.snapshot()
    h = m.state_hash()
    boxes = [f.limb_boxes() for f in m.fighters]
    run(m, held_inputs(rng, 200))
    m.restore(snap)
    assert m.state_hash() == h
    assert all(np.array_equal(a, f.limb_boxes()) for a, f in zip(boxes, m.fighters))
    m.restore(snap)                                     # a snapshot can be restored many times
    assert m.state_hash() == h


SCRIPT = r"""
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from game.sim import FrameInput, Match
rng = np.random.default_rng(int(sys.argv[2]))
m = Match.new(seed=int(sys.argv[2]), p2_cpu="normal")
bits = rng.integers(0, 1 << FrameInput.BITS, size=(2500, 2)) & rng.integers(0, 1 << FrameInput.BITS, size=(2500, 2))
for a, b in bits.tolist():
    m.step(FrameInput.from_bits(a), FrameInput.from_bits(b))
print(m.frame, m.state_hash())
"""


def test_two_processes_end_on_the_same_hash():
    outs = []
    for hashseed in ("1", "12345"):                      # str hashing differs between the processes
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        p = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), "11"], env=env, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout.split())
    assert outs[0] == outs[1]
    # and the same as in this process
    rng = np.random.default_rng(11)
    m = Match.new(seed=11, p2_cpu="normal")
    bits = rng.integers(0, 1 << FrameInput.BITS, size=(2500, 2)) & rng.integers(0, 1 << FrameInput.BITS, size=(2500, 2))
    for a, b in bits.tolist():
        m.step(FrameInput.from_bits(a), FrameInput.from_bits(b))
    assert outs[0] == [str(m.frame), m.state_hash()]


def test_range_boxes_follow_the_round_restart():
    """On the frame a new round starts, limb boxes are at the fighters' start positions
    (they were left at the previous frame's poses, which also broke restore's hash)."""
    rng = np.random.default_rng(2)
    m = Match.new(seed=2)
    for p1, p2 in held_inputs(rng, 6000):
        ev = m.step(p1, p2)
        if any(type(e).__name__ == "RoundStart" and e.round >= 2 for e in ev):
            break
    else:
        pytest.fail("no second round within 6000 frames")
    assert m.round == 2
    for f in m.fighters:
        centre = f.limb_boxes()[0].mean(axis=0)          # the root limb
        assert abs(centre[0] - f.x) < 0.5 and abs(centre[2] - f.z) < 0.5
    fresh = m.snapshot()
    m.restore(fresh)
    boxes = np.stack([f.limb_boxes() for f in m.fighters])
    m.limbs.place(*m.fighters)                           # rebuilt from the state: the same boxes
    assert np.array_equal(boxes, np.stack([f.limb_boxes() for f in m.fighters]))
