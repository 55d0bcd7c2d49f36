"""Shared by the replay tests: matches recorded with held random inputs or a fixed script."""

from __future__ import annotations

import random

from game.replay import ReplayRecorder
from game.sim import FrameInput, Match


def make_match(seed, p1_cpu, p2_cpu):
    return Match.new(seed=seed, p1_cpu=p1_cpu, p2_cpu=p2_cpu)


def record(seed=3, cpu=(None, "hard"), frames=900, change=0.1, input_seed=1):
    """Record a match with held random human inputs; return (bytes, match)."""
    m = make_match(seed, *cpu)
    rec = ReplayRecorder.for_match(m)
    r = random.Random(input_seed)
    b1 = b2 = 0
    while m.frame < frames and not m.over:
        if r.random() < change:
            b1 = r.randrange(1 << FrameInput.BITS)
        if r.random() < change:
            b2 = r.randrange(1 << FrameInput.BITS)
        m.step(FrameInput.from_bits(b1), FrameInput.from_bits(b2))
        rec.record(m)
    return rec.to_bytes(), m


def scripted_inputs(i: int) -> tuple[FrameInput, FrameInput]:
    """A fixed, varied input script: walking, jabs, kicks, a guard."""
    return (FrameInput(forward=i % 50 < 30, lp=i % 17 == 0, hk=i % 41 == 0),
            FrameInput(back=i % 70 < 20, lk=i % 23 == 0, guard=i % 90 > 80))


def record_script(m: Match, frames: int) -> tuple[ReplayRecorder, list[str]]:
    rec = ReplayRecorder.for_match(m)
    hashes = []
    for i in range(frames):
        m.step(*scripted_inputs(i))
        rec.record(m)
        hashes.append(m.state_hash())
    return rec, hashes
