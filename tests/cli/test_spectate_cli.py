"""``main.py --spectate HOST[:PORT] --room NAME``: its flags' checks (exit 2, one line), and a
headless spectator joining a ``python3 -m game.server`` child's room mid-match: it exits 0
with the players' state and the referee's verdict, and its replay is the players' bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clihelp import assert_one_line
from game.cli import app
from game.cli.checks import check_net_flags
from game.cli.parser import SPECTATE_DELAY, apply_defaults, build_parser
from game.net.spectator import DELAY
from serverhelp import server_child

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("args, words", [
    (["--headless", "--spectate", "h"], ["--spectate", "--room NAME"]),
    (["--headless", "--spectate-delay", "5"], ["--spectate-delay", "--spectate"]),
    (["--headless", "--spectate", "h", "--room", "a", "--spectate-delay", "601"], ["--spectate-delay", "0 to 600"]),
    (["--headless", "--spectate", "h", "--room", "a", "--spectate-delay", "x"], ["--spectate-delay", "whole"]),
    (["--headless", "--spectate", "h:0", "--room", "a"], ["--spectate", "1 to 65535"]),
    (["--headless", "--spectate", ":7100", "--room", "a"], ["--spectate", "HOST"]),
    (["--headless", "--spectate", "h", "--room", "a", "--server", "h"], ["--spectate and --server"]),
    (["--headless", "--spectate", "h", "--room", "a", "--host", "0"], ["--spectate and --host"]),
    (["--headless", "--spectate", "h", "--room", "a", "--p1", "cpu"], ["--p1", "--spectate", "drop --p1"]),
    (["--headless", "--spectate", "h", "--room", "a", "--seed", "3"], ["--seed", "--spectate"]),
    (["--headless", "--spectate", "h", "--room", "a", "--input-delay", "3"], ["--input-delay", "--spectate"]),
    (["--headless", "--spectate", "h", "--room", "a", "--replay", "x.rpl"], ["--replay", "--spectate"]),
    (["--spectate", "h", "--room", "a", "--training"], ["--training", "--spectate"]),
])
def test_bad_spectator_flags_exit_2_with_one_line(args, words, capsys):
    assert app.main(args) == 2
    err = capsys.readouterr().err
    assert_one_line(err, *words)


def test_spectate_defaults_to_the_servers_port_and_the_sessions_delay():
    args = build_parser().parse_args(["--spectate", "h", "--room", "a", "--net-timeout", "2", "--record", "x.rpl"])
    check_net_flags(args)
    apply_defaults(args)
    assert args.spectate == ("h", 7100) and args.room == "a"
    assert args.spectate_delay == SPECTATE_DELAY == DELAY
    given = build_parser().parse_args(["--spectate", "h:7200", "--room", "a", "--spectate-delay", "0"])
    apply_defaults(given)
    assert given.spectate == ("h", 7200) and given.spectate_delay == 0


@pytest.mark.slow
def test_a_headless_spectator_joining_mid_match_ends_with_the_players_state_and_replay(tmp_path):
    child, port = server_child(tmp_path / "server")
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    server = f"127.0.0.1:{port}"
    main = [sys.executable, str(ROOT / "main.py")]
    common = ["--server", server, "--room", "arena", "--headless", "--realtime", "--frames", "420"]
    spectators: list[subprocess.Popen] = []
    try:
        a = subprocess.Popen([*main, *common, "--p1", "cpu", "--record", str(tmp_path / "a.rpl")],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        b = subprocess.Popen([*main, *common, "--p2", "cpu"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(3.5)                                   # the match is under way (60 frames a second)
        spectators.append(subprocess.Popen([*main, "--spectate", server, "--room", "arena", "--headless",
                                            "--record", str(tmp_path / "s.rpl")], cwd=tmp_path, env=env,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        spectators.append(subprocess.Popen([*main, "--spectate", server, "--room", "nowhere", "--headless"],
                                           cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True))
        outs = [p.communicate(timeout=120) for p in (a, b, *spectators)]
    finally:
        child.terminate()
        child.wait(30)
    s, nowhere = spectators
    assert a.returncode == 0, outs[0][1]
    assert b.returncode == 0, outs[1][1]
    assert s.returncode == 0, outs[2][1]
    player = json.loads(outs[0][0])
    watched = json.loads(outs[2][0])
    assert watched["room"] == "arena" and watched["frames"] == player["frames"] == 420
    assert watched["state_hash"] == player["state_hash"]
    assert watched["verdict"] == {"reason": "finished", "winner": watched["winner"], "culprits": [], "frame": 420,
                                  "state_hash": player["state_hash"], "agrees": True}
    assert watched["behind_max"] > 60                      # it came mid-match, and caught up from frame 0
    assert "watching room arena" in outs[2][1]
    assert (tmp_path / "s.rpl").read_bytes() == (tmp_path / "a.rpl").read_bytes()
    assert nowhere.returncode == 5 and "room nowhere has no match to watch" in outs[3][1]
