"""``python3 -m game.bench.ab REV [--seeds N] [--chunks N]``: Match.step of the working
tree against the code of git revision ``REV``, in one process.

This VM's speed drifts within minutes, so two benchmark runs (even at
the same time, one per core) differ by more than most changes gain.  Here both
versions run in the same process: ``REV``'s tree is extracted to a temporary
folder with its ``game`` package renamed, the same CPU-vs-CPU match (same seed)
is built from each, and they step alternately in chunks of 100 frames.  Each pair
of adjacent chunks gives one ratio; the median ratio is the figure.  Exit code 2
when ``REV`` is not a revision of this repository.
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


def compare(old_sim, new_sim, seeds: int, chunks: int, frames: int = 100) -> dict:
    """µs per step of both versions and the per-pair ratios new / old."""
    t_old, t_new, ratios, same_hash = [], [], [], True

    def fighting(mod, seed):
        m = mod.Match.new(seed=seed, p1_cpu="hard", p2_cpu="normal")
        while m.phase != "fight":
            m.step()
        return m

    for seed in range(seeds):
        pair = (fighting(old_sim, seed), fighting(new_sim, seed))
        for c in range(chunks):
            took = [0.0, 0.0]
            for which in ((0, 1) if c % 2 == 0 else (1, 0)):      # alternate who goes first
                m = pair[which]
                t0 = time.perf_counter()
                for _ in range(frames):
                    m.step()
                took[which] = (time.perf_counter() - t0) / frames * 1e6
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
        r = compare(old_sim, new_sim, args.seeds, args.chunks)
    q = statistics.quantiles(r["ratio"], n=4)
    print(f"  Match.step, CPU vs CPU: {args.rev} {statistics.median(r['old']):.1f} us, working tree "
          f"{statistics.median(r['new']):.1f} us (medians of {len(r['ratio'])} chunks of 100 steps)")
    print(f"  ratio working tree / {args.rev}: median {statistics.median(r['ratio']):.3f}, "
          f"quartiles {q[0]:.3f} - {q[2]:.3f}; same state_hash at the end: {r['same_hash']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
