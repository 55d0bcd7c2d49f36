"""Bad asset files get a clear error: every field of ``fighters.json``, ``moves.json`` and
``arena.scene.json`` is validated on load.

A bad value raises the file family's exception (:class:`AssetError` for the fighter and move
data, :class:`ArenaDescriptionError` / :class:`ArenaAssetError` for the arena) with one line
naming the file, the field path and the fix; the CLI turns it into exit code 2.  Never an
error from inside numpy or Python (TypeError, KeyError, numpy's ValueError ...)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clihelp import ROOT, copy_program
from game.collision import Compound
from game.sim.arena import (
    BAKE_FIX,
    CRATE_WALL,
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    ArenaAssetError,
    ArenaDescriptionError,
    build_arena_scene,
    load_arena,
    read_description,
)
from game.sim.data import AssetError, in_shipped_assets, load_game_data, restore_hint
from game.sim.match import Match
from game.sim.stage import Stage

ASSETS = ROOT / "assets"


DATA_FILES = ("fighters.json", "moves.json")


FILES = (*DATA_FILES, DESCRIPTION_NAME)


#: The exception types a file's loader may raise on bad input.
FAMILY = {"fighters.json": (AssetError,), "moves.json": (AssetError,),
          DESCRIPTION_NAME: (ArenaDescriptionError, ArenaAssetError)}


BAD_VALUES = (None, "x", [], [1, 2], {}, {"a": 1}, math.nan, math.inf, -math.inf, 1e30, -1e30, -1, 0, True)


def shipped(name: str):
    return json.loads((ASSETS / name).read_text())


def put(doc, path: tuple, value):
    """``doc`` with the item at ``path`` (keys and indices) replaced by ``value``; ``()`` is the root."""
    if not path:
        return value
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


def paths(node, prefix=()) -> list[tuple]:
    """Every leaf and container of a JSON tree, the root ``()`` included."""
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += paths(v, prefix + (i,))
    return out


def field_name(path: tuple) -> str:
    """``("moves", "lk", "keys", 2)`` -> ``moves.lk.keys[2]`` (the loaders' field paths)."""
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else k)
    return out


def load(name: str, assets_dir: Path):
    """Load ``name`` from ``assets_dir`` the ways the game and the bake tool do (no cache)."""
    if name in DATA_FILES:
        return load_game_data.__wrapped__(str(assets_dir))
    build_arena_scene(read_description(assets_dir / DESCRIPTION_NAME))      # python3 -m game.tools.bake
    return Stage(load_arena(assets_dir))                                    # the match's arena


@pytest.fixture(scope="module")
def assets_copy(tmp_path_factory) -> Path:
    """A private copy of assets/ whose files the tests rewrite (and restore)."""
    dst = tmp_path_factory.mktemp("assets") / "assets"
    shutil.copytree(ASSETS, dst)
    return dst


def write_bad(assets_dir: Path, name: str, path: tuple, value) -> None:
    for n in FILES:                          # the other files stay as shipped
        shutil.copy2(ASSETS / n, assets_dir / n)
    (assets_dir / name).write_text(json.dumps(put(shipped(name), path, value)))


@pytest.mark.slow
def test_shipped_assets_load(assets_copy):
    for name in FILES:
        write_bad(assets_copy, name, (), shipped(name))
        load(name, assets_copy)


# ------------------------------------------------------------------ (a) one bad field of each kind
REVIEWER_CASES = [
    ("fighters.json", ("limbs", 1, "parent"), None),
    ("fighters.json", ("limbs", 4, "joint", 2), "x"),
    ("fighters.json", (), []),
    ("fighters.json", ("pushbox_radius",), math.nan),
    ("fighters.json", ("pushbox_radius",), -5),
    ("fighters.json", ("max_health",), 0),
    ("fighters.json", ("max_health",), -100),
    ("moves.json", ("moves", "lk", "hitstun"), None),
    ("moves.json", ("moves", "hk_low", "startup"), 1e30),
    ("moves.json", ("moves", "lk", "damage"), -1),
    ("moves.json", ("moves", "lk", "hitstun"), -1),
    (DESCRIPTION_NAME, ("quadtree",), "x"),
]


@pytest.mark.parametrize("name, path, value", REVIEWER_CASES)
def test_bad_field_raises_the_file_family_error_naming_file_and_field(assets_copy, name, path, value):
    write_bad(assets_copy, name, path, value)
    with pytest.raises(FAMILY[name][0]) as info:
        load(name, assets_copy)
    msg = str(info.value)
    assert "\n" not in msg
    assert str(assets_copy / name) in msg
    field = field_name(path) or "top level"
    assert f": {field}: " in msg, msg
    assert f"got {value!r}" in msg and "expected" in msg, msg
    assert "git checkout" not in msg, msg       # a copy outside assets/ is not restored from git


@pytest.mark.parametrize("name", FILES)
def test_only_the_shipped_files_are_offered_a_git_restore(assets_copy, name):
    assert in_shipped_assets(ASSETS / name) and restore_hint(ASSETS / name) == f"git checkout -- assets/{name}"
    assert not in_shipped_assets(assets_copy / name) and restore_hint(assets_copy / name) is None
    assert not in_shipped_assets(ASSETS.parent / name)        # beside assets/, not in it


