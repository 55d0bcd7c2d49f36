"""The window's fixed-step loop (game/cli/timestep.py, "Fix Your Timestep"): irregular frame
times step the simulation exactly as a fixed clock does, the catch-up cap drops whole steps
only, the fraction of a step is kept as alpha, and a clock that steps back counts as no time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.sim import Match


# ---------------------------------------------------------------- FixedStep (game/cli/timestep.py)
def counter():
    from game.cli.timestep import FixedStep

    n = [0]
    return n, FixedStep(lambda: n.__setitem__(0, n[0] + 1))


def test_fixed_step_clock_going_back_counts_as_no_time():
    """A negative frame time (the clock stepped back) must not eat time already owed."""
    from game.cli.timestep import SIM_STEP

    n, loop = counter()
    a0 = loop.advance(0.5 * SIM_STEP)
    for back in (-0.001, -0.2, -5.0):
        assert loop.advance(back) == pytest.approx(a0) and n[0] == 0
    loop.advance(0.5 * SIM_STEP + 1e-9)
    assert n[0] == 1


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-0.05, 0.3, allow_nan=False), min_size=1, max_size=120))
def test_fixed_step_keeps_the_fraction_of_a_step_after_the_cap(elapsed):
    """Real time (negative frame times count as none, one over MAX_FRAME_TIME as that long)
    against the loop, the plain bookkeeping of a per-frame reference: every frame, steps run +
    alpha = steps owed; a frame runs at most MAX_CATCH_UP steps, and whole steps only go missing
    on a frame that hits the cap, where they are dropped (never run later) but the fraction of a
    step is kept (alpha), as without the cap."""
    from game.cli.timestep import MAX_CATCH_UP, MAX_FRAME_TIME, SIM_STEP

    n, loop = counter()
    owed = 0.0
    for e in elapsed:
        before = n[0]
        alpha = loop.advance(e)
        ran = n[0] - before
        owed += min(max(e, 0.0), MAX_FRAME_TIME) / SIM_STEP
        assert 0 <= ran <= MAX_CATCH_UP and 0.0 <= alpha < 1.0
        if ran < MAX_CATCH_UP:                      # no cap: every whole step owed was run
            assert owed - ran == pytest.approx(alpha, abs=1e-6)
        else:                                       # the cap: the rest is dropped, never run later
            assert owed - ran >= alpha - 1e-6
        if abs(owed - round(owed)) > 1e-6:          # (on a whole number of steps: either side of the edge)
            assert ran == min(MAX_CATCH_UP, math.floor(owed))
        frac = (owed - ran) % 1.0
        assert min(abs(alpha - frac), 1.0 - abs(alpha - frac)) < 1e-6, (alpha, owed, ran)
        owed = alpha


# ---------------------------------------------------------------- the loop (game/cli/timestep.py)
@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["steady", "jittery", "stalls"])
def test_render_fixed_step_slow_frames_do_not_change_the_simulation(pattern):
    from game.cli.timestep import SIM_STEP, FixedStep

    rng = np.random.default_rng(1)
    elapsed = {"steady": np.full(400, 1 / 60),
               "jittery": rng.uniform(0.001, 0.05, 400),
               "stalls": np.where(rng.random(400) < 0.05, 0.2, 0.004)}[pattern]
    m = Match.new(seed=3, p1_cpu="hard", p2_cpu="normal")
    loop = FixedStep(lambda: m.step())
    alphas = [loop.advance(e) for e in elapsed]
    assert all(0.0 <= a < 1.0 for a in alphas)
    ref = Match.new(seed=3, p1_cpu="hard", p2_cpu="normal")
    for _ in range(m.frame):
        ref.step()
    assert m.frame > 0 and m.state_hash() == ref.state_hash()
    if pattern != "stalls":   # no stall beyond the cap: every whole step of real time was simulated
        assert m.frame == int(np.floor(elapsed.sum() / SIM_STEP + 1e-9))


def test_render_fixed_step_caps_catch_up():
    from game.cli.timestep import MAX_CATCH_UP, FixedStep

    n = [0]
    loop = FixedStep(lambda: n.__setitem__(0, n[0] + 1))
    loop.advance(3.0)              # a 3 s hitch
    assert n[0] == MAX_CATCH_UP
    loop.advance(1 / 60)
    assert n[0] == MAX_CATCH_UP + 1     # the backlog is gone: one frame's time, one step


