"""``--record FILE`` records every match of the run, however it started, one file each, saved
when it ends (issue #34, point 2: a match started from the title screen saved a 0-frame file).

The window cases run ``main.py``'s whole window path with scripted keys
(``scripted_window.py``: title and menu state machine, fixed-step loop, step listeners) and
check each file against the frames the child saw played: the same inputs, the same hashes, and
``play_replay`` verifies it to its end.  The rest drive :class:`RecordingRun` directly."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from clihelp import ROOT

SCRIPTED = Path(__file__).with_name("scripted_window.py")


def run_scripted(tmp_path: Path, script: str, *flags: str, timeout: float = 600) -> tuple[dict, str]:
    """Run ``scripted_window.py`` with ``script``; return (its OUT.json, its stderr)."""
    out = tmp_path / "out.json"
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    p = subprocess.run([sys.executable, str(SCRIPTED), str(out), script, "--frames", "100000", "--mute", *flags],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if p.returncode == 2 and "not found" in p.stderr:
        pytest.skip(f"no GL libraries here: {p.stderr.strip()}")
    assert out.exists(), p.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["status"] == p.returncode, (data["status"], p.returncode, p.stderr[-2000:])
    return data, p.stderr


def assert_file_is_the_match(path: Path, played: dict) -> None:
    """``path`` loads, holds exactly the frames ``played`` (inputs and hash tags), and verifies."""
    from game.replay import load_replay, play_replay

    replay = load_replay(path)
    inputs = np.array(played["inputs"], dtype=np.uint16).reshape(-1, 2)
    assert played["first_frame"] == 1, "the child saw the match from its first frame"
    assert replay.frames == len(inputs), (path, replay.frames, len(inputs))
    assert np.array_equal(replay.inputs, inputs), path
    tags = np.array([int(h[:4], 16) for h in played["hashes"]], dtype=np.uint16)
    assert np.array_equal(replay.tags, tags), path
    assert replay.final == bytes.fromhex(played["hashes"][-1])
    out = play_replay(replay)
    assert out["ok"] and out["frames"] == replay.frames
    assert out["final_hash"][:16] == played["hashes"][-1]


@pytest.mark.gl
@pytest.mark.slow
def test_title_fight_rematch_quit_saves_one_verified_file_per_match(tmp_path):
    """Enter on the title screen, a match played to its KO, Enter for a rematch, 240 frames of
    it, then the pause menu's Quit: FILE holds the first match (saved at its end), FILE-2.rpl
    the abandoned second one up to its last frame, and each verifies."""
    data, err = run_scripted(tmp_path, "title_fight_rematch_quit", "--record", "fight.rpl", "--p2", "cpu",
                             "--level", "hard")
    assert data["status"] == 0, err
    first, second = data["matches"]
    assert first["over"] and not second["over"] and len(second["inputs"]) >= 240
    assert_file_is_the_match(tmp_path / "fight.rpl", first)
    assert_file_is_the_match(tmp_path / "fight-2.rpl", second)
    assert sorted(p.name for p in tmp_path.glob("*.rpl")) == ["fight-2.rpl", "fight.rpl"]
    assert f"match 1 saved to fight.rpl ({len(first['inputs'])} frames)" in err
    assert f"match 2 saved to fight-2.rpl ({len(second['inputs'])} frames)" in err
    assert data["notice"] == "replay saved: fight.rpl"                 # on the screen as the match ends


@pytest.mark.gl
@pytest.mark.slow
def test_restart_and_training_from_the_menu(tmp_path):
    """Restart saves the abandoned match; entering training saves the match in progress and
    says so on the screen, training is not recorded; leaving it starts a recorded match."""
    data, err = run_scripted(tmp_path, "restart_training_fight_quit", "--record", "m.rpl", "--p2", "cpu")
    assert data["status"] == 0, err
    fights = [m for m in data["matches"] if not m["training"]]
    assert [m["training"] for m in data["matches"]] == [False, False, True, False]
    assert [len(m["inputs"]) for m in fights][0] >= 200
    for path, played in zip(("m.rpl", "m-2.rpl", "m-3.rpl"), fights):
        assert_file_is_the_match(tmp_path / path, played)
    assert sorted(p.name for p in tmp_path.glob("*.rpl")) == ["m-2.rpl", "m-3.rpl", "m.rpl"]
    assert data["notice"] == "m-2.rpl saved; training is not recorded"


@pytest.mark.gl
@pytest.mark.slow
def test_closing_the_window_saves_the_match(tmp_path):
    data, err = run_scripted(tmp_path, "fight_then_close", "--record", "c.rpl")
    assert data["status"] == 0, err
    (played,) = data["matches"]
    assert len(played["inputs"]) >= 300
    assert_file_is_the_match(tmp_path / "c.rpl", played)


@pytest.mark.gl
@pytest.mark.slow
def test_a_renderer_crash_saves_the_match_then_reports_it(tmp_path):
    """An exception in the renderer: the match so far is saved, the traceback is printed and
    the run ends with status 70 (an internal error), the last line naming the file."""
    data, err = run_scripted(tmp_path, "fight_then_crash", "--record", "x.rpl")
    assert data["status"] == 70, err
    (played,) = data["matches"]
    assert_file_is_the_match(tmp_path / "x.rpl", played)
    assert "Traceback" in err and "a renderer bug (scripted)" in err
    last = err.strip().splitlines()[-1]
    assert "internal error" in last and "x.rpl" in last, last


# ------------------------------------------------------------------ RecordingRun on its own
def _game(seed: int = 0) -> SimpleNamespace:
    from game.sim import Match

    return SimpleNamespace(match=Match.new(seed=seed, p2_cpu="easy"), step_listeners=[], training=None, ticks=0,
                           notice=None)


def _play(game: SimpleNamespace, frames: int) -> list[int]:
    """Step the game's match ``frames`` times as Game.step does (listeners after each step)."""
    from game.sim import FrameInput

    bits = []
    for i in range(frames):
        game.match.step(FrameInput(lp=i % 9 == 0), FrameInput())
        bits.append(game.match.last_inputs[0].bits)
        for listener in game.step_listeners:
            listener(game.match, ())
    return bits


