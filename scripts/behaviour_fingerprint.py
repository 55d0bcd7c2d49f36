#!/usr/bin/env python3
"""Fingerprint everything Rangebox's behaviour decides, to compare two revisions.

    python3 scripts/behaviour_fingerprint.py [--root CHECKOUT] [--out FILE]
    python3 scripts/behaviour_fingerprint.py --compare A.json B.json

A restructuring must leave the game's behaviour byte-identical.  This script runs, in the
checkout ``--root`` (default: this one), with only the public API that every revision has:

* matches: CPU vs CPU at every pair of levels over several seeds, a seeded random
  player against each CPU level, and scripted players that walk to each crate and the
  barrel and strike it; the ``state_hash`` of every 20th frame and of the last, and a
  digest of every event (its type and fields, points included);
* rollback: a snapshot taken mid-match, restored after 200 more frames and replayed,
  must give the same hashes (checked here, and the hashes are part of the fingerprint);
* replays: the bytes of the replay each of those matches records;
* the command line: stdout, stderr and exit status of ``main.py`` and the tools for a
  set of ordinary runs and bad flags (the timings, ``sim_us_per_frame`` and the soak's
  frames/s, are dropped), and the bytes the bake writes.

It prints one JSON object (or writes it to ``--out``); ``--compare`` reports every key
whose value differs between two such files and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SEEDS = (0, 1, 2, 7, 42, 2026)
LEVELS = ("easy", "normal", "hard")


def _digest(parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else repr(p).encode())
    return h.hexdigest()


def _event_key(ev) -> tuple:
    import numpy as np

    fields = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(ev).items()} \
        if hasattr(ev, "__dict__") else {k: getattr(ev, k) for k in ev.__dataclass_fields__}
    fields = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in fields.items()}
    return type(ev).__name__, tuple(sorted((k, repr(v)) for k, v in fields.items()))


def _play(match, policy, frames: int, recorder=None) -> dict:
    """Step ``match`` with ``policy(match) -> (p1, p2)`` until it is over or ``frames``."""
    hashes, events, crate_strikes = [], [], 0
    while match.frame < frames and not match.over:
        p1, p2 = policy(match)
        evs = match.step(p1, p2)
        for e in evs:
            events.append(_event_key(e))
            crate_strikes += type(e).__name__ == "CrateStruck"
        if recorder is not None:
            recorder.record(match)
        if match.frame % 20 == 0:
            hashes.append(match.state_hash())
    return {"frames": match.frame, "final": match.state_hash(), "hashes": _digest(hashes),
            "events": _digest(events), "n_events": len(events), "crate_strikes": crate_strikes,
            "winner": match.winner}


def _random_policy(seed: int, side: int):
    from game.sim import FrameInput

    rng = random.Random(seed)
    held = [0]

    def policy(match):
        if rng.random() < 0.3:
            held[0] = rng.randrange(1 << FrameInput.BITS)
        inp = FrameInput.from_bits(held[0])
        return (inp, FrameInput()) if side == 0 else (FrameInput(), inp)
    return policy


def _crate_policy(target, seed: int):
    """At each round's first FIGHT frame P1 is put 1.2 m west of ``target`` (x, z) and P2
    2.5 m east of it, so that P1 faces the crate; then P1 mashes random buttons and
    directions (seeded), leaning forward, and P2 stands still."""
    from game.sim import FrameInput

    rng = random.Random(seed)
    state = {"placed": 0, "bits": 0}

    def policy(match):
        a, b = match.fighters
        if match.phase == "fight" and state["placed"] != match.round:      # each round
            state["placed"] = match.round
            a.x, a.z = target[0] - 1.2, target[1]
            b.x, b.z = target[0] + 2.5, target[1]
        if rng.random() < 0.25:
            bits = rng.randrange(1 << FrameInput.BITS) & ~0b10          # never back
            state["bits"] = bits | (1 if rng.random() < 0.5 else 0)       # forward half the time
        return FrameInput.from_bits(state["bits"]), FrameInput()
    return policy


def sim_fingerprint() -> dict:
    from game.replay import ReplayRecorder
    from game.sim import FrameInput, Match

    out: dict[str, object] = {}
    neutral = (FrameInput(), FrameInput())
    for seed in SEEDS[:4]:
        for l1 in LEVELS:
            for l2 in LEVELS:
                m = Match.new(seed=seed, p1_cpu=l1, p2_cpu=l2)
                rec = ReplayRecorder.for_match(m)
                r = _play(m, lambda _m: neutral, 30000, rec)
                r["replay"] = hashlib.sha256(rec.to_bytes()).hexdigest()
                out[f"cpu/{seed}/{l1}-{l2}"] = r
    for seed in SEEDS:
        for level in LEVELS:
            m = Match.new(seed=seed, p2_cpu=level)
            rec = ReplayRecorder.for_match(m)
            r = _play(m, _random_policy(seed, 0), 30000, rec)
            r["replay"] = hashlib.sha256(rec.to_bytes()).hexdigest()
            out[f"random/{seed}/{level}"] = r
    stage = Match.new(seed=3).stage
    assert stage is not None, "Match.new builds the arena by default"
    crates = [o for o in stage.arena.objects if o.kind in ("crate", "barrel")]
    for o in crates:
        c = o.aabb.mean(axis=0).tolist()
        for seed in (0, 5):
            m = Match.new(seed=seed)
            rec = ReplayRecorder.for_match(m)
            r = _play(m, _crate_policy((c[0], c[2]), seed), 3000, rec)
            r["replay"] = hashlib.sha256(rec.to_bytes()).hexdigest()
            out[f"crate/{o.name}/{seed}"] = r
    # rollback: snapshot at frame 400, 200 frames on, restore, the same 200 frames again
    for seed in SEEDS[:3]:
        m = Match.new(seed=seed, p1_cpu="hard", p2_cpu="normal")
        for _ in range(400):
            m.step()
        snap = m.snapshot()
        first = [m.step() and m.state_hash() or m.state_hash() for _ in range(200)]
        m.restore(snap)
        again = [m.step() and m.state_hash() or m.state_hash() for _ in range(200)]
        if first != again:
            raise SystemExit(f"rollback diverged for seed {seed}")
        out[f"rollback/{seed}"] = _digest(first)
    return out


def _run(root: Path, argv: list[str], env: dict | None = None) -> dict:
    e = dict(os.environ, PYGLET_HEADLESS="1", PYTHONHASHSEED="0")
    e.update(env or {})
    p = subprocess.run([sys.executable, *argv], cwd=root, capture_output=True, text=True, env=e, timeout=600)
    stdout = p.stdout
    lines = []
    for line in stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            lines.append(line)
            continue
        if isinstance(obj, dict):
            obj.pop("sim_us_per_frame", None)
        lines.append(json.dumps(obj, sort_keys=True))
    # the soak's speed and the checkout's own path are not behaviour
    text = _RATE.sub("<rate>", "\n".join(lines)).replace(str(root), "<root>")
    return {"rc": p.returncode, "stdout": text, "stderr": p.stderr.replace(str(root), "<root>")}


_RATE = re.compile(r"[\d,]+ frames/s \([\d.]+ s\)")


CLI_RUNS = [
    ["main.py", "--help"],
    ["main.py", "--headless", "--frames", "900", "--p1", "cpu", "--p2", "cpu"],
    ["main.py", "--headless", "--p1", "cpu", "--p2", "cpu", "--seed", "4", "--level", "hard"],
    ["main.py", "--headless", "--frames", "600", "--seed", "9"],
    ["main.py", "--headless", "--frames", "-1"],
    ["main.py", "--headless", "--frames", "x"],
    ["main.py", "--headless", "--seed", str(2**64)],
    ["main.py", "--headless", "--debug"],
    ["main.py", "--headless", "--training"],
    ["main.py", "--headless", "--screenshot", "a.png"],
    ["main.py", "--replay", ""],
    ["main.py", "--replay", "x.rpl", "--seed", "3"],
    ["main.py", "--record", "r.rpl", "--replay", "x.rpl"],
    ["main.py", "--force"],
    ["main.py", "--level", "hard", "--p1", "human", "--p2", "human", "--headless"],
    ["main.py", "--training", "--record", "r.rpl"],
    ["main.py", "--replay", "/nonexistent/x.rpl", "--headless"],
    ["main.py", "--record", "/nonexistent/dir/x.rpl", "--headless"],
    ["main.py", "--screenshot", "x.txt"],
    ["main.py", "--bogus"],
    ["-m", "game.tools.bake", "--help"],
    ["-m", "game.tools.soak", "--help"],
    ["-m", "game.tools.soak", "--frames", "3000", "--seed", "5", "--quiet"],
    ["-m", "game.tools.soak", "--frames", "-3"],
    ["-m", "game.tools.bake", "--description", "/nonexistent.json"],
]


def cli_fingerprint(root: Path) -> dict:
    out: dict[str, object] = {}
    for argv in CLI_RUNS:
        out["cli/" + " ".join(argv)] = _run(root, argv)
    with tempfile.TemporaryDirectory() as tmp:
        rpl = os.path.join(tmp, "m.rpl")
        r = _run(root, ["main.py", "--headless", "--frames", "1500", "--p1", "cpu", "--p2", "cpu", "--seed", "3",
                        "--record", rpl])
        r["stdout"] = r["stdout"].replace(tmp, "<tmp>")
        r["stderr"] = r["stderr"].replace(tmp, "<tmp>")
        out["cli/record"] = r
        out["cli/record/bytes"] = hashlib.sha256(Path(rpl).read_bytes()).hexdigest()
        r = _run(root, ["main.py", "--headless", "--replay", rpl])
        out["cli/replay"] = r
        r = _run(root, ["main.py", "--headless", "--replay", rpl, "--frames", "700"])
        out["cli/replay/700"] = r
        r = _run(root, ["main.py", "--headless", "--record", rpl, "--frames", "3"])
        r["stderr"] = r["stderr"].replace(tmp, "<tmp>")
        out["cli/record/exists"] = r
        bake = os.path.join(tmp, "bake")
        os.mkdir(bake)
        r = _run(root, ["-m", "game.tools.bake", "--out-dir", bake])
        r["stdout"] = r["stdout"].replace(bake, "<out>")
        r["stderr"] = r["stderr"].replace(bake, "<out>")
        out["cli/bake"] = r
        for name in sorted(os.listdir(bake)):
            out[f"cli/bake/{name}"] = hashlib.sha256(Path(bake, name).read_bytes()).hexdigest()
    return out


def compare(a_path: str, b_path: str) -> int:
    a, b = json.loads(Path(a_path).read_text()), json.loads(Path(b_path).read_text())
    bad = 0
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            bad += 1
            print(f"DIFFERS {key}:\n  {a.get(key)!r}\n  {b.get(key)!r}")
    same = len(set(a) & set(b)) - bad
    print(f"{same} identical, {bad} differ ({len(a)} and {len(b)} keys)")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"))
    ap.add_argument("--only", choices=("sim",), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    root = Path(args.root).resolve()
    if args.only == "sim":                # in the child: import that checkout's game package
        sys.path.insert(0, str(root))
        result = sim_fingerprint()
    else:
        e = dict(os.environ, PYTHONHASHSEED="0")
        p = subprocess.run([sys.executable, __file__, "--root", str(root), "--only", "sim"], cwd=root, env=e,
                           capture_output=True, text=True)
        if p.returncode:
            print(p.stderr, file=sys.stderr)
            return 1
        result = json.loads(p.stdout)
        result.update(cli_fingerprint(root))
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out and args.out != "-":
        Path(args.out).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
