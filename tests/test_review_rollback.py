"""Determinism and rollback review: state the hash missed, hashes that depended on the
machine, rollback and replays over crate strikes and a crate break, replay files that
inflate far past their size.

The crate fight is played by inputs alone (``crate_fight``): P2 walks round behind
``crate_north``, P1 stands south of it and beats it, from a few places, until it breaks,
then throws a fireball where it stood.  So it can be recorded and replayed.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

from game.reference.skeleton import mat_mul as _mat_ref
from game.replay import HEADER, TRAILER, ReplayError, ReplayRecorder, decode
from game.sim import CrateStruck, FrameInput, Match
from simhelp import run_frames as run

ROOT = Path(__file__).resolve().parents[1]
NEUTRAL = FrameInput()


def _steer(f, tx, tz):
    """The input that moves fighter ``f`` toward (tx, tz) (walk or sidestep), None when there."""
    dx, dz = tx - f.x, tz - f.z
    if math.hypot(dx, dz) < 0.05:
        return None
    fwd = dx * f.fx + dz * f.fz
    side = dx * -f.fz + dz * f.fx                       # side_r moves along (-fz, fx)
    if abs(fwd) >= abs(side):
        return FrameInput(forward=True) if fwd > 0 else FrameInput(back=True)
    return FrameInput(side_r=True) if side > 0 else FrameInput(side_l=True)


def crate_fight(limit: int = 4000):
    """Inputs of a two-player match (seed 0) in which P1 breaks ``crate_north`` by strikes
    and then throws a fireball through where it stood; ``(inputs, strike frames, break frame)``."""
    m = Match.new(seed=0)
    out, strikes, broke = [], [], None
    plan2 = [(2.2, 3.0), (2.2, 7.0), (0.0, 8.0)]        # P2 round the crate, behind it
    plan1 = [(0.0, 3.72)]                               # P1 south of it, facing it
    k = wait = 0
    while len(out) < limit and not m.over:
        a, b = m.fighters
        p1 = p2 = NEUTRAL
        if m.phase == "fight":
            if plan2:
                s = _steer(b, *plan2[0])
                p2 = s if s is not None else NEUTRAL
                if s is None:
                    plan2.pop(0)
            elif plan1:
                s = _steer(a, *plan1[0])
                p1 = s if s is not None else NEUTRAL
                if s is None:
                    plan1.pop(0)
            elif wait:
                wait -= 1
            else:
                p1 = FrameInput(**{("hp", "lk", "lp")[k % 3]: True})
                k, wait = k + 1, 40
                plan1.append((0.2 * ((k % 7) - 3), 3.72))
        if broke is not None and m.frame in (broke + 30, broke + 31):
            p1 = FrameInput(lp=True, hp=True)
        ev = m.step(p1, p2)
        out.append((p1, p2))
        for e in ev:
            if isinstance(e, CrateStruck):
                strikes.append(e.frame)
                if e.broke and broke is None:
                    broke = e.frame
        if broke is not None and m.frame > broke + 90:
            break
    return out, strikes, broke


@pytest.fixture(scope="module")
def fight():
    inputs, strikes, broke = crate_fight()
    assert len(strikes) >= 3 and broke is not None, "the scripted fight no longer breaks the crate"
    straight = run(Match.new(seed=0), inputs)
    assert any(k[0] == "ProjectileLaunched" for fr in straight[broke:] for k in fr[2])
    return inputs, strikes, broke, straight


# ---------------------------------------------------------------- hash coverage
def _frame_with_buffered_rng(m, limit=600):
    for _ in range(limit):
        m.step()
        if m.rng.bit_generator.state["has_uint32"]:
            return
    pytest.fail("the CPU never left half a 64-bit draw in the RNG")


def test_state_hash_covers_the_rngs_buffered_32_bit_half():
    """PCG64 keeps the unused half of a 64-bit output for the next 32-bit draw (the CPU's
    ``rng.integers``): two matches equal but for it play on differently, so the hash must tell
    them apart (it hashed only ``state`` and ``inc``)."""
    a = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
    _frame_with_buffered_rng(a)
    b = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
    b.restore(a.snapshot())
    assert b.state_hash() == a.state_hash()
    st = dict(b.rng.bit_generator.state)
    st["has_uint32"] = 0
    b.rng.bit_generator.state = st
    # the futures differ (a real part of the state) ...
    snap_a, snap_b = a.snapshot(), b.snapshot()
    ha = [h for _, h, _, _ in run(a, [(NEUTRAL, NEUTRAL)] * 200)]
    hb = [h for _, h, _, _ in run(b, [(NEUTRAL, NEUTRAL)] * 200)]
    assert ha != hb
    # ... so the hashes before them must differ too
    a.restore(snap_a)
    b.restore(snap_b)
    assert a.state_hash() != b.state_hash()
    # and another buffered value is another state as well
    st["has_uint32"], st["uinteger"] = 1, (a.rng.bit_generator.state["uinteger"] + 1) % 2**32
    b.rng.bit_generator.state = st
    assert a.state_hash() != b.state_hash()


def test_state_hash_reads_values_not_the_arrays_byte_order():
    """The hash is of the state's values in little-endian: the same on a big-endian machine
    (simulated here by big-endian copies of the arrays it reads)."""
    m = Match.new(seed=2, p2_cpu="normal")
    for _ in range(200):
        m.step(FrameInput(forward=True), NEUTRAL)
    h = m.state_hash()
    for f in m.fighters:
        f.pose = f.pose.astype(">f8")
        f.pose_from = f.pose_from.astype(">f8")
    m.limbs.boxes = m.limbs.boxes.astype(">f8")
    assert m.state_hash() == h


# ---------------------------------------------------------------- same bits on every CPU
def test_A6_forward_kinematics_and_placing_give_the_python_reference_bits():
    """``Skeleton.body`` and ``Skeleton.place`` (A6's rotated corners) against a per-element
    Python reference, bit for bit: numpy's matmul went to BLAS, whose CPU-chosen kernel (FMA
    or not) rounded otherwise on other machines."""
    m = Match.new(seed=0, arena=False)
    sk = m.data.skeleton
    local = m.data.moves["hk"].rot[5]                                  # (L, 3, 3)
    body = sk.body(local[None])[0]                                     # (12, L, 4)
    L = len(sk.names)
    world = [None] * L
    for i in range(L):
        t = [[float(local[i, r, c]) for c in range(3)] + [float(sk.joint[i, r])] for r in range(3)]
        t.append([0.0, 0.0, 0.0, 1.0])
        p = int(sk.parent[i])
        world[i] = t if p < 0 else _mat_ref(world[p], t)
    for i in range(L):
        vec = _mat_ref(world[i], sk._limb_vectors[i].tolist())        # (4, 12)
        want = np.array(vec).T                                         # (12, 4)
        assert np.array_equal(body[:, i], want), sk.names[i]
    # place: turn about y to the facing, then the shift (points only), per element
    fx, fz = 0.6, -0.8
    gx, gy, gz, lift = 1.25, 0.1, -2.5, 0.3
    rot, origin, rows = sk.place(body[None], np.array([[gx, gy, gz]]), np.array([[fx, fz]]), np.array([lift]),
                                 padded=True)
    lo = float(body[4:, :, 1].min())
    shift = (gx, gy + lift - lo, gz)
    w = np.empty(body.shape)
    for r in range(12):
        for i in range(L):
            x, y, z, _ = body[r, i].tolist()
            pt = [x * fx - z * fz, y, x * fz + z * fx]
            if r >= 3:
                pt = [pt[0] + shift[0], pt[1] + shift[1], pt[2] + shift[2]]
            w[r, i, :3] = pt
    assert np.array_equal(origin[0], w[3, :, :3])
    assert np.array_equal(rot[0], w[:3, :, :3].transpose(1, 2, 0))
    assert np.array_equal(rows[0, :, 0, :3], w[4:, :, :3].min(axis=0))
    assert np.array_equal(rows[0, :, 1, :3], w[4:, :, :3].max(axis=0))
    assert not rows[..., 3].any()


HASHES = r"""
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
from game.sim import FrameInput, Match
inputs = [(FrameInput.from_bits(a), FrameInput.from_bits(b)) for a, b in json.loads(sys.stdin.read())]
h = hashlib.sha256()
m = Match.new(seed=4, p1_cpu="hard", p2_cpu="normal")
for _ in range(400):
    m.step()
    h.update(m.state_hash().encode())
