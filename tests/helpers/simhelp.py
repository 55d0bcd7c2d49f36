"""Scripting helpers for match tests: inputs, placing the fighters, stepping scripts, and the
truth behind the read-outs (who can act first)."""

from __future__ import annotations

import math

from game.sim import CrateStruck, FrameInput, Hit, Match

NEUTRAL = FrameInput()
GUARD = FrameInput(guard=True)
LOW_GUARD = FrameInput(guard=True, down=True)
FIREBALL = FrameInput(lp=True, hp=True)
#: one press of each move (the fireball is the pair lp + hp)
PRESS = {"lp": FrameInput(lp=True), "hp": FrameInput(hp=True), "lk": FrameInput(lk=True),
         "hk": FrameInput(hk=True), "hk_low": FrameInput(hk=True, down=True), "fireball": FIREBALL,
         "jump": FrameInput(up=True)}
#: what to hold after the press so that the move runs as pressed (the sweep is a crouching kick)
HELD = {"hk_low": FrameInput(down=True)}


def to_fight(m: Match) -> None:
    """Step neutral frames until the round's FIGHT phase."""
    while m.phase != "fight":
        m.step(NEUTRAL, NEUTRAL)


def fight(m: Match, frames: int = 0) -> Match:
    """Step ``m`` to its FIGHT phase, then ``frames`` neutral frames more; returns ``m``."""
    to_fight(m)
    for _ in range(frames):
        m.step(NEUTRAL, NEUTRAL)
    return m


def gap(m: Match) -> float:
    a, b = m.fighters
    return math.hypot(b.x - a.x, b.z - a.z)


def walk_to(m: Match, distance: float, who: int = 0, limit: int = 400) -> None:
    """Walk fighter ``who`` forward until the centres are within ``distance``."""
    fwd = FrameInput(forward=True)
    for _ in range(limit):
        if gap(m) <= distance:
            break
        m.step(fwd if who == 0 else NEUTRAL, fwd if who == 1 else NEUTRAL)
    # one neutral frame so the walk state ends
    m.step(NEUTRAL, NEUTRAL)


def run(m: Match, p1: FrameInput, p2: FrameInput, frames: int):
    """Step ``frames`` frames holding the given inputs; return all events."""
    out = []
    for _ in range(frames):
        out.extend(m.step(p1, p2))
    return out


def press_and_wait(m: Match, p1: FrameInput, p2: FrameInput, frames: int, hold1: FrameInput = NEUTRAL,
                   hold2: FrameInput = NEUTRAL):
    """Press on one frame, then hold ``hold1/hold2`` for ``frames``; return (events, boxes after each Hit)."""
    events = list(m.step(p1, p2))
    hits = [(e, [f.limb_boxes() for f in m.fighters]) for e in events if isinstance(e, Hit)]
    for _ in range(frames):
        ev = m.step(hold1, hold2)
        events.extend(ev)
        hits += [(e, [f.limb_boxes() for f in m.fighters]) for e in ev if isinstance(e, Hit)]
    return events, hits


def make_hit(**kw) -> Hit:
    """A light, unblocked jab's ``Hit`` at (0, 1.3, 0) on frame 100; ``kw`` overrides fields."""
    import numpy as np

    base = dict(frame=100, attacker=0, defender=1, move="lp", attack_limb="forearm_l", struck_limb="torso",
                point=np.array([0.0, 1.3, 0.0]), damage=5, blocked=False, height="high", heavy=False,
                hitstop=6, advantage=2)
    base.update(kw)
    return Hit(**base)


def mashed_advantage(m: Match, frames: int = 120) -> int:
    """The truth behind ``Hit.advantage``: P1's lead, the frame P2 can start a move again
    minus the frame P1 can, each found by :func:`first_act` (that side alone mashes a buffered
    move from now on, the other holding still; the match is put back after each).  Mashed by
    both at once, the first move out may land before the other side's comes out (a front kick
    reaches 1.4 m), which would measure the hit, not who was free first."""
    return first_act(m, 1, frames) - first_act(m, 0, frames)


def first_act(m: Match, who: int, limit: int = 300) -> int:
    """The frame fighter ``who`` can start a move again: from now only it mashes a buffered
    move (the front kick: no move cancels into it, and a cancel is no "can act again") while
    the other holds still; its first ``MoveStarted``.  Not while a move it just started alone
    could still become a pair (``Fighter.lone``: lk mashed within 2 frames of a jab's lp would
    make it the throw, which is no "can act again" either).  The match is put back."""
    from game.sim import MoveStarted
    snap = m.snapshot()
    mash = (FrameInput(lk=True), NEUTRAL)
    try:
        for i in range(limit):
            me = NEUTRAL if m.fighters[who].lone else mash[i % 2]
            for e in m.step(me if who == 0 else NEUTRAL, me if who == 1 else NEUTRAL):
                if isinstance(e, MoveStarted) and e.fighter == who:
                    return e.frame
        raise AssertionError(f"fighter {who} never acted")
    finally:
        m.restore(snap)


