"""Moves and inputs, third review: heavy normals are plus on hit and punishable on block, the
sweep knocks down (a fixed wake-up the attacker can time a meaty to), a buffered command is
read as it was pressed, and the CPU cancels only on purpose and attacks nothing on the ground.

Every figure is measured by frame-stepping the match (``simhelp``): who can act first
(``first_act``), what the Hit events say, where the range boxes are.  The expected numbers are
computed from the move table, never copied from the implementation's output.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from game.sim import FrameInput, Hit, Match, MoveStarted, Whiff, ai
from game.sim.data import AssetError, load_game_data
from game.sim.stage import Projectile
from simhelp import (
    GUARD,
    LOW_GUARD,
    NEUTRAL,
    PRESS,
    edited_assets,
    first_act,
    gap,
    land,
    mashed_advantage,
    placed,
    swept,
)


# ------------------------------------------------------------------ frame advantage
@pytest.mark.parametrize("move", ["hp", "hk"])
def test_heavy_normals_are_plus_on_hit_and_punishable_on_block(move):
    """The straight and the roundhouse, landing on their first active frame: on hit the
    attacker acts first (they were 0 and -1: a heavy that hit left nobody ahead), by their
    hitstun less what is left of the move; on block the defender acts first by more than a
    jab's startup, so a jab punishes.  The truth is who can start a move first."""
    mv = load_game_data().moves[move]
    jab = load_game_data().moves["lp"]
    m = placed(0.9)
    hit = land(m, move)
    assert not hit.blocked
    truth = first_act(m, 1) - first_act(m, 0)
    assert hit.advantage == truth == mv.hitstun - (mv.total - mv.startup)
    assert 2 <= truth <= 5, truth                            # plus, by a few frames
    assert mashed_advantage(m) == truth
    m = placed(0.9)
    for _ in range(3):
        m.step(NEUTRAL, GUARD)
    block = land(m, move, GUARD)
    assert block.blocked
    truth = first_act(m, 1) - first_act(m, 0)
    assert block.advantage == truth == mv.blockstun - (mv.total - mv.startup)
    assert truth <= -jab.startup, truth                      # punishable by a jab


def test_sweep_on_hit_leaves_the_sweeper_plus_and_on_block_punishable():
    mv = load_game_data().moves["hk_low"]
    m, hit = swept()
    truth = first_act(m, 1) - first_act(m, 0)
    assert hit.advantage == truth == load_game_data().knockdown_frames - (mv.total - mv.startup)
    assert truth >= 20, truth                                # time to walk in and press a meaty
    m = placed(0.9)
    for _ in range(3):
        m.step(NEUTRAL, LOW_GUARD)
    block = land(m, "hk_low", LOW_GUARD)
    assert block.blocked and m.fighters[1].state == "blockstun"
    assert first_act(m, 1) - first_act(m, 0) == block.advantage <= -load_game_data().moves["lp"].startup


# ------------------------------------------------------------------ the knockdown
def test_sweep_knocks_down_for_its_fixed_frames_lying_on_the_ground():
    """A sweep that hits floors the defender (it used to stand in hitstun, 22 frames): it
    falls, lies (every limb low) and gets up, then is free exactly ``knockdown_frames`` steps
    after the hit's hitstop, whatever it presses (it mashes a jab throughout)."""
    data = load_game_data()
    m, hit = swept()
    d = m.fighters[1]
    assert d.state == "knockdown"
    standing_top = float(m.limbs.boxes[0, :, 1, 1].max())         # the sweeper, upright again later
    lowest_top, frames, started = 9.0, 0, None
    jab = (FrameInput(lp=True), NEUTRAL)
    for i in range(200):
        ev = m.step(NEUTRAL, jab[i % 2])
        started = next((e for e in ev if isinstance(e, MoveStarted) and e.fighter == 1), None)
        if started is not None:
            break
        if d.state == "knockdown":
            frames += 1
            lowest_top = min(lowest_top, float(m.fighters[1].limb_boxes()[:, 1, 1].max()))
    assert started is not None and started.move == "lp"
    assert started.frame == hit.frame + hit.hitstop + data.knockdown_frames
    assert lowest_top < 0.5 * standing_top, (lowest_top, standing_top)   # lying, not crouching
    assert frames == hit.hitstop + data.knockdown_frames - 1


