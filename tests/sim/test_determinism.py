"""The same seed and inputs give the same state hash: in one process, and in processes with other
hash seeds and BLAS kernels, over a CPU fight, random inputs and the crate fight."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from clihelp import ROOT
from game.sim import Match

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


DIGEST = r"""
import hashlib
import numpy as np
from game.sim import FrameInput, Match


def digest(crate_fight):
    # sha256 of every frame's state hash: a CPU fight, random inputs against a CPU, and the
    # crate fight (crate_fight: its inputs as bit pairs)
    h = hashlib.sha256()
    m = Match.new(seed=4, p1_cpu="hard", p2_cpu="normal")
    for _ in range(400):
        m.step()
        h.update(m.state_hash().encode())
    rng = np.random.default_rng(11)
    m = Match.new(seed=11, p2_cpu="normal")
    n = 1 << FrameInput.BITS
    bits = rng.integers(0, n, size=(2500, 2)) & rng.integers(0, n, size=(2500, 2))
    for a, b in bits.tolist():
        m.step(FrameInput.from_bits(a), FrameInput.from_bits(b))
        h.update(m.state_hash().encode())
    m = Match.new(seed=0)
    for a, b in crate_fight:
        m.step(FrameInput.from_bits(a), FrameInput.from_bits(b))
        h.update(m.state_hash().encode())
    return h.hexdigest()


if __name__ == "__main__":
    import json
    import sys
    print(digest(json.loads(sys.stdin.read())))
"""


def _digest_in_a_process(bits, **env):
    p = subprocess.run([sys.executable, "-c", DIGEST], input=json.dumps(bits), env=dict(os.environ, **env),
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_B9_hashes_match_across_processes_hash_seeds_blas_kernels_and_this_process(crate_fight_run):
    """Every frame's hash (a CPU fight, random inputs against a CPU, and the crate fight with its
    strikes and break) is the same in processes with other ``PYTHONHASHSEED`` values (str hashing
    differs between them) and other BLAS kernels (what another CPU would get:
    ``OPENBLAS_CORETYPE`` picks it; ignored by other BLAS libraries), and in this process."""
    bits = [(a.bits, b.bits) for a, b in crate_fight_run[0]]
    got = {_digest_in_a_process(bits, PYTHONHASHSEED=str(seed), OPENBLAS_CORETYPE=core)
           for seed, core in ((1, "Haswell"), (4242, "Sandybridge"), (7, "Prescott"))}
    here: dict = {}
    exec(DIGEST, here)                                  # the same code, run here (not as __main__)
    assert got == {here["digest"](bits)}


def test_same_seed_same_hash_different_seed_differs():
    a = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
    b = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
    c = Match.new(seed=4, p1_cpu="hard", p2_cpu="hard")
    for _ in range(600):
        for m in (a, b, c):
            m.step()
    assert a.state_hash() == b.state_hash() != c.state_hash()