def _flip_payload_byte(path):
    data = bytearray(path.read_bytes())
    data[-100] ^= 0x40                                   # a payload byte: the checksum catches it
    path.write_bytes(bytes(data))


def _max_depth_17(path):
    """max_depth past 16 with the checksum still right: a field error with no fix of its own."""
    from game.collision.scene_format import QUAD_CRC_AT, sealed

    data = bytearray(path.read_bytes())
    data[24:28] = (17).to_bytes(4, "little")
    path.write_bytes(sealed(bytes(data), QUAD_CRC_AT)[0])


@pytest.mark.parametrize("name, damage, field", [(MODELS_NAME, _flip_payload_byte, "crc32"),
                                                 (QUADTREE_NAME, _max_depth_17, "max_depth")])
def test_damaged_scene_file_names_the_rebake_command_once(assets_copy, name, damage, field):
    """The checksum's error names the re-bake command itself; a structural field error gets
    load_arena's: either way the command appears once, at the end."""
    for n in (*FILES, MODELS_NAME, QUADTREE_NAME):
        shutil.copy2(ASSETS / n, assets_copy / n)
    damage(assets_copy / name)
    try:
        with pytest.raises(ArenaAssetError) as info:
            load_arena(assets_copy)
    finally:
        shutil.copy2(ASSETS / name, assets_copy / name)
    msg = str(info.value)
    assert field in msg and msg.count("python3 -m game.tools.bake") == 1, msg
    assert msg.endswith(BAKE_FIX), msg


@pytest.mark.parametrize("size, ok", [(2 * CRATE_WALL - 0.01, False), (2 * CRATE_WALL, False),
                                      (2 * CRATE_WALL + 0.01, True)])
def test_B6_crate_must_be_wider_than_its_two_walls(assets_copy, size, ok):
    doc = shipped(DESCRIPTION_NAME)
    i = next(k for k, o in enumerate(doc["objects"]) if o["name"] == "crate_north")
    write_bad(assets_copy, DESCRIPTION_NAME, ("objects", i, "shape", "size", 0), size)
    if ok:
        desc = read_description(assets_copy / DESCRIPTION_NAME)
        o = next(o for o in desc.objects if o.name == "crate_north")
        w = (o.triangles @ o.transform[:3, :3] + o.transform[3, :3]).reshape(-1, 3)
        Compound.from_box(np.array([w.min(axis=0), w.max(axis=0)]), CRATE_WALL)    # and the compound is made
        return
    with pytest.raises(ArenaDescriptionError, match=rf"objects\[{i}\] \(crate_north\): expected a crate more than "
                       rf"{2 * CRATE_WALL:g} m across.*make it larger"):
        read_description(assets_copy / DESCRIPTION_NAME)


def test_limb_parent_error_names_the_limbs_before_it(assets_copy):
    write_bad(assets_copy, "fighters.json", ("limbs", 1, "parent"), None)
    with pytest.raises(AssetError, match=r"limbs\[1\]\.parent: expected the name of a limb listed before it \(hips\)"):
        load("fighters.json", assets_copy)


def test_missing_move_the_sim_plays_is_named(assets_copy):
    doc = shipped("moves.json")
    del doc["moves"]["jump"]
    write_bad(assets_copy, "moves.json", (), doc)
    with pytest.raises(AssetError, match=r"moves\.json: moves\.jump: missing: .*add it"):
        load("moves.json", assets_copy)


def test_obj_mesh_that_is_not_text_names_the_field(assets_copy):
    (assets_copy / "binary.obj").write_bytes(bytes(range(256)))
    write_bad(assets_copy, DESCRIPTION_NAME, ("objects", 19, "shape", "path"), "binary.obj")
    with pytest.raises(ArenaDescriptionError, match=r"objects\[19\]\.shape\.path: expected .*binary\.obj"):
        read_description(assets_copy / DESCRIPTION_NAME)