def test_nothing_strikes_a_knocked_down_fighter_fist_or_fireball():
    """While down, a front kick whose box overlaps the lying body whiffs, and a fireball set
    on the body passes; the same fireball strikes the same fighter once it is up."""
    m, hit = swept()
    d = m.fighters[1]
    while m.fighters[0].state == "attack" or m.fighters[0].hitstop:
        m.step(NEUTRAL, NEUTRAL)
    assert d.state == "knockdown"
    events = []
    m.step(PRESS["lk"], NEUTRAL)
    for _ in range(12):
        events += m.step(NEUTRAL, NEUTRAL)
    assert d.state == "knockdown"
    assert not any(isinstance(e, Hit) for e in events)
    assert any(isinstance(e, Whiff) and e.fighter == 0 and e.move == "lk" for e in events)
    assert d.health == d.max_health - hit.damage

    def fireball_on_body() -> list:
        box = d.limb_boxes()[d.limb_names.index("torso")]
        cx, cy, cz = box.mean(axis=0).tolist()
        fx, fz = m.fighters[0].fx, m.fighters[0].fz              # creeping on, 1 mm a frame
        m.stage.projectiles = (Projectile(0, cx, cy, cz, fx * 1e-3, fz * 1e-3, 0),)
        return [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, Hit)]

    assert d.state == "knockdown"
    assert fireball_on_body() == []
    while d.state == "knockdown":
        m.step(NEUTRAL, NEUTRAL)
    struck = fireball_on_body()
    assert len(struck) == 1 and struck[0].defender == 1 and not struck[0].blocked


@pytest.mark.parametrize("guard", [False, True])
def test_a_meaty_timed_to_the_wake_up_lands_on_its_first_free_frame(guard):
    """The wake-up is fixed, so the sweeper can walk in and make its front kick's active
    frames meet the first frame the defender is free: it lands then, on hit against a
    defender mashing a jab (a jab's startup cannot beat an attack already active) and
    blocked by one holding its guard through the knockdown (guarding on that first frame)."""
    m, hit = swept()
    lk = m.data.moves["lk"]
    wake = first_act(m, 1)                                    # the defender's first free frame
    p2_hold = (GUARD, GUARD) if guard else (PRESS["lp"], NEUTRAL)
    while gap(m) > 0.9:                                        # walk in once free
        m.step(FrameInput(forward=True), p2_hold[m.frame % 2])
    press = wake - lk.startup - 1                              # active from the frame before
    assert m.frame < press
    while m.frame < press:
        m.step(NEUTRAL, p2_hold[m.frame % 2])
    landed = []
    for _ in range(lk.startup + lk.active + 2):
        p1 = PRESS["lk"] if m.frame == press else NEUTRAL
        landed += [(e.frame, e) for e in m.step(p1, p2_hold[m.frame % 2]) if isinstance(e, Hit)]
    assert len(landed) == 1
    frame, meaty = landed[0]
    assert frame == wake and meaty.attacker == 0 and meaty.move == "lk"
    assert meaty.blocked == guard


def test_front_kick_cancelled_into_the_sweep_is_a_combo_ending_in_a_knockdown():
    """The sweep as a cancel (pressed in the front kick's hitstop) lands as the combo's second
    hit (scaled) and floors the defender."""
    m = placed(0.9)
    first = land(m, "lk")
    second = None
    ev = m.step(PRESS["hk_low"], NEUTRAL)
    for _ in range(40):
        second = next((e for e in ev if isinstance(e, Hit)), None)
        if second is not None:
            break
        ev = m.step(FrameInput(down=True), NEUTRAL)
    assert second is not None and second.move == "hk_low" and not second.blocked
    sweep = m.data.moves["hk_low"]
    assert m.fighters[1].combo == 2 and second.damage == sweep.damage * m.data.combo_scaling[1] // 100
    assert m.fighters[1].state == "knockdown"
    assert m.fighters[1].health == m.fighters[1].max_health - first.damage - second.damage


def test_knockdown_is_deterministic_through_snapshot_and_restore():
    """A snapshot taken while the defender lies replays to the same state hashes."""
    m, _ = swept()
    for _ in range(15):
        m.step(NEUTRAL, NEUTRAL)
    assert m.fighters[1].state == "knockdown"
    snap = m.snapshot()
    script = [(FrameInput(forward=i % 3 == 0, lk=i == 20), FrameInput(lp=i % 2 == 0)) for i in range(60)]
    first = [(m.step(*s), m.state_hash())[1] for s in script]
    m.restore(snap)
    again = [(m.step(*s), m.state_hash())[1] for s in script]
    assert first == again


