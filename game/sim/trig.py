"""Sine and cosine that give the same bits on every machine: the simulation's only trigonometry.

``np.sin`` / ``np.cos`` (and ``math.sin``, ``**`` on floats, ...) go to code picked at run time
by CPU feature: numpy dispatches its float kernels to SIMD targets (``NPY_DISABLE_CPU_FEATURES``
turns them off), and glibc's libm has an FMA variant of ``sin``, ``cos`` and ``pow``
(``GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA`` turns it off).  Their last bits differ between
the variants, so two machines posing the same fighter got other range boxes and other
``Match.state_hash()`` values, and a replay or a rollback peer diverged.

:func:`sin_cos` uses IEEE basic operations only, each a numpy elementwise ``multiply``, ``add``,
``subtract`` or ``rint`` of its own (correctly rounded on every IEEE machine, in SIMD or not,
never fused into an FMA), in a fixed order: Cody-Waite reduction by pi/2 in three parts (fdlibm's
``__ieee754_rem_pio2`` constants: the first two parts' products with the quadrant are exact),
then fdlibm's minimax polynomials on [-pi/4, pi/4] (``__kernel_sin``, ``__kernel_cos``: under one
ulp there).  The result is within two ulp of glibc's ``sin`` and ``cos`` (one ulp for
``|x| <= 1000``; ``tests/sim/test_trig.py`` compares them) for ``|x| <=`` :data:`MAX_ANGLE`;
joint angles and prism sides are a few radians.

Its three dozen numpy calls cost ten times numpy's ``sin`` and ``cos`` on the 33 angles of one
pose.  :func:`sin_cos_floats`, for the pose blend of a frame, looks its angles up in a table of
the animation tables' angles (:func:`sin_cos_table`, made at load: most of a blend's angles are
a table's, where the two poses agree) and computes another with :func:`sin_cos_float`, the same
operations on Python floats (each a bytecode of its own, so never fused either).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

#: the largest ``|x|`` the reduction is accurate for (the quadrant ``n`` stays under 2**20, so
#: ``n * PIO2_1`` and ``n * PIO2_2`` are exact); radians
MAX_ANGLE = float(2 ** 19) * np.pi

#: 2/pi, rounded
INV_PIO2 = 6.36619772367581382433e-01
#: pi/2 in three parts: the first 33 bits, the next 33, and the rest rounded (fdlibm)
PIO2_1 = 1.57079632673412561417e+00
PIO2_2 = 6.07710050630396597660e-11
PIO2_2T = 2.02226624879595063154e-21

#: ``sin r ~ r + r z (S1 + z (S2 + ... + z S6))``, ``z = r*r`` (fdlibm ``__kernel_sin``), and
#: ``cos r ~ 1 - z/2 + z z (C1 + z (C2 + ... + z C6))`` (``__kernel_cos``): row 0 sine, row 1
#: cosine, column k the coefficient of z**k in the bracket; (2, 6) float
_COEF = np.array([
    [-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
     2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10],
    [4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
     -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11],
])
_COLS = tuple(np.ascontiguousarray(_COEF[:, k:k + 1]) for k in range(6))   # (2, 1) each

#: quadrant ``n & 3`` -> (row of [sin r, cos r] that is sin x, its sign, row that is cos x, its sign)
_SIN_ROW = np.array([0, 1, 0, 1])
_SIN_SIGN = np.array([1.0, 1.0, -1.0, -1.0])
_COS_ROW = np.array([1, 0, 1, 0])
_COS_SIGN = np.array([1.0, -1.0, -1.0, 1.0])


def sin_cos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sin x, cos x)`` of float64 angles ``x`` (any shape, radians, ``|x| <=`` :data:`MAX_ANGLE`),
    two new float64 arrays of ``x``'s shape, the same bits on every machine.  ``sin(-0.0)`` is
    ``-0.0``, as in C."""
    shape = np.shape(x)
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    n = np.rint(x * INV_PIO2)                    # the nearest multiple of pi/2
    n += 0.0                                     # -0.0 -> 0.0: x - 0.0 keeps x's signed zero
    r = x - n * PIO2_1                           # exact (Sterbenz): n * PIO2_1 has at most 53 bits
    r -= n * PIO2_2                              # n * PIO2_2 exact; one rounding
    r -= n * PIO2_2T                             # r = x - n pi/2 in [-pi/4, pi/4], within an ulp
    z = r * r
    p = _COLS[5] * z                             # (2, N): both brackets, one Horner pass
    for k in (4, 3, 2, 1):
        p += _COLS[k]
        p *= z
    p += _COLS[0]
    # sin r = r + (r z) p0; cos r = w + (((1 - w) - z/2) + (z z) p1), w = 1 - z/2 (fdlibm's
    # compensated form: the rounding of 1 - z/2 is added back)
    p[0] *= r * z
    p[0] += r
    hz = z * 0.5
    w = 1.0 - hz
    p[1] *= z * z
    p[1] += (1.0 - w) - hz
    p[1] += w
    np.copysign(p[0], r, out=p[0])               # sin r has r's sign; keeps -0.0 for -0.0
    q = n.astype(np.int64) & 3
    idx = np.arange(x.shape[0])
    s = p[_SIN_ROW[q], idx] * _SIN_SIGN[q]
    c = p[_COS_ROW[q], idx] * _COS_SIGN[q]
    return s.reshape(shape), c.reshape(shape)


