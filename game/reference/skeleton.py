"""Reference oracles for forward kinematics (``game.sim.skeleton``, A6): plain Python
products, one limb and one corner at a time, each sum in index order."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from game.sim.skeleton import Skeleton

Matrix = list[list[float]]


def mat_mul(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> Matrix:
    """``a @ b`` on Python floats, each sum in index order (no BLAS, no FMA)."""
    n, k, p = len(a), len(b), len(b[0])
    out = []
    for i in range(n):
        row = []
        for j in range(p):
            s = a[i][0] * b[0][j]
            for q in range(1, k):
                s = s + a[i][q] * b[q][j]
            row.append(s)
        out.append(row)
    return out


def euler_matrix(ax: float, ay: float, az: float) -> Matrix:
    """``Ry(ay) @ Rz(az) @ Rx(ax)``, written as three plain 3x3 rotations and two products."""
    def mul(a: Matrix, b: Matrix) -> Matrix:
        return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    rx: Matrix = [[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]]
    ry: Matrix = [[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]]
    rz: Matrix = [[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]]
    return mul(ry, mul(rz, rx))


def range_boxes(sk: Skeleton, ground: Sequence[float], facing: Sequence[float], angles: np.ndarray,
                lift: float) -> np.ndarray:
    """One fighter's limb range boxes ``(L, 2, 3)`` (A6), one limb at a time: world corners
    of each limb's solid, their per-axis min and max, then the body set down so that its
    lowest corner is ``lift`` above ``ground`` (x, floor height, z), facing ``facing`` (x, z);
    ``angles`` ``(L, 3)`` joint angles in radians."""
    fx, fz = facing
    root: Matrix = [[fx, 0, -fz], [0, 1, 0], [fz, 0, fx]]
    rots: list[Matrix] = []
    origins: list[list[float]] = []
    for limb, p in enumerate(sk.parent):
        local = euler_matrix(*angles[limb])
        prot = root if p < 0 else rots[p]
        porg = [0.0, 0.0, 0.0] if p < 0 else origins[p]
        rots.append([[sum(prot[i][k] * local[k][j] for k in range(3)) for j in range(3)] for i in range(3)])
        origins.append([porg[i] + sum(prot[i][k] * sk.joint[limb][k] for k in range(3)) for i in range(3)])
    boxes = []
    for limb in range(len(sk.parent)):
        pts = [[origins[limb][i] + sum(rots[limb][i][k] * c[k] for k in range(3)) for i in range(3)]
               for c in sk.corners[limb]]
        boxes.append([[min(p[i] for p in pts) for i in range(3)], [max(p[i] for p in pts) for i in range(3)]])
    low = min(b[0][1] for b in boxes)
    shift = [ground[0], ground[1] + lift - low, ground[2]]
    return np.array([[[b[0][i] + shift[i] for i in range(3)], [b[1][i] + shift[i] for i in range(3)]] for b in boxes])
