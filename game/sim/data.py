"""Fighter and move data: read from ``assets/`` once and compiled to arrays.

A move's keyframes are compiled into a dense ``(frames, L, 3)`` angle table,
so posing a fighter during play is an index, not an interpolation.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .skeleton import Skeleton, euler_matrices

ASSETS = Path(__file__).resolve().parents[2] / "assets"

HEIGHTS = ("high", "mid", "low")


class AssetError(ValueError):
    """An asset file is missing or malformed; the message names file, field and fix."""


@dataclass(frozen=True)
class ProjectileSpec:
    """What a projectile move launches, and what it does when it lands."""

    name: str
    limb: int            # spawned at this limb's range-box centre
    speed: float         # m / frame along the facing
    lifetime: int        # frames
    half: float          # half size of its range box
    level: int           # C9: its rays hit only models of a higher level
    damage: int
    hitstun: int
    blockstun: int
    pushback: float
    hitstop: int
    height: str
    heavy: bool = False


@dataclass(frozen=True)
class Move:
    """One move's frame data and compiled animation.

    ``angles`` is ``(total, L, 3)`` radians and ``rot`` the matching joint
    rotations ``(total, L, 3, 3)``; ``advance`` ``(total,)`` is the
    forward root travel on each frame (the lunge); ``air`` ``(total,)`` the
    jump height above the ground on each frame.
    """

    name: str
    label: str
    startup: int
    active: int
    recovery: int
    hit_limbs: tuple[int, ...]
    height: str
    damage: int
    hitstun: int
    blockstun: int
    pushback: float
    hitstop: int
    heavy: bool
    crouching: bool
    angles: np.ndarray
    rot: np.ndarray
    body: np.ndarray     # (total, 12, L, 4) the rows of ``rot`` posed in the body frame (Skeleton.body)
    advance: np.ndarray
    air: np.ndarray
    projectile: ProjectileSpec | None = None

    @property
    def total(self) -> int:
        return self.startup + self.active + self.recovery

    def is_active(self, frame: int) -> bool:
        return self.startup <= frame < self.startup + self.active

    def phase(self, frame: int) -> str:
        """'startup', 'active' or 'recovery' for a 0-indexed frame of the move."""
        if frame < self.startup:
            return "startup"
        if frame < self.startup + self.active:
            return "active"
        return "recovery"


@dataclass(frozen=True, eq=False)
class GameData:
    skeleton: Skeleton
    max_health: int
    pushbox_radius: float
    fighters: tuple[dict, ...]
    poses: dict[str, np.ndarray]        # name -> (L, 3) angles
    loops: dict[str, np.ndarray]        # name -> (frames, L, 3) angles
    moves: dict[str, Move]
    pose_rot: dict[str, np.ndarray]     # name -> (L, 3, 3) joint rotations
    loop_rot: dict[str, np.ndarray]     # name -> (frames, L, 3, 3)
    pose_body: dict[str, np.ndarray]    # name -> (12, L, 4) body-frame FK (Skeleton.body)
    loop_body: dict[str, np.ndarray]    # name -> (frames, 12, L, 4)


def _read_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise AssetError(f"{path}: file not found; restore the assets/ folder from the repository") from None
    except (OSError, ValueError) as exc:
        raise AssetError(f"{path}: not readable JSON ({exc}); restore it from the repository") from None


def _ease(t: np.ndarray) -> np.ndarray:
    return t * t * (3.0 - 2.0 * t)


def _compile_pose(spec, poses_src: dict, names: tuple[str, ...], where: str, seen=()) -> np.ndarray:
    """Pose spec (a name or ``{base, limb: [ax, ay, az]}``) -> ``(L, 3)`` radians."""
    if isinstance(spec, str):
        if spec not in poses_src:
            raise AssetError(f"moves.json: {where}: unknown pose {spec!r}")
        if spec in seen:
            raise AssetError(f"moves.json: {where}: pose {spec!r} is its own base")
        spec = dict(poses_src[spec], _name=spec)
        seen = seen + (spec["_name"],)
    if not isinstance(spec, dict):
        raise AssetError(f"moves.json: {where}: a pose is a name or an object, got {spec!r}")
    base = spec.get("base")
    out = (
        _compile_pose(base, poses_src, names, where, seen) if base is not None else np.zeros((len(names), 3))
    ).copy()
    for key, value in spec.items():
        if key in ("base", "_name"):
            continue
        if key not in names:
            raise AssetError(f"moves.json: {where}: unknown limb {key!r}; limbs are {', '.join(names)}")
        if not (isinstance(value, list) and len(value) == 3):
            raise AssetError(f"moves.json: {where}: limb {key!r} needs [ax, ay, az] in degrees")
        out[names.index(key)] = np.radians(np.asarray(value, dtype=float))
    return out


def _compile_keys(keys, frames: int, poses_src, names, where) -> np.ndarray:
    """Keyframes ``[[frame, pose], ...]`` -> dense eased table ``(frames, L, 3)``."""
    if not keys or keys[0][0] != 0:
        raise AssetError(f"moves.json: {where}: keys must start at frame 0")
    kf = [int(k[0]) for k in keys]
    if kf != sorted(kf) or len(set(kf)) != len(kf) or kf[-1] > frames:
        raise AssetError(f"moves.json: {where}: key frames must increase and stay within {frames}")
    kp = [_compile_pose(k[1], poses_src, names, f"{where} key {k[0]}") for k in keys]
    table = np.empty((frames, len(names), 3))
    for f in range(frames):
        j = max(i for i, k in enumerate(kf) if k <= f)
        if j == len(kf) - 1:
            table[f] = kp[j]
        else:
            t = _ease(np.array((f - kf[j]) / (kf[j + 1] - kf[j])))
            table[f] = kp[j] + (kp[j + 1] - kp[j]) * t
    return table


@functools.lru_cache(maxsize=4)
def load_game_data(assets_dir: str | None = None) -> GameData:
    """Read and compile ``fighters.json`` and ``moves.json`` (cached; read-only result)."""
    root = Path(assets_dir) if assets_dir else ASSETS
    fdoc = _read_json(root / "fighters.json")
    mdoc = _read_json(root / "moves.json")
    try:
        skeleton = Skeleton(fdoc["limbs"])
        names = skeleton.names
        poses_src = mdoc["poses"]
        poses = {n: _compile_pose(n, poses_src, names, f"pose {n}") for n in poses_src}
        loops = {
            n: _compile_keys(l["keys"], int(l["frames"]), poses_src, names, f"loop {n}")
            for n, l in mdoc["loops"].items()
        }
        moves = {}
        for n, m in mdoc["moves"].items():
            total = int(m["startup"]) + int(m["active"]) + int(m["recovery"])
            if m["height"] not in HEIGHTS:
                raise AssetError(f"moves.json: move {n}: height must be one of {HEIGHTS}")
            for limb in m["hit_limbs"]:
                if limb not in names:
                    raise AssetError(f"moves.json: move {n}: unknown hit limb {limb!r}")
            advance = np.zeros(total)
            if m["startup"] > 0 and m["lunge"]:
                ramp = _ease(np.linspace(0.0, 1.0, int(m["startup"]) + 1)) * float(m["lunge"])
                advance[: int(m["startup"])] = np.diff(ramp)
            air = np.zeros(total)
            if "air" in m:
                a0, a1, height = m["air"]
                t = (np.arange(total) - a0) / float(a1 - a0)
                inside = (t > 0) & (t < 1)
                air[inside] = 4.0 * height * t[inside] * (1.0 - t[inside])
            proj = None
            if "projectile" in m:
                p = m["projectile"]
                if p["limb"] not in names or p["height"] not in HEIGHTS:
                    raise AssetError(f"moves.json: move {n}: projectile needs a known limb and height")
                if p["level"] not in (0, 1, 2) or isinstance(p["level"], bool):
                    raise AssetError(f"moves.json: move {n}: projectile level must be 0 (low), 1 (medium) "
                                     f"or 2 (high), got {p['level']!r}")
                proj = ProjectileSpec(
                    name=n, limb=names.index(p["limb"]), speed=float(p["speed"]), lifetime=int(p["lifetime"]),
                    half=float(p["half"]), level=int(p["level"]), damage=int(p["damage"]),
                    hitstun=int(p["hitstun"]), blockstun=int(p["blockstun"]), pushback=float(p["pushback"]),
                    hitstop=int(p["hitstop"]), height=p["height"])
            moves[n] = Move(
                name=n, label=m["label"], startup=int(m["startup"]), active=int(m["active"]),
                recovery=int(m["recovery"]), hit_limbs=tuple(names.index(l) for l in m["hit_limbs"]),
                height=m["height"], damage=int(m["damage"]), hitstun=int(m["hitstun"]),
                blockstun=int(m["blockstun"]), pushback=float(m["pushback"]), hitstop=int(m["hitstop"]),
                heavy=bool(m["heavy"]), crouching=bool(m.get("crouching", False)),
                angles=(angles := _compile_keys(m["keys"], total, poses_src, names, f"move {n}")),
                rot=(rot := euler_matrices(angles)), body=skeleton.body(rot), advance=advance, air=air,
                projectile=proj,
            )
        pose_rot = {n: euler_matrices(a) for n, a in poses.items()}
        loop_rot = {n: euler_matrices(a) for n, a in loops.items()}
        pose_body = {n: skeleton.body(r) for n, r in pose_rot.items()}
        loop_body = {n: skeleton.body(r) for n, r in loop_rot.items()}
        tables = [*poses.values(), *loops.values(), *pose_rot.values(), *loop_rot.values(),
                  *pose_body.values(), *loop_body.values()]
        for arr in tables + [t for m in moves.values() for t in (m.angles, m.rot, m.body)]:
            arr.flags.writeable = False
        return GameData(
            skeleton=skeleton, max_health=int(fdoc["max_health"]),
            pushbox_radius=float(fdoc["pushbox_radius"]), fighters=tuple(fdoc["fighters"]),
            poses=poses, loops=loops, moves=moves, pose_rot=pose_rot, loop_rot=loop_rot,
            pose_body=pose_body, loop_body=loop_body,
        )
    except KeyError as exc:
        raise AssetError(f"{root}: missing field {exc.args[0]!r} in fighters.json or moves.json") from None
