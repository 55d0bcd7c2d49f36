"""Fighter and move data: read from ``assets/`` once, validated, and compiled to arrays.

:func:`load_game_data` reads ``fighters.json`` (:mod:`game.sim.body`) and ``moves.json`` (poses
and loops, :mod:`game.sim.body`; moves, the throw, the knockdown, :mod:`game.sim.moves`) into
one read-only :class:`GameData` that every match of the process shares.  A move's keyframes
are compiled into a dense ``(frames, L, 3)`` angle table, so posing a fighter during play is an
index, not an interpolation.

Every field is checked on load by the shared :class:`Fields` reader
(:mod:`game.sim.fields`, which :mod:`game.sim.arena` uses for ``arena.scene.json`` too): a bad
value raises :class:`AssetError` with one line ``<file>: <field path>: expected <what>, got
<value>; <fix>``, never an error from inside numpy.  The bounds are what the sim can play
(:mod:`game.sim.limits`).  A key the loader does not read (a misspelt ``"crouchng"``) is an
error too, suggesting the closest key it does read; keys starting with ``_`` are comments
(``"_doc"``), and a key written twice in one object is refused.  A path that cannot be read
as a file raises :class:`AssetFileError` (``game.files.read_bounded``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .body import compile_keys, compile_pose, read_fighters
from .fields import (
    ASSETS,
    REQUIRED,
    AssetError,
    AssetFileError,
    Fields,
    fields_of,
    in_shipped_assets,
    read_json,
    restore_hint,
)
from .limits import HEIGHTS, MAX_FRAMES
from .moves import Move, ProjectileSpec, ThrowSpec, check_cancels, read_knockdown, read_move, read_scaling, read_throw
from .skeleton import Skeleton, euler_matrices
from .trig import sin_cos_table

#: Names other modules import from here (the loader's public surface).
__all__ = ["ASSETS", "REQUIRED", "AssetError", "AssetFileError", "Fields", "GameData", "Move", "ProjectileSpec",
           "ThrowSpec", "in_shipped_assets", "load_game_data", "read_json", "restore_hint"]

#: Names the sim looks up (posing, actions, commands): the poses and loops of its states, the moves
#: its inputs start, so a file without one would fail mid-match.
REQUIRED_POSES = ("stance", "crouch", "block_stand", "block_crouch", "ko", "win") + tuple(f"hit_{h}" for h in HEIGHTS)
REQUIRED_LOOPS = ("walk_fwd", "walk_back", "sidestep")
REQUIRED_MOVES = ("lp", "hp", "lk", "hk", "hk_low", "fireball", "jump")


@dataclass(frozen=True, eq=False)
class GameData:
    """Everything the fighters and moves files say, validated and compiled; shared, read-only."""

    skeleton: Skeleton                  # the limb tree, joints and solids (both fighters share it)
    max_health: int                     # health at the start of a round
    pushbox_radius: float               # m, the x-z circle two fighters cannot overlap
    fighters: tuple[dict, ...]          # the two players' names and colours, as read (presentation)
    poses: dict[str, np.ndarray]        # name -> (L, 3) angles
    loops: dict[str, np.ndarray]        # name -> (frames, L, 3) angles
    moves: dict[str, Move]              # name -> the move's frame data and tables
    #: Percent of a hit's damage by its place in a combo (1st, 2nd, ...; the last repeats).
    combo_scaling: tuple[int, ...]
    pose_rot: dict[str, np.ndarray]     # name -> (L, 3, 3) joint rotations
    loop_rot: dict[str, np.ndarray]     # name -> (frames, L, 3, 3)
    pose_body: dict[str, np.ndarray]    # name -> (12, L, 4) body-frame FK (Skeleton.body)
    loop_body: dict[str, np.ndarray]    # name -> (frames, 12, L, 4)
    #: The knockdown animation (fall, lie, get up), one row per frame of a knockdown: angles
    #: ``(K, L, 3)``, rotations ``(K, L, 3, 3)``, body-frame FK ``(K, 12, L, 4)``; ``K`` is
    #: also how long a knockdown lasts (a knockdown move's ``hitstun``).  ``K = 0``: no
    #: ``knockdown`` in moves.json (then no move may knock down).
    knockdown: np.ndarray
    knockdown_rot: np.ndarray
    knockdown_body: np.ndarray
    #: The throw (:class:`ThrowSpec`), or None (no ``throw`` in moves.json: lp + lk is no command),
    #: and the thrown fighter's animation, one row per frame from the grab: ``(T, L, 3)``,
    #: ``(T, L, 3, 3)``, ``(T, 12, L, 4)`` (``T = 0`` without a throw).
    throw: ThrowSpec | None
    thrown: np.ndarray
    thrown_rot: np.ndarray
    thrown_body: np.ndarray
    #: ``{angle: (sin, cos)}`` of every non-zero angle of the tables above (``trig.sin_cos_table``):
    #: a pose blend's angles, mostly a table's, are looked up here (read-only)
    table_sin_cos: dict[float, tuple[float, float]]

    @property
    def knockdown_frames(self) -> int:
        """How many frames a knockdown lasts, hit to first free frame (hitstop aside)."""
        return int(self.knockdown.shape[0])

    @property
    def projectile(self) -> ProjectileSpec | None:
        """What the (first) projectile move launches, or None when no move launches one."""
        return next((m.projectile for m in self.moves.values() if m.projectile is not None), None)


def _require(f: Fields, parent: dict, where: str, names: tuple[str, ...], what: str) -> None:
    """Each of ``names`` (entries the sim looks up by name) is in ``parent``."""
    for n in names:
        if n not in parent:
            f.fail(f.at(where, n), f"a {what} object {{...}}", fix=f"add it: the game plays the {what} {n!r}")


@functools.lru_cache(maxsize=4)
def load_game_data(assets_dir: str | None = None) -> GameData:
    """Read, validate and compile ``fighters.json`` and ``moves.json`` (cached; read-only result).

    Raises :class:`AssetError` naming the file, the field path and the fix for any missing
    or bad field (see :class:`Fields`)."""
    root = Path(assets_dir) if assets_dir else ASSETS
    skeleton, max_health, pushbox_radius, fighters = read_fighters(root / "fighters.json")
    names = skeleton.names
    mpath = root / "moves.json"
    f = fields_of(mpath)
    mdoc = f.root(read_json(mpath))
    poses_src = f.obj(mdoc, "poses", "")
    _require(f, poses_src, "poses", REQUIRED_POSES, "pose")
    poses = {n: compile_pose(f, poses_src, n, "poses", poses_src, names, (n,)) for n in f.entries(poses_src)}
    loops_src = f.obj(mdoc, "loops", "")
    _require(f, loops_src, "loops", REQUIRED_LOOPS, "loop")
    loops = {}
    for n in f.entries(loops_src):
        loop = f.obj(loops_src, n, "loops")
        frames = f.whole(loop, "frames", f"loops.{n}", 1, MAX_FRAMES,
                         f"a whole number of frames from 1 to {MAX_FRAMES}")
        loops[n] = compile_keys(f, loop, f"loops.{n}", frames, poses_src, names)
    moves_src = f.obj(mdoc, "moves", "")
    _require(f, moves_src, "moves", REQUIRED_MOVES, "move")
    moves = {n: read_move(f, f.obj(moves_src, n, "moves"), n, poses_src, skeleton) for n in f.entries(moves_src)}
    check_cancels(f, moves)
    combo_scaling = read_scaling(f, mdoc)
    knockdown = read_knockdown(f, mdoc, moves, poses_src, names)
    throw, thrown = read_throw(f, mdoc, moves, poses_src, names)
    f.reject_unknown(mdoc)          # after every pass: the poses are read again by the moves naming them
    pose_rot = {n: euler_matrices(a) for n, a in poses.items()}
    loop_rot = {n: euler_matrices(a) for n, a in loops.items()}
    pose_body = {n: skeleton.body(r) for n, r in pose_rot.items()}
    loop_body = {n: skeleton.body(r) for n, r in loop_rot.items()}
    knockdown_rot = euler_matrices(knockdown)
    knockdown_body = skeleton.body(knockdown_rot)
    thrown_rot = euler_matrices(thrown)
    thrown_body = skeleton.body(thrown_rot)
    table_sin_cos = sin_cos_table([*poses.values(), *loops.values(), *(m.angles for m in moves.values()),
                                   knockdown, thrown])
    tables = [*poses.values(), *loops.values(), *pose_rot.values(), *loop_rot.values(),
              *pose_body.values(), *loop_body.values(), knockdown, knockdown_rot, knockdown_body,
              thrown, thrown_rot, thrown_body]
    # Shared by every match of the process (cached): nothing reachable from it may be written,
    # or one tool's ``match.data.moves['hp'].advance *= 2`` would change every other match.
    skeleton.freeze()
    for arr in tables + [t for m in moves.values() for t in (m.angles, m.rot, m.body, m.advance, m.air)]:
        arr.flags.writeable = False
    return GameData(
        skeleton=skeleton, max_health=max_health, pushbox_radius=pushbox_radius, fighters=fighters,
        poses=poses, loops=loops, moves=moves, combo_scaling=combo_scaling, pose_rot=pose_rot, loop_rot=loop_rot,
        pose_body=pose_body, loop_body=loop_body,
        knockdown=knockdown, knockdown_rot=knockdown_rot, knockdown_body=knockdown_body,
        throw=throw, thrown=thrown, thrown_rot=thrown_rot, thrown_body=thrown_body, table_sin_cos=table_sin_cos,
    )
