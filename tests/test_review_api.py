"""The frame-step API as a tools engineer drives it: bad arguments, shared state, live arrays.

Each test would fail if its guard went: a bad argument must raise a specific error naming
the argument (never a numpy traceback or a silently wrong value), and nothing a tool is
handed may change the match, or another match, when the tool writes to it.
"""

from __future__ import annotations

import numpy as np
import pytest

from game.replay import ReplayRecorder, load_replay, play_replay
from game.sim import FrameInput, Hit, Match, ProjectileImpact, ProjectileLaunched
from game.sim.debug import RecordingDraw
from game.training.dummy import DummyController
from simhelp import fight


# ---------------------------------------------------------------- Match.new arguments
@pytest.mark.parametrize("seed", [-1, -(2**70)])
def test_negative_seed_is_refused_naming_the_seed_not_inside_numpy(seed):
    with pytest.raises(ValueError, match="seed") as info:
        Match.new(seed=seed, arena=False)
    assert "numpy" not in info.traceback[-1].path.as_posix()


@pytest.mark.parametrize("seed", [1.5, 2.0, "3", None, True, b"1"])
def test_non_integer_seed_is_refused_instead_of_truncated_or_parsed(seed):
    with pytest.raises(TypeError, match="seed"):
        Match.new(seed=seed, arena=False)


def test_numpy_integer_and_huge_seeds_play_like_the_python_int():
    a, b = Match.new(seed=np.int64(7), arena=False), Match.new(seed=7, arena=False)
    assert type(a.seed) is int
    for _ in range(120):
        a.step(FrameInput(forward=True), FrameInput(lp=True))
        b.step(FrameInput(forward=True), FrameInput(lp=True))
    assert a.state_hash() == b.state_hash()
    assert Match.new(seed=2**64 + 5, arena=False).seed == 2**64 + 5     # PCG64 takes any int >= 0


@pytest.mark.parametrize("side, level", [("p1_cpu", ["hard"]), ("p2_cpu", {"hard": 1}), ("p1_cpu", "HARD")])
def test_bad_cpu_level_names_the_side_and_the_choices(side, level):
    with pytest.raises(ValueError, match=f"{side}: cpu level .*easy"):
        Match.new(seed=0, arena=False, **{side: level})


@pytest.mark.parametrize("arena", ["no", 0, None])
def test_arena_flag_must_be_a_bool(arena):
    with pytest.raises(TypeError, match="arena"):
        Match.new(seed=0, arena=arena)


# ---------------------------------------------------------------- FrameInput
@pytest.mark.parametrize("field, value", [("forward", "no"), ("lp", 2), ("guard", None), ("hk", 1.0),
                                          ("down", -1)])
def test_frameinput_field_that_is_no_bool_is_refused_naming_the_field(field, value):
    with pytest.raises(TypeError, match=f"FrameInput: {field} must be True or False"):
        FrameInput(**{field: value})


def test_frameinput_takes_numpy_bools_and_0_1_as_bools():
    for v, want in ((np.bool_(True), True), (np.False_, False), (1, True), (0, False), (np.uint8(1), True)):
        f = FrameInput(lp=v)
        assert f.lp is want
        assert f == FrameInput.from_bits(FrameInput(lp=want).bits)


def test_from_bits_takes_numpy_integers_from_an_input_array():
    recorded = np.array([[0b1000001, 3]], dtype=np.uint16)      # as a replay's inputs are
    assert FrameInput.from_bits(recorded[0, 0]) == FrameInput(forward=True, lp=True)
    for bad in (np.bool_(True), np.int64(-1), np.uint16(1 << FrameInput.BITS)):
        with pytest.raises(ValueError, match="from_bits"):
            FrameInput.from_bits(bad)


# ---------------------------------------------------------------- snapshot / restore
def test_restore_of_an_arena_snapshot_into_a_bare_floor_match_is_a_clear_error():
    arena, bare = fight(Match.new(seed=0)), Match.new(seed=0, arena=False)
    before = bare.state_hash()
    with pytest.raises(ValueError, match="Match.restore: .*arena"):
        bare.restore(arena.snapshot())
    assert bare.state_hash() == before


def test_restore_of_a_bare_floor_snapshot_into_an_arena_match_is_refused_not_half_done():
    """It used to restore the fighters and leave the arena's crates and projectiles as they were."""
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


def test_dummy_reset_on_a_match_of_another_arena_setting_is_a_clear_error():
    d = DummyController(side=1)
    d.attach(fight(Match.new(seed=0)))
    with pytest.raises(ValueError, match="arena"):
        d.reset(Match.new(seed=0, arena=False))


# ---------------------------------------------------------------- nothing a tool holds changes a match
def test_debug_draw_hands_out_no_live_range_boxes():
    """An overlay that moves the boxes it is given into its own space in place used to move
    the match's range boxes: state_hash() and the next frame's collisions changed."""

    class ToScreen(RecordingDraw):
        def box(self, box, kind):
            super().box(box, kind)
            if kind in ("hurt", "hit", "guard"):
                try:
                    box -= np.array([0.0, 1.0, 0.0])
                except ValueError:                     # read-only: the overlay must copy
                    pass

    m, ref = fight(Match.new(seed=1)), fight(Match.new(seed=1))
    for _ in range(12):                                # a jab in its active frames: 'hit' boxes too
        m.step(FrameInput(lp=True))
        ref.step(FrameInput(lp=True))
    draw = ToScreen()
    m.debug_draw(draw)
    assert {k for _, k, _ in draw.calls} >= {"hurt"}
    assert m.state_hash() == ref.state_hash()
    np.testing.assert_array_equal(m.fighters[0].limb_boxes(), ref.fighters[0].limb_boxes())