def placed(dist: float, seed: int = 0) -> Match:
    """A match in its FIGHT phase with the fighters ``dist`` apart, mirrored about x = 0."""
    m = Match.new(seed=seed)
    to_fight(m)
    a, b = m.fighters
    a.x, b.x = -dist / 2, dist / 2
    m.step(NEUTRAL, NEUTRAL)
    return m


def ev_key(ev):
    """An event as a comparable tuple (points are arrays)."""
    import numpy as np

    d = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(ev).items()}
    return (type(ev).__name__, tuple(sorted(d.items())))


def run_frames(m: Match, inputs):
    """Step ``inputs``; per frame ``(frame, state_hash, events, last_inputs)`` (rollback checks)."""
    out = []
    for p1, p2 in inputs:
        ev = m.step(p1, p2)
        out.append((m.frame, m.state_hash(), tuple(ev_key(e) for e in ev), tuple(m.last_inputs)))
    return out


def edited_assets(tmp_path, edit) -> str:
    """A copy of the shipped fighters.json and moves.json in ``tmp_path``, moves.json passed
    through ``edit(doc)`` (a dict, changed in place); returns the folder for ``load_game_data``."""
    import json
    import shutil

    from game.sim.data import ASSETS

    for name in ("fighters.json", "moves.json"):
        shutil.copy(ASSETS / name, tmp_path / name)
    doc = json.loads((tmp_path / "moves.json").read_text())
    edit(doc)
    (tmp_path / "moves.json").write_text(json.dumps(doc))
    return str(tmp_path)


def place(m: Match, p1, p2) -> None:
    """Put the fighters at x–z points ``p1``, ``p2`` and let one frame settle facing and ground."""
    for f, (x, z) in zip(m.fighters, (p1, p2)):
        f.x, f.z = float(x), float(z)
    m.step(NEUTRAL, NEUTRAL)


def land(m: Match, move: str, p2: FrameInput = NEUTRAL, limit: int = 60) -> Hit:
    """P1 presses ``move`` (P2 holds ``p2``); step until it lands; return its Hit."""
    ev = list(m.step(PRESS[move], p2))
    for _ in range(limit):
        hit = next((e for e in ev if isinstance(e, Hit)), None)
        if hit is not None:
            return hit
        ev = list(m.step(NEUTRAL, p2))
    raise AssertionError(f"{move} never landed")


def swept(seed: int = 0) -> tuple[Match, Hit]:
    """P1's sweep has just hit P2 (point-blank: on its first active frame)."""
    m = placed(0.9, seed)
    hit = land(m, "hk_low")
    assert hit.move == "hk_low" and not hit.blocked
    return m, hit


def run_scripts(m: Match, p1: list, p2: list, frames: int) -> list:
    """Both sides' scripted inputs (then nothing) for ``frames`` frames; ``(frame, event)`` pairs,
    frames counted from 0."""
    out = []
    for k in range(frames):
        out += [(k, e) for e in m.step(p1[k] if k < len(p1) else NEUTRAL, p2[k] if k < len(p2) else NEUTRAL)]
    return out


def run_script(m: Match, presses: list, frames: int = 24) -> list:
    """Step P1's ``presses`` (then nothing) for ``frames`` frames; ``(frame, event)`` pairs."""
    return run_scripts(m, presses, [], frames)


def crate(m: Match, name: str):
    """The stage's crate called ``name``."""
    return next(c for c in m.stage.crates if c.obj.name == name)


def punch_crate(m: Match, button: str = "hp", frames: int = 40):
    """P1 presses ``button`` and waits; return (CrateStruck events, P1's hit-limb boxes on active frames)."""
    events, active = list(m.step(FrameInput(**{button: True}), NEUTRAL)), []
    for _ in range(frames):
        events += m.step(NEUTRAL, NEUTRAL)
        f = m.fighters[0]
        if f.move and m.data.moves[f.move].is_active(f.mframe):
            active.append(f.limb_boxes()[list(m.data.moves[f.move].hit_limbs)])
    return [e for e in events if isinstance(e, CrateStruck)], active


def blending(m: Match) -> Match:
    """Step ``m`` until P1 is inside a pose blend (its pose arrays are a blend's fresh arrays)."""
    fight(m)
    for i in range(200):
        m.step(FrameInput(lp=i % 25 == 0, forward=i % 25 > 12), FrameInput())
        if m.fighters[0].blend_left > 0:
            return m
    raise AssertionError("no pose blend in 200 frames")