def sin_cos_table(angles: Iterable[np.ndarray]) -> dict[float, tuple[float, float]]:
    """``{a: (sin a, cos a)}`` (:func:`sin_cos`'s bits) for every non-zero value ``a`` of the
    float arrays ``angles``: the animation tables' angles, which a pose blend looks up in
    :func:`sin_cos_floats`.  Zeros are left out (a dict holds 0.0 and -0.0 as one key)."""
    vals = np.unique(np.concatenate([np.zeros(0), *(np.ravel(a) for a in angles)]))
    vals = vals[vals != 0.0]
    s, c = sin_cos(vals)
    return dict(zip(vals.tolist(), zip(s.tolist(), c.tolist())))


def sin_cos_floats(values: list[float], known: Mapping[float, tuple[float, float]]) -> list[tuple[float, float]]:
    """``(sin a, cos a)`` of each Python float ``a`` of ``values``, the bits of :func:`sin_cos`.

    A value in ``known`` (:func:`sin_cos_table`'s, never zero) is looked up; another one is
    computed on Python floats (:func:`sin_cos_float`: cheaper than numpy's three dozen calls
    for the few new values of a frame); ``+-0.0`` gives ``(+-0.0, 1.0)``."""
    get = known.get
    return [(get(a) or sin_cos_float(a)) if a else (a, 1.0) for a in values]


_WHOLE = float(2 ** 52)
S1, S2, S3, S4, S5, S6 = _COEF[0].tolist()
C1, C2, C3, C4, C5, C6 = _COEF[1].tolist()


def sin_cos_float(x: float) -> tuple[float, float]:
    """:func:`sin_cos` of one Python float, the same operations in the same order on Python
    floats (each rounded on its own, as numpy's ufuncs round them): the same bits.  ``round``
    of a float is round-half-even, as ``np.rint``; a product with a sign of +-1.0 there is exact,
    the value itself or its negation here."""
    t = x * INV_PIO2
    if -0.5 < t < 0.5:                  # n = 0: x - 0.0 * PIO2_1 - ... is x itself, quadrant 0
        r, q = x, 0
    else:
        n = float(round(t)) + 0.0 if -_WHOLE < t < _WHOLE else t   # beyond 2**52 t is whole (inf, NaN stay)
        r = x - n * PIO2_1
        r = r - n * PIO2_2
        r = r - n * PIO2_2T
        q = int(n) & 3 if -math.inf < n < math.inf else 0
    z = r * r
    s = (((((((((S6 * z + S5) * z) + S4) * z + S3) * z) + S2) * z) + S1) * (r * z)) + r
    hz = z * 0.5
    w = 1.0 - hz
    c = ((((((((((C6 * z + C5) * z) + C4) * z + C3) * z) + C2) * z) + C1) * (z * z)) + ((1.0 - w) - hz)) + w
    s = math.copysign(s, r)
    if q == 0:
        return s, c
    if q == 1:
        return c, -s
    if q == 2:
        return -s, -c
    return -c, s
