"""``python -m game.tools.bake``: bake the arena description into the method-C scene files.

Reads ``assets/arena.scene.json`` (and the ``.obj`` meshes it names), builds the
collision models and the quadtree (C1, C2, C5), and writes
``assets/arena.models.bin`` (C3) and ``assets/arena.quadtree.bin`` (C4).
Bad input exits with code 2 and one line naming the file and field.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from game.collision import save_scene
from game.sim.arena import (
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    ArenaDescriptionError,
    build_arena_scene,
    default_assets_dir,
    read_description,
)


def bake(description: Path, out_dir: Path) -> tuple[Path, Path, str]:
    """Bake ``description`` into ``out_dir``; returns the two paths and a one-line summary."""
    desc = read_description(description)
    scene = build_arena_scene(desc)
    out_dir.mkdir(parents=True, exist_ok=True)
    mp, qp = out_dir / MODELS_NAME, out_dir / QUADTREE_NAME
    save_scene(scene, mp, qp)
    tris = sum(m.triangle_count for m in scene.models)
    return mp, qp, (f"baked {description}: {len(scene)} models, {tris} triangles, "
                    f"{scene.quadtree.node_count} quadtree nodes -> {mp}, {qp}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m game.tools.bake", description=__doc__.split("\n")[0])
    parser.add_argument("--description", type=Path, default=default_assets_dir() / DESCRIPTION_NAME,
                        help="arena description JSON (default: assets/arena.scene.json)")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="where to write the .bin files (default: the description's folder)")
    args = parser.parse_args(argv)
    out = args.out_dir if args.out_dir is not None else args.description.parent
    try:
        _, _, summary = bake(args.description, out)
    except ArenaDescriptionError as exc:
        print(f"bake: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"bake: error: {exc.filename or out}: cannot write ({exc.strerror or exc})", file=sys.stderr)
        return 2
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