# ------------------------------------------------------------------ (b) fuzz: one field replaced
@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_any_field_replaced_by_a_bad_value_loads_or_raises_the_family_error(assets_copy, name):
    tree_paths = paths(shipped(name))

    @settings(max_examples=150, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(path=st.sampled_from(tree_paths), value=st.sampled_from(BAD_VALUES))
    def check(path, value):
        write_bad(assets_copy, name, path, value)
        try:
            loaded = load(name, assets_copy)
        except FAMILY[name] as exc:
            msg = str(exc)
            assert "\n" not in msg and str(assets_copy / name) in msg, msg
            return
        if name in DATA_FILES:             # what loads also plays: a short CPU-vs-CPU match
            match = Match(loaded, 0, ("hard", "hard"), Stage.load())
            for _ in range(240):
                match.step()

    check()


# ------------------------------------------------------------------ (d) unknown keys
def node_at(doc, path: tuple):
    for k in path:
        doc = doc[k]
    return doc


def object_paths(name: str) -> list[tuple]:
    """The path of every JSON object ``{...}`` of the shipped file ``name``, outside ``_`` comments."""
    doc = shipped(name)
    return [p for p in paths(doc) if isinstance(node_at(doc, p), dict)
            and not any(isinstance(k, str) and k.startswith("_") for k in p)]


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_an_unknown_key_in_any_object_is_named(assets_copy, name):
    """Coverage: every object of every shipped file rejects a key its loader does not read
    (all 129 of them, no sampling: about 1 s)."""
    objects = object_paths(name)
    assert len(objects) >= {"fighters.json": 18, "moves.json": 50, DESCRIPTION_NAME: 57}[name]
    for path in objects:
        write_bad(assets_copy, name, path + ("zz_typo",), 1)
        with pytest.raises(FAMILY[name]) as info:
            load(name, assets_copy)
        msg = str(info.value)
        assert "\n" not in msg and str(assets_copy / name) in msg, msg
        assert f": {field_name(path + ('zz_typo',))}: expected" in msg, (path, msg)


@pytest.mark.parametrize("name, path, typo, known, renamed", [
    # an optional key renamed: the default would have been used silently
    ("moves.json", ("moves", "jump"), "ar", "air", True),                        # default: no arc
    ("moves.json", ("moves", "lp"), "projectle", "projectile", False),           # read only when present
    ("moves.json", ("poses", "block_stand"), "bas", "base", True),
    (DESCRIPTION_NAME, ("quadtree",), "max_dpth", "max_depth", True),            # default 6
    (DESCRIPTION_NAME, (), "clear_raduis", "clear_radius", True),                # default 3.0
    (DESCRIPTION_NAME, ("objects", 19, "shape"), "scal", "scale", False),        # an obj mesh's option
    # beside a required key (renaming it is reported as the key missing, first)
    ("moves.json", ("moves", "lp"), "hitstn", "hitstun", False),
    ("moves.json", ("moves", "fireball", "projectile"), "lifetme", "lifetime", False),
    ("moves.json", ("moves", "lp", "keys", 1, 1), "forarm_l", "forearm_l", False),   # a pose's limb
    ("fighters.json", ("limbs", 0), "centre", "center", False),
    ("fighters.json", ("fighters", 0, "limb_colors"), "hed", "head", False),
])
def test_a_misspelt_key_gets_a_did_you_mean(assets_copy, name, path, typo, known, renamed):
    doc = shipped(name)
    node = node_at(doc, path)
    node[typo] = node.pop(known) if renamed else 1
    write_bad(assets_copy, name, (), doc)
    with pytest.raises(FAMILY[name][0]) as info:
        load(name, assets_copy)
    msg = str(info.value)
    assert f": {field_name(path + (typo,))}: expected a key the game reads, got unknown key {typo!r}; " \
           f"did you mean {known!r}?" in msg, msg


def test_an_unknown_key_without_a_near_miss_lists_the_keys(assets_copy):
    write_bad(assets_copy, DESCRIPTION_NAME, ("quadtree", "colour"), "red")
    with pytest.raises(ArenaDescriptionError, match=r"quadtree\.colour: expected one of the keys the game reads "
                       r"here \(leaf_capacity, max_depth\) or a '_' comment key, got unknown key 'colour'; rename"):
        read_description(assets_copy / DESCRIPTION_NAME)


@pytest.mark.parametrize("name", FILES)
def test_underscore_comment_keys_are_allowed_in_every_object(assets_copy, name):
    doc = shipped(name)
    for path in object_paths(name):
        node_at(doc, path)["_comment"] = {"any": ["value", 1]}
    write_bad(assets_copy, name, (), doc)
    loaded = load(name, assets_copy)
    if name in DATA_FILES:                 # comments are not entries: no pose, move or colour "_comment"
        ref = load_game_data.__wrapped__(str(ASSETS))
        assert loaded.poses.keys() == ref.poses.keys() and loaded.moves.keys() == ref.moves.keys()
        assert loaded.loops.keys() == ref.loops.keys()
        for a, b in zip(loaded.moves.values(), ref.moves.values()):
            assert np.array_equal(a.angles, b.angles) and a.projectile == b.projectile
        Match(loaded, 0, ("hard", "hard"), Stage.load()).step()


# ------------------------------------------------------------------ (c) the CLI: exit 2, one line
@pytest.fixture
def program(tmp_path) -> tuple[Path, Path]:
    """A private copy of the program (main.py, game/, shaders/, assets/): (main.py, assets folder)."""
    return copy_program(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name, path, value", [REVIEWER_CASES[0], REVIEWER_CASES[8], REVIEWER_CASES[-1]])
def test_cli_exits_2_with_one_line_naming_file_and_field(program, name, path, value):
    main, assets = program
    write_bad(assets, name, path, value)
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    p = subprocess.run([sys.executable, str(main), "--headless", "--frames", "1"], check=False, cwd=main.parent,
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert name in lines[0] and f": {field_name(path)}: expected" in lines[0], lines[0]
