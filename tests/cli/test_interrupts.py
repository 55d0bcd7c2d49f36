"""However a recorded run ends, what was played is saved and the file verifies (issue #33,
points 1 and 2): SIGINT, SIGTERM and SIGHUP at random (seeded) moments of headless recorded
matches, spread over the set-up, the play and the save.

Each run is ``interrupted_child.py`` (``main.py``'s ``main`` with the moments it reaches written
down, and a slow ``fsync`` so the save lasts long enough to be hit).  A calibration run gives
each phase's length; each signal gets 20 moments drawn from a seeded generator, 5 in the
set-up (from the child's start), 10 in the play and 5 in the save (from the child's mark of
its first frame or of the save's start).  Where each one really landed is read from the
child's marks.  Every file saved must decode and verify to its last frame, the exit status must be the
signal's (128 + its number), and the only runs with no file are those signalled before their
first frame (their stderr says so, or the interpreter was not yet in the game's hands).
The counts are printed (``pytest -s``) and written to ``interrupt_counts.json`` in the test's
temp folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

CHILD = Path(__file__).with_name("interrupted_child.py")
MATCH = ["--headless", "--p1", "cpu", "--p2", "cpu", "--level", "hard", "--frames", "900"]
SAVE_DELAY = 0.4
MOMENTS = {"set-up": 3, "play": 5, "save": 5}
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
REASON_WORDS = {signal.SIGINT: "interrupted (SIGINT)", signal.SIGTERM: "stopped by SIGTERM",
                signal.SIGHUP: "the terminal hung up (SIGHUP)"}


def _marks(path: Path) -> dict[str, float]:
    marks: dict[str, float] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            name, t = line.split()
            marks.setdefault(name, float(t))
    return marks


def _start(folder: Path) -> tuple[subprocess.Popen, float]:
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, str(CHILD), str(folder / "marks"), str(SAVE_DELAY), *MATCH,
                          "--record", "c.rpl"], cwd=folder, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    return p, t0


def _phase(marks: dict[str, float], at: float) -> str:
    """Where a signal sent at ``at`` landed, from the child's marks."""
    ready = marks.get("handlers", marks.get("imported"))
    if ready is None or at < ready:
        return "start-up"                  # the interpreter, before the game's handlers
    if "play" not in marks or at < marks["play"]:
        return "set-up"
    if "save" not in marks or at < marks["save"]:
        return "play"
    if "saved" not in marks or at < marks["saved"]:
        return "save"
    return "after the save"


def _wait_for(p: subprocess.Popen, marks: Path, name: str) -> float:
    """The moment the child marks ``name`` (polled), or now if it ended first."""
    while p.poll() is None:
        found = _marks(marks).get(name)
        if found is not None:
            return found
        time.sleep(0.002)
    return time.monotonic()


def _one(folder: Path, sig: signal.Signals, phase: str, after: float) -> dict:
    """Run the child, signal it ``after`` s into ``phase`` (from its start for the set-up, from
    its mark for the play and the save), and judge what it left."""
    from game.replay import ReplayError, load_replay, play_replay

    p, t0 = _start(folder)
    since = t0 if phase == "set-up" else _wait_for(p, folder / "marks", phase)
    time.sleep(max(0.0, since + after - time.monotonic()))
    sent = time.monotonic()
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    marks = _marks(folder / "marks")
    result = {"signal": sig.name, "aimed": phase, "after": round(after, 3), "phase": _phase(marks, sent),
              "status": p.returncode,
              "stderr": err.strip().splitlines()[-1] if err.strip() else ""}
    path = folder / "c.rpl"
    if not path.exists():
        result["file"] = "none"
        return result
    try:
        replay = load_replay(path)
        checked = play_replay(replay)
        result.update(file="verified", frames=replay.frames, checked=checked["frames"])
    except ReplayError as exc:
        result.update(file="broken", error=str(exc))
    return result


def _calibrate(tmp_path: Path) -> dict[str, float]:
    """Phase lengths of an unsignalled run, from its start: the set-up, the play, the save."""
    p, t0 = _start(tmp_path / "calibration")
    _out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    marks = _marks(tmp_path / "calibration" / "marks")
    return {"play": marks["play"] - t0, "save": marks["save"] - t0, "saved": marks["saved"] - t0}


@pytest.mark.slow
def test_signals_at_random_moments_leave_a_replay_that_verifies_or_none(tmp_path, sighup_default):
    cal = _calibrate(tmp_path)
    lengths = {"set-up": cal["play"], "play": cal["save"] - cal["play"], "save": cal["saved"] - cal["save"]}
    rng = np.random.default_rng(33)
    jobs = []
    for sig in SIGNALS:
        for phase, n in MOMENTS.items():
            jobs += [(sig, phase, float(u) * lengths[phase]) for u in rng.uniform(0.0, 1.0, n)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: _one(tmp_path / f"run{job[0]}", *job[1]), enumerate(jobs)))
    (tmp_path / "interrupt_counts.json").write_text(json.dumps(results, indent=1))

    counts = Counter((r["signal"], r["phase"], r["file"]) for r in results)
    print("\nsignal  phase           file      runs")
    for (sig_name, phase, file), n in sorted(counts.items()):
        print(f"{sig_name:7} {phase:15} {file:9} {n}")
    totals = Counter(r["file"] for r in results)
    print(f"total: {len(results)} runs, {totals['verified']} saved and verified, {totals['broken']} broken, "
          f"{totals['none']} no file")

    for r in results:
        sig = signal.Signals[r["signal"]]
        assert r["file"] != "broken", r
        if r["phase"] == "start-up":       # Python's own handling: killed, or KeyboardInterrupt
            assert r["file"] == "none" and r["status"] in (-sig, 1, 128 + sig), r
            continue
        if r["file"] == "verified":
            assert r["checked"] == r["frames"], r
        else:                              # no file: only a run signalled before its first frame
            assert r["phase"] == "set-up", r
        if r["phase"] == "after the save":  # ending anyway: the handlers may be gone (killed by it)
            assert r["status"] in (0, 128 + sig, -sig), r
            continue
        assert r["status"] == 128 + sig, f"{r['status']} {r['stderr']!r} {r}"
        assert r["stderr"].startswith(f"main.py: {REASON_WORDS[sig]}"), r
        if r["file"] == "verified":
            assert f"saved to c.rpl ({r['frames']} frames)" in r["stderr"], r
    landed = Counter(r["phase"] for r in results)
    assert landed["play"] >= 5 and landed["save"] >= 3 and landed["set-up"] + landed["start-up"] >= 3, landed
