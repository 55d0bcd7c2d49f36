"""Bad input everywhere: ``python3 main.py ...`` exits 2 with one stderr line naming the problem and the fix.

Every case runs main.py as a subprocess.  Asset and scene cases run a copy of
the program (main.py, game/, shaders/, assets/) in a temporary folder with
the file removed or damaged, so the shared tree is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap

import pytest

from clihelp import NO_PACKAGE_SHIM, ROOT, copy_program, sitecustomize


def run(args, cwd=None, env=None, main=ROOT / "main.py", timeout=120):
    e = dict(os.environ)
    e.pop("DISPLAY", None)
    e["PYGLET_HEADLESS"] = "1"
    if env:
        for k, v in env.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
    return subprocess.run([sys.executable, str(main), *args], cwd=cwd, env=e, capture_output=True, text=True,
                          timeout=timeout, check=False)


def assert_usage_error(p, *words):
    assert p.returncode == 2, f"exit {p.returncode}; stderr: {p.stderr!r}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got: {p.stderr!r}"
    assert "Traceback" not in p.stderr
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"


# ------------------------------------------------------------------ flags and values
@pytest.mark.parametrize("args, words", [
    (["--bogus"], ["--bogus"]),
    (["--headless", "extra"], ["extra"]),
    (["--seed", "abc"], ["--seed", "'abc'"]),
    (["--seed", "-3"], ["--seed", "0 or more"]),
    (["--headless", "--seed", str(2**64)], ["--seed", "2**64 - 1"]),
    (["--frames", "1.5"], ["--frames", "whole number"]),
    (["--p1", "robot"], ["--p1", "robot", "human"]),
    (["--p2", "ghost"], ["--p2", "ghost"]),
    (["--level", "insane"], ["--level", "insane", "hard"]),
    (["--record"], ["--record", "expected one argument"]),
    (["--replay"], ["--replay"]),
    (["--headless", "--force"], ["--force", "--record"]),
    (["--headless", "--record", "a.rpl", "--replay", "b.rpl"], ["--record", "--replay"]),
    (["--headless", "--record", "no/such/dir/a.rpl"], ["--record", "does not exist"]),
    (["--headless", "--record", "."], ["--record", "directory"]),
    (["--screenshot", "shot.jpg"], ["--screenshot", ".png"]),
])
def test_bad_flag_or_value(args, words, tmp_path):
    assert_usage_error(run(args, cwd=tmp_path), *words)


def test_record_never_overwrites_without_force(tmp_path):
    (tmp_path / "mine.rpl").write_bytes(b"precious")
    p = run(["--headless", "--frames", "30", "--record", "mine.rpl"], cwd=tmp_path)
    assert_usage_error(p, "mine.rpl", "--force")
    assert (tmp_path / "mine.rpl").read_bytes() == b"precious"
    q = run(["--headless", "--frames", "30", "--record", "mine.rpl", "--force"], cwd=tmp_path)
    assert q.returncode == 0 and (tmp_path / "mine.rpl").read_bytes()[:4] == b"RBXR"


# ------------------------------------------------------------------ replays
@pytest.fixture(scope="module")
def good_replay(tmp_path_factory):
    d = tmp_path_factory.mktemp("rpl")
    p = run(["--headless", "--p2", "cpu", "--frames", "400", "--record", "good.rpl"], cwd=d)
    assert p.returncode == 0, p.stderr
    return (d / "good.rpl").read_bytes()


def _with_crc(body: bytes) -> bytes:
    import zlib
    return body + struct.pack("<I", zlib.crc32(body))


@pytest.mark.parametrize("make, words", [
    (None, ["nope.rpl", "not found", "--replay"]),
    ("dir", ["is a directory"]),
    (lambda d: b"hello, I am text\n" * 4, ["magic", "byte 0", "not a Rangebox replay"]),
    (lambda d: d[:-7], ["payload_size", "truncated", "record it again"]),
    (lambda d: d[:20], ["header_size", "truncated"]),
    (lambda d: d[:100] + bytes([d[100] ^ 0x10]) + d[101:], ["crc", "corrupted"]),
    (lambda d: d[:4] + struct.pack("<H", 4) + d[6:], ["format_version", "byte 4", "version 4"]),
    (lambda d: _with_crc(d[:8] + b"9.9.9".ljust(16, b"\0") + d[24:-4]), ["game_version", "9.9.9", "record it again"]),
])
def test_bad_replay_file(make, words, good_replay, tmp_path):
    path = tmp_path / "x.rpl"
    if make is None:
        path = tmp_path / "nope.rpl"
    elif make == "dir":
        path.mkdir()
    else:
        path.write_bytes(make(good_replay))
    for extra in (["--headless"], []):          # headless and window mode check the file first
        assert_usage_error(run([*extra, "--replay", path.name], cwd=tmp_path), path.name, *words)


def test_mismatched_replay_names_the_frame(tmp_path):
    sys.path.insert(0, str(ROOT))
    from game.replay import decode, encode
    p = run(["--headless", "--p2", "cpu", "--frames", "400", "--record", "good.rpl"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    r = decode((tmp_path / "good.rpl").read_bytes())
    tags = r.tags.copy()
    tags[222] ^= 0x100
    (tmp_path / "m.rpl").write_bytes(encode(r.seed, r.cpu, r.inputs, tags, r.checkpoints, r.final))
    assert_usage_error(run(["--headless", "--replay", "m.rpl"], cwd=tmp_path), "m.rpl", "frame 222")


# ------------------------------------------------------------------ assets and scene files
@pytest.fixture
def tree(tmp_path):
    """A private copy of the program to damage: (main.py path, assets folder)."""
    return copy_program(tmp_path)


def test_tree_copy_runs(tree):
    main, _ = tree
    p = run(["--headless", "--frames", "5"], main=main, cwd=main.parent)
    assert p.returncode == 0, p.stderr


def test_missing_assets_folder(tree):
    main, assets = tree
    shutil.rmtree(assets)
    # names the first asset file it looked for (the sim's or the arena's) inside the missing folder, and the fix
    assert_usage_error(run(["--headless", "--frames", "5"], main=main), str(assets), "restore")


@pytest.mark.parametrize("name", ["fighters.json", "moves.json"])
def test_missing_asset_file(tree, name):
    main, assets = tree
    (assets / name).unlink()
    assert_usage_error(run(["--headless", "--frames", "5"], main=main), name, "not found")


def test_asset_file_not_json(tree):
    main, assets = tree
    (assets / "moves.json").write_text("{ this is not json")
    assert_usage_error(run(["--headless", "--frames", "5"], main=main), "moves.json", "JSON")


def test_asset_field_missing(tree):
    import json
    main, assets = tree
    doc = json.loads((assets / "fighters.json").read_text())
    del doc["max_health"]
    (assets / "fighters.json").write_text(json.dumps(doc))
    assert_usage_error(run(["--headless", "--frames", "5"], main=main), "max_health")


@pytest.mark.parametrize("damage, words", [
    (lambda p: p.write_bytes(p.read_bytes()[:40]), ["arena.models.bin"]),
    (lambda p: p.write_bytes(b"JUNK" + p.read_bytes()[4:]), ["arena.models.bin"]),
    (lambda p: p.unlink(), ["arena.models.bin", "bake"]),
])
def test_corrupt_scene_file(tree, damage, words):
    main, assets = tree
    damage(assets / "arena.models.bin")
    for extra in (["--headless", "--frames", "5"], ["--screenshot", "x.png"]):
        assert_usage_error(run(extra, main=main, cwd=main.parent), *words)


# ------------------------------------------------------------------ no display, no GL
def test_no_display_names_the_headless_option(tmp_path):
    p = run([], cwd=tmp_path, env={"DISPLAY": None, "PYGLET_HEADLESS": None, "WAYLAND_DISPLAY": None})
    assert_usage_error(p, "display", "--headless")


GL_SHIM = textwrap.dedent(r'''
    # Test shim: behave as if the OpenGL/EGL libraries were not installed.
    import ctypes, ctypes.util, re
    _BLOCK = re.compile(r"(^|/)(lib)?(GL|EGL|GLX|OpenGL)(\.so.*)?$")
    _load, _find = ctypes.cdll.LoadLibrary, ctypes.util.find_library
    def _no_gl_load(name, *a, **k):
        if _BLOCK.search(str(name)):
            raise OSError(f"{name}: cannot open shared object file (blocked by test shim)")
        return _load(name, *a, **k)
    def _no_gl_find(name):
        return None if _BLOCK.search(str(name)) else _find(name)
    ctypes.cdll.LoadLibrary = _no_gl_load
    ctypes.util.find_library = _no_gl_find
''')


@pytest.mark.parametrize("args, env", [
    ([], {"PYGLET_HEADLESS": None, "DISPLAY": ":99"}),     # a display but no GL
    ([], {"PYGLET_HEADLESS": "1"}),                         # headless EGL, no EGL
    (["--screenshot", "x.png"], {}),
])
def test_no_gl_libraries_names_the_headless_option(args, env, tmp_path):
    shim = sitecustomize(tmp_path, GL_SHIM)
    env = dict(env, PYTHONPATH=str(shim))
    p = run(args, cwd=tmp_path, env=env)
    if "--screenshot" in args:      # --headless cannot go with --screenshot: not offered
        assert_usage_error(p, "not found")
        assert "--headless" not in p.stderr
    else:
        assert_usage_error(p, "not found", "--headless")
    # the shim does not get in the way of the headless game
    q = run(["--headless", "--frames", "5"], cwd=tmp_path, env=env)
    assert q.returncode == 0, q.stderr


@pytest.mark.parametrize("extra", [["--seed", "0"], ["--p1", "cpu"], ["--level", "hard", "--p2", "human"]])
def test_replay_refuses_match_settings_it_would_ignore(tmp_path, extra):
    rec = tmp_path / "r.rpl"
    ok = run(["--headless", "--frames", "30", "--record", str(rec)])
    assert ok.returncode == 0, ok.stderr
    p = run(["--headless", "--replay", str(rec), *extra])
    assert_usage_error(p, "--replay", extra[0])


def test_projectile_level_outside_the_three_logic_levels(tree):
    main, assets = tree
    doc = json.loads((assets / "moves.json").read_text())
    doc["moves"]["fireball"]["projectile"]["level"] = 7
    (assets / "moves.json").write_text(json.dumps(doc))
    assert_usage_error(run(["--headless", "--frames", "5"], main=main), "moves.json", "level")


NO_PYGLET_SHIM = NO_PACKAGE_SHIM.format(package="pyglet")


@pytest.mark.parametrize("args", [[], ["--screenshot", "x.png"]])
def test_no_pyglet_package_names_the_setup_command(args, tmp_path):
    shim = sitecustomize(tmp_path, NO_PYGLET_SHIM)
    env = {"PYTHONPATH": str(shim), "PYGLET_HEADLESS": "1"}
    p = run(args, cwd=tmp_path, env=env)
    assert_usage_error(p, "pyglet", "not installed", "scripts/setup.sh")
    if "--screenshot" in args:      # --headless cannot go with --screenshot: not offered
        assert "--headless" not in p.stderr
    else:
        assert "--headless" in p.stderr
    # the headless game needs no pyglet at all
    q = run(["--headless", "--frames", "5"], cwd=tmp_path, env=env)
    assert q.returncode == 0, q.stderr


def test_render_benchmark_without_pyglet_exits_2_with_one_line(tmp_path):
    shim = sitecustomize(tmp_path, NO_PYGLET_SHIM)
    p = subprocess.run([sys.executable, "-m", "game.bench", "render", "--quick"], cwd=ROOT, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=f"{shim}{os.pathsep}{ROOT}"), timeout=120,
                       check=False)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert "pyglet" in p.stderr and "scripts/setup.sh" in p.stderr
    assert "--headless" not in p.stderr      # main.py's alternative: the benchmark has no such flag


@pytest.mark.parametrize("package", ["numpy", "pyrr"])
@pytest.mark.parametrize("args", [["--headless", "--frames", "5"], ["--screenshot", "x.png"]])
def test_no_numpy_or_pyrr_package_names_the_setup_command(package, args, tmp_path):
    shim = sitecustomize(tmp_path, NO_PACKAGE_SHIM.format(package=package))
    p = run(args, cwd=tmp_path, env={"PYTHONPATH": str(shim), "PYGLET_HEADLESS": "1"})
    # the interpreter that lacks it (most likely the system's, run in place of .venv's) and the fix
    assert_usage_error(p, package, f"not installed for {sys.executable}", "scripts/setup.sh", ".venv/bin/python")