m = Match.new(seed=0)
for p1, p2 in inputs:
    m.step(p1, p2)
    h.update(m.state_hash().encode())
print(h.hexdigest())
"""


def _hashes_in_a_process(inputs, **env):
    data = json.dumps([(a.bits, b.bits) for a, b in inputs])
    p = subprocess.run([sys.executable, "-c", HASHES, str(ROOT)], input=data, env=dict(os.environ, **env),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_B9_hashes_match_across_processes_hash_seeds_and_blas_kernels(fight):
    """Every frame's hash (a CPU fight, and the crate fight with its strikes and break) is the
    same in processes with other ``PYTHONHASHSEED`` values and other BLAS kernels (what another
    CPU would get: ``OPENBLAS_CORETYPE`` picks it; ignored by other BLAS libraries)."""
    inputs = fight[0]
    got = {_hashes_in_a_process(inputs, PYTHONHASHSEED=str(seed), OPENBLAS_CORETYPE=core)
           for seed, core in ((1, "Haswell"), (4242, "Sandybridge"), (7, "Prescott"))}
    assert len(got) == 1


# ---------------------------------------------------------------- rollback over crates
def test_B7_B9_rollback_over_crate_strikes_and_the_break_resimulates_identically(fight):
    """Around every strike and the break: snapshot, run ahead (and mispredict), restore,
    re-run: every frame's hash, events and inputs as in the straight run; the same after a
    restore into a fresh match."""
    inputs, strikes, broke, straight = fight
    points = sorted({max(0, s - back) for s in strikes + [broke, broke + 30] for back in (1, 4, 8)})
    m = Match.new(seed=0)
    done = 0
    for start in points:
        while done < start:
            m.step(*inputs[done])
            done += 1
        snap = m.snapshot()
        want = straight[start:start + 12]
        run(m, [(FrameInput(guard=True), FrameInput(back=True))] * 6)     # a wrong prediction
        m.restore(snap)
        assert run(m, inputs[start:start + 12]) == want, f"in place from frame {start}"
        fresh = Match.new(seed=0)
        fresh.restore(snap)
        assert fresh.state_hash() == (straight[start - 1][1] if start else Match.new(seed=0).state_hash())
        assert run(fresh, inputs[start:start + 12]) == want, f"fresh match from frame {start}"
        m.restore(snap)
    # the stage after a restore across the break: the crate stands again in scene and physics
    m = Match.new(seed=0)
    run(m, inputs[:broke - 2])
    before = m.snapshot()
    run(m, inputs[broke - 2:broke + 10])
    c = next(c for c in m.stage.crates if c.obj.name == "crate_north")
    assert c.broken
    m.restore(before)
    assert not c.broken and m.stage.scene.cast_any([0.0, 0.75, 3.0], [0, 0, 1], 4.0, level=0)
    assert run(m, inputs[broke - 2:]) == straight[broke - 2:]


def test_snapshots_stay_unchanged_by_play_after_a_restore(fight):
    inputs, _, broke, _ = fight
    m = Match.new(seed=0)
    snaps = {}
    for i, (p1, p2) in enumerate(inputs):
        if i in (0, 95, broke - 1, broke + 32):
            s = m.snapshot()
            snaps[i] = (s, pickle.dumps(s))
        m.step(p1, p2)
    for i, (s, _) in snaps.items():
        m.restore(s)
        run(m, inputs[i:i + 40])
    assert all(pickle.dumps(s) == b for s, b in snaps.values())


# ---------------------------------------------------------------- replays
RECORD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from game.sim import FrameInput, Match
from game.replay import ReplayRecorder
inputs = [(FrameInput.from_bits(a), FrameInput.from_bits(b)) for a, b in json.loads(sys.stdin.read())]
m = Match.new(seed=0)
rec = ReplayRecorder.for_match(m)
for p1, p2 in inputs:
    m.step(p1, p2)
    rec.record(m)
rec.save(sys.argv[2])
print(m.state_hash())
"""


