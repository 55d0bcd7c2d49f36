"""The observation agrees with the match: range boxes (A6) with ``limb_boxes()``, each fighter's
fields, the opponent's offset, projectiles and crates (whole, struck, broken), from either side,
in the flat vector and the Dict variant alike."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlhelp import buttons, need_gymnasium

need_gymnasium()

from game.replay import ReplayRecorder, decode  # noqa: E402
from game.rl import RangeboxEnv  # noqa: E402
from game.rl.layout import FIGHTER_FIELDS, MOVE_PHASES, PROJECTILE_FIELDS, STATES  # noqa: E402
from game.sim import CrateStruck, Match, ProjectileLaunched  # noqa: E402

FIELD = {name: i for i, (name, *_rest) in enumerate(FIGHTER_FIELDS)}


def _fighter_block(env, obs, who: str) -> np.ndarray:
    return obs[env.layout.slices[who]]


def _check_fighter(env, block, f):
    lay = env.layout
    n = len(FIGHTER_FIELDS)
    assert block[FIELD["x"]] == np.float32(f.x) and block[FIELD["z"]] == np.float32(f.z)
    assert block[FIELD["health"]] == np.float32(f.health / f.max_health)
    assert block[FIELD["facing_x"]] == np.float32(f.fx) and block[FIELD["stun"]] == np.float32(f.stun / 60)
    states = block[n:n + len(STATES)]
    assert states.sum() == 1 and STATES[int(states.argmax())] == f.state
    moves = block[n + len(STATES):n + len(STATES) + len(lay.moves)]
    phases = block[n + len(STATES) + len(lay.moves):]
    if f.move:
        assert lay.moves[int(moves.argmax())] == f.move and moves.sum() == 1
        assert MOVE_PHASES[int(phases.argmax())] == env.match.data.moves[f.move].phase(f.mframe)
        assert block[FIELD["move_time"]] == np.float32(f.mframe / 60)
    else:
        assert moves.sum() == 0 and phases.sum() == 0


@pytest.mark.parametrize("side", [0, 1])
def test_A6_the_observations_range_boxes_are_limb_boxes_and_its_fields_the_fighters(side):
    env = RangeboxEnv(level="hard")
    env.reset(seed=side + 4, options={"side": side})
    rng = np.random.default_rng(side)
    moved = set()
    for _ in range(100):
        obs, *_ = env.step(rng.integers(0, 2, 11).astype(np.int8))
        me, them = env.match.fighters[side], env.match.fighters[1 - side]
        lay = env.layout
        assert np.array_equal(obs[lay.slices["self_limbs"]].reshape(-1, 2, 3), me.limb_boxes().astype(np.float32))
        assert np.array_equal(obs[lay.slices["opponent_limbs"]].reshape(-1, 2, 3),
                              them.limb_boxes().astype(np.float32))
        _check_fighter(env, _fighter_block(env, obs, "self"), me)
        _check_fighter(env, _fighter_block(env, obs, "opponent"), them)
        ahead, aside, dist = obs[lay.slices["relative"]]
        assert dist == pytest.approx(math.hypot(them.x - me.x, them.z - me.z), abs=1e-5)
        assert ahead == pytest.approx((them.x - me.x) * me.fx + (them.z - me.z) * me.fz, abs=1e-5)
        moved.update(f.move for f in (me, them))
    assert len(moved - {""}) >= 2, "the fight never showed a move: the move one-hots went untested"


def test_the_dict_variant_holds_the_flat_vectors_numbers_by_name():
    flat, named = RangeboxEnv(observation="flat"), RangeboxEnv(observation="dict")
    a, _ = flat.reset(seed=8)
    b, _ = named.reset(seed=8)
    for _ in range(30):
        a, *_ = flat.step(buttons(1))
        b, *_ = named.step(buttons(1))
    lay = flat.layout
    assert set(b) == set(lay.slices)
    for name, sl in lay.slices.items():
        assert b[name].shape == lay.shapes[name] and np.array_equal(b[name].ravel(), a[sl])
    assert np.array_equal(b["self_limbs"], named.match.fighters[0].limb_boxes().astype(np.float32))


def test_an_observation_handed_out_is_not_changed_by_later_steps():
    env = RangeboxEnv()
    obs, _ = env.reset(seed=0)
    kept = obs.copy()
    env.step(buttons(1))
    assert np.array_equal(obs, kept)


def _crate_fight_replay():
    """The determinism tests' crate fight (tests/helpers/cratefight.py) as a replay, and the
    frames of its first strike, its break and its fireball's launch."""
    from cratefight import crate_fight

    inputs, strikes, broke = crate_fight()
    m = Match.new(seed=0)
    rec = ReplayRecorder.for_match(m)
    launch = None
    for p1, p2 in inputs:
        events = m.step(p1, p2)
        rec.record(m)
        launch = launch or next((e.frame for e in events if isinstance(e, ProjectileLaunched)), None)
    return decode(rec.to_bytes()), inputs, strikes[0], broke, launch


@pytest.mark.slow
def test_crates_and_projectiles_in_the_observation_follow_a_crate_fight_replayed_by_the_opponent():
    """P1 (the learner, given the fight's P1 inputs) strikes and breaks crate_north with P2's
    replayed inputs; the crate row goes whole -> struck -> broken, the material left falls, and
    the learner's fireball fills projectile slot 0 where the stage has it."""
    replay, inputs, first, broke, launch = _crate_fight_replay()
    env = RangeboxEnv(opponent="replay", replay=replay, skip_pauses=False)
    obs, _ = env.reset(seed=1)
    lay = env.layout
    crate = [c.obj.name for c in env.match.stage.crates].index("crate_north")
    rows = lambda o: o[lay.slices["crates"]].reshape(lay.crates, -1)            # noqa: E731
    assert rows(obs)[:, 0].tolist() == [1.0] * lay.crates and rows(obs)[:, 3].tolist() == [1.0] * lay.crates
    reference = Match.new(seed=0)
    seen = set()
    for p1, p2 in inputs:
        obs, _, _, _, info = env.step(buttons(p1.bits))
        reference.step(p1, p2)
        assert [(f.x, f.z) for f in env.match.fighters] == [(f.x, f.z) for f in reference.fighters]
        row = rows(obs)[crate]
        frame = env.match.frame - 1
        if frame < first:
            assert row[:4].tolist() == [1.0, 0.0, 0.0, 1.0]
        elif frame < broke:
            assert row[:3].tolist() == [0.0, 1.0, 0.0] and 0.0 < row[3] < 1.0
            seen.add("struck")
        else:
            assert row[:4].tolist() == [0.0, 0.0, 1.0, 0.0]
            seen.add("broken")
        shots = env.match.stage.projectiles
        slot = obs[lay.slices["projectiles"]].reshape(2, len(PROJECTILE_FIELDS))
        if shots:
            (p,) = shots
            assert p.owner == 0 and slot[0].tolist() == pytest.approx([1.0, p.x, p.y, p.z, p.vx, p.vz, p.age / 60])
            seen.add("projectile")
        else:
            assert not slot.any()
        assert not any(isinstance(e, CrateStruck) and e.fighter != 0 for e in info["events"])
    assert seen == {"struck", "broken", "projectile"} and launch is not None
