"""``--headless``: a match, or a replay's check, stepped with no window and no GL.

Each prints one JSON line (``main``'s job); these functions return its fields.  The
human sides of a headless match send neutral input, so ``--p1 cpu --p2 cpu`` is the
usual way to watch the simulation work (and the behaviour fingerprint's).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from game.cli.replay_io import load_checked_replay

if TYPE_CHECKING:
    from game.cli.ending import Session
    from game.cli.recording import RecordingRun
    from game.sim import Match

#: ``--frames`` left out: run until the match is over (the longest match is far shorter).
NO_FRAME_LIMIT = 10**7


def make_match(seed: int, p1_cpu: str | None, p2_cpu: str | None, *, arena: bool = True, rounds: int = 3,
               timer: int = 60) -> Match:
    """The match every mode plays (and a replay is played back into, with its arena setting,
    rounds and timer)."""
    from game.sim import Match

    return Match.new(seed=seed, p1_cpu=p1_cpu, p2_cpu=p2_cpu, arena=arena, rounds=rounds, timer=timer)


def run_replay_headless(args: argparse.Namespace) -> dict[str, object]:
    """Check ``--replay FILE`` with no window (only its first ``--frames`` frames if given);
    a divergence raises ReplayMismatch."""
    from game.replay import play_replay

    replay = load_checked_replay(args)

    def make(seed: int, p1: str | None, p2: str | None) -> Match:
        return make_match(seed, p1, p2, arena=replay.arena, rounds=replay.rounds, timer=replay.timer)
    out: dict[str, object] = play_replay(replay, make, frames=args.frames)
    if args.frames is not None:
        out["replay_frames"] = replay.frames
    return out


def run_headless(args: argparse.Namespace, session: Session | None = None) -> dict[str, object]:
    """Step a match with no window; the human sides send neutral input.

    Returns ``{"frames", "hits", "winner", "rounds", "state_hash", "sim_us_per_frame"}``;
    with ``--record`` the replay is saved when the match ends (or at ``--frames``), and
    however else the run ends (a signal, a crash) through ``session``: the frames so far."""
    from game.sim import FrameInput, Hit

    run: RecordingRun | None = None
    if args.record is not None:
        from game.cli.recording import RecordingRun
        run = RecordingRun(args.record, args.force, session=session, keep_empty=True)
    level = args.level
    match = make_match(args.seed, level if args.p1 == "cpu" else None, level if args.p2 == "cpu" else None,
                       rounds=args.rounds, timer=args.timer)
    if run is not None:
        run.begin(match)
    limit = args.frames if args.frames is not None else NO_FRAME_LIMIT
    neutral = FrameInput()
    hits = 0
    t0 = time.perf_counter()
    while match.frame < limit and not match.over:
        for ev in match.step(neutral, neutral):
            if isinstance(ev, Hit):
                hits += 1
        if run is not None:
            run.record(match)                # saves on the match's last frame
    elapsed = time.perf_counter() - t0
    if run is not None:
        run.end()                            # --frames reached first: saved now
    return {
        "frames": match.frame,
        "hits": hits,
        "winner": None if match.winner is None else match.winner + 1,
        "rounds": [f.wins for f in match.fighters],
        "state_hash": match.state_hash(),
        "sim_us_per_frame": round(elapsed / max(match.frame, 1) * 1e6, 1),
    }
