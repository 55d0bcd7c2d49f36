"""Snapshot, restore and the state hash: every piece of state the snapshot holds changes the hash
and is put back by a restore, rollbacks re-simulate identical frames (over crate strikes and a
crate break too), snapshots are values, and a snapshot of another kind of match is refused."""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields

import numpy as np
import pytest

from game.sim import (
    FrameInput,
    Match,
)
from game.sim.ai import CpuPlan
from game.sim.fighter import SCALARS
from game.sim.state import MATCH_SCALARS
from replayhelp import scripted_inputs
from simhelp import (
    NEUTRAL,
    blending,
    crate,
    fight,
    punch_crate,
)
from simhelp import run_frames as run

#: the CPU plan's fields (each hashed and restored)
PLAN_FIELDS = tuple(f.name for f in fields(CpuPlan))


def other(v):
    """A different value of the same kind."""
    if isinstance(v, bool):
        return not v
    if v is None:
        return 1
    if isinstance(v, (int, np.integer)):
        return v + 1
    if isinstance(v, float):
        return v + 0.5
    if isinstance(v, str):
        return v + "_x"
    if isinstance(v, tuple):        # the CPU's looks at its opponent (CpuPlan.eyes)
        return v[:-1] + (other(v[-1]),) if v else (0,)
    raise TypeError(f"no other value for {v!r}")


@pytest.fixture(scope="module")
def mid_fight():
    m = Match.new(seed=4, p1_cpu="hard", p2_cpu="normal")
    for _ in range(420):
        m.step()
    assert m.phase == "fight" and not m.over
    return m


def perturbations(m):
    """(name, function changing one piece of state in place)."""
    out = [(f"match.{n}", (lambda n=n: setattr(m, n, other(getattr(m, n))))) for n in MATCH_SCALARS]
    out.append(("match.round_winner", lambda: setattr(m, "round_winner", other(m.round_winner))))
    for f in m.fighters:
        for n in SCALARS:
            out.append((f"p{f.index + 1}.{n}", (lambda f=f, n=n: setattr(f, n, other(getattr(f, n))))))
        # read-only values: a tool sets them by assignment (Fighter.pose's setter)
        out.append((f"p{f.index + 1}.pose", lambda f=f: setattr(f, "pose", f.pose + np.eye(*f.pose.shape) * 0.01)))
        out.append((f"p{f.index + 1}.pose_from",
                    lambda f=f: setattr(f, "pose_from", f.pose_from + np.eye(*f.pose_from.shape, k=-1) * 0.01)))
    out.append(("rng", lambda: m.rng.random()))
    for i in (0, 1):
        for n in PLAN_FIELDS:
            out.append((f"ai_state[{i}].{n}",
                        lambda i=i, n=n: setattr(m.ai_state[i], n, other(getattr(m.ai_state[i], n)))))
    # the range boxes are read-only values: a tool replaces them
    out.append(("range boxes", lambda: setattr(m.limbs, "boxes", m.limbs.boxes + np.eye(3)[2] * 0.01)))
    out.append(("crate broken", lambda: setattr(m.stage.crates[0], "broken", not m.stage.crates[0].broken)))
    return out


@pytest.mark.slow
def test_every_piece_of_snapshot_state_changes_the_hash_and_restore_puts_it_back(mid_fight):
    m = mid_fight
    snap = m.snapshot()
    h0 = m.state_hash()
    names = []
    for name, change in perturbations(m):
        change()
        assert m.state_hash() != h0, f"{name} is not covered by state_hash()"
        m.restore(snap)
        assert m.state_hash() == h0, f"restore() does not put {name} back"
        names.append(name)
    assert len(names) == len(MATCH_SCALARS) + 1 + 2 * (len(SCALARS) + 2) + 1 + 2 + 2 * len(PLAN_FIELDS)


