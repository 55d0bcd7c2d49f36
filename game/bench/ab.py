"""``python3 -m game.bench.ab REV [--seeds N] [--chunks N] [--replayed]``: Match.step of the
working tree against the code of git revision ``REV``, in one process.

This VM's speed drifts within minutes, so two benchmark runs (even at
the same time, one per core) differ by more than most changes gain.  Here both
versions run in the same process: ``REV``'s tree is extracted to a temporary
folder with its ``game`` package renamed, the same CPU-vs-CPU match (same seed)
is built from each, and they step alternately in chunks of 100 frames.  Each pair
of adjacent chunks gives one ratio; the median ratio is the figure.  ``--replayed`` steps
two-player matches instead, both given the inputs the working tree's CPU match played (what a
server re-simulating online matches steps).  Exit code 2 when ``REV`` is not a revision of
this repository.
"""

from __future__ import annotations

import argparse
import importlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_IMPORT = re.compile(r"^(\s*)(from|import)\s+game\b", re.M)


def extract(rev: str, dest: Path, package: str) -> None:
    """``rev``'s tree in ``dest``, its ``game`` package renamed ``package`` (imports rewritten)."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True)
    if tar.returncode:
        raise SystemExit(f"python3 -m game.bench.ab: REV: {rev!r} is not a git revision here "
                         f"({tar.stderr.decode(errors='replace').strip()})")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=tar.stdout, check=True)
    (dest / "game").rename(dest / package)
    for py in (dest / package).rglob("*.py"):
        text = py.read_text()
        py.write_text(_IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)} {package}", text))


def _fighting(mod, seed: int, cpu: bool):
    """``mod``'s match ``seed`` at its first fight frame: CPU hard against CPU normal, or two players."""
    m = mod.Match.new(seed=seed, p1_cpu="hard" if cpu else None, p2_cpu="normal" if cpu else None)
    while m.phase != "fight":
        m.step()
    return m


def _recorded(new_sim, seed: int, steps: int) -> list[tuple[int, int]]:
    """The input bits both sides of the CPU match ``seed`` (working tree) play in ``steps`` steps."""
    m = _fighting(new_sim, seed, cpu=True)
    out = []
    for _ in range(steps):
        m.step()
        out.append((m.last_inputs[0].bits, m.last_inputs[1].bits))
    return out


def _chunk_us(m, given: list, frames: int) -> float:
    """µs per step of ``frames`` steps of ``m``: with the inputs ``given``, or none (CPU sides)."""
    t0 = time.perf_counter()
    if given:
        for p1, p2 in given:
            m.step(p1, p2)
    else:
        for _ in range(frames):
            m.step()
    return (time.perf_counter() - t0) / frames * 1e6


def compare(old_sim, new_sim, seeds: int, chunks: int, frames: int = 100, replayed: bool = False) -> dict:
    """µs per step of both versions and the per-pair ratios new / old.  ``replayed``: two-player
    matches given the inputs the working tree's CPU match played (a server re-simulating an
    online match), not CPU matches."""
    t_old, t_new, ratios, same_hash = [], [], [], True
    for seed in range(seeds):
        pair = (_fighting(old_sim, seed, not replayed), _fighting(new_sim, seed, not replayed))
        bits = _recorded(new_sim, seed, chunks * frames) if replayed else []
        for c in range(chunks):
            took = [0.0, 0.0]
            for which in ((0, 1) if c % 2 == 0 else (1, 0)):      # alternate who goes first
                decode = (old_sim, new_sim)[which].FrameInput.from_bits
                given = [(decode(a), decode(b)) for a, b in bits[c * frames:(c + 1) * frames]]
                took[which] = _chunk_us(pair[which], given, frames)
            t_old.append(took[0])
            t_new.append(took[1])
            ratios.append(took[1] / took[0])
        same_hash &= pair[0].state_hash() == pair[1].state_hash()
    return {"old": t_old, "new": t_new, "ratio": ratios, "same_hash": same_hash}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m game.bench.ab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", help="git revision to compare the working tree against, e.g. HEAD~1")
    parser.add_argument("--seeds", type=int, default=6, help="matches per version (default 6)")
    parser.add_argument("--chunks", type=int, default=20, help="100-step chunks per match (default 20)")
    parser.add_argument("--replayed", action="store_true",
                        help="two-player matches given the inputs the working tree's CPU match plays (a server's "
                             "re-simulation), not CPU matches")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.chunks < 1:
        parser.error("--seeds and --chunks: must be >= 1")
    with tempfile.TemporaryDirectory(prefix="rangebox-ab-") as tmp:
        try:
            extract(args.rev, Path(tmp), "game_at_rev")
        except SystemExit as exc:
            print(exc, file=sys.stderr)
            return 2
        sys.path.insert(0, tmp)
        old_sim = importlib.import_module("game_at_rev.sim")
        new_sim = importlib.import_module("game.sim")
        r = compare(old_sim, new_sim, args.seeds, args.chunks, replayed=args.replayed)
    q = statistics.quantiles(r["ratio"], n=4)
    kind = "replayed inputs, no CPU side" if args.replayed else "CPU vs CPU"
    print(f"  Match.step, {kind}: {args.rev} {statistics.median(r['old']):.1f} us, working tree "
          f"{statistics.median(r['new']):.1f} us (medians of {len(r['ratio'])} chunks of 100 steps)")
    print(f"  ratio working tree / {args.rev}: median {statistics.median(r['ratio']):.3f}, "
          f"quartiles {q[0]:.3f} - {q[2]:.3f}; same state_hash at the end: {r['same_hash']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
