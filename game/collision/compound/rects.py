"""Method B, B9: rectangles on a layer's grid, and the re-merge of a struck layer.

After a strike, a layer's boxes are re-decomposed into maximal rows: the face plane is cut
into *bands* between consecutive edge coordinates of the second tangent axis; in each band
the spans of the boxes across it join into maximal *runs* along the first tangent axis; a
run repeated in consecutive bands stacks into one rectangle.  That merges coplanar
neighbours whose union is exactly a box, keeps the shape exact and bounds the count, and
the result depends only on the union's shape and its edge coordinates.

The strike runs on a frame where numpy is cold, and a layer holds a few dozen boxes, so
this is plain Python on floats and ints; the batched numpy forms it is tested against are
in :mod:`game.reference.compound`.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from .layout import TANGENTS

__all__ = ["Run", "CellRect", "BoxRows", "interval_runs", "stack_runs", "merge_layer"]

#: ``(x0, x1)``: a half-open span of cells ``x0 .. x1 - 1`` along the first tangent axis.
Run = tuple[int, int]
#: ``(x0, x1, y0, y1)``: a half-open rectangle of cells.
CellRect = tuple[int, int, int, int]
#: A box as ``[[lo_x, lo_y, lo_z], [hi_x, hi_y, hi_z]]`` lists of floats (``ndarray.tolist()``).
BoxRows = Sequence[Sequence[float]]


def interval_runs(spans: list[Run]) -> list[Run]:
    """The maximal runs ``(x0, x1)`` of a row covered by disjoint cell spans ``(x0, x1)``
    (in any order): the spans sorted, touching ones joined.  Sorts ``spans`` in place."""
    spans.sort()
    runs: list[Run] = []
    for x0, x1 in spans:
        if runs and runs[-1][1] == x0:
            runs[-1] = (runs[-1][0], x1)
        else:
            runs.append((x0, x1))
    return runs


def stack_runs(row_runs: Iterable[list[Run]]) -> list[CellRect]:
    """Rectangles ``(x0, x1, y0, y1)`` from each row's maximal runs (rows in order): a run
    continues the rectangle open in the row above with the same run, or opens one; the
    rectangles not continued close.  Sorted by (y0, x0)."""
    open_: dict[Run, int] = {}      # (x0, x1) -> y0 of the rectangle that run continues
    out: list[CellRect] = []
    y = -1
    for y, runs in enumerate(row_runs):
        now = {run: open_.pop(run, y) for run in runs}
        out += [(x0, x1, y0, y) for (x0, x1), y0 in open_.items()]
        open_ = now
    out += [(x0, x1, y0, y + 1) for (x0, x1), y0 in open_.items()]
    out.sort(key=lambda r: (r[2], r[0]))
    return out


def merge_layer(boxes: Sequence[BoxRows], axis: int) -> np.ndarray:
    """B9 merge of one layer's disjoint boxes, all with the same extent along ``axis``.

    boxes : list of ``[[lo], [hi]]`` lists of floats.
    Returns (m, 2, 3) float: the maximal rows (see the module docstring); each band between
    consecutive edges of the second tangent axis gets the spans of the boxes across it,
    joined into runs, and runs repeated in consecutive bands stack into one box.  Its cost
    follows the boxes, not the cells of their grid.
    """
    if len(boxes) <= 1:
        return np.array(boxes, dtype=float).reshape(-1, 2, 3)
    u, v = TANGENTS[axis]
    xs = sorted({c for lo, hi in boxes for c in (lo[u], hi[u])})
    ys = sorted({c for lo, hi in boxes for c in (lo[v], hi[v])})
    xi = {x: i for i, x in enumerate(xs)}
    yi = {y: i for i, y in enumerate(ys)}
    bands: list[list[Run]] = [[] for _ in range(len(ys) - 1)]
    for lo, hi in boxes:
        span = (xi[lo[u]], xi[hi[u]])
        for band in bands[yi[lo[v]]:yi[hi[v]]]:
            band.append(span)
    a0, a1 = boxes[0][0][axis], boxes[0][1][axis]
    out = []
    for x0, x1, y0, y1 in stack_runs(interval_runs(b) for b in bands):
        lo, hi = [a0, a0, a0], [a1, a1, a1]
        lo[u], hi[u], lo[v], hi[v] = xs[x0], xs[x1], ys[y0], ys[y1]
        out.append((lo, hi))
    return np.array(out, dtype=float).reshape(-1, 2, 3)