def test_restore_puts_back_every_scalar_value_not_only_the_hash(mid_fight):
    m = mid_fight
    snap = m.snapshot()
    before = (tuple(getattr(m, n) for n in MATCH_SCALARS), m.round_winner, [f.scalars() for f in m.fighters],
              [s.copy() for s in m.ai_state], m.rng.bit_generator.state, m.last_inputs)
    for _ in range(30):
        m.step(FrameInput(forward=True), FrameInput(lp=True))
    m.restore(snap)
    after = (tuple(getattr(m, n) for n in MATCH_SCALARS), m.round_winner, [f.scalars() for f in m.fighters],
             [s.copy() for s in m.ai_state], m.rng.bit_generator.state, m.last_inputs)
    assert after == before


def test_restore_brings_back_events_pending_for_the_next_frame():
    """A snapshot taken while the next round's RoundStart waits to be returned: after a
    restore the re-run returns it again, on the same frame."""
    m = Match.new(seed=1)
    while not m.pending:
        m.step(FrameInput(), FrameInput())
        assert m.frame < 20_000
    snap = m.snapshot()
    first = [type(e).__name__ for _ in range(200) for e in m.step()]
    m.restore(snap)
    again = [type(e).__name__ for _ in range(200) for e in m.step()]
    assert "RoundStart" in first and again == first


# ---------------------------------------------------------------- snapshot / restore
def test_restore_of_an_arena_snapshot_into_a_bare_floor_match_is_a_clear_error():
    arena, bare = fight(Match.new(seed=0)), Match.new(seed=0, arena=False)
    before = bare.state_hash()
    with pytest.raises(ValueError, match="Match.restore: .*arena"):
        bare.restore(arena.snapshot())
    assert bare.state_hash() == before


def test_restore_of_a_bare_floor_snapshot_into_an_arena_match_is_refused_not_half_done():
    """Refused whole: not the fighters restored with the arena's crates and projectiles left as they were."""
    arena, bare = fight(Match.new(seed=0)), Match.new(seed=0, arena=False)
    before = arena.state_hash()
    with pytest.raises(ValueError, match="Match.restore: .*bare floor"):
        arena.restore(bare.snapshot())
    assert arena.state_hash() == before


@pytest.mark.parametrize("snap", [None, (1, 2, 3), "snapshot", []])
def test_restore_of_something_that_is_no_snapshot_names_the_fix(snap):
    m = Match.new(seed=0, arena=False)
    with pytest.raises(ValueError, match=r"Match.restore: snap must be a tuple from Match.snapshot\(\)"):
        m.restore(snap)


def test_restore_of_a_snapshot_from_another_match_on_the_same_arena_still_works():
    a, b = fight(Match.new(seed=3, p2_cpu="hard"), 50), Match.new(seed=3, p2_cpu="hard")
    b.restore(a.snapshot())
    assert b.state_hash() == a.state_hash()
    for _ in range(60):
        a.step(FrameInput(lk=True))
        b.step(FrameInput(lk=True))
    assert b.state_hash() == a.state_hash()


def test_a_numpy_scalar_set_by_a_tool_hashes_as_the_number_it_equals():
    """A tool that places a fighter with ``f.x = np.float64(0.5)`` (read from an array) sets the
    same state as ``f.x = 0.5``: the same state_hash() (not one of repr 'np.float64(0.5)') on
    every frame after, so a rollback or replay check of that state passes."""
    a, b = fight(Match.new(seed=0, arena=False)), fight(Match.new(seed=0, arena=False))
    a.fighters[0].x, a.fighters[1].health, a.timer = 0.5, 90, 1000
    b.fighters[0].x, b.fighters[1].health, b.timer = np.float64(0.5), np.int64(90), np.int32(1000)
    assert a.state_hash() == b.state_hash()
    for _ in range(60):
        a.step(FrameInput(forward=True, lp=True))
        b.step(FrameInput(forward=True, lp=True))
    assert a.state_hash() == b.state_hash()


POSE_ARRAYS = ("pose", "pose_from", "local", "body")


