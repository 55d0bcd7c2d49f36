"""Combos: light normals cancel into heavier moves and the fireball (``moves.json`` ``cancel``),
combo hits are scaled (``combo_scaling``).

The truth is measured by frame-stepping the match: a combo's second hit lands while the
defender is in hitstun on every frame since the first (it cannot guard: it tries; nor act: it
mashes), a blocked string's end is as minus as its data says and as the side that acts
first shows, a whiff never cancels.  Nothing here is copied from the implementation's output."""

from __future__ import annotations

import pytest

from game.sim import FrameInput, Hit, Match, MoveStarted
from game.sim.data import AssetError, load_game_data
from simhelp import GUARD, NEUTRAL, edited_assets, fight, first_act, gap, mashed_advantage, walk_to

PRESS = {"lp": FrameInput(lp=True), "hp": FrameInput(hp=True), "lk": FrameInput(lk=True),
         "hk": FrameInput(hk=True), "hk_low": FrameInput(hk=True, down=True),
         "fireball": FrameInput(lp=True, hp=True)}


#: What the attacker holds after pressing the second move (a sweep wants down held).
HOLD = {"hk_low": FrameInput(down=True)}


#: (first, second, distance between centres): the combos the README claims.
COMBOS = [("lp", "hp", 0.9), ("lp", "fireball", 0.9), ("lp", "fireball", 1.2),
          ("lk", "hk", 0.9), ("lk", "hk", 1.15), ("lk", "hk_low", 0.9),
          ("lk", "fireball", 0.9), ("lk", "fireball", 1.15)]


def _defence(kind: str, i: int) -> FrameInput:
    """The defender's input ``i`` frames after the first hit: nothing, a held guard, or a
    mashed jab (it would start the moment the defender can act)."""
    if kind == "guard":
        return GUARD
    if kind == "mash":
        return FrameInput(lp=True) if i % 2 == 0 else NEUTRAL
    return NEUTRAL


def _string(first: str, second: str, dist: float, defence: str = "none", guard_first: bool = False,
            delay: int = 1, frames: int = 90):
    """P1, ``dist`` m from P2, presses ``first``; ``delay`` frames after the first Hit (or,
    on a whiff, after its press when ``delay`` is negative: ``-delay``; or, when ``delay`` is 0,
    on the first move's last frame, so that it comes out the moment the move is over) it
    presses ``second``.
    P2 guards the first hit when ``guard_first``, then plays ``defence``.

    Returns (match, hits: [(Hit, then the defender's combo, the attacker's mframe and hitstop, and
    the match's snapshot)],
    per frame between the first two hits: (defender state, defender started a move), P1's
    MoveStarted frames, the frame of the first press)."""
    m = fight(Match.new(seed=0))
    walk_to(m, dist)
    assert abs(gap(m) - dist) < 0.05
    start = m.frame
    hits, between, starts = [], [], []
    first_hit = None
    p2 = GUARD if guard_first else NEUTRAL
    for i in range(frames):
        if i == 0:
            p1 = PRESS[first]
        elif (first_hit is not None and m.frame == first_hit + delay) or (delay < 0 and i == -delay) or \
                (delay == 0 and first_hit is not None and m.fighters[0].move == first and
                 m.fighters[0].mframe == m.data.moves[first].total - 1):
            p1 = PRESS[second]
        elif (first_hit is not None and m.frame > first_hit + delay) or (delay < 0 and i > -delay):
            p1 = HOLD.get(second, NEUTRAL)
        else:
            p1 = NEUTRAL
        if first_hit is not None:
            p2 = _defence(defence, m.frame - first_hit)
        ev = m.step(p1, p2)
        acted = any(isinstance(e, MoveStarted) and e.fighter == 1 for e in ev)
        for e in ev:
            if isinstance(e, MoveStarted) and e.fighter == 0:
                starts.append((e.frame, e.move))
        new = [e for e in ev if isinstance(e, Hit) and e.attacker == 0]
        for e in new:
            hits.append((e, m.fighters[1].combo, m.fighters[0].mframe, m.fighters[0].hitstop, m.snapshot()))
            if first_hit is None:
                first_hit = e.frame
        if first_hit is not None and len(hits) == 1 and not new:
            between.append((m.fighters[1].state, acted))
    return m, hits, between, starts, start