# ------------------------------------------------------------------ the input buffer
def _buffered_start(first: str, second: FrameInput, then: FrameInput, *, on_hit: bool, dist: float = 0.9):
    """P1 does ``first`` (whiffed from afar, or landed); on the first frame of its recovery
    (whiff) or of the hit's hitstop (hit) it presses ``second``, holding ``then`` from the next
    frame on; return the move that starts next, and whether it cut ``first`` short."""
    m = placed(dist if on_hit else 3.0)
    mv = m.data.moves[first]
    ev = list(m.step(PRESS[first], NEUTRAL))
    while True:
        a = m.fighters[0]
        if on_hit and any(isinstance(e, Hit) for e in ev):
            break
        if not on_hit and a.mframe >= mv.total - 3:          # within the 6-frame buffer of its end
            break
        ev = list(m.step(NEUTRAL, NEUTRAL))
    frame_of_press = m.fighters[0].mframe
    started = [e for e in m.step(second, NEUTRAL) if isinstance(e, MoveStarted) and e.fighter == 0]
    for _ in range(40):
        if started:
            break
        started = [e for e in m.step(then, NEUTRAL) if isinstance(e, MoveStarted) and e.fighter == 0]
    assert started, "nothing started"
    return started[0].move, frame_of_press


@pytest.mark.parametrize("on_hit", [False, True])
def test_a_buffered_sweep_stays_a_sweep_when_down_is_released_before_it_starts(on_hit):
    """Down + HK pressed in a front kick's recovery (whiffed) or in its hit's hitstop (a
    cancel), down let go on the next frame: the sweep comes out, as pressed.  The old code
    read down when the move started, and gave the roundhouse."""
    move, _ = _buffered_start("lk", PRESS["hk_low"], NEUTRAL, on_hit=on_hit)
    assert move == "hk_low"


@pytest.mark.parametrize("on_hit", [False, True])
def test_a_buffered_roundhouse_stays_a_roundhouse_when_down_is_pressed_after(on_hit):
    """The converse: HK pressed standing, down held from the next frame (a crouch while
    waiting): the roundhouse comes out, not a sweep the player never pressed."""
    move, _ = _buffered_start("lk", PRESS["hk"], FrameInput(down=True), on_hit=on_hit)
    assert move == "hk"


def test_a_press_still_reads_down_held_on_its_own_frame():
    """Unbuffered, nothing changes: down + HK is the sweep, HK alone the roundhouse, HK with
    up and down (cancelling) the roundhouse."""
    for inp, want in ((FrameInput(hk=True, down=True), "hk_low"), (FrameInput(hk=True), "hk"),
                      (FrameInput(hk=True, up=True, down=True), "hk")):
        m = placed(3.0)
        started = [e.move for e in m.step(inp, NEUTRAL) if isinstance(e, MoveStarted)]
        assert started == [want], (inp, started)


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


def test_easy_cpu_never_cancels_a_light_into_a_combo(monkeypatch):
    """The easy CPU does not confirm (``confirm`` 0), yet it used to cancel its lights into
    heavies: an attack it pressed blindly when its plan ran out, with the light's cancel
    window still open, came out as a cancel (lk -> hk or sweep, some of them combos).  Made
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


# ------------------------------------------------------------------ the data
_assets = edited_assets


def test_shipped_knockdown_is_read():
    data = load_game_data()
    knocking = [n for n, mv in data.moves.items() if mv.knockdown]
    assert knocking == ["hk_low"]
    assert data.moves["hk_low"].hitstun == data.knockdown_frames == data.knockdown.shape[0]
    assert data.knockdown.shape[1:] == data.poses["stance"].shape
    assert (data.knockdown[-1] != data.poses["ko"]).any()     # it ends up, not lying


@pytest.mark.parametrize("edit, field, words", [
    (lambda d: d["moves"]["hk_low"].__setitem__("hitstun", 22), "moves.hk_low.hitstun", "knockdown.frames"),
    (lambda d: d.pop("knockdown"), "knockdown", "moves.hk_low knocks down"),
    (lambda d: d["moves"]["hk_low"].__setitem__("knockdown", 1), "moves.hk_low.knockdown", "true or false"),
    (lambda d: d["knockdown"].__setitem__("frame", 50), "knockdown.frame", "did you mean"),
])
def test_bad_knockdown_data_is_refused_with_the_field(tmp_path, edit, field, words):
    with pytest.raises(AssetError) as exc:
        load_game_data(_assets(tmp_path, edit))
    assert field in str(exc.value) and words in str(exc.value), str(exc.value)


def test_no_knockdown_anywhere_is_a_valid_move_table(tmp_path):
    """A table without knockdowns (no move knocks down, no animation) loads and plays."""
    def edit(d):
        d.pop("knockdown")
        d["moves"]["hk_low"].pop("knockdown")
        d["moves"]["hk_low"]["hitstun"] = 22
    data = load_game_data(_assets(tmp_path, edit))
    assert data.knockdown_frames == 0 and not any(mv.knockdown for mv in data.moves.values())