# ================================================================ 2. no writable view of live state
def test_restoring_an_unpickled_snapshot_hands_out_no_writable_pose():
    """An unpickled snapshot's arrays are writable: restore takes read-only copies, so neither a
    write through ``f.pose`` nor one into the snapshot afterwards changes the match."""
    m = blending(Match.new(seed=2, arena=False))
    snap = pickle.loads(pickle.dumps(m.snapshot()))
    h = m.state_hash()
    m.restore(snap)
    assert m.state_hash() == h
    for f in m.fighters:
        assert not any(getattr(f, n).flags.writeable for n in POSE_ARRAYS)
    for poses in snap[3]:
        for arr in poses:
            if arr.flags.writeable:
                arr[...] = 0.0
    assert m.state_hash() == h


@pytest.mark.slow
@pytest.mark.parametrize("arena", [True, False])
def test_deepcopy_of_a_match_is_an_independent_match_in_the_same_state(arena):
    """The copy's fighters are not linked to the original (their limb_boxes() are their own),
    and the copy shares the read-only tables rather than making writable private copies."""
    m, ref = fight(Match.new(seed=5, p2_cpu="hard", arena=arena), 30), fight(
        Match.new(seed=5, p2_cpu="hard", arena=arena), 30)
    c = copy.deepcopy(m)
    assert c.state_hash() == m.state_hash() and c.data is m.data
    before = m.state_hash()
    for i in range(120):
        c.step(*scripted_inputs(i))
        ref.step(*scripted_inputs(i))
    assert m.state_hash() == before and c.state_hash() == ref.state_hash()
    for f, g in zip(c.fighters, ref.fighters):
        np.testing.assert_array_equal(f.limb_boxes(), g.limb_boxes())
        assert not f.pose.flags.writeable
    assert copy.copy(c).state_hash() == c.state_hash()


def test_pickling_a_match_names_the_snapshot_fix():
    with pytest.raises(TypeError, match=r"pickle match.snapshot\(\)"):
        pickle.dumps(Match.new(seed=0, arena=False))


# ---------------------------------------------------------------- hash coverage
def _frame_with_buffered_rng(m, limit=600):
    for _ in range(limit):
        m.step()
        if m.rng.bit_generator.state["has_uint32"]:
            return
    pytest.fail("the CPU never left half a 64-bit draw in the RNG")


@pytest.mark.slow
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


# ---------------------------------------------------------------- rollback over crates
@pytest.mark.slow
def test_B7_B9_rollback_over_crate_strikes_and_the_break_resimulates_identically(crate_fight_run):
    """Around every strike and the break: snapshot, run ahead (and mispredict), restore,
    re-run: every frame's hash, events and inputs as in the straight run; the same after a
    restore into a fresh match."""
    inputs, strikes, broke, straight = crate_fight_run
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


@pytest.mark.slow
def test_snapshots_stay_unchanged_by_play_after_a_restore(crate_fight_run):
    inputs, _, broke, _ = crate_fight_run
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


_DECODE = [FrameInput.from_bits(n) for n in range(1 << FrameInput.BITS)]


def held_inputs(rng, n):
    bits = rng.integers(0, 1 << FrameInput.BITS, size=(n, 2)) & rng.integers(0, 1 << FrameInput.BITS, size=(n, 2))
    keep = rng.random((n, 2)) < 0.75
    for i in range(1, n):
        bits[i] = np.where(keep[i], bits[i - 1], bits[i])
    return [(_DECODE[a], _DECODE[b]) for a, b in bits.tolist()]


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_range_boxes_follow_the_round_restart():
    """On the frame a new round starts, limb boxes are at the fighters' start positions
    (not at the previous frame's poses, which would also break restore's hash)."""
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


def test_rollback_over_a_crate_strike_restores_compound_scene_and_hash(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    snap, h0 = m.snapshot(), m.state_hash()
    tris0 = m.stage.scene.models[c.obj.model].triangles.copy()
    struck, _ = punch_crate(m)
    assert struck
    h1 = m.state_hash()
    m.restore(snap)
    assert m.state_hash() == h0
    assert np.array_equal(m.stage.scene.models[c.obj.model].triangles, tris0)
    assert m.stage.scene.cast_any([struck[0].point[0], struck[0].point[1], 3.0], [0, 0, 1], 1.5, level=0)
    struck2, _ = punch_crate(m)
    assert m.state_hash() == h1 and np.array_equal(struck2[0].point, struck[0].point)
