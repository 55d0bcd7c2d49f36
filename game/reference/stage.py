"""Reference oracles for the stage's crate questions (``game.sim.stage``), by brute force.

Each one tests every small box of every standing crate, one at a time, where the stage
first rejects by x-z rect and then judges a batch (A2-A4, B1, B7, C9).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from game.collision import overlaps
from game.sim.reach import reach_box, tear_box
from game.sim.stage import Stage


def box_blocked(stage: Stage, box: Any, level: int | None) -> tuple[int, list] | None:
    """``Stage.box_blocked`` as a per-box Python loop: A4 (``j2 >= j1`` on every axis) of
    ``box`` ``((x0, y0, z0), (x1, y1, z1))`` against every small box of every standing crate
    whose model level is above ``level`` (C9); the largest overlap volume wins, the first of
    equals in crate then box order.  Returns ``(crate, small box as nested lists)`` or None."""
    best = None
    for i, c in enumerate(stage.crates):
        if c.broken:
            continue
        lv = stage.scene.models[c.obj.model].level
        if level is not None and not lv > level:
            continue
        for b in c.compound.boxes.tolist():
            j1 = [max(box[0][a], b[0][a]) for a in range(3)]
            j2 = [min(box[1][a], b[1][a]) for a in range(3)]
            if all(j2[a] >= j1[a] for a in range(3)):
                vol = (j2[0] - j1[0]) * (j2[1] - j1[1]) * (j2[2] - j1[2])
                if best is None or vol > best[0]:
                    best = (vol, i, b)
    return None if best is None else (best[1], best[2])


def touch(stage: Stage, limbs: np.ndarray, origin: tuple[float, float] | None = None) -> tuple[int, int, int] | None:
    """``Stage.touch`` by brute force: every limb ``(K, 2, 3)`` (or, with the attacker's
    ``origin`` ``(x, z)``, its reach box against each crate, B1, and where none of them touches
    that crate, each limb's tear box where it has one, B3) against every small box of every
    standing crate; the pair of largest overlap volume, the first of equals by limb, crate,
    row.  Returns ``(limb, crate, row)`` or None."""
    best = None
    for ci, c in enumerate(stage.crates):
        if c.broken:
            continue
        comp = c.compound
        bounds = comp.bounds.tolist()
        rows = np.asarray(limbs).tolist()
        judged = [s if origin is None else reach_box(bounds, comp.thickness, s, origin) for s in rows]
        if origin is not None and not any(overlaps(np.array(a), b) for a in judged for b in comp.boxes):
            tears = [tear_box(bounds, comp.thickness, comp.boxes.tolist(), s, origin) for s in rows]
            judged = [a if t is None else t for a, t in zip(judged, tears)]
        for k, s in enumerate(judged):
            a = np.array(s)
            for r, b in enumerate(comp.boxes):
                if overlaps(a, b):
                    vol = float(np.prod(np.maximum(np.minimum(a[1], b[1]) - np.maximum(a[0], b[0]), 0.0)))
                    cand = (-vol, k, ci, r)
                    if best is None or cand < best:
                        best = cand
    return None if best is None else (best[1], best[2], best[3])
