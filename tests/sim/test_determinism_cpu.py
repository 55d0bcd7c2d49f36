"""The same state on every CPU: CPU-vs-CPU matches by a crate and the crate fight give the same
``state_hash`` sequence in processes whose numpy SIMD targets, or glibc's FMA variants, are
turned off (what another machine would run), and no call on the simulation's path reaches a
kernel picked by CPU feature (``game.sim.trig`` holds the one sine and cosine)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import game.collision
import game.sim
from clihelp import ROOT

SIM = Path(game.sim.__file__).parent
COLLISION = Path(game.collision.__file__).parent

#: (seed, CPU level of both sides): CPU-vs-CPU matches begun on either side of crate_north;
#: these strike it (the test checks that some do)
MATCHES = ((4, "normal"), (5, "hard"), (5, "normal"), (1, "easy"))
FRAMES = 3600

RUN = r"""
import hashlib, json, math, sys
sys.path.insert(0, "tests/helpers")
import numpy as np
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
from game.sim import CrateStruck, FrameInput, Match
from simhelp import place, to_fight


def play(matches, frames, crate_fight):
    # sha256 of every frame's state hash, per match (a blend's rotations differ for a frame or
    # two when a sine does); crate strikes counted
    out, strikes = [], 0
    for seed, level in matches:
        m = Match.new(seed=seed, p1_cpu=level, p2_cpu=level)
        to_fight(m)
        place(m, (0.0, 3.5), (0.0, 6.5))
        h = hashlib.sha256()
        for i in range(frames):
            strikes += sum(isinstance(e, CrateStruck) for e in m.step())
            h.update(m.state_hash().encode())
        out.append(h.hexdigest())
    m, h = Match.new(seed=0), hashlib.sha256()
    for a, b in crate_fight:
        strikes += sum(isinstance(e, CrateStruck) for e in m.step(FrameInput.from_bits(a), FrameInput.from_bits(b)))
        h.update(m.state_hash().encode())
    out.append(h.hexdigest())
    probe = np.linspace(-50.0, 50.0, 5001).tolist()
    return {"hashes": out, "strikes": strikes,
            "on": [t for t in __cpu_dispatch__ if __cpu_features__.get(t)],
            "libm": hashlib.sha256(repr([math.sin(v) for v in probe]).encode()).hexdigest()}


if __name__ == "__main__":
    args = json.loads(sys.stdin.read())
    print(json.dumps(play(args["matches"], args["frames"], args["crate_fight"])))
"""


def _in_a_process(args: dict, **env: str) -> dict:
    p = subprocess.run([sys.executable, "-c", RUN], input=json.dumps(args), env=dict(os.environ, **env),
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.slow
def test_B9_hashes_match_with_numpy_simd_targets_and_libm_fma_variants_turned_off(crate_fight_run):
    """Four CPU-vs-CPU matches of 3,600 frames begun by a crate, and the crate fight (its
    strikes and break), give every frame's hash alike here, in a process with every
    optional numpy dispatch target of this CPU turned off (``NPY_DISABLE_CPU_FEATURES``; numpy
    takes target names only, so the test checks the child reports them off), and in one with
    glibc's AVX2 and FMA variants turned off (checked: libm's ``sin`` changes there)."""
    args = {"matches": MATCHES, "frames": FRAMES, "crate_fight": [(a.bits, b.bits) for a, b in crate_fight_run[0]]}
    here: dict = {}
    exec(RUN, here)                                     # the same code, run here (not as __main__)
    want = here["play"](MATCHES, FRAMES, args["crate_fight"])
    assert want["strikes"] >= 5, "the matches no longer strike crates: pick other seeds"
    runs = 0
    if want["on"]:
        off = _in_a_process(args, NPY_DISABLE_CPU_FEATURES=" ".join(want["on"]))
        assert off["on"] == [], f"NPY_DISABLE_CPU_FEATURES left {off['on']} on"
        assert off["hashes"] == want["hashes"]
        runs += 1
    fma_off = _in_a_process(args, GLIBC_TUNABLES="glibc.cpu.hwcaps=-AVX2,-FMA")
    if fma_off["libm"] != want["libm"]:
        assert fma_off["hashes"] == want["hashes"]
        runs += 1
    if not runs:
        pytest.skip("this CPU has no optional numpy target and glibc no FMA variant to turn off")


#: calls whose result can depend on the CPU or the C library: libm's transcendentals (glibc picks
#: an FMA variant at run time; numpy dispatches its own by SIMD target) and ``pow``
CPU_DEPENDENT = {
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "asinh", "acosh", "atanh", "sinc",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2", "pow",
    "power", "float_power", "cbrt", "erf", "erfc", "gamma", "lgamma", "polyval",
}


def _cpu_dependent(tree: ast.AST) -> list[tuple[str, int]]:
    """(what, line) of every call named in :data:`CPU_DEPENDENT`, every ``np.hypot`` (libm's;
    ``math.hypot`` is CPython's own arithmetic) and every ``**`` but one of two int literals."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else None)
            owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
            if name in CPU_DEPENDENT or (name == "hypot" and owner != "math"):
                out.append((name, node.lineno))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not all(
                isinstance(v, ast.Constant) and type(v.value) is int for v in (node.left, node.right)):
            out.append(("**", node.lineno))
    return out


@pytest.mark.slow
def test_no_cpu_dependent_maths_on_the_simulations_path_outside_trig():
    files = [p for root in (SIM, COLLISION) for p in sorted(root.rglob("*.py")) if p != SIM / "trig.py"]
    assert SIM / "skeleton.py" in files and SIM / "ai" / "moves.py" in files
    found = [f"{p.relative_to(ROOT)}:{line} {what}" for p in files
             for what, line in _cpu_dependent(ast.parse(p.read_text()))]
    assert not found, "CPU-dependent maths on the simulation's path (use game.sim.trig):\n" + "\n".join(found)


def test_the_scan_finds_what_it_looks_for():
    src = ("import math, numpy as np\nx = np.sin(a) + math.cos(b) + np.hypot(a, b) + math.hypot(a, b)\n"
           "y = d ** k + 2 ** 64 + np.power(a, 2)\n")
    assert sorted(w for w, _ in _cpu_dependent(ast.parse(src))) == ["**", "cos", "hypot", "power", "sin"]