def test_B9_replay_with_crate_strikes_recorded_in_one_process_plays_in_another(fight, tmp_path):
    inputs, strikes, broke, straight = fight
    path = tmp_path / "crates.rpl"
    data = json.dumps([(a.bits, b.bits) for a, b in inputs])
    rec = subprocess.run([sys.executable, "-c", RECORD, str(ROOT), str(path)], input=data, capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, PYTHONHASHSEED="5", OPENBLAS_CORETYPE="Haswell"))
    assert rec.returncode == 0, rec.stderr
    play = subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--replay", str(path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, PYTHONHASHSEED="99", OPENBLAS_CORETYPE="Sandybridge"))
    assert play.returncode == 0, play.stderr
    out = json.loads(play.stdout)
    assert out["ok"] and out["frames"] == len(inputs)
    assert out["final_hash"] == rec.stdout.strip() == straight[-1][1]


def _file(payload: bytes, frames: int, runs: int) -> bytes:
    import game

    header = HEADER.pack(b"RBXR", 2, HEADER.size, game.__version__.encode(), 0, 0, 0, 60, frames, runs,
                         frames // 60, len(payload), zlib.crc32(payload), 1)
    return header + payload + TRAILER.pack(zlib.crc32(header + payload))


def test_payload_that_inflates_far_past_its_header_is_refused_without_inflating_it():
    """A file under the size limit whose zlib payload (valid CRCs) inflates to ~100 MB: one
    ReplayError naming the payload, without the 100 MB ever being made."""
    z = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    payload = b"".join(z.compress(chunk) for _ in range(100)) + z.flush()
    data = _file(payload, 60, 1)
    tracemalloc.start()
    try:
        with pytest.raises(ReplayError, match=rf"bomb.rpl: payload at byte {HEADER.size}: decompressed payload is over"):
            decode(data, "bomb.rpl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(data) + (1 << 20)


def test_truncated_zlib_stream_is_named_as_such():
    raw = bytes(6) + bytes(8)                                # one empty run, 0 frames, the final hash
    full = zlib.compress(raw, 9)
    with pytest.raises(ReplayError, match=rf"x.rpl: payload at byte {HEADER.size}: zlib data is invalid"):
        decode(_file(full[:-3], 0, 1), "x.rpl")


def test_B9_replay_of_a_crate_fight_round_trips_through_bytes(fight):
    """The recorder's bytes decode to the fight's own inputs and per-frame tags."""
    inputs, _, _, straight = fight
    m = Match.new(seed=0)
    rec = ReplayRecorder.for_match(m)
    for p1, p2 in inputs:
        m.step(p1, p2)
        rec.record(m)
    r = decode(rec.to_bytes(), "mem.rpl")
    assert r.inputs.tolist() == [[a.bits, b.bits] for a, b in inputs]
    assert r.tags.tolist() == [int(h[:4], 16) for _, h, _, _ in straight]
