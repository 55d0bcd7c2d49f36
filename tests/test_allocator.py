"""The game process keeps freed memory for numpy's next large temporary (game/allocator.py):
a batched C7 / C8 cast over 10,000 rays does not page-fault its temporaries in, and main.py
and the benchmark harness set it.  Counted in page faults (``ru_minflt``), not time."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


_CHILD = """
import json, resource, sys
if sys.argv[1] == "tuned":
    from game.allocator import keep_freed_memory
    assert keep_freed_memory()
from game.bench.scene import MAX_DISTANCE, make_bench_models, make_rays
from game.collision import Scene
scene = Scene.build(make_bench_models())
o, d = make_rays(10_000)
first = scene.cast_nearest_many(o, d, MAX_DISTANCE)
counts, same = [], True
for _ in range(3):   # the fewest of 3: the kernel's own work (compaction after a big install) can fault a page too
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    again = scene.cast_nearest_many(o, d, MAX_DISTANCE)
    counts.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    same = same and first.distance.tolist() == again.distance.tolist()
print(json.dumps([min(counts), same, first.distance[:50].tolist()]))
"""


def _child(mode: str):
    out = subprocess.run([sys.executable, "-c", _CHILD, mode], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_C7_batched_cast_reuses_freed_memory_instead_of_page_faulting():
    """A repeat cast of 10,000 rays over the benchmark's 200-model scene: with glibc's
    defaults its temporaries are fresh mmaps (~50,000 page faults on the kernels of
    2026-11, ~5,300 on the 6.18 kernel of 2026-12-02); with the game's setting they are
    the first cast's freed pages (0 faults).  The fewest of three repeats is compared, since
    once, right after CI's pip install, a tuned cast took 387 faults that were not its own.
    The answers are the same either way."""
    plain_faults, plain_same, plain_d = _child("plain")
    tuned_faults, tuned_same, tuned_d = _child("tuned")
    assert plain_same and tuned_same and plain_d == tuned_d
    if plain_faults < 2000:
        pytest.skip(f"this glibc does not page-fault the cast's temporaries ({plain_faults} faults): nothing to show")
    assert tuned_faults * 20 < plain_faults, (tuned_faults, plain_faults)


def test_keep_freed_memory_rejects_a_bad_limit():
    from game.allocator import keep_freed_memory

    for bad in (0, -1, 1 << 40, 2.5):
        with pytest.raises(ValueError, match="limit"):
            keep_freed_memory(bad)


@pytest.mark.slow
@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_main_and_the_benchmark_harness_set_the_allocator():
    """``main.py`` (any mode, here a headless match) and ``python -m game.bench`` set it
    before their work; the library itself does not (importing game.sim leaves it off)."""
    code = ("import game.sim, game.collision, game.allocator as a; off = a.active(); import main; "
            "rc = main.main(['--headless', '--frames', '2']); print(off, rc, a.active())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=True).stdout.split()[-3:]
    assert out == ["False", "0", "True"]
    # the harness with no sections to run: its header, after the setting
    code = "import game.bench.__main__ as b, game.allocator as a; b.SECTIONS.clear(); print(b.main([]), a.active())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=True).stdout
    assert "allocator keeps freed memory (game/allocator.py): yes" in out.splitlines()[0]
    assert out.split()[-2:] == ["0", "True"]
