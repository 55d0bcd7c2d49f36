"""The CPU ladder: scripted players against every CPU level, over many seeds, as a table of win rates.

    python3 -m game.tools.ladder [--seeds N] [--first-seed S] [--levels a,b] [--players a,b]
                                 [--versus A:B,...] [--jobs J]

Each cell plays ``--seeds`` matches of one scripted player (:mod:`game.tools.players`) against
one CPU level, seeds ``S .. S+N-1``; the player takes P1 on even seeds and P2 on odd ones (the
arena is not symmetric).  A cell reads ``62% 10/16 (22/40)``: the share and count of matches
the player won, then rounds won of rounds played (a drawn round counts as played, won by
nobody).  ``--versus hard:normal`` adds CPU-against-CPU matches (attract mode) over the same
seeds: who won, how many rounds ended in a K.O. and how many at time over, and the mean health
lead at time over.  Every match is decided by its seed: the table is the same for any
``--jobs`` (processes; default: every core).

Exit 2 with one line on a bad flag.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import NamedTuple

from game.tools import EXIT_USAGE, exit_for_missing_package

try:
    from game.sim import FrameInput, Hit, Match, RoundEnd, TimeOver
    from game.sim.ai import LEVELS
    from game.tools.players import PLAYERS
except ModuleNotFoundError as _exc:      # run as a command without the set-up step: one line, exit 2
    exit_for_missing_package(_exc, "ladder", __name__ == "__main__")

#: Seeds per cell by default: enough that a cell's share moves by a few points, not tens, from
#: one set of seeds to the next.
DEFAULT_SEEDS = 20
NEUTRAL = FrameInput()


class Result(NamedTuple):
    """One match: ``a`` (a player's name, or a CPU level in a versus match) against CPU ``b``."""

    a: str
    b: str
    seed: int
    winner: int            # 0: ``a`` won, 1: ``b`` won, -1: a draw
    rounds: int            # rounds played
    a_rounds: int          # rounds ``a`` won
    b_rounds: int          # rounds ``b`` won
    kos: int               # rounds ended by a K.O.
    time_lead: int         # summed health lead of the round's winner at each time over
    time_overs: int        # rounds ended at time over
    frames: int
    a_damage: int          # health ``a`` took from ``b`` over the match
    b_damage: int          # and ``b`` from ``a``


def play(a: str, b: str, seed: int, versus: bool = False) -> Result:
    """One match of seed ``seed``: scripted player ``a`` (or, ``versus``, CPU level ``a``) against
    CPU level ``b``.  ``a`` takes P1 on an even seed and P2 on an odd one."""
    side = seed % 2
    cpu: list[str | None] = [b, b]
    cpu[side] = a if versus else None
    m = Match.new(seed=seed, p1_cpu=cpu[0], p2_cpu=cpu[1])
    policy = None if versus else PLAYERS[a](seed, side)
    rounds = kos = time_overs = lead = 0
    damage = [0, 0]
    timed = False
    while not m.over:
        if policy is None:
            events = m.step()
        elif side == 0:
            events = m.step(policy(m), NEUTRAL)
        else:
            events = m.step(NEUTRAL, policy(m))
        for e in events:
            if isinstance(e, Hit):
                damage[e.attacker] += 0 if e.blocked else e.damage
            elif isinstance(e, TimeOver):
                timed = True
            elif isinstance(e, RoundEnd):
                rounds += 1
                if timed:
                    time_overs += 1
                    lead += abs(m.fighters[0].health - m.fighters[1].health)
                else:
                    kos += 1
                timed = False
    mine, theirs = m.fighters[side].wins, m.fighters[1 - side].wins
    winner = -1 if m.winner is None else (0 if m.winner == side else 1)
    return Result(a, b, seed, winner, rounds, mine, theirs, kos, lead, time_overs, m.frame, damage[side],
                  damage[1 - side])


def _play(task: tuple[str, str, int, bool]) -> Result:
    return play(*task)


def run(tasks: Sequence[tuple[str, str, int, bool]], jobs: int) -> list[Result]:
    """Play every ``(a, b, seed, versus)`` task, in order, on ``jobs`` processes."""
    if jobs <= 1 or len(tasks) <= 1:
        return [_play(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_play, tasks, chunksize=1))


def ladder_table(results: Iterable[Result], players: Sequence[str], levels: Sequence[str]) -> str:
    """The players-by-levels table of match and round wins."""
    cells: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        cells.setdefault((r.a, r.b), []).append(r)
    width = max(len(p) for p in players)
    texts = {}
    for key, rs in cells.items():
        won = sum(r.winner == 0 for r in rs)
        texts[key] = (f"{100 * won / len(rs):3.0f}% {won}/{len(rs)} "
                      f"({sum(r.a_rounds for r in rs)}/{sum(r.rounds for r in rs)})")
    col = max(len(t) for t in texts.values()) if texts else 10
    lines = ["player".ljust(width) + "".join(f"  {lv:<{col}}" for lv in levels)]
    for p in players:
        lines.append(p.ljust(width) + "".join(f"  {texts.get((p, lv), '-'):<{col}}" for lv in levels))
    return "\n".join(lines)


def versus_table(results: Iterable[Result]) -> str:
    """CPU against CPU: wins each way, draws, K.O.s and time overs, the mean lead at time over."""
    pairs: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        pairs.setdefault((r.a, r.b), []).append(r)
    lines = []
    for (a, b), rs in pairs.items():
        n = len(rs)
        wa, wb = sum(r.winner == 0 for r in rs), sum(r.winner == 1 for r in rs)
        kos, tos = sum(r.kos for r in rs), sum(r.time_overs for r in rs)
        lead = sum(r.time_lead for r in rs) / tos if tos else 0.0
        secs = sum(r.frames for r in rs) / n / 60
        lines.append(f"{a} vs {b}: {a} won {wa}/{n}, {b} {wb}/{n}, drawn {n - wa - wb}; rounds: {kos} K.O., "
                     f"{tos} time over (mean lead {lead:.0f} health); {secs:.0f} s a match")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            print(f"ladder: {message} (see: python3 -m game.tools.ladder --help)", file=sys.stderr)
            sys.exit(EXIT_USAGE)

    def count(low: int):
        def parse(text: str) -> int:
            try:
                v = int(text.replace("_", ""))
            except ValueError:
                raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
            if v < low:
                raise argparse.ArgumentTypeError(f"expected {low} or more, got {v}")
            return v
        return parse

    def names(known: Iterable[str], what: str):
        known = tuple(known)

        def parse(text: str) -> list[str]:
            out = [t.strip() for t in text.split(",") if t.strip()]
            bad = [t for t in out if t not in known]
            if bad or not out:
                raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(map(repr, bad)) or repr(text)}; "
                                                 f"choose from {','.join(known)}")
            return out
        return parse

    def pairs(text: str) -> list[tuple[str, str]]:
        out = []
        for t in (t.strip() for t in text.split(",") if t.strip()):
            a, sep, b = t.partition(":")
            if not sep or a not in LEVELS or b not in LEVELS:
                raise argparse.ArgumentTypeError(f"expected LEVEL:LEVEL pairs such as hard:normal (levels "
                                                 f"{','.join(LEVELS)}), got {t!r}")
            out.append((a, b))
        if not out:
            raise argparse.ArgumentTypeError(f"expected LEVEL:LEVEL pairs such as hard:normal, got {text!r}")
        return out

    p = Parser(prog="python3 -m game.tools.ladder", description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=count(1), default=DEFAULT_SEEDS,
                   help=f"matches per cell (default {DEFAULT_SEEDS})")
    p.add_argument("--first-seed", type=count(0), default=0, help="the first match seed (default 0)")
    p.add_argument("--levels", type=names(LEVELS, "level"), default=list(LEVELS),
                   help=f"CPU levels, comma-separated (default {','.join(LEVELS)})")
    p.add_argument("--players", type=names(PLAYERS, "player"), default=list(PLAYERS),
                   help=f"scripted players, comma-separated (default {','.join(PLAYERS)})")
    p.add_argument("--versus", type=pairs, default=[],
                   help="CPU-against-CPU pairs as well, such as hard:normal,normal:normal")
    p.add_argument("--jobs", type=count(1), default=os.cpu_count() or 1,
                   help="processes to play on (default: every core)")
    args = p.parse_args(argv)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    tasks = [(pl, lv, s, False) for pl in args.players for lv in args.levels for s in seeds]
    tasks += [(a, b, s, True) for a, b in args.versus for s in seeds]
    results = run(tasks, args.jobs)
    print(f"CPU ladder: {args.seeds} match{'es' if args.seeds != 1 else ''} a cell (seeds {seeds.start}-"
          f"{seeds.stop - 1}); the player's matches won (rounds won/played)")
    print(ladder_table([r for r, t in zip(results, tasks) if not t[3]], args.players, args.levels))
    if args.versus:
        print(versus_table([r for r, t in zip(results, tasks) if t[3]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
