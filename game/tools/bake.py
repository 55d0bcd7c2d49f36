"""``python3 -m game.tools.bake``: bake the arena description into the method-C scene files.

Reads ``assets/arena.scene.json`` (and the ``.obj`` meshes it names), builds the
collision models and the quadtree (C1, C2, C5), and writes
``assets/arena.models.bin`` (C3) and ``assets/arena.quadtree.bin`` (C4) as a
pair: both are written in full first, then both replace the old ones; a failed
write leaves the old pair untouched and no temporary file behind.
Bad flags or input exit with code 2 and one line naming the flag or file, the
field and the fix.
"""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path

from game.files import REGULAR, existing_kind, names_a_folder
from game.tools import EXIT_USAGE, exit_for_missing_package

_PROG = "python3 -m game.tools.bake"

try:
    from game.collision import SceneTooLargeError, save_scene
    from game.sim.arena import (
        DESCRIPTION_NAME,
        MODELS_NAME,
        QUADTREE_NAME,
        ArenaDescriptionError,
        build_arena_scene,
        default_assets_dir,
        read_description,
    )
    from game.sim.fields import AssetError
except ModuleNotFoundError as _exc:      # run as a command without the set-up step: one line, exit 2
    exit_for_missing_package(_exc, "bake", __name__ == "__main__")


class UsageError(Exception):
    """A user-facing problem (bad flag, unreadable description, unwritable output): one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage + message)
        raise UsageError(f"{message} (see: {_PROG} --help)")


def check_out_dir(out_dir: Path, flag: str) -> None:
    """``--out-dir``: a folder or nothing yet (it is created), else :class:`UsageError` naming the flag and fix."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{flag} {out_dir}: is a file, not a folder; give a folder for the two .bin files "
                         "(it is created if missing) or drop --out-dir to write next to the description")
    for name in (MODELS_NAME, QUADTREE_NAME):
        target = out_dir / name
        try:
            kind = existing_kind(target)
        except OSError as exc:          # a symbolic-link loop, a folder on the way it may not enter
            raise UsageError(f"{flag} {out_dir}: {target}: cannot use this path ({exc.strerror or exc}); "
                             "fix it or choose another --out-dir") from None
        if kind not in (None, REGULAR):
            raise UsageError(f"{flag} {out_dir}: {target} is {kind}, not a regular file, so it cannot be "
                             "replaced; remove it or choose another --out-dir")


def bake(description: Path, out_dir: Path) -> tuple[Path, Path, str]:
    """Bake ``description`` into ``out_dir``; returns the two paths and a one-line summary.

    The two files are written as a pair (``save_scene``): on an ``OSError`` the old
    files in ``out_dir`` are as they were and no ``.tmp`` file is left.  The model data
    file carries the digest of the description's baked inputs (``Description.digest``),
    which ``load_arena`` compares with the description's at start.
    """
    desc = read_description(description)
    scene = build_arena_scene(desc)
    out_dir.mkdir(parents=True, exist_ok=True)
    mp, qp = out_dir / MODELS_NAME, out_dir / QUADTREE_NAME
    save_scene(scene, mp, qp, source_digest=desc.digest)
    tris = sum(m.triangle_count for m in scene.models)
    return mp, qp, (f"baked {description}: {len(scene)} models, {tris} triangles, "
                    f"{scene.quadtree.node_count} quadtree nodes -> {mp}, {qp}")


def _write_fix(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some disk space and bake again"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "make the folder writable or choose another --out-dir"
    return "fix that and bake again, or choose another --out-dir"


def main(argv: list[str] | None = None) -> int:
    try:
        parser = _Parser(prog=_PROG, description=__doc__.split("\n")[0])
        parser.add_argument("--description", default=str(default_assets_dir() / DESCRIPTION_NAME),
                            help="arena description JSON (default: assets/arena.scene.json)")
        parser.add_argument("--out-dir", type=Path, default=None,
                            help="where to write the .bin files (default: the description's folder)")
        args = parser.parse_args(argv)
        if args.description == "":
            raise UsageError("--description: empty path; give the description's file name")
        if names_a_folder(args.description):        # Path() would drop the ending and name the file
            raise UsageError(f"--description {args.description}: ends as a folder's name does; give the "
                             "description's file name")
        description = Path(args.description)
        out = args.out_dir if args.out_dir is not None else description.parent
        check_out_dir(out, "--out-dir" if args.out_dir is not None else "--description's folder")
        try:
            _, _, summary = bake(description, out)
        except (ArenaDescriptionError, AssetError) as exc:     # names the file and the fix; add the flag
            raise UsageError(f"--description {exc}") from None
        except SceneTooLargeError as exc:
            raise UsageError(f"--description {description}: {exc}") from None
        except OSError as exc:
            kept = "" if getattr(exc, "partial", False) else "; the old scene files are unchanged"
            raise UsageError(f"{exc.filename or out}: cannot write ({exc.strerror or exc}){kept}; "
                             f"{_write_fix(exc)}") from None
    except UsageError as exc:
        print(f"bake: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