def test_shared_game_data_and_arena_are_read_only():
    """``match.data`` and ``match.arena`` are one cached object for every match of the process
    (load_game_data promises a read-only result); a tool writing into them would change
    every other match."""
    a, b = Match.new(seed=0), Match.new(seed=0)
    assert a.data is b.data and a.arena is b.arena
    data = a.data
    arrays = {f"moves[{n!r}].{k}": getattr(mv, k) for n, mv in data.moves.items() for k in ("advance", "air")}
    arrays.update({f"skeleton.{k}": v for k, v in vars(data.skeleton).items() if isinstance(v, np.ndarray)})
    arrays.update({"skeleton.levels": data.skeleton.levels[0][1], "arena.bounds": a.arena.bounds,
                   "arena.fighter_starts": a.arena.fighter_starts, "match.bounds": a.bounds,
                   "stage.bounds": a.stage.bounds})
    writable = [name for name, arr in arrays.items() if arr.flags.writeable]
    assert writable == []
    with pytest.raises(ValueError, match="read-only"):
        a.data.moves["hp"].advance *= 2.0


def test_writing_a_shared_table_cannot_change_another_match():
    ref = fight(Match.new(seed=0, arena=False))
    for _ in range(40):
        ref.step(FrameInput(forward=True, hp=True))
    tool, other = Match.new(seed=0, arena=False), fight(Match.new(seed=0, arena=False))
    for arr in (tool.data.moves["hp"].advance, tool.data.skeleton.half):
        try:
            arr[...] = 0.0
        except ValueError:
            pass
    for _ in range(40):
        other.step(FrameInput(forward=True, hp=True))
    assert other.state_hash() == ref.state_hash()


def test_projectile_event_arrays_are_read_only_values():
    m = fight(Match.new(seed=0))
    p1, p2 = m.fighters
    p1.x, p1.z, p2.x, p2.z = 0.0, 3.0, 0.0, 7.0          # crate_north stands between them
    launched, impacts = [], []
    for i in range(40):
        for e in m.step(FrameInput(lp=True, hp=True) if i == 2 else FrameInput()):   # turned to face first
            (launched if isinstance(e, ProjectileLaunched) else impacts if isinstance(e, ProjectileImpact)
             else []).append(e)
    assert launched and impacts
    for arr in (launched[0].position, impacts[0].start, impacts[0].end):
        assert arr.shape == (3,) and not arr.flags.writeable


def test_projectile_hit_names_the_projectile_as_its_attacking_limb():
    """As Hit's docstring says: limb names, except a projectile's attack_limb (its name)."""
    m = Match.new(seed=0, p2_cpu="hard")
    names = m.fighters[0].limb_names
    seen = set()
    while not m.over and m.frame < 2500:
        for e in m.step(FrameInput(forward=True, lp=m.frame % 20 == 0)):
            if isinstance(e, Hit):
                assert e.struck_limb in names
                projectile = m.data.moves.get(e.move) is None or m.data.moves[e.move].projectile is not None
                assert e.attack_limb == (e.move if projectile else e.attack_limb)
                assert projectile or e.attack_limb in names
                seen.add(projectile)
    assert seen == {True, False}
    assert "projectile" in Hit.__doc__ and "limb_names" in Hit.__doc__


# ---------------------------------------------------------------- replays and the dummy
@pytest.mark.parametrize("seed", [-1, 2**64, 1.5])
def test_recorder_refuses_a_seed_no_replay_can_hold_up_front(seed):
    """It used to fail with struct.error in save(), after the whole match was played."""
    with pytest.raises(ValueError, match="ReplayRecorder: seed"):
        ReplayRecorder(seed, (None, None))


@pytest.mark.parametrize("cpu", [("hard",), "hard", (None, None, None), (["hard"], None)])
def test_recorder_refuses_a_cpu_config_that_is_no_pair_of_levels(cpu):
    with pytest.raises(ValueError, match="ReplayRecorder: cpu"):
        ReplayRecorder(0, cpu)


def test_recorder_of_an_arena_match_plays_back_into_the_callers_match(tmp_path):
    """(A bare-floor match is recorded too since replay format version 2: test_review_api2.py.)"""
    m = Match.new(seed=0)
    rec = ReplayRecorder.for_match(m)
    for i in range(30):
        m.step(FrameInput(forward=True, lp=i % 7 == 0))
        rec.record(m)
    rec.save(tmp_path / "a.rpl")
    assert play_replay(load_replay(tmp_path / "a.rpl"), lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=b))["ok"]


@pytest.mark.parametrize("kw", [{"side": True}, {"max_frames": "abc"}, {"max_frames": 2.5}, {"max_frames": 0}])
def test_dummy_bad_arguments_name_the_argument(kw):
    with pytest.raises(ValueError, match=f"DummyController: {next(iter(kw))}"):
        DummyController(**kw)


def test_a_numpy_scalar_set_by_a_tool_hashes_as_the_number_it_equals():
    """A tool that places a fighter with ``f.x = np.float64(0.5)`` (read from an array) sets the
    same state as ``f.x = 0.5``; state_hash() used to differ (repr 'np.float64(0.5)') on every
    frame after, so a rollback or replay check of that state failed."""
    a, b = fight(Match.new(seed=0, arena=False)), fight(Match.new(seed=0, arena=False))
    a.fighters[0].x, a.fighters[1].health, a.timer = 0.5, 90, 1000
    b.fighters[0].x, b.fighters[1].health, b.timer = np.float64(0.5), np.int64(90), np.int32(1000)
    assert a.state_hash() == b.state_hash()
    for _ in range(60):
        a.step(FrameInput(forward=True, lp=True))
        b.step(FrameInput(forward=True, lp=True))
    assert a.state_hash() == b.state_hash()
