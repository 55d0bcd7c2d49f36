"""The documentation against the code, so that neither drifts unnoticed.

README.md, DEVELOPERS.md, docs/game-rules.md, docs/api.md, docs/spec.md, docs/compound.md,
docs/scene-format.md, main.py's and game/cli's docstrings and the commands the programs' own
messages name are read here and checked against what the code does: every program and module
they run exists and runs with ``python3`` (Debian 12 has no ``python``), every flag is one of
that program's options, every key and pad button the README lists is the one the code binds,
and the tables of moves, file layouts and result fields match the data and the types.
Everything expected is computed from the code or the data; the only tables here translate the
README's key names ("PgUp", "Right Ctrl") into pyglet's."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import json
import re
import shlex
import struct
import subprocess
import sys

import numpy as np
import pytest

from clihelp import ROOT

README = ROOT / "README.md"


DEVELOPERS = ROOT / "DEVELOPERS.md"


#: the rules: moves table and frame data
RULES = ROOT / "docs" / "game-rules.md"


#: the frame-step API, headless runs and replays
API = ROOT / "docs" / "api.md"


#: the documents this review owns (docs/performance.md and docs/replay-format.md have other owners)
DOCS = [README, DEVELOPERS, RULES, API, ROOT / "docs" / "spec.md", ROOT / "docs" / "compound.md",
        ROOT / "docs" / "scene-format.md", ROOT / "docs" / "netplay.md"]


def _main():
    sys.path.insert(0, str(ROOT))
    import main

    return main


def _text(path) -> str:
    return path.read_text(encoding="utf-8")


def _doc_texts() -> dict[str, str]:
    out = {p.relative_to(ROOT).as_posix(): _text(p) for p in DOCS}
    out["main.py docstring"] = _main().__doc__
    out["game/cli docstring"] = importlib.import_module("game.cli").__doc__
    return out


# ------------------------------------------------------------------ commands in the docs
def _command_strings(text: str) -> list[str]:
    """Every ``python``/``python3`` command the text shows: in fenced ``sh`` blocks (commented
    lines too), inline code spans (which may wrap onto the next line) and indented example
    lines (main.py's docstring); trailing comments and descriptions cut off."""
    fences = re.compile(r"^```([a-z]*)\n(.*?)^```", re.S | re.M)
    found = []
    for lang, body in fences.findall(text):
        if lang in ("sh", ""):
            found += body.splitlines()
    found += [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", fences.sub("", text))]
    found += re.findall(r"^ {4}(python3? .*)$", text, re.M)
    commands = []
    for line in found:
        m = re.search(r"(?<![\w/.$-])python3? .*", line)
        if m:
            cmd = re.sub(r"\s+#.*$", "", m.group(0))              # a trailing comment
            commands.append(re.split(r"\s{2,}|\s*&&", cmd)[0].strip())  # a description after 2+ spaces
    return commands


#: An IPv6 address in brackets in a command (``--join [::1]:7000``): hex digits, ``:`` and ``.``.
_IPV6_IN_BRACKETS = re.compile(r"\[([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)\]")


def _program(command: str) -> tuple[str, list[str]]:
    """``("main.py" or "-m MODULE", the arguments)``, placeholders filled in.  Brackets mark an
    optional part (``[ADDR:]PORT``), except around an IPv6 address (``[::1]:7000``)."""
    kept = _IPV6_IN_BRACKETS.sub(lambda m: "\0" + m.group(1) + "\1", command)
    tokens = shlex.split(kept.replace("[", " ").replace("]", " ").replace("\0", "[").replace("\1", "]"))
    if tokens[1] == "-m":
        prog, args = f"-m {tokens[2]}", tokens[3:]
    else:
        prog, args = tokens[1], tokens[2:]
    fill = {"N": "10", "S": "1", "FILE": "x.rpl", "REV": "HEAD", "PNG": "x.png"}
    return prog, [fill.get(a, a) for a in args]


def _all_commands() -> list[tuple[str, str]]:
    return [(where, c) for where, text in _doc_texts().items() for c in _command_strings(text)]


def test_the_docs_show_commands_and_all_of_them_use_python3():
    cmds = _all_commands()
    progs = {_program(c)[0] for _, c in cmds}
    assert {"main.py", "-m game.tools.bake", "-m game.tools.soak", "-m game.bench", "-m pytest"} <= progs, progs
    bad = [(w, c) for w, c in cmds if not c.startswith("python3 ")]
    assert not bad, f"Debian 12 has no `python`: {bad}"


@functools.cache
def _help(prog: str) -> str:
    argv = [sys.executable, *prog.split(), "--help"]
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, (argv, p.stderr)
    return p.stdout


def _options(prog: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", _help(prog)))


def _ours(prog: str) -> bool:
    return prog == "main.py" or prog.startswith("-m game.")


def test_every_module_the_docs_run_with_python3_m_exists_and_runs():
    for where, c in _all_commands():
        prog, _ = _program(c)
        if not prog.startswith("-m "):
            continue
        mod = prog[3:]
        spec = importlib.util.find_spec(mod)
        assert spec is not None, f"{where}: `{c}` runs {mod}, which does not exist"
        if spec.submodule_search_locations is not None:       # a package runs its __main__
            assert importlib.util.find_spec(f"{mod}.__main__") is not None, f"{where}: {mod} has no __main__"


@pytest.mark.slow
def test_our_programs_help_names_them_as_the_docs_run_them():
    """``usage: python3 main.py ...``: the name argparse prints (and repeats in every
    error) is the command the README gives."""
    for prog in sorted({_program(c)[0] for _, c in _all_commands() if _ours(_program(c)[0])}):
        usage = _help(prog).split("\n", 1)[0]
        assert usage.startswith(f"usage: python3 {prog} "), (prog, usage)


@pytest.mark.slow
def test_every_flag_in_a_documented_command_is_an_option_of_that_program():
    for where, c in _all_commands():
        prog, args = _program(c)
        if not _ours(prog):
            continue
        flags = {a.split("=")[0] for a in args if a.startswith("--")}
        unknown = flags - _options(prog)
        assert not unknown, f"{where}: `{c}`: {sorted(unknown)} not in `python3 {prog} --help`"


def test_documented_main_py_commands_parse_and_their_flags_go_together():
    from game.cli.checks import check_mode_flags
    from game.cli.parser import build_parser
    from game.cli.program import UsageError

    for where, c in _all_commands():
        prog, args = _program(c)
        if prog != "main.py":
            continue
        try:
            ns = build_parser().parse_args(args)
            check_mode_flags(ns)
        except UsageError as exc:
            pytest.fail(f"{where}: `{c}` exits 2: {exc}")


def test_every_flag_the_docs_mention_is_an_option_of_one_of_our_programs():
    """Flags in the prose too (`--p2 human`, `--fps`, bake's `--out-dir DIR`); a flag of
    pip's that setup.sh passes may be named as well, and one of pytest's (with its plugins,
    as the tests run) for running the tests."""
    ours = set().union(*(_options(p) for p in ("main.py", "-m game.tools.bake", "-m game.tools.soak",
                                                 "-m game.bench", "-m game.bench.ab", "-m game.server")))
    setup = _text(ROOT / "scripts" / "setup.sh")
    pytest_flags = _options("-m pytest")
    for where, text in _doc_texts().items():
        for flag in set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text)):
            assert flag in ours or flag in setup or flag in pytest_flags, \
                f"{where} names {flag}, which no program here has"


def test_the_readme_names_every_option_of_main_py():
    """The reverse: every option of main.py is explained somewhere in the README."""
    readme = _text(README)
    missing = {f for f in _options("main.py") if f != "--help"} - set(re.findall(r"--[a-z0-9-]+", readme))
    assert not missing, f"main.py options the README never mentions: {sorted(missing)}"


def test_help_figures_match_the_replay_limits():
    """--help cannot import game.replay (main.py must start with numpy missing), so its
    figures are written out: they must be the limits the code enforces."""
    from game.replay import MAX_FILE_SIZE, MAX_MATCH_FRAMES

    text = " ".join(_help("main.py").split())
    assert re.search(r"longest match, (\d+) frames", text).group(1) == str(MAX_MATCH_FRAMES)
    assert re.search(r"at most (\d+) bytes", text).group(1) == str(MAX_FILE_SIZE)


# ------------------------------------------------------------------ messages name python3
def _source_files():
    return [ROOT / "main.py", *sorted((ROOT / "game").rglob("*.py")), *sorted((ROOT / "scripts").glob("*")),
            *sorted((ROOT / "assets").glob("*.json"))]


def test_no_source_file_or_owned_doc_tells_anyone_to_run_plain_python():
    old = re.compile(r"(?<![\w/$.-])python (main\.py|-m )")
    bad = []
    for path in [*_source_files(), *DOCS]:
        for n, line in enumerate(_text(path).splitlines(), 1):
            if old.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


def _string_constants(tree) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


@pytest.mark.slow
def test_every_command_a_message_names_runs_with_flags_the_program_has():
    """The commands inside the code's strings (usage errors, replay and scene-file fixes,
    soak's reproduce line): python3, a program that exists, flags it has."""
    named = []
    pattern = re.compile(r"python3 (main\.py|-m [\w.]+)([^`);\"'\n]*)")
    for path in [ROOT / "main.py", *sorted((ROOT / "game").rglob("*.py"))]:
        tree = ast.parse(_text(path))
        for s in _string_constants(tree):
            for prog, rest in pattern.findall(s):
                named.append((path.relative_to(ROOT), prog, rest))
    progs = {p for _, p, _ in named}
    assert {"main.py", "-m game.tools.bake", "-m game.tools.soak"} <= progs, progs
    for path, prog, rest in named:
        if prog.startswith("-m "):
            assert importlib.util.find_spec(prog[3:]) is not None, (path, prog)
        flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", rest))
        assert flags <= _options(prog), (path, prog, rest)


def test_usage_errors_and_replay_fixes_name_python3_main_py(tmp_path, capsys):
    main = _main()
    assert main.main(["--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert "(see: python3 main.py --help)" in err, err
    from game.replay import ReplayError, load_replay

    other = tmp_path / "not_a_replay.rpl"
    other.write_bytes(b"this is not a replay file at all")
    with pytest.raises(ReplayError, match=r"python3 main\.py --record"):
        load_replay(str(other))


def test_scene_file_fix_names_the_bake_command_that_exists():
    from game.collision.scene_file import REBAKE

    cmd = re.search(r"`(python3 -m ([\w.]+))`", REBAKE)
    assert cmd, REBAKE
    assert importlib.util.find_spec(cmd.group(2)) is not None


# ------------------------------------------------------------------ dotted names and paths
def _resolve(dotted: str):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_game_name_the_docs_give_exists():
    """`game.replay.write_atomic`, `game.collision.quadtree.quadrants`, `game.__version__` ..."""
    names = set()
    for text in _doc_texts().values():
        names |= set(re.findall(r"`(game(?:\.\w+)+)(?:\(|`)", text))
    assert len(names) > 10, names
    for dotted in sorted(names):
        try:
            _resolve(dotted)
        except (ImportError, AttributeError) as exc:
            pytest.fail(f"the docs name `{dotted}`, which does not resolve: {exc}")


def test_every_repository_path_the_docs_give_exists():
    for where, text in _doc_texts().items():
        for path in set(re.findall(r"`((?:game|tests|docs|assets|scripts|shaders|\.ci)/[\w./*]*)`", text)):
            hits = list(ROOT.glob(path.rstrip("/")))
            assert hits, f"{where} names `{path}`, which is not in the tree"


def _git_ignored(path) -> bool:
    """What the checkout's .gitignore leaves out (pip's egg-info, build output): not the layout."""
    import subprocess

    try:
        return subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ROOT).returncode == 0
    except OSError:                     # no git here: nothing is known to be ignored
        return False


def test_developers_layout_table_covers_the_tree():
    text = _text(DEVELOPERS)
    table = re.search(r"## Layout\n\n(.*?)\n\n", text, re.S).group(1)
    named = set(re.findall(r"^\| `([^`]+)`", table, re.M))
    for path in named:
        assert (ROOT / path.rstrip("/")).exists(), path
    top = {p.name + ("/" if p.is_dir() else "") for p in ROOT.iterdir()
           if not p.name.startswith((".", "_")) and (p.is_dir() or p.suffix == ".py") and not _git_ignored(p)}
    game = {f"game/{p.name}" + ("/" if p.is_dir() else "") for p in (ROOT / "game").iterdir()
            if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.name != "__init__.py")}
    covered = named | {n.split("/")[0] + "/" for n in named if "/" in n.rstrip("/")}
    missing = {p for p in top | game if p not in covered and p.rstrip("/") not in covered}
    assert not missing, f"not in DEVELOPERS.md's layout table: {sorted(missing)}"


# ------------------------------------------------------------------ keys and pads
#: the README's key names -> pyglet.window.key names (letters and F-keys are the same)
README_KEYS = {"←": "LEFT", "→": "RIGHT", "↑": "UP", "↓": "DOWN", "Space": "SPACE", "PgUp": "PAGEUP",
               "PgDn": "PAGEDOWN", "[": "BRACKETLEFT", "]": "BRACKETRIGHT", ";": "SEMICOLON",
               "'": "APOSTROPHE", "\\": "BACKSLASH", "Right Ctrl": "RCTRL", "Esc": "ESCAPE", "Enter": "ENTER",
               "keypad Enter": "NUM_ENTER", ". (period)": "PERIOD", ", (comma)": "COMMA", "Home": "HOME"}


def _key_name(label: str) -> str:
    label = label.strip()
    if re.fullmatch(r"Num\d", label):
        return f"NUM_{label[3]}"
    return README_KEYS.get(label, label)


def _split_keys(cell: str, n: int) -> list[list[str]]:
    """One table cell -> for each of its ``n`` intents, the README's key labels."""
    main, _, alt = cell.partition("(")
    groups = []
    for part in (main, alt.rstrip(") ").removeprefix("or ")):
        if not part.strip():
            continue
        ticks = re.findall(r"`([^`]+)`", part)
        toks = ticks or [t for t in re.split(r"\s*(?:/|,|\bor\b)\s*", part.strip()) if t]
        if len(toks) == n:
            groups.append([[t] for t in toks])
        else:
            assert n == 1, (cell, toks)
            groups.append([toks])
    return [sum((g[i] for g in groups), []) for i in range(n)]


def _readme_key_table() -> list[tuple[str, str, str]]:
    readme = _text(README)
    block = re.search(r"^\| \| Player 1 \| Player 2 \|\n\|[- |]+\|\n((?:\|.*\|\n)+)", readme, re.M).group(1)
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        rows.append(tuple(cells))
    return rows


#: the README's row names -> the intents of game.render.controls.INTENTS they bind, in cell order
ROW_INTENTS = {"walk": ("left", "right"), "jump": ("up", "down"), "sidestep": ("in", "out"),
               "LP,": ("lp", "hp", "lk", "hk"), "guard": ("guard",)}


def test_readme_key_table_is_the_code_keymap():
    """Every key the README lists for a player is bound to that intent, and every key bound
    is listed (the keypad's Num-Lock-off codes are the same keys: the README names them once)."""
    from game.render.controls import INTENTS, KEYMAP

    rows = _readme_key_table()
    seen = []
    for label, p1, p2 in rows:
        intents = ROW_INTENTS[label.split()[0]]
        seen += intents
        for player, cell in ((0, p1), (1, p2)):
            for intent, labels in zip(intents, _split_keys(cell, len(intents))):
                want = {_key_name(lb) for lb in labels}
                bound = {n for n in KEYMAP[player][intent] if not (n.startswith("NUM_") and not n[4:].isdigit())}
                assert want == bound, f"P{player + 1} {intent}: README {sorted(want)}, code {sorted(bound)}"
    assert sorted(seen) == sorted(INTENTS), "the README's key table leaves out an intent"


#: the modules whose key handlers the game runs, and those handlers: the match's, the replay viewer's and
#: the netplay game's
KEY_HANDLERS = {"game.py": ("_on_key_press", "_menu_key"), "replay_view.py": ("on_key", "_menu_key"),
                "net_game.py": ("_on_key_press", "_leave_key")}


def _handled_keys() -> set[str]:
    keys = set()
    for module, func_names in KEY_HANDLERS.items():
        tree = ast.parse(_text(ROOT / "game" / "render" / module))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in func_names:
                keys |= {a.attr for a in ast.walk(node) if isinstance(a, ast.Attribute)
                         and isinstance(a.value, ast.Name) and a.value.id == "k"}
    return keys


def test_readme_hotkey_table_is_what_the_game_handles():
    readme = _text(README)
    block = re.search(r"^\| key \| \|\n\|[- |]+\|\n((?:\|.*\|\n)+)", readme, re.M).group(1)
    listed = set()
    for line in block.splitlines():
        first = line.strip("|").split("|")[0]
        for label in re.findall(r"F\d+|Esc|keypad Enter|Enter|\. \(period\)|\b[A-Z]\b", first):
            listed.add(_key_name(label))
    handled = _handled_keys()
    assert listed and listed <= handled, f"README lists keys the game ignores: {sorted(listed - handled)}"
    fkeys = {k for k in handled if re.fullmatch(r"F\d+", k)}
    assert fkeys <= listed, f"function keys the README's table leaves out: {sorted(fkeys - listed)}"


def test_every_key_the_game_handles_is_named_in_the_readme_and_f_keys_on_screen():
    from game.render.controls import CONTROLS_TEXT

    readme = _text(README)
    names = {v: k for k, v in README_KEYS.items()} | {"RETURN": "Enter"}
    for key in _handled_keys():
        label = names.get(key, key)
        assert re.search(rf"(?<![\w.]){re.escape(label)}(?!\w)", readme), f"{key} ({label}) is not in the README"
        if re.fullmatch(r"F\d+", key):
            assert any(re.search(rf"\b{key}\b", t) for t in CONTROLS_TEXT), f"{key} is not on the controls screen"


class _Pad:
    """The attributes of a pyglet 2.1 Controller that Gamepads reads."""

    def __init__(self, **held):
        from pyglet.math import Vec2

        self.left_analog = Vec2(0, 0)
        self.dpad = Vec2(0, 0)
        for name in ("x", "y", "a", "b", "leftshoulder", "rightshoulder", "start"):
            setattr(self, name, False)
        self.lefttrigger = self.righttrigger = 0.0
        for name, value in held.items():
            setattr(self, name, value)


#: the README's (Xbox) button names -> pyglet's Controller attributes
PAD_BUTTONS = {"X": "x", "Y": "y", "A": "a", "B": "b", "RB": "rightshoulder", "RT": "righttrigger",
               "LB": "leftshoulder", "LT": "lefttrigger"}


def _pad_intents(button: str) -> set[str]:
    from game.render.controls import Gamepads

    pads = Gamepads(None, enabled=False)
    attr = PAD_BUTTONS[button]
    pads.pads = [_Pad(**{attr: 1.0 if attr.endswith("trigger") else True})]
    return {k for k, v in pads.intents(0).items() if v}


def test_readme_and_controls_screen_pad_buttons_are_the_code_mapping():
    from game.render.controls import CONTROLS_TEXT

    text = " ".join(_text(README).split())
    m = re.search(r"move, ((?:[XYAB] (?:LP|HP|LK|HK), ){4})RB/RT (\w+), LB/LT sidestep in/out", text)
    assert m, "the README's gamepad sentence changed shape"
    for button, what in re.findall(r"([XYAB]) (LP|HP|LK|HK)", m.group(1)):
        assert _pad_intents(button) == {what.lower()}, (button, what)
    assert _pad_intents("RB") == _pad_intents("RT") == {m.group(2)}
    assert (_pad_intents("LB"), _pad_intents("LT")) == ({"in"}, {"out"})
    pad_line = next(t for t in CONTROLS_TEXT if t.startswith("Pad"))
    for what, button in re.findall(r"\b(LP|HP|LK|HK) ([XYAB])\b", pad_line):
        assert _pad_intents(button) == {what.lower()}, (pad_line, button, what)


# ------------------------------------------------------------------ moves, events, JSON output
def test_rules_moves_table_is_the_move_data():
    doc = json.loads(_text(ROOT / "assets" / "moves.json"))
    moves = doc["moves"]
    names = {}
    for key, m in moves.items():
        names[m["label"].lower()] = key           # a move's label is its name on the screen
    block = re.search(r"## Moves\n\n(.*?)\n\n", _text(RULES), re.S).group(1)
    checked = set()
    for line in block.splitlines()[2:]:
        inp, move, height, frames, damage, stuns, cancels, advantage = (c.strip() for c in line.strip("|").split("|"))
        key = names.get(move.split(":")[0].strip().lower())
        if key is None:
            assert frames == "–", f"README move {move!r} has frame data but no such move in moves.json"
            continue
        m = moves[key]
        if key in ("lp", "hp", "lk", "hk"):                   # a button's own move is named after it
            assert inp == key, (inp, move)
        s, a, r = (f.strip() for f in frames.split("/"))
        assert (int(s), int(r)) == (m["startup"], m["recovery"]), (move, frames)
        assert a == ("–" if m["active"] == 0 else str(m["active"])), (move, frames)
        throw = doc.get("throw")
        if throw and key == throw["move"]:      # the throw's damage and knockdown live in "throw"
            want = ("throw", str(throw["damage"]), f"knockdown, {throw['frames']} from the grab")
            assert (height, damage, stuns) == want
            assert cancels == "–", (move, cancels)
            slam = moves[throw["hold"]]          # the thrower is free when its hold and slam end
            left = slam["startup"] + slam["active"] + slam["recovery"]
            assert advantage == f"+{throw['frames'] - left} / –", (move, advantage)
            checked.add(key)
            continue
        dmg = m["projectile"]["damage"] if "projectile" in m else m["damage"]
        assert damage == ("–" if dmg == 0 else str(dmg)), (move, damage)
        if dmg:
            hgt = m["projectile"]["height"] if "projectile" in m else m["height"]
            assert height == hgt, (move, height)
            src = m["projectile"] if "projectile" in m else m
            assert stuns == f"{src['hitstun']} / {src['blockstun']}", (move, stuns)
        # cancels: the README's names of the moves it cancels into, and its window
        if "cancel" in m:
            label = {v: k for k, v in names.items()}
            first, last = m["cancel"]["window"]
            into = ", ".join(label[t] for t in m["cancel"]["into"])
            assert cancels == f"{into} ({first}-{last})", (move, cancels)
        else:
            assert cancels == "–", (move, cancels)
        # frame advantage of a hit on the first active frame: the stun less what is left of the move
        if dmg and "projectile" not in m:
            left = m["active"] + m["recovery"]
            on_hit = (doc["knockdown"]["frames"] if m.get("knockdown") else m["hitstun"]) - left
            assert advantage == f"{on_hit:+d} / {m['blockstun'] - left:+d}", (move, advantage)
        else:
            assert advantage == "–", (move, advantage)
        checked.add(key)
    assert checked == set(moves), f"moves not in the rules' table: {set(moves) - checked}"


def test_api_event_names_and_buttons_are_the_sims():
    from game import sim

    readme = _text(API)
    events = re.search(r"return the events \(([^)]*)\)", readme).group(1)
    for name in re.findall(r"`(\w+)`", events):
        assert name in sim.__all__ and issubclass(getattr(sim, name), sim.Event), name
    buttons = re.search(r"`FrameInput` has \w+ buttons \(`([^`]*)`", " ".join(readme.split())).group(1).split()
    assert tuple(buttons) == sim.BUTTONS
    assert f"`2**{len(sim.BUTTONS)}`" in readme


def _api_keys(pattern: str) -> set[str]:
    inner = re.search(pattern, " ".join(_text(API).split())).group(1)
    return set(re.findall(r"`?\"?(\w+)\"?`?", inner))


def test_api_json_lines_are_what_main_py_prints(tmp_path, capsys, monkeypatch):
    main = _main()
    monkeypatch.chdir(tmp_path)
    assert main.main(["--headless", "--frames", "40", "--p1", "cpu", "--p2", "cpu", "--record", "r.rpl"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == _api_keys(r"prints one JSON line \(([^)]*)\)")
    assert main.main(["--headless", "--replay", "r.rpl"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == _api_keys(r"# check it: \{([^}]*)\}")


# ------------------------------------------------------------------ docs/scene-format.md
def _scene_doc() -> str:
    return _text(ROOT / "docs" / "scene-format.md")


def _table_after(text: str, heading: str) -> list[list[str]]:
    body = text[text.index(heading):]
    block = re.search(r"\n(\|.*\|\n)+", body).group(0)
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in block.strip().splitlines()]
    return rows[2:]


_TYPE_SIZES = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "f64": 8}


def _size_of(doc_type: str) -> int:
    m = re.fullmatch(r"(\d+) bytes|(\w+)(?: × (\d+))?", doc_type)
    if m.group(1):
        return int(m.group(1))
    return _TYPE_SIZES[m.group(2)] * int(m.group(3) or 1)


def test_scene_format_headers_match_the_code():
    from game.collision import scene_format as sf

    doc = _scene_doc()
    heads = re.findall(r"Header, (\d+) bytes \(`struct` format `([^`]+)`\)", doc)
    assert heads == [(str(sf.MODELS_HEADER.size), sf.MODELS_HEADER.format),
                     (str(sf.QUAD_HEADER.size), sf.QUAD_HEADER.format)]
    assert re.search(r"version \(currently \*\*(\d+)\*\*\)", doc).group(1) == str(sf.FORMAT_VERSION)
    for heading, st, magic, crc_at in (("## Model data file", sf.MODELS_HEADER, sf.MODELS_MAGIC, sf.MODELS_CRC_AT),
                                       ("## Quadtree file", sf.QUAD_HEADER, sf.QUADTREE_MAGIC, sf.QUAD_CRC_AT)):
        rows = _table_after(doc, heading)
        offsets = [int(r[0]) for r in rows]
        sizes = [_size_of(r[1]) for r in rows]
        assert offsets == list(np.cumsum([0] + sizes[:-1])) and sum(sizes) == st.size, (heading, rows)
        # each field's offset is where struct puts it
        fmt = st.format.lstrip("<")
        codes = re.findall(r"\d*[a-zA-Z]", fmt)
        assert [struct.calcsize("<" + "".join(codes[:i])) for i in range(len(codes))] == offsets, heading
        fields = {r[2].strip("`"): int(r[0]) for r in rows}
        assert fields["crc32"] == crc_at
        assert ast.literal_eval(rows[0][3].split("`")[1]) == magic
        assert rows[1][3] == str(sf.FORMAT_VERSION)


def test_scene_format_record_layouts_match_the_code():
    from game.collision import scene_format as sf

    doc = _scene_doc()
    assert f"model records of {sf.MODEL_DT.itemsize} bytes" in doc
    assert f"`node_count` records of {sf.NODE_DT.itemsize} bytes" in doc
    for heading, dt in (("model records of", sf.MODEL_DT), ("Node information", sf.NODE_DT)):
        rows = _table_after(doc, heading)
        offsets = [int(r[0]) for r in rows]
        sizes = [_size_of(r[1]) for r in rows]
        assert offsets == list(np.cumsum([0] + sizes[:-1])) and sum(sizes) == dt.itemsize, (heading, rows)
        code = sorted({off for _, off in (dt.fields[n] for n in dt.names)})
        assert set(code) <= set(offsets), (heading, code, offsets)
    relation = _table_after(doc, "Node relations, for each node")
    assert "".join({"u32": "I", "u8": "B"}[r[0]] for r in relation[:3]) == sf.REL.format.lstrip("<")
    size_rule = re.search(r"`file_size = (\d+) \+ Σ\((\d+) \+ (\d+)·triangle_count\) \+ (\d+)·model_count`", doc)
    assert size_rule.groups() == (str(sf.MODELS_HEADER.size), "4", str(9 * 8), str(sf.MODEL_DT.itemsize))


def test_scene_format_messages_quoted_in_the_doc_are_the_codes():
    """The doc quotes pieces of the loader's messages; each must be in scene_file.py or its
    byte reader, scene_reader.py."""
    src = "\n".join(c for name in ("scene_file.py", "scene_reader.py")
                    for c in _string_constants(ast.parse(_text(ROOT / "game" / "collision" / name))))
    doc = " ".join(_scene_doc().split())
    quoted = ["checksum mismatch: stored 0x", "the two files are from different bakes", "is not a quadrant of node",
              "two children in one quadrant", "is omitted (read as an empty leaf) but model",
              "is an older format", "not a Rangebox scene file"]
    for piece in quoted:
        assert piece in doc and piece in src, piece


# ------------------------------------------------------------------ docs/compound.md
def test_compound_doc_members_and_strike_fields_exist():
    from game.collision.compound import Compound, StrikeResult

    doc = _text(ROOT / "docs" / "compound.md")
    crate = Compound.from_box([[0, 0, 0], [1, 1, 1]], 0.1)
    for member in set(re.findall(r"`crate\.(\w+)", doc)):
        assert hasattr(crate, member), f"docs/compound.md: crate.{member}"
    for member in set(re.findall(r"`faces\.(\w+)", doc)):
        assert hasattr(crate.faces, member), f"docs/compound.md: faces.{member}"
    rows = _table_after(doc, "a frozen `StrikeResult` is returned")
    documented = {n for r in rows for n in re.findall(r"`([a-z_]+)`", r[0])}
    result = Compound.from_box([[0, 0, 0], [1, 1, 1]], 0.1).strike(np.array([[0.4, 0.4, -0.1], [0.6, 0.6, 0.05]]))
    assert isinstance(result, StrikeResult)
    assert documented == {n for n in dir(result) if not n.startswith("_")}
    state = crate.state_bytes()
    magic, version, count = struct.unpack_from("<4sHI", state)
    assert f'`b"{magic.decode()}"`, u16 format version ({version},' in doc
    assert len(state) == 4 + 2 + 4 + 7 * 8 + count * (6 * 8 + 1)


def test_compound_group_members_the_doc_names_exist():
    from game.collision.compound import Compound, CompoundGroup

    doc = _text(ROOT / "docs" / "compound.md")
    group = CompoundGroup([Compound.from_box([[0, 0, 0], [1, 1, 1]], 0.1)])
    for member in set(re.findall(r"`group\.(\w+)", doc)):
        assert hasattr(group, member), f"docs/compound.md: group.{member}"


def test_the_readme_stays_under_8_kib():
    """The README is the front door: what Rangebox is, the two commands, controls and links.
    Details live in docs/ and DEVELOPERS.md."""
    size = len(README.read_bytes())
    assert size < 8192, f"README.md is {size} bytes; move details into docs/"