def test_series_names():
    from game.cli.recording import series_path

    assert [series_path("fight.rpl", n) for n in (1, 2, 3)] == ["fight.rpl", "fight-2.rpl", "fight-3.rpl"]
    assert series_path("d/mine", 2) == "d/mine-2.rpl"
    assert series_path("A.RPL", 12) == "A-12.rpl"


def test_a_match_replaced_before_its_first_frame_makes_no_file_nor_takes_a_name(tmp_path):
    """The title screen's match (never stepped) is not saved; the first match played is FILE."""
    from game.cli.recording import RecordingRun
    from game.sim import Match

    g = _game()
    run = RecordingRun(str(tmp_path / "r.rpl"), False)
    run.follow(g)
    g.match = Match.new(seed=0, p2_cpu="easy")         # Enter on the title screen
    _play(g, 30)
    g.match = Match.new(seed=0, p2_cpu="easy")         # Restart
    g.match = Match.new(seed=0, p2_cpu="easy")         # Restart again before a frame
    _play(g, 12)
    run.end()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r-2.rpl", "r.rpl"]
    from game.replay import load_replay
    assert [load_replay(tmp_path / n).frames for n in ("r.rpl", "r-2.rpl")] == [30, 12]


def test_quitting_on_the_title_screen_saves_nothing_and_says_so(tmp_path):
    from game.cli.ending import Reason, Session
    from game.cli.recording import RecordingRun

    lines: list[str] = []
    session = Session(lines.append)
    RecordingRun(str(tmp_path / "t.rpl"), False, session=session).follow(_game())
    assert session.finish(Reason.NORMAL) == 0
    assert list(tmp_path.iterdir()) == []
    assert lines == [f"--record {tmp_path / 't.rpl'}: no match was played; nothing saved"]


def test_a_later_file_that_appeared_during_the_run_is_not_overwritten(tmp_path):
    """FILE-2.rpl made by someone else mid-run: the second match goes to the temp folder, the
    line says where, and the run's status is 2."""
    from game.cli.ending import Reason, Session
    from game.cli.recording import RecordingRun
    from game.replay import load_replay
    from game.sim import Match

    lines: list[str] = []
    session = Session(lines.append)
    g = _game()
    RecordingRun(str(tmp_path / "r.rpl"), False, session=session, report=lines.append).follow(g)
    _play(g, 20)
    (tmp_path / "r-2.rpl").write_bytes(b"someone else's")
    g.match = Match.new(seed=0, p2_cpu="easy")
    _play(g, 10)
    assert session.finish(Reason.NORMAL) == 2
    assert (tmp_path / "r-2.rpl").read_bytes() == b"someone else's"
    assert "match 1 saved to" in lines[0] and "could not save" in lines[1], lines
    elsewhere = lines[1].split("saved it to ")[1].split(" instead")[0]
    try:
        assert load_replay(elsewhere).frames == 10
    finally:
        os.unlink(elsewhere)


def test_with_force_the_later_files_are_overwritten(tmp_path):
    from game.cli.recording import RecordingRun
    from game.replay import load_replay
    from game.sim import Match

    (tmp_path / "r-2.rpl").write_bytes(b"an old run's")
    g = _game()
    run = RecordingRun(str(tmp_path / "r.rpl"), True)
    run.follow(g)
    _play(g, 20)
    g.match = Match.new(seed=0, p2_cpu="easy")
    _play(g, 10)
    run.end()
    assert load_replay(tmp_path / "r-2.rpl").frames == 10


def _args(tmp_path: Path, **kw) -> argparse.Namespace:
    base = dict(record=str(tmp_path / "fight.rpl"), force=False, headless=False, screenshot=None)
    return argparse.Namespace(**{**base, **kw})


def test_up_front_check_refuses_an_existing_later_file_without_force(tmp_path):
    from game.cli.program import UsageError
    from game.cli.recording import check_series

    check_series(_args(tmp_path))                           # nothing there: fine
    (tmp_path / "fight-3.rpl").write_bytes(b"x")
    (tmp_path / "fight-03.rpl").write_bytes(b"not ours")
    with pytest.raises(UsageError, match=r"fight-3\.rpl already exists.*--force"):
        check_series(_args(tmp_path))
    check_series(_args(tmp_path, force=True))               # --force covers it
    check_series(_args(tmp_path, headless=True))            # one match: FILE only
    (tmp_path / "fight-4.rpl").mkdir()
    with pytest.raises(UsageError, match=r"fight-4\.rpl is a directory"):
        check_series(_args(tmp_path, force=True))


def test_main_refuses_an_existing_later_file_before_the_window_opens(tmp_path):
    (tmp_path / "fight-2.rpl").write_bytes(b"precious")
    env = dict(os.environ, PYGLET_HEADLESS="1")
    p = subprocess.run([sys.executable, str(ROOT / "main.py"), "--record", "fight.rpl", "--frames", "5"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "fight-2.rpl already exists" in p.stderr
    assert (tmp_path / "fight-2.rpl").read_bytes() == b"precious" and not (tmp_path / "fight.rpl").exists()
