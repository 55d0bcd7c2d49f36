"""Nothing a tool is handed changes a match, or another match, when the tool writes to it: the
shared game data, arena and collision trees are read-only, debug drawing hands out copies, and
every public array of a match is a value."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim import CrateStruck, FrameInput, Match, ProjectileImpact, ProjectileLaunched
from game.sim.debug import RecordingDraw
from replayhelp import scripted_inputs
from simhelp import fight


# ---------------------------------------------------------------- nothing a tool holds changes a match
def test_debug_draw_hands_out_no_live_range_boxes():
    """An overlay that moves the boxes it is given into its own space, in place, must not move
    the match's range boxes (state_hash() and the next frame's collisions would change)."""

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


def _arrays(obj, path: str, seen: set, out: list, depth: int = 0) -> None:
    """Every ndarray reachable from ``obj`` through public attributes and properties
    (and the items of tuples, lists and dicts): ``(path, array)``."""
    if isinstance(obj, np.ndarray):                 # listed under every path that reaches it
        out.append((path, obj))
        return
    if id(obj) in seen or depth > 8 or isinstance(obj, (str, bytes, int, float, bool, type(None), np.generic, type)):
        return
    seen.add(id(obj))
    if isinstance(obj, dict):
        for k, v in obj.items():
            _arrays(v, f"{path}[{k!r}]", seen, out, depth + 1)
        return
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _arrays(v, f"{path}[{i}]", seen, out, depth + 1)
        return
    if not type(obj).__module__.startswith("game."):
        return
    names = set(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        names.update(getattr(cls, "__slots__", ()))
        names.update(n for n, v in vars(cls).items() if isinstance(v, property))
    for n in sorted(names):
        if n.startswith("_"):
            continue
        try:
            v = getattr(obj, n)
        except Exception:
            continue
        if callable(v) and not isinstance(v, np.ndarray):
            continue
        _arrays(v, f"{path}.{n}", seen, out, depth + 1)


def _crate_strike(m: Match) -> Match:
    """``m`` on the frame P1's straight strikes crate_north (P2 behind the crate), mid-blend."""
    fight(m)
    a, b = m.fighters
    a.x, a.z, b.x, b.z = 0.0, 3.72, 0.0, 8.0
    for i in range(60):
        if any(isinstance(e, CrateStruck) for e in m.step(FrameInput(hp=i == 3), FrameInput())):
            return m
    pytest.fail("the straight never struck crate_north")


@pytest.mark.slow
def test_no_public_array_of_a_match_fighter_or_stage_is_live_state_a_tool_can_write():
    """Every array reachable from a match's public attributes (fighters, stage, scene, crates,
    compounds, contacts, the shared data and arena) is written in place: the match must
    play on exactly as an untouched twin (the fighters' pose arrays and the AABB trees,
    shared by every match's scene, included)."""
    m, twin = _crate_strike(Match.new(seed=0)), _crate_strike(Match.new(seed=0))
    assert m.crate_contacts and m.state_hash() == twin.state_hash()
    found = []
    _arrays(m, "match", set(), found)
    paths = {p for p, _ in found}
    assert {"match.fighters[0].pose", "match.fighters[1].body", "match.stage.crates[0].compound.boxes",
            "match.arena.scene.models[0].tree.v0"} <= paths
    written = []
    for path, arr in found:
        if arr.flags.writeable and arr.size:
            arr[...] = np.ones((), dtype=arr.dtype) * 3          # a tool writing where it should not
            written.append(path)
    for i in range(90):
        m.step(*scripted_inputs(i))
        twin.step(*scripted_inputs(i))
        assert m.state_hash() == twin.state_hash(), (i, written)


def test_collision_trees_shared_by_every_matchs_scene_are_read_only():
    """A match's scene shares its models' AABB trees with the cached arena (and so with every
    other match of the process): a tool writing one moved every match's rays."""
    m, other = Match.new(seed=0), Match.new(seed=1)
    for scene in (m.stage.scene, m.arena.scene):
        for model in scene.models:
            t = model.tree
            assert other.stage.scene.models[0].tree is m.stage.scene.models[0].tree
            for name in ("box", "child", "leaf", "slot_tri", "v0", "e1", "e2"):
                assert not getattr(t, name).flags.writeable, name
    with pytest.raises(ValueError, match="read-only"):
        m.stage.scene.models[0].tree.v0[:] += 1.0
