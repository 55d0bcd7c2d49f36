"""The match as a whole: ``Match.new``'s arguments, the A8 order of a step's stages, a CPU match
that ends with a winner, sides that mirror, and a simulation that never imports pyglet."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from clihelp import ROOT
from game.sim import (
    FrameInput,
    Hit,
    Match,
    MatchOver,
    Whiff,
)
from game.sim.match import INTRO_FRAMES, KO_FRAMES, MAX_ROUNDS, ROUND_FRAMES
from simhelp import (
    NEUTRAL,
)


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


# ---------------------------------------------------------------- fairness
def _mirrored_state(m: Match, swap: bool) -> list:
    fs = m.fighters[::-1] if swap else m.fighters
    s = -1.0 if swap else 1.0     # P1's start mirrored about the arena's centre is P2's
    return [(f.health, f.state, f.move, f.mframe, f.stun, round(s * f.x, 9), round(s * f.z, 9),
             round(s * f.fx, 9), round(s * f.fz, 9)) for f in fs]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_swapping_sides_mirrors_the_whole_fight(seed):
    """The same random input streams given to P1 and P2, then swapped: every frame of the
    second match is the first one turned half round (no side wins a trade or a push)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = 900
    held = rng.integers(0, 2 ** FrameInput.BITS, size=(n, 2)) & rng.integers(0, 2 ** FrameInput.BITS, size=(n, 2))
    idx = np.where(rng.random((n, 2)) < 0.15, np.arange(n)[:, None], 0)
    np.maximum.accumulate(idx, axis=0, out=idx)
    streams = np.take_along_axis(held, idx, axis=0).tolist()
    m1, m2 = Match.new(seed=0, arena=False), Match.new(seed=0, arena=False)
    hits = 0
    for p, q in streams:
        e1 = m1.step(FrameInput.from_bits(p), FrameInput.from_bits(q))
        m2.step(FrameInput.from_bits(q), FrameInput.from_bits(p))
        hits += sum(isinstance(e, Hit) for e in e1)
        assert _mirrored_state(m1, False) == _mirrored_state(m2, True), f"frame {m1.frame}"
    assert hits > 0                                        # the fight had exchanges to mirror




# ---------------------------------------------------------------- A8 order
def test_A8_step_runs_the_stages_in_method_order(monkeypatch):
    from game.sim import actions, combat, commands

    m = Match.new(seed=0)
    calls = []
    stages = [(commands, "read_inputs"), (actions, "advance"), (m.limbs, "place"), (combat, "judge"),
              (combat, "collision_points"), (combat, "apply_hits")]
    for owner, name in stages:
        orig = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *a, _n=name, _o=orig: (calls.append(_n), _o(*a))[1])
    m.step(NEUTRAL, NEUTRAL)
    assert calls == ["read_inputs", "advance", "place", "judge", "collision_points", "apply_hits"]


# ---------------------------------------------------------------- match flow
@pytest.mark.slow
def test_cpu_vs_cpu_match_ends_with_a_winner_within_the_round_timers():
    m = Match.new(seed=5, p1_cpu="hard", p2_cpu="easy")
    limit = MAX_ROUNDS * (INTRO_FRAMES + ROUND_FRAMES + KO_FRAMES) + 10
    events = []
    while not m.over and m.frame < limit:
        events.extend(m.step(NEUTRAL, NEUTRAL))
    assert m.over and m.winner in (0, 1)
    assert isinstance(events[-1], MatchOver) and events[-1].winner == m.winner
    assert m.fighters[m.winner].wins == 2
    assert sum(isinstance(e, Hit) for e in events) > 10
    assert sum(isinstance(e, Hit) and e.blocked for e in events) > 0    # the CPU guards
    assert sum(isinstance(e, Whiff) for e in events) > 0                # and whiffs


@pytest.mark.slow
def test_importing_game_sim_does_not_import_pyglet():
    code = "import sys, game.sim, game.collision; m = game.sim.Match.new(); m.step(); print('pyglet' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
