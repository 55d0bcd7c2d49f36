"""The saved settings under the command line (issue #34): a window's match takes the CPU level,
rounds and timer from the settings file, a flag overrides it, and a bad file is one line on
stderr and the defaults, never a failed run.  Each run records its match, whose replay header
says what the match was; every run has its own XDG_CONFIG_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from clihelp import ROOT

pytestmark = [pytest.mark.gl, pytest.mark.slow]


def run(tmp_path, *flags, settings: dict | bytes | None = None):
    env = dict(os.environ, PYGLET_HEADLESS="1", XDG_CONFIG_HOME=str(tmp_path / "config"))
    path = tmp_path / "config" / "rangebox" / "settings.json"
    if settings is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(settings if isinstance(settings, bytes) else json.dumps(settings).encode())
    out = tmp_path / "m.rpl"
    p = subprocess.run([sys.executable, str(ROOT / "main.py"), "--frames", "5", "--record", str(out), "--force",
                        *flags], env=env, capture_output=True, text=True, timeout=300)
    from game.replay import load_replay

    return p, (load_replay(out) if out.exists() else None), path


def test_saved_settings_make_the_match_and_flags_override_them(tmp_path):
    p, r, _ = run(tmp_path, settings={"rounds": 1, "timer": 30, "level": "easy"})
    assert p.returncode == 0, p.stderr
    assert (r.rounds, r.timer, r.cpu) == (1, 30, (None, "easy"))
    p, r, _ = run(tmp_path, "--rounds", "5", "--level", "hard")
    assert p.returncode == 0, p.stderr
    assert (r.rounds, r.timer, r.cpu) == (5, 30, (None, "hard"))       # the timer still the saved one


def test_corrupt_settings_file_is_one_line_and_the_defaults(tmp_path):
    p, r, path = run(tmp_path, settings=b'{"rounds": 3, "timer": "long"')
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if str(path) in ln]
    assert len(lines) == 1 and "not a JSON settings file" in lines[0] and "default" in lines[0], p.stderr
    assert "Traceback" not in p.stderr
    assert (r.rounds, r.timer, r.cpu) == (3, 60, (None, "normal"))
    p, r, path = run(tmp_path, settings={"timer": "long", "bindings": {"p1": {"lp": ["NO_SUCH_KEY"]}}})
    assert p.returncode == 0 and "'timer'" in p.stderr and "NO_SUCH_KEY" in p.stderr
    assert len([ln for ln in p.stderr.splitlines() if str(path) in ln]) == 2      # the file's two problems


def test_settings_flag_names_another_file_and_headless_reads_none(tmp_path):
    other = tmp_path / "mine.json"
    other.write_text(json.dumps({"rounds": 5}))
    p, r, _ = run(tmp_path, "--settings", str(other))
    assert p.returncode == 0, p.stderr
    assert r.rounds == 5
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    (tmp_path / "config" / "rangebox").mkdir(parents=True, exist_ok=True)
    (tmp_path / "config" / "rangebox" / "settings.json").write_text(json.dumps({"rounds": 1}))
    out = tmp_path / "h.rpl"
    h = subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--frames", "5", "--record", str(out)],
                       env=env, capture_output=True, text=True, timeout=300)
    from game.replay import load_replay

    assert h.returncode == 0, h.stderr
    assert load_replay(out).rounds == 3
