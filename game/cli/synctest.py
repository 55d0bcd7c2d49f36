"""``--sync-test N --headless``: a match played with a rollback of N frames on every frame
(``game.net.synctest.SyncTestSession``), each re-simulated state hash compared with the first run's.

The inputs come from the CPU sides (``--p1 cpu --p2 cpu``: the match's own CPUs, whose plans
and RNG are in the state a snapshot carries, so they are rolled back too; a human side is
neutral) or from ``--replay FILE`` (its first ``--frames`` frames).  Returns the JSON line's
fields, or the one line that names the first frame that differs.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from game.cli.headless import NO_FRAME_LIMIT, make_match
from game.cli.replay_io import load_checked_replay

if TYPE_CHECKING:
    import numpy as np


def run_sync_test(args: argparse.Namespace) -> tuple[dict[str, object], str]:
    """Play the sync test; ``({"frames", "check", "compared", "state_hash"}, "")``, or
    ``({}, line)`` naming the first frame whose re-simulated state differs."""
    from game.net.runner import MatchRunner
    from game.net.synctest import SyncTestSession

    inputs: np.ndarray | None = None
    if args.replay is not None:
        replay = load_checked_replay(args)
        match = make_match(replay.seed, replay.cpu[0], replay.cpu[1], arena=replay.arena, rounds=replay.rounds,
                           timer=replay.timer)
        inputs = replay.inputs
        limit = replay.frames if args.frames is None else min(args.frames, replay.frames)
    else:
        level = args.level
        match = make_match(args.seed, level if args.p1 == "cpu" else None, level if args.p2 == "cpu" else None,
                           rounds=args.rounds, timer=args.timer)
        limit = args.frames if args.frames is not None else NO_FRAME_LIMIT
    session = SyncTestSession(args.sync_test)
    runner = MatchRunner(match, session.slots)
    while match.frame < limit and (inputs is not None or not match.over):
        p1, p2 = (int(inputs[match.frame, 0]), int(inputs[match.frame, 1])) if inputs is not None else (0, 0)
        runner.carry_out(session.advance(p1, p2), session.saved)
        if session.mismatch is not None:
            m = session.mismatch
            return {}, (f"sync test: frame {m.frame} differs after a rollback of {session.check} frames "
                        f"(state hash {m.first_hash[:16]}... on the first run, {m.again_hash[:16]}... stepped "
                        f"again): state that a snapshot does not carry, or a step that is not deterministic")
    return {"frames": match.frame, "check": session.check, "compared": session.compared,
            "state_hash": match.state_hash()}, ""
