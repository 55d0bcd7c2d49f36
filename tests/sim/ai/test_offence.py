"""The CPU's offence: it punishes a whiffed heavy, picks no highs against a crouch, confirms and
cancels on purpose by level, times meaties and attacks nothing on the ground, throws a guard from
within reach, and zones with a fireball only along a clear line of sight (C8)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cpuhelp import cpu_placed
from game.sim import (
    FrameInput,
    Hit,
    Match,
    MoveStarted,
    ThrowGrab,
    Whiff,
    ai,
)
from game.sim.ai.situation import OPENING
from game.sim.data import load_game_data
from game.sim.inputs import HP, LP, SIDE_L, SIDE_R
from simhelp import (
    GUARD,
    NEUTRAL,
    first_act,
    gap,
    place,
    swept,
)


@pytest.mark.parametrize("blocked", [True, False])
def test_C8_cpu_zones_with_a_fireball_only_with_a_clear_line(across_crate, blocked, monkeypatch):
    """The CPU's zoning choice (forced here) throws a fireball when the line is clear and
    steps around the crate when it is not; the choice uses the same rays as the fireball."""
    m = across_crate
    if not blocked:
        place(m, (1.2, 3.5), (1.2, 6.5))
    monkeypatch.setitem(ai.LEVELS, "hard", replace(ai.LEVELS["hard"], zone=1.0, notice=0.0))
    m.ai_state[0].start(bits=0, hold=0, tap=0)
    m.phase_frame = OPENING                 # past the round's first second, in which the CPU throws nothing
    bits = ai.decide(m, 0, "hard")
    if blocked:
        assert bits in (SIDE_L, SIDE_R)
    else:
        assert bits == LP | HP


@pytest.mark.slow
def test_hard_cpu_punishes_a_whiffed_roundhouse():
    """P2 whiffs a roundhouse (14 / 3 / 22) just out of reach: the hard CPU hits it in its
    recovery, before it can guard again, in most seeds."""
    punished = 0
    seeds = range(6)
    for seed in seeds:
        m = cpu_placed(1.5, seed)
        op = m.fighters[1]
        landed = False
        for t in range(60):
            ev = m.step(NEUTRAL, FrameInput(hk=True) if t == 0 else NEUTRAL)
            if t < 5:
                assert op.move == "hk" or t == 0
            if any(isinstance(e, Whiff) and e.fighter == 1 for e in ev):
                assert not any(isinstance(e, Hit) for e in ev)
            if any(isinstance(e, Hit) and e.attacker == 0 and not e.blocked for e in ev):
                landed = op.move == "" and op.state == "hitstun"
                break
            if op.move == "" and op.state != "hitstun" and t > 20:
                break           # recovered unpunished
        punished += landed
    assert punished >= 4, f"punished {punished} of {len(seeds)}"


@pytest.mark.slow
def test_hard_cpu_does_not_throw_highs_over_a_crouching_opponent():
    """Highs (jab, roundhouse) pass over a crouch by geometry: against an opponent who only
    crouches, the hard CPU picks mids and lows: under a fifth of the attacks it starts at the
    crouch are highs."""
    highs = total = 0
    for seed in (1, 2):
        m = Match.new(seed=seed, p1_cpu="hard")
        while not m.over:
            # an attack thrown at the crouch, not a cancel into a heavy once a hit has it reeling
            crouching = m.fighters[1].state in ("crouch", "block_crouch")
            for e in m.step(NEUTRAL, FrameInput(down=True)):
                if isinstance(e, MoveStarted) and e.fighter == 0 and e.move in ai.move_reach(m.data) and crouching:
                    total += 1
                    highs += m.data.moves[e.move].height == "high"
    assert total >= 10
    assert highs / total < 0.2, f"{highs} highs of {total} attacks"


# ------------------------------------------------------------------ the CPU
def _cpu_confirms(level: str, seeds=range(6), frames: int = 3000):
    """(light hits by the CPU, of them cancelled into a second hit that combos).  Six seeds:
    against a normal CPU that guards before it sees an attack coming, the easy CPU lands few
    lights (8 in four seeds), short of the test's sample of 10."""
    lights = combos = 0
    for seed in seeds:
        m = Match.new(seed, p1_cpu=level, p2_cpu="normal")
        for _ in range(frames):
            ev = m.step()
            for e in ev:
                if isinstance(e, Hit) and e.attacker == 0 and not e.blocked:
                    if e.move in ("lp", "lk") and m.fighters[1].combo == 1:
                        lights += 1
                    elif m.fighters[1].combo == 2:
                        combos += 1
            if m.over:
                break
    return lights, combos


def test_confirm_takes_the_slide_left_as_the_slide_keeps_it_frame_by_frame():
    """``slide_kept(k)``: what is left of a knockback velocity after ``k`` frames of slide,
    the slide's own product (not libm's ``pow``, whose last bits depend on the CPU)."""
    from game.sim.ai.moves import slide_kept
    from game.sim.movement import SLIDE_DECAY

    v = 1.0
    for k in range(40):
        assert slide_kept(k) == v and abs(v - SLIDE_DECAY ** k) <= 1e-15
        v *= SLIDE_DECAY


