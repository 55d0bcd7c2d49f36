"""docs/rl.md against the code: the arguments table names every argument with its default,
the observation tables give the layout's element ranges and fields, the action tables the
buttons and the Discrete table, and the commands it shows run."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
import sys

import pytest

from clihelp import ROOT
from rlhelp import need_gymnasium

need_gymnasium()

from game.rl import ACTIONS, RangeboxEnv  # noqa: E402
from game.rl.layout import FIGHTER_FIELDS, MOVE_PHASES, STATES  # noqa: E402
from game.sim.inputs import BUTTONS  # noqa: E402

DOC = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")


def _rows(heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` (cells stripped, header and rule left out)."""
    text = DOC[DOC.index(heading):]
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


def test_the_arguments_table_is_the_constructors_signature():
    params = inspect.signature(RangeboxEnv.__init__).parameters
    table = {r[0].strip("`"): r[1].strip("`") for r in _rows("| argument | default |")
             if r[0] != "argument"}
    want = {name: repr(p.default).replace("'", '"') for name, p in params.items() if name != "self"}
    assert table == want


def test_the_observation_table_gives_each_blocks_elements_and_shape():
    layout = RangeboxEnv().layout
    rows = _rows("| elements | block")
    assert [re.match(r"`(\w+)`", r[1]).group(1) for r in rows] == list(layout.slices)
    for elements, block, _ in rows:
        name = re.match(r"`(\w+)`", block).group(1)
        first, last = (int(v) for v in elements.split("–"))
        sl = layout.slices[name]
        assert (first, last + 1) == (sl.start, sl.stop), name
        shape = tuple(int(v) for v in re.search(r"`\(([\d, ]+)\)`", block).group(1).split(",") if v.strip())
        assert shape == layout.shapes[name], name
    assert f"`({layout.size},) float32`" in DOC


def test_the_fighter_field_table_and_one_hot_names_are_the_layouts():
    rows = _rows("| index | field | meaning |")
    names = [n.strip() for r in rows for n in r[1].split(",")]
    assert names == [f[0] for f in FIGHTER_FIELDS]
    for word in (*STATES, *MOVE_PHASES, *RangeboxEnv().layout.moves):
        assert word in DOC, word


def test_the_action_tables_are_the_buttons_and_the_discrete_table():
    (buttons,) = [r for r in _rows("| element | 0 |") if r[0] == "button"]
    assert buttons[1:] == list(BUTTONS)
    cells = [(int(r[i]), r[i + 1]) for r in _rows("| index | name | buttons |") for i in (0, 3)]
    assert sorted(cells) == [(i, name) for i, (name, _bits) in enumerate(ACTIONS)]


@pytest.mark.slow
def test_the_commands_shown_run_with_their_flags():
    commands = re.findall(r"^(python3 -m game\.\S+ .*?)(?:\s{2,}#.*)?$", DOC, re.M)
    assert len(commands) >= 2
    for command in commands:
        args = shlex.split(command)[1:]
        args[args.index("--episodes") + 1] = "1"
        out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, (command, out.stderr)
        assert "won" in out.stdout.splitlines()[-1]
