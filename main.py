#!/usr/bin/env python3
"""Rangebox entry point: the only place where clock, window, simulation and renderer meet.

    python main.py                                   play (P1 keyboard vs CPU) in a window
    python main.py --p2 human                        two players on one keyboard
    python main.py --p1 cpu --p2 cpu                 attract mode
    python main.py --headless --frames N --seed S    no window, no GL: prints one JSON line

Bad flags or values exit with status 2 and one line that names them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

EXIT_USAGE = 2


class UsageError(Exception):
    """A user-facing problem (bad flag, file, display): one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage + message)
        raise UsageError(f"{message} (see: python main.py --help)")


def _positive_int(name: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{name} must be 0 or more, got {value}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python main.py", description="Rangebox: a 3D fighting-game demo.")
    p.add_argument("--p1", choices=("human", "cpu"), default="human", help="who controls player 1 (default human)")
    p.add_argument("--p2", choices=("human", "cpu"), default="cpu", help="who controls player 2 (default cpu)")
    p.add_argument("--level", choices=("easy", "normal", "hard"), default="normal", help="CPU difficulty")
    p.add_argument("--seed", type=_positive_int("--seed"), default=0, help="match seed (default 0)")
    p.add_argument("--frames", type=_positive_int("--frames"), default=None,
                   help="headless: frames to run (default: until the match is over); "
                        "with --screenshot: the frame to capture")
    p.add_argument("--headless", action="store_true", help="run the simulation with no window and no GL")
    return p


def run_headless(args) -> dict:
    """Step a match with no window; the human sides send neutral input."""
    from game.sim import FrameInput, Hit, Match

    level = args.level
    match = Match.new(seed=args.seed, p1_cpu=level if args.p1 == "cpu" else None,
                      p2_cpu=level if args.p2 == "cpu" else None)
    limit = args.frames if args.frames is not None else 10**7
    neutral = FrameInput()
    hits = 0
    t0 = time.perf_counter()
    while match.frame < limit and not match.over:
        for ev in match.step(neutral, neutral):
            if isinstance(ev, Hit):
                hits += 1
    elapsed = time.perf_counter() - t0
    return {
        "frames": match.frame,
        "hits": hits,
        "winner": None if match.winner is None else match.winner + 1,
        "rounds": [f.wins for f in match.fighters],
        "state_hash": match.state_hash(),
        "sim_us_per_frame": round(elapsed / max(match.frame, 1) * 1e6, 1),
    }


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.headless:
            print(json.dumps(run_headless(args)))
            return 0
        raise UsageError("the windowed game is not built yet; use --headless")
    except UsageError as exc:
        print(f"main.py: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