@pytest.mark.slow
def test_cpu_confirms_more_often_by_level():
    counts = {lv: _cpu_confirms(lv) for lv in ("easy", "normal", "hard")}
    rate = {lv: c / max(1, n) for lv, (n, c) in counts.items()}
    assert all(n >= 10 for n, _ in counts.values()), counts
    assert counts["normal"][1] > 0 and counts["hard"][1] > 0, counts
    assert rate["easy"] < rate["normal"] < rate["hard"], counts


# ------------------------------------------------------------------ the CPU
def _cancels(level: str, seeds, frames: int) -> tuple[int, int]:
    """(P1 CPU's cancels: a move started before its previous move's last frame, P1's light
    normals that made contact) over ``frames`` of each seed against a normal CPU."""
    cancels = contacts = 0
    for seed in seeds:
        m = Match.new(seed, p1_cpu=level, p2_cpu="normal")
        for _ in range(frames):
            a = m.fighters[0]
            before = (a.move, a.mframe)
            ev = m.step()
            for e in ev:
                if isinstance(e, MoveStarted) and e.fighter == 0 and before[0] and before[0] != "jump":
                    if before[1] + 1 < m.data.moves[before[0]].total:
                        cancels += 1
                if isinstance(e, Hit) and e.attacker == 0 and e.move in ("lp", "lk"):
                    contacts += 1
            if m.over:
                break
    return cancels, contacts


@pytest.mark.slow
def test_easy_cpu_never_cancels_a_light_into_a_combo(monkeypatch):
    """The easy CPU does not confirm (``confirm`` 0), so it cancels none of its lights into
    heavies, not even by an attack pressed blindly when its plan runs out while the light's
    cancel window is still open (which would come out as a cancel, lk -> hk or sweep).  Made
    eager to attack (every decision an attack, so each light is followed by presses), it
    cancels nothing, over lights that made contact."""
    monkeypatch.setitem(ai.LEVELS, "easy", replace(ai.LEVELS["easy"], attack=1.0, whiff=0.0))
    cancels, contacts = _cancels("easy", seeds=(0, 1), frames=2500)
    assert contacts >= 10, contacts
    assert cancels == 0, cancels


def _cpu_after_sweep(level: str, seed: int) -> tuple[Match, int]:
    """A match where P1, a CPU of ``level``, has just swept P2 (the scripted sweep's state
    restored into a CPU match); and the frame P2 is first free."""
    m0, _ = swept(seed)
    m = Match.new(seed, p1_cpu=level)
    m.restore(m0.snapshot())
    return m, first_act(m, 1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cpu_attacks_nothing_on_the_ground_and_times_its_meaty(monkeypatch, seed):
    """Without a meaty (easy's 0), the CPU presses no attack while its opponent lies (it would
    whiff, and leave it in recovery when the opponent rises); with one (forced here), one of
    its attack's active frames is the opponent's first free frame, and it lands there."""
    m, wake = _cpu_after_sweep("easy", seed)
    early = []
    while m.frame < wake:
        early += [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, (MoveStarted, Whiff)) and e.fighter == 0]
    assert early == []
    monkeypatch.setitem(ai.LEVELS, "hard", replace(ai.LEVELS["hard"], meaty=1.0))
    m, wake = _cpu_after_sweep("hard", seed)
    landed = []
    while m.frame <= wake + 1:
        landed += [(e.frame, e) for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, Hit)]
    assert [(f, e.attacker) for f, e in landed] == [(wake, 0)], landed
    assert m.data.moves[landed[0][1].move].height != "high"


def test_meaty_chance_rises_with_the_level():
    assert ai.LEVELS["easy"].meaty == 0.0 < ai.LEVELS["normal"].meaty < ai.LEVELS["hard"].meaty <= 1.0


SPEC = load_game_data().throw


def _cpu_grabs(level: str, p1, frames: int, seed: int = 3) -> int:
    """How many times the CPU (P2) grabs P1, who plays ``p1``, in ``frames`` frames."""
    m = Match.new(seed=seed, p2_cpu=level)
    grabs = 0
    while m.frame < frames and not m.over:
        grabs += sum(isinstance(e, ThrowGrab) and e.attacker == 1 for e in m.step(p1, NEUTRAL))
    return grabs


@pytest.mark.slow
def test_cpu_throws_a_standing_guard():
    """Against a player who only holds a standing guard, the normal and hard CPUs open it with
    throws as well as sweeps (stepping in to throw when just out of reach), rather than only
    striking into the guard: over three matches' first 2,000 frames each grabs several times."""
    for level in ("normal", "hard"):
        assert sum(_cpu_grabs(level, GUARD, 2000, seed) for seed in (1, 2, 3)) >= 4, level


@pytest.mark.slow
def test_cpu_never_throws_from_out_of_reach():
    """The CPU's 'swing anyway' whiffs are strikes: a grab pressed from 1.2-1.4 m whiffed (27 of
    40 throws of a hard CPU match did) and paid 24 frames of recovery.  Every throw the CPUs
    press starts within the grab's reach."""
    gaps = []
    for seed in (5, 8):
        m = Match.new(seed=seed, p1_cpu="hard", p2_cpu="hard")
        while m.frame < 4000 and not m.over:
            before = gap(m)
            for e in m.step():
                if isinstance(e, MoveStarted) and e.move == SPEC.move:
                    gaps.append(before)
    assert gaps and max(gaps) <= 1.15, gaps
