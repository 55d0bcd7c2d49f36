"""Soak the simulation with random inputs and check its invariants on every frame.

    python3 -m game.tools.soak --frames 1000000 --seed S [--quiet]

Both fighters get seeded random inputs (held for random spans, so moves,
walks, jumps, guards and contradictory presses all happen); when a match
ends the next one starts with a seed drawn from the same stream, so
``--seed S --frames N`` always replays the same N frames.  Every frame is
checked for:

- health within ``[0, max_health]``;
- no NaN/inf in positions, facings, velocities, poses, limb boxes, limb frames, projectiles;
- both fighters inside the arena bounds (pushbox circle inside ``match.bounds``)
  and out of its obstacles (``match.stage.push_out`` leaves them where they are);
- no interpenetration: centre distance >= ``2 * pushbox_radius - TOL`` when both are grounded;
- every crate's compound (``match.stage.crates[i].compound.validate()``, B9)
  after each change, and the arena's own ``validate()``/``check()`` if it has one.

Prints frames per second; exit 1 with one line naming the seed and frame that
reproduce a violation, exit 2 on bad flags.  The library function
:func:`soak` raises :class:`SoakViolation` instead.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import zlib

from game.tools import EXIT_USAGE, exit_for_missing_package

try:
    import numpy as np

    from game.sim import FrameInput, Match
    from game.sim.fighter import SCALARS
except ModuleNotFoundError as _exc:      # run as a command without the set-up step: one line, exit 2
    exit_for_missing_package(_exc, "soak", __name__ == "__main__")

#: Tolerances of the checks (metres).
TOL = 1e-6
_DECODE = [FrameInput.from_bits(n) for n in range(1 << FrameInput.BITS)]


class SoakViolation(AssertionError):
    """An invariant broke; the message names the seed and frame that reproduce it."""


def _inputs(rng: np.random.Generator, n: int) -> np.ndarray:
    """``(n, 2)`` input bits: sparse random buttons, each side held for random spans."""
    bits = rng.integers(0, 1 << FrameInput.BITS, size=(n, 2)) & rng.integers(0, 1 << FrameInput.BITS, size=(n, 2))
    change = rng.random((n, 2)) < 0.2
    change[0] = True
    idx = np.where(change, np.arange(n)[:, None], 0)
    np.maximum.accumulate(idx, axis=0, out=idx)
    return np.take_along_axis(bits, idx, axis=0)


def check_match(m: Match, seen: dict | None = None) -> str | None:
    """The first broken invariant of ``m`` as text, or None.

    ``seen`` (optional, kept by the caller between frames) remembers each crate
    compound's last validated content, so ``Compound.validate()`` only runs on
    a crate that changed (a strike), not every frame.
    """
    r = m.data.pushbox_radius
    (x0, z0), (x1, z1) = m.bounds
    for f in m.fighters:
        if not 0 <= f.health <= f.max_health:
            return f"P{f.index + 1} health {f.health} outside [0, {f.max_health}]"
        for name, v in zip(SCALARS, f.scalars()):       # every float: position, facing, velocity, ground
            if isinstance(v, float) and not math.isfinite(v):
                return f"P{f.index + 1} {name} is {v}"
        if not (np.isfinite(f.pose).all() and np.isfinite(f.pose_from).all()):
            return f"P{f.index + 1} pose has NaN/inf"
        if not (x0 + r - TOL <= f.x <= x1 - r + TOL and z0 + r - TOL <= f.z <= z1 - r + TOL):
            return f"P{f.index + 1} at ({f.x:.6f}, {f.z:.6f}) outside the arena bounds {m.bounds.tolist()} (radius {r})"
    boxes = np.stack([f.limb_boxes() for f in m.fighters])
    if not np.isfinite(boxes).all():
        return "limb boxes have NaN/inf"
    if (boxes[..., 0, :] > boxes[..., 1, :]).any():
        return "a limb box has min > max"
    for f in m.fighters:
        rot, origin = f.limb_frames()
        if not (np.isfinite(rot).all() and np.isfinite(origin).all()):
            return f"P{f.index + 1} limb frames have NaN/inf"
    a, b = m.fighters
    if not a.airborne and not b.airborne:
        d = math.hypot(b.x - a.x, b.z - a.z)
        if d < 2 * r - TOL:
            return f"fighters interpenetrate: centre distance {d:.6f} < 2 * pushbox radius {2 * r:.6f}"
    stage = getattr(m, "stage", None)
    push_out = getattr(stage, "push_out", None)
    if callable(push_out):                              # not inside a pillar, wall or standing crate
        for f in m.fighters:
            x, z = push_out(f.x, f.z, r)
            if math.hypot(x - f.x, z - f.z) > TOL:
                return (f"P{f.index + 1} at ({f.x:.6f}, {f.z:.6f}) is inside an obstacle "
                        f"(pushed out to ({x:.6f}, {z:.6f}))")
    for k, pr in enumerate(getattr(stage, "projectiles", ()) or ()):
        for name, v in vars(pr).items() if hasattr(pr, "__dict__") else ():
            if isinstance(v, float) and not math.isfinite(v):
                return f"projectile {k} {name} is {v}"
    for i, crate in enumerate(getattr(stage, "crates", ()) or ()):
        comp = getattr(crate, "compound", None)
        validate = getattr(comp, "validate", None)
        if not callable(validate):
            continue
        boxes = np.asarray(getattr(comp, "boxes", ()))
        key = (boxes.shape, zlib.crc32(boxes.tobytes()))
        if seen is not None and seen.get(("crate", i)) == key:
            continue
        try:
            validate()                                  # B9 invariants of the crate's compound
        except Exception as exc:  # any failure of validate() is the violation to report
            name = getattr(getattr(crate, "obj", None), "name", "?")
            return f"crate {i} ({name}) compound invalid: {type(exc).__name__}: {exc}"
        if seen is not None:
            seen[("crate", i)] = key
    arena = getattr(m, "arena", None)
    if arena is not None:
        for name in ("validate", "check"):
            fn = getattr(arena, name, None)
            if callable(fn):
                try:
                    res = fn()
                except Exception as exc:  # the arena's own invariant checks, reported
                    return f"arena.{name}() failed: {type(exc).__name__}: {exc}"
                if res is False or (isinstance(res, str) and res):
                    return f"arena.{name}() reported: {res}"
                break
    return None


def soak(frames: int, seed: int, *, make_match=None, on_frame=None, on_match=None, chunk: int = 4096) -> dict:
    """Run ``frames`` random-input frames over as many matches as needed, checking every frame.

    ``make_match(seed)`` builds each match (default ``Match.new(seed=...)``);
    ``on_frame(global_frame)`` is called after each checked frame, and
    ``on_match(global_frame, match, phase)`` with phase ``"end"`` just before an
    ended match is dropped and ``"start"`` just after a new one is built (memory
    probes).  Returns ``{frames, matches, seconds}``; raises :class:`SoakViolation`.
    """
    make_match = make_match or (lambda s: Match.new(seed=s))
    rng = np.random.default_rng(seed)
    g = 0
    matches = 0
    t0 = time.perf_counter()
    m = None
    block = np.zeros((0, 2), dtype=np.int64)     # inputs for the next frames (one array: no per-frame objects)
    j = 0
    while g < frames:
        if m is None or m.over:
            if m is not None and on_match is not None:
                on_match(g, m, "end")
            m = None
            mseed = int(rng.integers(0, 2**31))
            m = make_match(mseed)
            seen: dict = {}
            if on_match is not None:
                on_match(g, m, "start")
            matches += 1
        if j >= len(block):
            block, j = _inputs(rng, chunk), 0
        b1, b2 = int(block[j, 0]), int(block[j, 1])
        j += 1
        try:
            m.step(_DECODE[b1], _DECODE[b2])
            problem = check_match(m, seen)
        except Exception as exc:  # a crash in step() is a violation, reported with its seed
            problem = f"step raised {type(exc).__name__}: {exc}"
        if problem:
            raise SoakViolation(
                f"soak seed {seed}, frame {g} (match {matches}, match seed {mseed}, match frame {m.frame - 1}): "
                f"{problem}; reproduce: python3 -m game.tools.soak --seed {seed} --frames {g + 1}")
        g += 1
        if on_frame is not None:
            on_frame(g)
    return {"frames": g, "matches": matches, "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            print(f"soak: {message} (see: python3 -m game.tools.soak --help)", file=sys.stderr)
            sys.exit(EXIT_USAGE)

    def count(text):
        try:
            v = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if v < 0:
            raise argparse.ArgumentTypeError(f"expected 0 or more, got {v}")
        return v

    p = Parser(prog="python3 -m game.tools.soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=count, default=1_000_000, help="frames to run (default 1,000,000)")
    p.add_argument("--seed", type=count, default=0, help="input seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    step = max(args.frames // 10, 1)

    def progress(g):
        if not args.quiet and g % step == 0:
            print(f"  {g:>10,} frames", flush=True)
    try:
        out = soak(args.frames, args.seed, on_frame=progress)
    except SoakViolation as exc:
        print(f"soak: VIOLATION {exc}", file=sys.stderr)
        return 1
    fps = out["frames"] / out["seconds"] if out["seconds"] else float("inf")
    matches = f"{out['matches']} match{'' if out['matches'] == 1 else 'es'}"
    print(f"soak: {out['frames']:,} frames in {matches}, seed {args.seed}: ok, "
          f"{fps:,.0f} frames/s ({out['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
