"""The simulation's sine and cosine (``game.sim.trig``): within two ulp of the C library's over
the whole domain, signed zeros as in C, the Python-float path and the tables' looked-up values
bit for bit the array path's, and the same bits in processes whose numpy SIMD targets and libm FMA variants are
turned off."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from clihelp import ROOT
from game.sim.data import load_game_data
from game.sim.trig import MAX_ANGLE, sin_cos, sin_cos_float, sin_cos_floats, sin_cos_table


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many doubles lie between ``a`` and ``b`` (0 for the same value; +0.0 and -0.0 are one)."""
    ia, ib = (np.asarray(v, dtype=np.float64).view(np.int64) for v in (a, b))
    ia, ib = (np.where(i < 0, np.int64(-2 ** 63) - i, i) for i in (ia, ib))
    return np.abs(ia - ib)


angles = st.floats(min_value=-MAX_ANGLE, max_value=MAX_ANGLE, allow_nan=False)


@pytest.mark.slow
@given(st.lists(angles, min_size=1, max_size=40))
@example([math.pi / 4, -math.pi / 4, math.pi / 2, math.pi, 3 * math.pi / 4, 2 * math.pi, 1e-300, 5e-324])
@example([MAX_ANGLE, -MAX_ANGLE, 1e5 * math.pi, 710.0, 0.78539816339744839])
def test_sin_cos_within_two_ulp_of_the_c_library(xs):
    s, c = sin_cos(np.array(xs))
    assert ulps(s, [math.sin(x) for x in xs]).max() <= 2
    assert ulps(c, [math.cos(x) for x in xs]).max() <= 2


def test_sin_cos_of_small_angles_is_within_one_ulp_and_keeps_the_shape():
    x = np.random.default_rng(5).uniform(-8.0, 8.0, (200, 11, 3))      # joint angles and more
    s, c = sin_cos(x)
    assert s.shape == c.shape == x.shape and s.dtype == c.dtype == np.float64
    flat = x.ravel().tolist()
    assert ulps(s.ravel(), [math.sin(v) for v in flat]).max() <= 1
    assert ulps(c.ravel(), [math.cos(v) for v in flat]).max() <= 1


def test_signed_zeros_as_in_c():
    s, c = sin_cos(np.array([0.0, -0.0]))
    assert np.signbit(s).tolist() == [False, True] and c.tolist() == [1.0, 1.0]
    assert [(math.copysign(1.0, a), b) for a, b in sin_cos_floats([0.0, -0.0], {})] == [(1.0, 1.0), (-1.0, 1.0)]


@pytest.mark.slow
@given(st.lists(st.one_of(angles, st.sampled_from([0.0, -0.0, 0.5])), min_size=1, max_size=40))
def test_per_value_path_has_the_array_paths_bits_known_or_not(xs):
    s, c = sin_cos(np.array(xs))
    want = [(a.hex(), b.hex()) for a, b in zip(s.tolist(), c.tolist())]
    computed = [(a.hex(), b.hex()) for a, b in sin_cos_floats(xs, {})]
    known = sin_cos_table([np.array(xs)])
    looked_up = [(a.hex(), b.hex()) for a, b in sin_cos_floats(xs, known)]
    assert computed == want and looked_up == want
    assert 0.0 not in known and len(known) == len({x for x in xs if x})


def test_one_float_has_the_array_paths_bits():
    """``sin_cos_float`` (a blend's angles that no table holds) against ``sin_cos`` bit for bit:
    angles it takes without a reduction (``|x| < pi/4``), small angles, the whole domain, signed
    zeros, subnormals and multiples of pi/4."""
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-0.8, 0.8, 2000), rng.uniform(-10.0, 10.0, 3000),
                        rng.uniform(-MAX_ANGLE, MAX_ANGLE, 3000),
                        np.arange(-16, 17) * (math.pi / 4), [0.0, -0.0, 5e-324, -5e-324, MAX_ANGLE]])
    s, c = sin_cos(x)
    got = np.array([sin_cos_float(v) for v in x.tolist()])
    assert np.array_equal(got[:, 0].view(np.int64), s.view(np.int64))
    assert np.array_equal(got[:, 1].view(np.int64), c.view(np.int64))


def test_game_data_knows_every_angle_of_its_tables():
    """``GameData.table_sin_cos``: each non-zero angle of the poses, loops, moves, knockdown and
    thrown tables, with ``sin_cos``'s bits (a pose blend looks its angles up there)."""
    d = load_game_data()
    tables = [*d.poses.values(), *d.loops.values(), *(m.angles for m in d.moves.values()), d.knockdown, d.thrown]
    angles = {a for t in tables for a in np.ravel(t).tolist() if a}
    assert set(d.table_sin_cos) == angles and len(angles) > 100
    keys = np.array(sorted(angles))
    s, c = sin_cos(keys)
    assert [d.table_sin_cos[a] for a in keys.tolist()] == list(zip(s.tolist(), c.tolist()))


PROBE = r"""
import hashlib, json, math
import numpy as np
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
from game.sim.trig import sin_cos
x = np.random.default_rng(1).uniform(-50.0, 50.0, 20000)
s, c = sin_cos(x)
print(json.dumps({
    "ours": hashlib.sha256(s.tobytes() + c.tobytes()).hexdigest(),
    "libm": hashlib.sha256(np.array([math.sin(v) for v in x.tolist()]).tobytes()).hexdigest(),
    "on": [t for t in __cpu_dispatch__ if __cpu_features__.get(t)],
}))
"""


def probe(**env: str) -> dict:
    """The probe run in a child process with ``env`` added."""
    p = subprocess.run([sys.executable, "-c", PROBE], env=dict(os.environ, **env), cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.slow
def test_sin_cos_bits_do_not_depend_on_numpy_simd_targets():
    """The same bits with every optional numpy dispatch target this CPU has turned off (checked:
    the child reports them off)."""
    here = probe()
    if not here["on"]:
        pytest.skip("this CPU runs no optional numpy dispatch target: nothing to turn off")
    off = probe(NPY_DISABLE_CPU_FEATURES=" ".join(here["on"]))
    assert off["on"] == [], f"NPY_DISABLE_CPU_FEATURES left {off['on']} on"
    assert off["ours"] == here["ours"]


@pytest.mark.slow
def test_sin_cos_bits_do_not_depend_on_the_c_librarys_fma_variants():
    """The same bits with glibc's AVX2 and FMA variants turned off, which changes the C
    library's own ``sin`` on this CPU (checked: else the comparison would prove nothing)."""
    here = probe()
    off = probe(GLIBC_TUNABLES="glibc.cpu.hwcaps=-AVX2,-FMA")
    if off["libm"] == here["libm"]:
        pytest.skip("glibc picks no FMA variant of sin on this CPU: nothing to compare")
    assert off["ours"] == here["ours"]
