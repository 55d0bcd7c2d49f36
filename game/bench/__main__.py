"""``python3 -m game.bench [section ...] [--quick]``: print benchmark figures.

With no section every available one runs.  Exit code 2 on an unknown section.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys

from game.allocator import keep_freed_memory
from game.render.boot import RenderUnavailable

from . import SECTIONS
from .common import machine_gauge_us


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m game.bench", description=__doc__)
    parser.add_argument("sections", nargs="*", help=f"any of: {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (smoke run, figures are noisier)")
    args = parser.parse_args(argv)
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    chosen = args.sections or list(SECTIONS)
    tuned = keep_freed_memory()      # as main.py does: the figures are the game process's
    print(f"# python {platform.python_version()} on {platform.machine()}, {platform.processor() or 'cpu'}; "
          f"machine gauge sum(range(1000)) = {machine_gauge_us():.1f} us; "
          f"allocator keeps freed memory (game/allocator.py): {'yes' if tuned else 'no'}")
    for name in chosen:
        try:
            mod = importlib.import_module(f"game.bench.{SECTIONS[name]}")
        except ModuleNotFoundError as exc:
            if exc.name == f"game.bench.{SECTIONS[name]}":
                print(f"[{name}] not available yet")
                continue
            raise
        print(f"[{name}]")
        try:
            mod.run(args)
        except RenderUnavailable as exc:                  # no pyglet, no GL, no display: one line
            # (the fix alone: main.py's --headless alternative is no flag of the benchmark)
            print(f"python3 -m game.bench {name}: {exc.fix}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