# ------------------------------------------------------------------ combos exist
@pytest.mark.slow
@pytest.mark.parametrize("defence", ["none", "guard", "mash"])
@pytest.mark.parametrize("first,second,dist", COMBOS)
def test_light_cancels_combo_defender_cannot_guard_or_act_between(first, second, dist, defence):
    m, hits, between, starts, start = _string(first, second, dist, defence)
    data = m.data
    assert len(hits) >= 2, f"{first} -> {second} at {dist} m: only {[(h.move, h.blocked) for h, *_ in hits]}"
    (h1, c1, *_), (h2, c2, *_) = hits[:2]
    assert (h1.move, h1.blocked, c1) == (first, False, 1)
    assert (h2.move, h2.blocked, c2) == (second, False, 2), (h2, c2)
    # the second move was a cancel: it started before the first move's recovery was over
    s1 = next(f for f, mv in starts if mv == first)
    s2 = next(f for f, mv in starts if mv == second)
    assert s2 - s1 < data.moves[first].total + h1.hitstop
    # every frame between the hits: in hitstun, no guard, no move of its own
    assert between and all(state == "hitstun" and not acted for state, acted in between), between
    # combo damage scaling: the 2nd hit does combo_scaling[1] percent of the move's damage
    spec = data.moves[second].projectile or data.moves[second]
    assert h2.damage == max(1, spec.damage * data.combo_scaling[1] // 100) < spec.damage
    assert m.data.max_health - m.fighters[1].health == h1.damage + h2.damage


@pytest.mark.slow
@pytest.mark.parametrize("first,second,dist", COMBOS)
def test_without_the_cancel_the_same_two_moves_do_not_combo(first, second, dist):
    """Hit advantage alone links nothing: the second move pressed so that it comes out as soon
    as the first is over (no cancel: pressed after the window) lands on a recovered defender,
    who could have guarded it."""
    mv = load_game_data().moves[first]
    assert mv.cancel_window[1] < mv.total - 1            # the last frame is past the window
    m, hits, between, starts, start = _string(first, second, dist, delay=0)
    s1 = next(f for f, n in starts if n == first)
    s2 = [f for f, n in starts if n == second]
    assert s2 and s2[0] - s1 == mv.total + hits[0][0].hitstop, "it comes out as the first move ends"
    assert "idle" in {s for s, _ in between}, "the defender recovered before the second move came"
    assert all(h[1] == 1 for h in hits), hits


def test_jab_does_not_link_into_itself():
    """The jab's hit advantage is one frame short of its own startup: no jab loop."""
    m, hits, *_ = _string("lp", "lp", 0.9, delay=1)
    h = hits[0][0]
    assert 0 < h.advantage < m.data.moves["lp"].startup
    assert "lp" not in m.data.moves["lp"].cancel
    assert all(h[1] == 1 for h in hits), hits


# ------------------------------------------------------------------ whiffs and blocks
@pytest.mark.slow
@pytest.mark.parametrize("first,second", [("lp", "hp"), ("lp", "fireball"), ("lk", "hk"), ("lk", "fireball")])
def test_a_whiffed_light_never_cancels(first, second):
    """Out of reach, the second press at any frame of the first move comes out only once the
    first is over; except hp (alone or with lp) within PAIR_LENIENCY frames of the jab's lp:
    the fireball pressed a frame or two late, which replaces the jab
    (tests/sim/test_commands.py)."""
    from game.sim.match import PAIR_LENIENCY

    mv = load_game_data().moves[first]
    came = False
    for k in range(1, mv.total):
        if k <= PAIR_LENIENCY and first == "lp" and second in ("hp", "fireball"):
            continue            # lp then hp (or lp + hp) within the window is the fireball itself
        m, hits, between, starts, start = _string(first, second, 3.0, delay=-k, frames=mv.total + 12)
        assert not hits
        later = [f for f, n in starts if n != first]
        assert all(f - start >= mv.total for f in later), (k, starts)
        came = came or bool(later)
    assert came, "a press late in the move is buffered and comes out once it is over"


@pytest.mark.parametrize("first,second", [("lp", "hp"), ("lk", "hk"), ("lp", "fireball"), ("lk", "fireball")])
def test_a_blocked_cancel_ends_minus_by_its_data(first, second):
    """On block the cancel still comes out (contact is enough), and the string ends minus:
    the advantage the side that acts first shows (both mash) equals the data's (the second
    move's blockstun plus the defender's hitstop, less the attacker's remaining frames plus its
    own hitstop) and ``Hit.advantage``."""
    m, hits, between, starts, start = _string(first, second, 0.9, defence="guard", guard_first=True)
    assert [(h.move, h.blocked) for h, *_ in hits[:2]] == [(first, True), (second, True)]
    h2, _, mframe, thrower_frozen, snap = hits[1]
    m.restore(snap)                                  # the step the second hit was blocked on
    mv = m.data.moves[second]
    spec = mv.projectile or mv
    # a projectile does not freeze its thrower
    assert thrower_frozen == (0 if mv.projectile else spec.hitstop)
    expected = (spec.hitstop + spec.blockstun) - (thrower_frozen + mv.total - mframe)
    assert h2.advantage == expected < 0
    assert first_act(m, 1) - first_act(m, 0) == expected
    if abs(expected) <= m.data.moves["lk"].startup:   # both mashing, the first kick cannot land first
        assert mashed_advantage(m) == expected


# ------------------------------------------------------------------ the data loader
_assets = edited_assets


def test_shipped_cancels_are_read():
    data = load_game_data()
    assert data.moves["lp"].cancel == ("hp", "fireball")
    assert data.moves["lk"].cancel == ("hk", "hk_low", "fireball")
    assert all(not data.moves[n].cancel for n in ("hp", "hk", "hk_low", "fireball", "jump"))
    assert data.combo_scaling[0] == 100 and list(data.combo_scaling) == sorted(data.combo_scaling, reverse=True)


def _set(path, value):
    def edit(doc):
        node = doc
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return edit


@pytest.mark.slow
@pytest.mark.parametrize("edit,field,words", [
    (_set(("moves", "lp", "cancel", "into"), ["hpp"]), "moves.lp.cancel.into[0]", "the name of an attack"),
    (_set(("moves", "lp", "cancel", "into"), ["jump"]), "moves.lp.cancel.into[0]", "the name of an attack"),
    (_set(("moves", "lp", "cancel", "into"), ["lp"]), "moves.lp.cancel.into[0]", "cannot cancel into itself"),
    (_set(("moves", "hp", "cancel"), {"into": ["lp"], "window": [10, 12]}), "cancel.into", "->"),
    (_set(("moves", "lp", "cancel", "window"), [2, 12]), "moves.lp.cancel.window[0]", "from 6"),
    (_set(("moves", "lp", "cancel", "window"), [8, 7]), "moves.lp.cancel.window[1]", "from 8"),
    (_set(("moves", "lp", "cancel", "window"), [6, 19]), "moves.lp.cancel.window[1]", "to 18"),
    (_set(("moves", "lp", "cancel", "window"), 6), "moves.lp.cancel.window", "a list of 2"),
    (_set(("moves", "lp", "cancel", "into"), []), "moves.lp.cancel.into", "a list of move names"),
    (_set(("moves", "lp", "cancel", "windw"), [6, 12]), "moves.lp.cancel.windw", "did you mean 'window'"),
    (_set(("moves", "jump", "cancel"), {"into": ["hp"], "window": [4, 5]}), "moves.jump.cancel", "no cancel"),
    (_set(("combo_scaling",), [100, 0]), "combo_scaling[1]", "percentage from 1 to 100"),
    (_set(("combo_scaling",), [100, 120]), "combo_scaling[1]", "percentage from 1 to 100"),
    (_set(("combo_scaling",), []), "combo_scaling", "a list of 1 to 16"),
])
def test_bad_cancel_data_is_refused_with_the_field(tmp_path, edit, field, words):
    with pytest.raises(AssetError) as exc:
        load_game_data(_assets(tmp_path, edit))
    msg = str(exc.value)
    assert "moves.json" in msg and field in msg and words in msg, msg
    assert "Traceback" not in msg and len(msg.splitlines()) == 1
